package sliccbrowsers

import (
	"encoding/json"
	"sync"
)

// Catalog is catalog.json: every known Chromium browser in rank order, the Electron apps,
// the ranking tiers, the discovery rules, seven's flags and prefs, the protected origins,
// SLICC's profiles, how browsers are launched, and the per-OS locations.
//
// Field names are the JSON member names in Go's exported form. Every object keeps the
// members this version does not name in its Extra map, and [Catalog.MarshalJSON] writes
// them back, so re-encoding a catalog loses nothing.
type Catalog struct {
	// Schema is the catalog schema version; [Parse] accepts only 1.
	Schema int `json:"schema"`
	// MinChromiumMajor: endpoints and Chromium-versioned installs below this major are left out.
	MinChromiumMajor int `json:"minChromiumMajor"`
	// Browsers is every known Chromium browser, in rank priority order.
	Browsers []Browser `json:"browsers"`
	// Electron is the known Electron apps and the ones that block remote debugging.
	Electron Electron `json:"electron"`
	// Rank is the ranking tiers and which browser is Chrome.
	Rank Rank `json:"rank"`
	// Discovery is how endpoints are found, checked and named.
	Discovery Discovery `json:"discovery"`
	// Seven is seven's origins, flags, prefs and discard exceptions.
	Seven Seven `json:"seven"`
	// ProtectedOrigins is what browser control must never reach.
	ProtectedOrigins ProtectedOrigins `json:"protectedOrigins"`
	// Profiles is SLICC's profile roots and SLICC six's profiles.
	Profiles Profiles `json:"profiles"`
	// Launch is how a browser is launched for seven.
	Launch Launch `json:"launch"`
	// Platforms is the config dirs, Windows roots and registry keys per OS.
	Platforms Platforms `json:"platforms"`
	// Extra holds the members this version does not name, as they were in the file.
	Extra map[string]json.RawMessage `json:"-"`
}

var defaultCatalog struct {
	once    sync.Once
	catalog *Catalog
	err     error
}

// Load parses the embedded catalog.json on its first call and returns that catalog on every
// call. Treat it as read-only: every caller shares it. Use [Parse] on [CatalogJSON] for a
// copy of your own.
func Load() (*Catalog, error) {
	defaultCatalog.once.Do(func() {
		defaultCatalog.catalog, defaultCatalog.err = Parse(catalogJSON)
	})
	return defaultCatalog.catalog, defaultCatalog.err
}

// Default is [Load] for programs that rely on the embedded catalog: it panics if the
// embedded catalog.json does not parse, which the package's tests rule out for every
// release. Treat the result as read-only.
func Default() *Catalog {
	c, err := Load()
	if err != nil {
		panic("sliccbrowsers: the embedded catalog.json does not parse: " + err.Error())
	}
	return c
}

// Parse parses a catalog.json, rejecting a schema other than 1 ([ErrSchema]). A member of
// the wrong type ([ErrType]) or a missing required one ([ErrMissing]) is an *[Error] naming
// catalog.json and the member's JSON pointer.
func Parse(text []byte) (*Catalog, error) {
	var c Catalog
	if err := parseVersioned("catalog.json", text, "schema", &c); err != nil {
		return nil, err
	}
	return &c, nil
}

// Browser returns the browser with this id, and whether the catalog has one. The pointer
// points into c.Browsers.
func (c *Catalog) Browser(id string) (*Browser, bool) {
	for i := range c.Browsers {
		if c.Browsers[i].ID == id {
			return &c.Browsers[i], true
		}
	}
	return nil, false
}

// Priority is the rank priority of a browser id: its index in Browsers, or len(Browsers)
// for an id the catalog does not know, so unknown browsers rank after every known one.
func (c *Catalog) Priority(id string) int {
	for i := range c.Browsers {
		if c.Browsers[i].ID == id {
			return i
		}
	}
	return len(c.Browsers)
}

// Browser is one entry of browsers: a Chromium browser and where it lives on each OS.
type Browser struct {
	// ID is <vendor>[-<channel>], such as chrome or edge-canary.
	ID string `json:"id"`
	// Name is the display name, such as Google Chrome.
	Name string `json:"name"`
	// Channel is stable, beta, dev, canary, nightly, snapshot or testing.
	Channel string `json:"channel"`
	// Engine is chromium.
	Engine string `json:"engine"`
	// ChromiumVersion says whether the browser's version is the Chromium version (so
	// minChromiumMajor applies to it).
	ChromiumVersion bool `json:"chromiumVersion"`
	// Macos is where and how it is installed on macOS.
	Macos MacosBrowser `json:"macos"`
	// Windows is where and how it is installed on Windows; nil when it does not ship there.
	Windows *WindowsBrowser `json:"windows,omitempty"`
	// Linux is where and how it is installed on Linux; nil when it does not ship there.
	Linux *LinuxBrowser `json:"linux,omitempty"`
	// Extra holds the members this version does not name, as they were in the file.
	Extra map[string]json.RawMessage `json:"-"`
}

// MacosBrowser is a browser on macOS.
type MacosBrowser struct {
	// BundleID is the bundle identifier, such as com.google.Chrome.
	BundleID string `json:"bundleId"`
	// App is the bundle's file name, such as Google Chrome.app.
	App string `json:"app"`
	// Executable is the file name under Contents/MacOS.
	Executable string `json:"executable"`
	// DataDir is the default user-data dir under the macOS config dir, as path segments
	// (nil when unknown).
	DataDir []string `json:"dataDir,omitempty"`
	// Extra holds the members this version does not name, as they were in the file.
	Extra map[string]json.RawMessage `json:"-"`
}

// WindowsBrowser is a browser on Windows.
type WindowsBrowser struct {
	// Roots names platforms.windows.roots, searched in order.
	Roots []string `json:"roots,omitempty"`
	// Executables are relative executable paths (segments), each tried under each root.
	Executables [][]string `json:"executables,omitempty"`
	// DataRoot names the root (of platforms.windows.roots) of the default user-data dir.
	DataRoot string `json:"dataRoot"`
	// DataDir is the default user-data dir under DataRoot, as path segments.
	DataDir []string `json:"dataDir"`
	// StartMenuInternet is the browser's subkey names under the StartMenuInternet keys.
	StartMenuInternet []string `json:"startMenuInternet,omitempty"`
	// Extra holds the members this version does not name, as they were in the file.
	Extra map[string]json.RawMessage `json:"-"`
}

// LinuxBrowser is a browser on Linux.
type LinuxBrowser struct {
	// Bins are executable names looked up on PATH.
	Bins []string `json:"bins,omitempty"`
	// DesktopIDs are .desktop file names without the suffix.
	DesktopIDs []string `json:"desktopIds,omitempty"`
	// Flatpak is the flatpak app id ("" when there is none).
	Flatpak string `json:"flatpak,omitempty"`
	// Snap is the snap name ("" when there is none).
	Snap string `json:"snap,omitempty"`
	// SnapDataDir is the user-data dir under ~/snap/<snap>/common, as path segments.
	SnapDataDir []string `json:"snapDataDir,omitempty"`
	// ConfigDir is the user-data dir under the Linux config dir (and under a flatpak's
	// ~/.var/app/<id>/config), as path segments.
	ConfigDir []string `json:"configDir"`
	// Debs are dpkg package names queried for the version.
	Debs []string `json:"debs,omitempty"`
	// Extra holds the members this version does not name, as they were in the file.
	Extra map[string]json.RawMessage `json:"-"`
}

// Electron is the catalog's electron: known Electron apps and the debug-blocked ones.
type Electron struct {
	// MacosApps are known Electron apps on macOS, by bundle id.
	MacosApps []ElectronApp `json:"macosApps"`
	// DebugBlocked names apps that refuse remote debugging: listed with debugSupport
	// "disabled", never launched.
	DebugBlocked []string `json:"debugBlocked"`
	// IDPrefix is electron:, the prefix of every Electron app id.
	IDPrefix string `json:"idPrefix"`
	// Extra holds the members this version does not name, as they were in the file.
	Extra map[string]json.RawMessage `json:"-"`
}

// ElectronApp is a known Electron app on macOS.
type ElectronApp struct {
	// BundleID is the app's bundle identifier.
	BundleID string `json:"bundleId"`
	// Name is the app's display name.
	Name string `json:"name"`
	// Extra holds the members this version does not name, as they were in the file.
	Extra map[string]json.RawMessage `json:"-"`
}

// Rank is the catalog's rank: the tiers and the Chrome id.
type Rank struct {
	// Tiers is the tier number of each kind of entry.
	Tiers Tiers `json:"tiers"`
	// ChromeID is the browser id whose installs get the chrome tier.
	ChromeID string `json:"chromeId"`
	// Extra holds the members this version does not name, as they were in the file.
	Extra map[string]json.RawMessage `json:"-"`
}

// Tiers is rank.tiers, 1 to 6: lower tiers rank first.
type Tiers struct {
	// SevenOpen is the tier of an endpoint with a seven tab open.
	SevenOpen int `json:"sevenOpen"`
	// Endpoint is the tier of any other endpoint.
	Endpoint int `json:"endpoint"`
	// Chrome is the tier of an installed rank.chromeId browser.
	Chrome int `json:"chrome"`
	// Chromium is the tier of any other installed Chromium browser.
	Chromium int `json:"chromium"`
	// Electron is the tier of an installed Electron app.
	Electron int `json:"electron"`
	// Six is the tier of an endpoint in SLICC six's profile.
	Six int `json:"six"`
	// Extra holds the members this version does not name, as they were in the file.
	Extra map[string]json.RawMessage `json:"-"`
}

// Discovery is the catalog's discovery: how endpoints are found, checked and named.
type Discovery struct {
	// ActivePortFile is DevToolsActivePort: line 1 the port, line 2 the websocket path.
	ActivePortFile string `json:"activePortFile"`
	// ProbePorts are the ports probed on loopback (slicc only).
	ProbePorts []int `json:"probePorts"`
	// SourceRank says which source wins when two find the same host and port.
	SourceRank SourceRank `json:"sourceRank"`
	// ChromeMajorPattern captures the Chromium major (group 1) in a user agent.
	ChromeMajorPattern string `json:"chromeMajorPattern"`
	// Names is how an endpoint not from a known browser's dir is named.
	Names Names `json:"names"`
	// Process is the process scan.
	Process ProcessScan `json:"process"`
	// Extra holds the members this version does not name, as they were in the file.
	Extra map[string]json.RawMessage `json:"-"`
}

// SourceRank is discovery.sourceRank: the rank of each source (lower wins).
type SourceRank struct {
	// DevtoolsActivePort is the rank of a DevToolsActivePort file.
	DevtoolsActivePort int `json:"devtools-active-port"`
	// Flag is the rank of a --cdp URL.
	Flag int `json:"flag"`
	// Process is the rank of the process scan.
	Process int `json:"process"`
	// Probe is the rank of the port probe.
	Probe int `json:"probe"`
	// Extra holds the members this version does not name, as they were in the file.
	Extra map[string]json.RawMessage `json:"-"`
}

// Names is discovery.names: the names of endpoints.
type Names struct {
	// ElectronUserAgent: a user agent containing it is an Electron app's.
	ElectronUserAgent string `json:"electronUserAgent"`
	// Electron is the name of an Electron endpoint.
	Electron string `json:"electron"`
	// Products are display names by product token (the part of Browser before /).
	Products map[string]string `json:"products"`
	// Fallback is the name when there is no product.
	Fallback string `json:"fallback"`
	// Extra holds the members this version does not name, as they were in the file.
	Extra map[string]json.RawMessage `json:"-"`
}

// ProcessScan is discovery.process: finding browsers started with a debugging port by
// something else.
type ProcessScan struct {
	// Unix is the Unix process-list argv; it prints "pid command" lines.
	Unix []string `json:"unix"`
	// Windows is the Windows process-list argv; it prints JSON ProcessId/CommandLine rows.
	Windows []string `json:"windows"`
	// PortFlag is --remote-debugging-port.
	PortFlag string `json:"portFlag"`
	// UserDataDirFlag is --user-data-dir.
	UserDataDirFlag string `json:"userDataDirFlag"`
	// ValueQuotes are the characters that open a quoted switch value.
	ValueQuotes []string `json:"valueQuotes,omitempty"`
	// ValueStop ends an unquoted value when it follows whitespace.
	ValueStop string `json:"valueStop,omitempty"`
	// Wrappers are base names of wrapper programs, whose commands are skipped.
	Wrappers []string `json:"wrappers"`
	// WrapperSuffixes are removed from the first token before comparing it with Wrappers.
	WrapperSuffixes []string `json:"wrapperSuffixes"`
	// Extra holds the members this version does not name, as they were in the file.
	Extra map[string]json.RawMessage `json:"-"`
}

// Seven is the catalog's seven: seven's origins, flags and prefs.
type Seven struct {
	// OriginScheme is https.
	OriginScheme string `json:"originScheme"`
	// OriginHostPattern matches a seven host; group 1 is the label checked against the
	// exclusions.
	OriginHostPattern string `json:"originHostPattern"`
	// ExcludedLabels are labels that are never seven.
	ExcludedLabels []string `json:"excludedLabels"`
	// ExcludedLabelPrefixes are label prefixes that are never seven.
	ExcludedLabelPrefixes []string `json:"excludedLabelPrefixes,omitempty"`
	// SitePattern is the content-settings site pattern, [*.]sliccy.ai.
	SitePattern string `json:"sitePattern"`
	// Switches are seven's launch switches.
	Switches []string `json:"switches"`
	// DisabledFeatures are merged into one --disable-features= switch.
	DisabledFeatures []string `json:"disabledFeatures"`
	// Prefs are values merged into a profile's Default/Preferences.
	Prefs []Pref `json:"prefs"`
	// DiscardExceptions say where seven's sites go so its tabs are never discarded.
	DiscardExceptions []DiscardException `json:"discardExceptions"`
	// CleanExit are the values that mark the last exit clean.
	CleanExit []Pref `json:"cleanExit"`
	// Extra holds the members this version does not name, as they were in the file.
	Extra map[string]json.RawMessage `json:"-"`
}

// Pref is a value at a key path in Default/Preferences.
type Pref struct {
	// Path is the key path, outermost first.
	Path []string `json:"path"`
	// Value is a boolean, number or string, as JSON.
	Value json.RawMessage `json:"value"`
	// Form is six or chrome-154: where the key comes from ("" when not given).
	Form string `json:"form,omitempty"`
	// Extra holds the members this version does not name, as they were in the file.
	Extra map[string]json.RawMessage `json:"-"`
}

// DiscardException says where the discard exceptions go, and in which form.
type DiscardException struct {
	// Path is the key path in Default/Preferences.
	Path []string `json:"path"`
	// Type is list (site strings) or chrome-time-map (site to microseconds since 1601).
	Type string `json:"type"`
	// Form is six or chrome-154.
	Form string `json:"form"`
	// Extra holds the members this version does not name, as they were in the file.
	Extra map[string]json.RawMessage `json:"-"`
}

// ProtectedOrigins is the catalog's protectedOrigins: what browser control must never
// reach.
type ProtectedOrigins struct {
	// Domains are protected with every subdomain, at any depth.
	Domains []string `json:"domains"`
	// Hosts are protected by name.
	Hosts []string `json:"hosts"`
	// Schemes are the schemes the host and domain rule applies to.
	Schemes []string `json:"schemes"`
	// InnerSchemes wrap a URL that is judged instead, at most 8 times.
	InnerSchemes []string `json:"innerSchemes"`
	// AnySchemes are always protected.
	AnySchemes []string `json:"anySchemes"`
	// Inheriting are the URLs that take their origin from the document's creator.
	Inheriting []string `json:"inheriting"`
	// Refusal is the text of a refusal.
	Refusal string `json:"refusal"`
	// Extra holds the members this version does not name, as they were in the file.
	Extra map[string]json.RawMessage `json:"-"`
}

// Profiles is the catalog's profiles: SLICC's profile roots and SLICC six's profiles.
type Profiles struct {
	// Root is the profile root under the config dir, as path segments.
	Root []string `json:"root"`
	// SnapRoot is the profile root under a snap's ~/snap/<snap>/common.
	SnapRoot []string `json:"snapRoot"`
	// LegacyRoot is the old root, never scanned.
	LegacyRoot []string `json:"legacyRoot"`
	// SixProfilePattern matches six's profile names, case-insensitively.
	SixProfilePattern string `json:"sixProfilePattern"`
	// NamePattern matches a valid profile name.
	NamePattern string `json:"namePattern"`
	// Six describes SLICC six's Chrome profiles.
	Six SixProfiles `json:"six"`
	// Extra holds the members this version does not name, as they were in the file.
	Extra map[string]json.RawMessage `json:"-"`
}

// SixProfiles is profiles.six: SLICC six's Chrome profiles.
type SixProfiles struct {
	// Roots is six's profile root per OS.
	Roots SixRoots `json:"roots"`
	// DefaultName is the profile name for the default serve port.
	DefaultName string `json:"defaultName"`
	// DefaultPort is the default serve port.
	DefaultPort int `json:"defaultPort"`
	// PortSuffix is appended for any other port, with {port} replaced.
	PortSuffix string `json:"portSuffix"`
	// UserDataDirEnv names the variable that, trimmed and not empty, is six's profile for
	// every port.
	UserDataDirEnv string `json:"userDataDirEnv"`
	// Extra holds the members this version does not name, as they were in the file.
	Extra map[string]json.RawMessage `json:"-"`
}

// SixRoots is profiles.six.roots.
type SixRoots struct {
	// Macos is six's root on macOS.
	Macos SixRoot `json:"macos"`
	// Linux is six's root on Linux.
	Linux SixRoot `json:"linux"`
	// Windows is six's root on Windows.
	Windows SixRoot `json:"windows"`
	// Extra holds the members this version does not name, as they were in the file.
	Extra map[string]json.RawMessage `json:"-"`
}

// SixRoot is a six root: a base location and the path segments under it.
type SixRoot struct {
	// Base is the base location; any non-empty value of its variable is taken.
	Base Location `json:"base"`
	// Path is appended to the base.
	Path []string `json:"path"`
	// Extra holds the members this version does not name, as they were in the file.
	Extra map[string]json.RawMessage `json:"-"`
}

// Launch is the catalog's launch: how seven's browsers are launched.
type Launch struct {
	// ChromiumArgs are Chromium switches, with {profile} for the profile dir.
	ChromiumArgs []string `json:"chromiumArgs"`
	// Headless is added for a headless launch.
	Headless string `json:"headless"`
	// DisableFeaturesFlag is --disable-features=, the prefix of the merged feature list.
	DisableFeaturesFlag string `json:"disableFeaturesFlag"`
	// Electron is how Electron apps are launched.
	Electron ElectronLaunch `json:"electron"`
	// Extra holds the members this version does not name, as they were in the file.
	Extra map[string]json.RawMessage `json:"-"`
}

// ElectronLaunch is launch.electron.
type ElectronLaunch struct {
	// PortFlag is the port switch, with {port}.
	PortFlag string `json:"portFlag"`
	// MinPort is the first port tried.
	MinPort int `json:"minPort"`
	// ReservedPorts are never used.
	ReservedPorts []int `json:"reservedPorts"`
	// Extra holds the members this version does not name, as they were in the file.
	Extra map[string]json.RawMessage `json:"-"`
}

// Platforms is the catalog's platforms: the locations per OS.
type Platforms struct {
	// Macos is macOS's config dir.
	Macos Platform `json:"macos"`
	// Linux is Linux's config dir.
	Linux Platform `json:"linux"`
	// Windows is Windows's config dir, roots and registry keys.
	Windows WindowsPlatform `json:"windows"`
	// Extra holds the members this version does not name, as they were in the file.
	Extra map[string]json.RawMessage `json:"-"`
}

// Platform is the locations of one OS.
type Platform struct {
	// Config is the config dir.
	Config Location `json:"config"`
	// Extra holds the members this version does not name, as they were in the file.
	Extra map[string]json.RawMessage `json:"-"`
}

// WindowsPlatform is platforms.windows.
type WindowsPlatform struct {
	// Config is the config dir (%APPDATA%).
	Config Location `json:"config"`
	// Roots are the named roots that browsers' roots and dataRoot refer to.
	Roots map[string]Location `json:"roots"`
	// Registry is where browsers register themselves.
	Registry Registry `json:"registry"`
	// Extra holds the members this version does not name, as they were in the file.
	Extra map[string]json.RawMessage `json:"-"`
}

// Registry is platforms.windows.registry.
type Registry struct {
	// Hives are HKCU and/or HKLM.
	Hives []string `json:"hives"`
	// StartMenuInternet are key paths whose subkeys are browsers.
	StartMenuInternet []string `json:"startMenuInternet"`
	// OpenCommand is the subkey whose default value is the launch command.
	OpenCommand string `json:"openCommand"`
	// AppPaths is the App Paths key.
	AppPaths string `json:"appPaths"`
	// AppPathNames are executable names looked up under AppPaths.
	AppPathNames []string `json:"appPathNames"`
	// Extra holds the members this version does not name, as they were in the file.
	Extra map[string]json.RawMessage `json:"-"`
}

// Location is a place on disk: the variable Env when it is set (on Linux's config dir only
// an absolute path counts), else Absolute, else Home under the home dir.
type Location struct {
	// Env is the environment variable tried first ("" for none).
	Env string `json:"env,omitempty"`
	// Home is a path relative to the home dir, as segments (nil for none).
	Home []string `json:"home,omitempty"`
	// Absolute is a literal path ("" for none).
	Absolute string `json:"absolute,omitempty"`
	// Extra holds the members this version does not name, as they were in the file.
	Extra map[string]json.RawMessage `json:"-"`
}
