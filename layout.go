package sliccbrowsers

import (
	"strings"
	"unicode"
)

// Layout is the machine a corpus case is laid out on: the OS under test, the fake home dir,
// the case's environment and the catalog that turns them into paths. Its answers are the Rust
// crate's corpus::Layout's, case by case.
//
// Paths are joined with the separator of OS, not of the machine the program runs on, so a
// Windows layout can be computed anywhere.
type Layout struct {
	// OS is the OS under test: darwin, linux or windows (macos is accepted too). Any other
	// value has no tokens: every path is "" and Expand leaves text as it is.
	OS string
	// Home is the fake home dir, spelled for the OS under test.
	Home string
	// Getenv reads the case's environment as the case writes it; "" means unset, and nil
	// means an empty environment. Tokens in a value are expanded before a location reads it.
	Getenv func(string) string
	// Catalog is the catalog the locations come from; nil means [Default].
	Catalog *Catalog
}

// osKind is an OS this package knows.
type osKind int

const (
	osMacos osKind = iota + 1
	osLinux
	osWindows
)

// parseOS reads darwin, macos, linux or windows.
func parseOS(name string) (osKind, bool) {
	switch name {
	case "darwin", "macos":
		return osMacos, true
	case "linux":
		return osLinux, true
	case "windows":
		return osWindows, true
	}
	return 0, false
}

func (o osKind) separator() byte {
	if o == osWindows {
		return '\\'
	}
	return '/'
}

// joinPath joins segments to base with the separator of o: separators at the end of base
// are trimmed, separators at each segment's ends too, empty segments are skipped, and on
// Windows every / in a segment becomes \.
func joinPath(o osKind, base string, segments ...string) string {
	seps := "/"
	if o == osWindows {
		seps = "/\\"
	}
	out := strings.TrimRight(base, seps)
	for _, segment := range segments {
		if o == osWindows {
			segment = strings.ReplaceAll(segment, "/", "\\")
		}
		segment = strings.Trim(segment, seps)
		if segment == "" {
			continue
		}
		out += string(o.separator()) + segment
	}
	return out
}

// resolve is the location on o: its variable when set and not empty (when mustBeAbsolute,
// only a value starting with /), else Absolute, else Home under home.
func (loc Location) resolve(o osKind, home string, env func(string) string, mustBeAbsolute bool) (string, bool) {
	if loc.Env != "" {
		if value := env(loc.Env); value != "" && (!mustBeAbsolute || strings.HasPrefix(value, "/")) {
			return value, true
		}
	}
	if loc.Absolute != "" {
		return loc.Absolute, true
	}
	if loc.Home != nil {
		return joinPath(o, home, loc.Home...), true
	}
	return "", false
}

// catalog is the layout's catalog, the default one when none is set.
func (l Layout) catalog() *Catalog {
	if l.Catalog != nil {
		return l.Catalog
	}
	return Default()
}

// rawEnv is the case's environment as written.
func (l Layout) rawEnv(key string) string {
	if l.Getenv == nil {
		return ""
	}
	return l.Getenv(key)
}

// envValue is a variable of the case's environment with its tokens expanded; the tokens
// inside a variable are resolved against the environment as written, so a value never
// depends on itself.
func (l Layout) envValue(key string) string {
	raw := l.rawEnv(key)
	if raw == "" {
		return ""
	}
	return l.expandWith(l.rawEnv, raw)
}

// Config is the config dir ({config}): the catalog's platforms.<os>.config. On Linux its
// variable counts only when it holds an absolute path. "" for an unknown OS.
func (l Layout) Config() string {
	v, _ := l.Token("config")
	return v
}

// SevenProfiles is SLICC's profile root ({sevenProfiles}): the config dir joined with
// profiles.root. "" for an unknown OS.
func (l Layout) SevenProfiles() string {
	v, _ := l.Token("sevenProfiles")
	return v
}

// SixProfiles is SLICC six's profile root ({sixProfiles}), from profiles.six.roots: its
// base (any non-empty variable, else under the home dir) and path. "" for an unknown OS.
func (l Layout) SixProfiles() string {
	v, _ := l.Token("sixProfiles")
	return v
}

// UserDataDirs is every default user-data dir of browser id on the OS under test, in the
// order discovery checks them; nil for an unknown id, a browser with none on this OS, or an
// unknown OS.
//
// macOS: the config dir and macos.dataDir. Windows: the dataRoot root and dataDir. Linux:
// the config dir and configDir, then the flatpak's ~/.var/app/<id>/config and configDir,
// then the snap's ~/snap/<snap>/common and snapDataDir.
func (l Layout) UserDataDirs(id string) []string {
	return l.userDataDirs(l.envValue, id)
}

func (l Layout) userDataDirs(env func(string) string, id string) []string {
	o, ok := parseOS(l.OS)
	if !ok {
		return nil
	}
	cat := l.catalog()
	b, ok := cat.Browser(id)
	if !ok {
		return nil
	}
	var dirs []string
	switch o {
	case osMacos:
		if len(b.Macos.DataDir) > 0 {
			if config, ok := l.configDir(o, env); ok {
				dirs = append(dirs, joinPath(o, config, b.Macos.DataDir...))
			}
		}
	case osWindows:
		if w := b.Windows; w != nil {
			if loc, ok := cat.Platforms.Windows.Roots[w.DataRoot]; ok {
				if root, ok := loc.resolve(o, l.Home, env, false); ok {
					dirs = append(dirs, joinPath(o, root, w.DataDir...))
				}
			}
		}
	case osLinux:
		if lb := b.Linux; lb != nil {
			if config, ok := l.configDir(o, env); ok {
				dirs = append(dirs, joinPath(o, config, lb.ConfigDir...))
			}
			if lb.Flatpak != "" {
				base := joinPath(o, l.Home, ".var", "app", lb.Flatpak, "config")
				dirs = append(dirs, joinPath(o, base, lb.ConfigDir...))
			}
			if lb.Snap != "" && len(lb.SnapDataDir) > 0 {
				base := joinPath(o, l.Home, "snap", lb.Snap, "common")
				dirs = append(dirs, joinPath(o, base, lb.SnapDataDir...))
			}
		}
	}
	return dirs
}

func (l Layout) configDir(o osKind, env func(string) string) (string, bool) {
	p := l.catalog().Platforms
	loc := p.Macos.Config
	switch o {
	case osLinux:
		loc = p.Linux.Config
	case osWindows:
		loc = p.Windows.Config
	}
	return loc.resolve(o, l.Home, env, o == osLinux)
}

// Token is the value of a token, named without braces (home, config, sevenProfiles,
// sixProfiles, userData:<id>; braces around the name are tolerated), and whether there is
// one: false for any other name, an unknown browser id, a browser with no user-data dir on
// this OS, or an unknown OS.
func (l Layout) Token(name string) (string, bool) {
	return l.tokenWith(l.envValue, name)
}

func (l Layout) tokenWith(env func(string) string, name string) (string, bool) {
	o, ok := parseOS(l.OS)
	if !ok {
		return "", false
	}
	if strings.HasPrefix(name, "{") && strings.HasSuffix(name, "}") && len(name) >= 2 {
		name = name[1 : len(name)-1]
	}
	cat := l.catalog()
	switch name {
	case "home":
		return l.Home, true
	case "config":
		return l.configDir(o, env)
	case "sevenProfiles":
		config, ok := l.configDir(o, env)
		if !ok {
			return "", false
		}
		return joinPath(o, config, cat.Profiles.Root...), true
	case "sixProfiles":
		root := cat.Profiles.Six.Roots.Macos
		switch o {
		case osLinux:
			root = cat.Profiles.Six.Roots.Linux
		case osWindows:
			root = cat.Profiles.Six.Roots.Windows
		}
		base, ok := root.Base.resolve(o, l.Home, env, false)
		if !ok {
			return "", false
		}
		return joinPath(o, base, root.Path...), true
	}
	id, ok := userDataID(name)
	if !ok {
		return "", false
	}
	dirs := l.userDataDirs(env, id)
	if len(dirs) == 0 {
		return "", false
	}
	return dirs[0], true
}

// userDataID is the browser id of a userData:<id> token name, when the id has the allowed
// form (lower-case letters, digits and -, at least one).
func userDataID(name string) (string, bool) {
	id := strings.TrimPrefix(name, "userData:")
	if id == name || id == "" {
		return "", false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return "", false
		}
	}
	return id, true
}

// Expand expands every token in text: a known {token} and the path characters after it, up
// to the first white space, ", ' or , (or the end), become one path joined with the OS's
// separator (on Windows every / in that span becomes \). What follows the stop character,
// and every unknown or malformed {…}, is left as it is. On an unknown OS text is returned
// unchanged.
func (l Layout) Expand(text string) string {
	return l.expandWith(l.envValue, text)
}

func (l Layout) expandWith(env func(string) string, text string) string {
	o, ok := parseOS(l.OS)
	if !ok {
		return text
	}
	var out strings.Builder
	rest := text
	for {
		open := strings.IndexByte(rest, '{')
		if open < 0 {
			break
		}
		out.WriteString(rest[:open])
		after := rest[open+1:]
		close := strings.IndexByte(after, '}')
		value, found := "", false
		if close >= 0 {
			value, found = l.tokenWith(env, after[:close])
		}
		if !found {
			// Not a token: keep the brace and look again from the next character.
			out.WriteByte('{')
			rest = after
			continue
		}
		tail := after[close+1:]
		end := strings.IndexFunc(tail, isStop)
		if end < 0 {
			end = len(tail)
		}
		out.WriteString(joinPath(o, value, tail[:end]))
		rest = tail[end:]
	}
	out.WriteString(rest)
	return out.String()
}

// isStop reports whether c ends the path characters that follow a token.
func isStop(c rune) bool {
	return unicode.IsSpace(c) || c == '"' || c == '\'' || c == ','
}
