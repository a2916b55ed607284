//! The typed catalog (feature `serde`): every object of `catalog.json` as a struct.
//!
//! The types mirror the file one to one (`camelCase` names) and accept unknown fields, so a
//! catalog from a later minor release still parses. [`Catalog::parse`] rejects any `schema`
//! other than 1 and every regular expression that does not compile.
//!
//! ```
//! let cat = slicc_browsers::catalog();
//! let chrome = cat.browser("chrome").expect("chrome is in the catalog");
//! assert_eq!(chrome.name, "Google Chrome");
//! assert_eq!(cat.priority("chrome"), 0);
//! assert_eq!(cat.priority("no-such-browser"), cat.browsers.len());
//! ```

mod active_port;
mod enums;
mod origin;
mod paths;

pub use active_port::ActivePort;
pub use enums::{Channel, Engine, Os};
#[cfg(feature = "protected")]
pub(crate) use origin::default_port;
pub use origin::Origin;
pub use paths::{join_path, Env};

use std::collections::BTreeMap;
use std::sync::OnceLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

use crate::Error;

/// Parses the embedded [`CATALOG`](crate::CATALOG).
///
/// Each call parses anew and returns an owned copy; use [`shared_catalog`] for one instance
/// parsed once per process. The embedded file is proven to parse by the crate's tests, so this
/// never panics in a released crate.
pub fn catalog() -> Catalog {
    Catalog::parse(crate::CATALOG).expect("the embedded catalog.json parses (checked by the tests)")
}

/// The embedded catalog, parsed on first use and shared for the life of the process.
pub fn shared_catalog() -> &'static Catalog {
    static SHARED: OnceLock<Catalog> = OnceLock::new();
    SHARED.get_or_init(catalog)
}

/// `catalog.json`: the whole catalog.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Catalog {
    /// The catalog schema version; [`Catalog::parse`] accepts only 1.
    pub schema: u32,
    /// Endpoints and Chromium-versioned installs below this Chromium major are left out.
    pub min_chromium_major: u32,
    /// Every known Chromium browser, in rank priority order.
    pub browsers: Vec<Browser>,
    /// Known Electron apps and the ones that block remote debugging.
    pub electron: Electron,
    /// The ranking tiers and which browser is "Chrome".
    pub rank: Rank,
    /// How endpoints are discovered, checked and named.
    pub discovery: Discovery,
    /// Seven's origins, flags, prefs and discard exceptions.
    pub seven: Seven,
    /// What browser control must never reach.
    pub protected_origins: ProtectedOrigins,
    /// SLICC's profile roots, and SLICC six's profiles.
    pub profiles: Profiles,
    /// How a browser is launched for seven.
    pub launch: Launch,
    /// Config dirs, Windows roots and registry keys per OS.
    pub platforms: Platforms,
    #[serde(skip)]
    patterns: Patterns,
}

/// The catalog's regular expressions, compiled once.
#[derive(Debug, Clone, Default)]
struct Patterns {
    chrome_major: OnceLock<Option<Regex>>,
    origin_host: OnceLock<Option<Regex>>,
    six_profile: OnceLock<Option<Regex>>,
    name: OnceLock<Option<Regex>>,
}

/// Compiles `pattern` once into `cell`; `None` when it does not compile.
fn compiled<'a>(cell: &'a OnceLock<Option<Regex>>, pattern: &str) -> Option<&'a Regex> {
    cell.get_or_init(|| Regex::new(pattern).ok()).as_ref()
}

impl Catalog {
    /// Parses a catalog, rejecting a schema other than 1 and patterns that do not compile.
    ///
    /// The error names what was wrong: the line and column of a JSON or shape error, the
    /// schema value found, or the JSON path of a bad pattern.
    ///
    /// ```
    /// use slicc_browsers::{Catalog, Error};
    /// let err = Catalog::parse(r#"{"schema": 2}"#).unwrap_err();
    /// assert!(matches!(err, Error::Schema { .. }));
    /// ```
    pub fn parse(text: &str) -> Result<Catalog, Error> {
        const WHAT: &str = "catalog.json";
        // The schema is checked first, so a schema 2 file is reported as such and not as
        // whatever shape difference schema 2 brings.
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| Error::json(WHAT, &e))?;
        let Some(object) = value.as_object() else {
            return Err(Error::invalid("/", "the catalog must be a JSON object"));
        };
        match object.get("schema") {
            Some(serde_json::Value::Number(n)) if n.as_u64() == Some(u64::from(crate::SCHEMA)) => {}
            Some(other) => {
                return Err(Error::Schema {
                    what: WHAT,
                    found: other.to_string(),
                })
            }
            None => {
                return Err(Error::Schema {
                    what: WHAT,
                    found: "missing".into(),
                })
            }
        }
        // Parse from the text, not the value, so shape errors keep their line and column.
        let catalog: Catalog = serde_json::from_str(text).map_err(|e| Error::json(WHAT, &e))?;
        catalog.check_patterns()?;
        Ok(catalog)
    }

    /// Compiles every pattern, naming the first that does not compile.
    fn check_patterns(&self) -> Result<(), Error> {
        let checks: [(&str, &str, &OnceLock<Option<Regex>>); 4] = [
            (
                "/discovery/chromeMajorPattern",
                &self.discovery.chrome_major_pattern,
                &self.patterns.chrome_major,
            ),
            (
                "/seven/originHostPattern",
                &self.seven.origin_host_pattern,
                &self.patterns.origin_host,
            ),
            (
                "/profiles/sixProfilePattern",
                &self.profiles.six_profile_pattern,
                &self.patterns.six_profile,
            ),
            (
                "/profiles/namePattern",
                &self.profiles.name_pattern,
                &self.patterns.name,
            ),
        ];
        for (path, pattern, cell) in checks {
            let six = path.ends_with("sixProfilePattern");
            // Six's pattern is used case-insensitively, so that is the form that must compile.
            let text = if six {
                format!("(?i){pattern}")
            } else {
                pattern.to_string()
            };
            match Regex::new(&text) {
                Ok(re) => {
                    let _ = cell.set(Some(re));
                }
                Err(e) => {
                    return Err(Error::invalid(
                        path,
                        format!("pattern does not compile: {e}"),
                    ));
                }
            }
        }
        Ok(())
    }

    /// The browser with this id, if the catalog has one.
    pub fn browser(&self, id: &str) -> Option<&Browser> {
        self.browsers.iter().find(|b| b.id == id)
    }

    /// The rank priority of a browser id: its index in `browsers`, or `browsers.len()` for an
    /// id the catalog does not know (so unknown browsers rank after every known one).
    pub fn priority(&self, id: &str) -> usize {
        self.browsers
            .iter()
            .position(|b| b.id == id)
            .unwrap_or(self.browsers.len())
    }

    /// The Chromium major version in a user agent, by `discovery.chromeMajorPattern`.
    ///
    /// ```
    /// let cat = slicc_browsers::shared_catalog();
    /// let ua = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/154.0.0.0 Safari/537.36";
    /// assert_eq!(cat.chrome_major(ua), Some(154));
    /// assert_eq!(cat.chrome_major("curl/8.0"), None);
    /// ```
    pub fn chrome_major(&self, user_agent: &str) -> Option<u64> {
        let re = compiled(
            &self.patterns.chrome_major,
            &self.discovery.chrome_major_pattern,
        )?;
        let digits = re.captures(user_agent)?.get(1)?.as_str();
        // A major too long for u64 is far above any minimum: treat it as the largest value.
        Some(digits.parse().unwrap_or(u64::MAX))
    }

    /// Whether an endpoint with this user agent passes the `minChromiumMajor` filter: a user
    /// agent without a Chromium major passes.
    pub fn user_agent_passes(&self, user_agent: &str) -> bool {
        self.chrome_major(user_agent)
            .is_none_or(|major| major >= u64::from(self.min_chromium_major))
    }

    /// Whether an installed browser with this id and version passes the `minChromiumMajor`
    /// filter. Only catalog browsers with `chromiumVersion: true` are filtered, and only when
    /// the version starts with digits whose value is below the minimum.
    pub fn installed_passes(&self, id: &str, version: Option<&str>) -> bool {
        let Some(browser) = self.browser(id) else {
            return true;
        };
        if !browser.chromium_version {
            return true;
        }
        let Some(version) = version else { return true };
        let digits: &str = {
            let end = version
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(version.len());
            &version[..end]
        };
        if digits.is_empty() {
            return true;
        }
        digits
            .parse::<u64>()
            .map_or(true, |major| major >= u64::from(self.min_chromium_major))
    }

    /// Whether `name` is a valid SLICC profile name (`profiles.namePattern`).
    pub fn valid_profile_name(&self, name: &str) -> bool {
        compiled(&self.patterns.name, &self.profiles.name_pattern)
            .is_some_and(|re| re.is_match(name))
    }

    /// Whether a dir name in six's root is one of six's profiles (`profiles.sixProfilePattern`,
    /// matched case-insensitively).
    pub fn is_six_profile_name(&self, name: &str) -> bool {
        self.patterns
            .six_profile
            .get_or_init(|| Regex::new(&format!("(?i){}", self.profiles.six_profile_pattern)).ok())
            .as_ref()
            .is_some_and(|re| re.is_match(name))
    }

    /// The catalog's `seven.originHostPattern`, compiled.
    pub(crate) fn origin_host_regex(&self) -> Option<&Regex> {
        compiled(&self.patterns.origin_host, &self.seven.origin_host_pattern)
    }
}

/// A Chromium browser: one entry of `browsers`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Browser {
    /// `<vendor>[-<channel>]`, such as `chrome` or `edge-canary`.
    pub id: String,
    /// The display name, such as `Google Chrome`.
    pub name: String,
    /// `stable`, `beta`, `dev`, `canary`, `nightly`, `snapshot` or `testing`; see [`Browser::channel`].
    pub channel: String,
    /// Always `chromium`.
    pub engine: String,
    /// Whether the browser's version is the Chromium version (so `minChromiumMajor` applies).
    pub chromium_version: bool,
    /// Where and how it is installed on macOS.
    pub macos: MacosBrowser,
    /// Where and how it is installed on Windows, when it ships there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub windows: Option<WindowsBrowser>,
    /// Where and how it is installed on Linux, when it ships there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub linux: Option<LinuxBrowser>,
}

impl Browser {
    /// The channel as an enum, or `None` for a channel this crate does not know.
    pub fn channel(&self) -> Option<Channel> {
        self.channel.parse().ok()
    }

    /// The engine as an enum, or `None` for an engine this crate does not know.
    pub fn engine(&self) -> Option<Engine> {
        self.engine.parse().ok()
    }
}

/// A browser on macOS.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MacosBrowser {
    /// The bundle identifier, such as `com.google.Chrome`.
    pub bundle_id: String,
    /// The bundle's file name, such as `Google Chrome.app`.
    pub app: String,
    /// The file name under `Contents/MacOS`.
    pub executable: String,
    /// The default user-data dir under the macOS config dir (empty when unknown).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub data_dir: Vec<String>,
}

/// A browser on Windows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WindowsBrowser {
    /// Names of `platforms.windows.roots`, searched in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub roots: Vec<String>,
    /// Relative executable paths, each tried under each root.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub executables: Vec<Vec<String>>,
    /// The root (a name of `platforms.windows.roots`) of the default user-data dir.
    pub data_root: String,
    /// The default user-data dir under `data_root`.
    pub data_dir: Vec<String>,
    /// The browser's subkey names under the StartMenuInternet registry keys.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub start_menu_internet: Vec<String>,
}

/// A browser on Linux.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LinuxBrowser {
    /// Executable names looked up on `PATH`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bins: Vec<String>,
    /// `.desktop` file names without the suffix.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub desktop_ids: Vec<String>,
    /// The flatpak app id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flatpak: Option<String>,
    /// The snap name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snap: Option<String>,
    /// The user-data dir under `~/snap/<snap>/common`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub snap_data_dir: Vec<String>,
    /// The user-data dir under the Linux config dir (and a flatpak's `~/.var/app/<id>/config`).
    pub config_dir: Vec<String>,
    /// dpkg package names queried for the version.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub debs: Vec<String>,
}

/// `electron`: known Electron apps and the debug-blocked ones.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Electron {
    /// Known Electron apps on macOS, by bundle id.
    pub macos_apps: Vec<ElectronApp>,
    /// Names of apps that refuse remote debugging: listed as `debugSupport: "disabled"`, never launched.
    pub debug_blocked: Vec<String>,
    /// `electron:`, the prefix of every Electron app id.
    pub id_prefix: String,
}

impl Electron {
    /// An Electron app's id: [`Electron::id_prefix`] and the slug of its name (lower case, each
    /// run of characters other than ASCII letters and digits as one `-`, none at either end).
    ///
    /// ```
    /// let cat = slicc_browsers::shared_catalog();
    /// assert_eq!(cat.electron.app_id("Visual Studio Code - Insiders"), "electron:visual-studio-code-insiders");
    /// ```
    pub fn app_id(&self, name: &str) -> String {
        let mut slug = String::with_capacity(name.len());
        let mut pending_dash = false;
        for c in name.chars() {
            if c.is_ascii_alphanumeric() {
                if pending_dash && !slug.is_empty() {
                    slug.push('-');
                }
                pending_dash = false;
                slug.push(c.to_ascii_lowercase());
            } else {
                pending_dash = true;
            }
        }
        format!("{}{}", self.id_prefix, slug)
    }

    /// Whether the app with this name refuses remote debugging (compared without regard to case).
    pub fn is_debug_blocked(&self, name: &str) -> bool {
        self.debug_blocked
            .iter()
            .any(|blocked| blocked.eq_ignore_ascii_case(name))
    }
}

/// A known Electron app on macOS.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElectronApp {
    /// The app's bundle identifier.
    pub bundle_id: String,
    /// The app's display name.
    pub name: String,
}

/// `rank`: the tiers and the Chrome id.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Rank {
    /// The tier number of each kind of entry.
    pub tiers: Tiers,
    /// The browser id whose installs get the `chrome` tier.
    pub chrome_id: String,
}

/// `rank.tiers`: 1 to 6, lower ranks first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tiers {
    /// An endpoint with a seven tab open.
    pub seven_open: u8,
    /// Any other endpoint.
    pub endpoint: u8,
    /// An installed browser whose id is `rank.chromeId`.
    pub chrome: u8,
    /// Any other installed Chromium browser.
    pub chromium: u8,
    /// An installed Electron app.
    pub electron: u8,
    /// An endpoint in SLICC six's profile.
    pub six: u8,
}

/// `discovery`: how endpoints are found, checked and named.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Discovery {
    /// `DevToolsActivePort`: line 1 the port, line 2 the websocket path.
    pub active_port_file: String,
    /// Ports probed on loopback (slicc only).
    pub probe_ports: Vec<u16>,
    /// When sources find the same host and port, the lower rank wins.
    pub source_rank: SourceRank,
    /// Captures the Chromium major (group 1) in a user agent; searched, not anchored.
    pub chrome_major_pattern: String,
    /// How an endpoint not from a known browser's dir is named.
    pub names: Names,
    /// The process scan.
    pub process: ProcessScan,
}

/// `discovery.sourceRank`: the rank of each source (lower wins).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceRank {
    /// A DevToolsActivePort file.
    #[serde(rename = "devtools-active-port")]
    pub devtools_active_port: u32,
    /// A `--cdp` URL.
    pub flag: u32,
    /// The process scan.
    pub process: u32,
    /// The port probe.
    pub probe: u32,
}

/// `discovery.names`: endpoint names.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Names {
    /// A user agent containing this is an Electron app.
    pub electron_user_agent: String,
    /// The name of an Electron endpoint.
    pub electron: String,
    /// Display names by product token (the part of `Browser` before `/`).
    pub products: BTreeMap<String, String>,
    /// The name when there is no product.
    pub fallback: String,
}

/// `discovery.process`: finding browsers started with a debugging port by something else.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProcessScan {
    /// The Unix process-list argv: prints `pid command` per line.
    pub unix: Vec<String>,
    /// The Windows process-list argv: prints JSON `ProcessId`/`CommandLine` rows.
    pub windows: Vec<String>,
    /// `--remote-debugging-port`.
    pub port_flag: String,
    /// `--user-data-dir`.
    pub user_data_dir_flag: String,
    /// Characters that open a quoted switch value.
    #[serde(default)]
    pub value_quotes: Vec<String>,
    /// An unquoted value ends at whitespace followed by this.
    #[serde(default)]
    pub value_stop: String,
    /// Base names of wrapper programs, whose commands are skipped.
    pub wrappers: Vec<String>,
    /// Suffixes removed from the first token before comparing it with `wrappers`.
    pub wrapper_suffixes: Vec<String>,
}

/// `seven`: seven's origins, flags and prefs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Seven {
    /// Always `https`.
    pub origin_scheme: String,
    /// Matches a seven host; group 1 is the label checked against the exclusions.
    pub origin_host_pattern: String,
    /// Labels that are never seven.
    pub excluded_labels: Vec<String>,
    /// Label prefixes that are never seven.
    #[serde(default)]
    pub excluded_label_prefixes: Vec<String>,
    /// The content-settings site pattern, `[*.]sliccy.ai`.
    pub site_pattern: String,
    /// The seven launch switches.
    pub switches: Vec<String>,
    /// Features merged into one `--disable-features=` switch.
    pub disabled_features: Vec<String>,
    /// Values merged into `Default/Preferences`.
    pub prefs: Vec<Pref>,
    /// Where the seven sites go so tabs are never discarded.
    pub discard_exceptions: Vec<DiscardException>,
    /// Values that mark the last exit clean.
    pub clean_exit: Vec<Pref>,
}

/// A preference: a value at a key path in `Default/Preferences`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Pref {
    /// The key path, outermost first.
    pub path: Vec<String>,
    /// A boolean, number or string.
    pub value: serde_json::Value,
    /// `six` or `chrome-154`: where the key comes from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub form: Option<String>,
}

/// Where the discard exceptions go, and in which form.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiscardException {
    /// The key path in `Default/Preferences`.
    pub path: Vec<String>,
    /// `list` (site strings) or `chrome-time-map` (site to microseconds since 1601 as a string).
    #[serde(rename = "type")]
    pub kind: String,
    /// `six` or `chrome-154`.
    pub form: String,
}

/// `protectedOrigins`: what browser control must never reach.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProtectedOrigins {
    /// Domains protected with every subdomain at any depth.
    pub domains: Vec<String>,
    /// Hosts protected by name.
    pub hosts: Vec<String>,
    /// Schemes the host and domain rule applies to.
    pub schemes: Vec<String>,
    /// Wrapper schemes whose inner URL is judged instead, at most 8 times.
    pub inner_schemes: Vec<String>,
    /// Schemes always protected.
    pub any_schemes: Vec<String>,
    /// URLs that take their origin from the document's creator.
    pub inheriting: Vec<String>,
    /// The text of a refusal.
    pub refusal: String,
}

/// `profiles`: SLICC's profile roots and six's profiles.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Profiles {
    /// The profile root under the config dir.
    pub root: Vec<String>,
    /// The profile root under a snap's `~/snap/<snap>/common`.
    pub snap_root: Vec<String>,
    /// The old root, never scanned.
    pub legacy_root: Vec<String>,
    /// Six's profile names, matched case-insensitively; group 1 is the port suffix.
    pub six_profile_pattern: String,
    /// A valid profile name.
    pub name_pattern: String,
    /// SLICC six's profiles.
    pub six: SixProfiles,
}

/// `profiles.six`: SLICC six's Chrome profiles.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SixProfiles {
    /// Six's profile root per OS.
    pub roots: SixRoots,
    /// The profile name for the default serve port.
    pub default_name: String,
    /// The default serve port.
    pub default_port: u16,
    /// Appended for any other port, with `{port}` replaced.
    pub port_suffix: String,
    /// The variable that, trimmed and non-empty, names six's profile for every port.
    pub user_data_dir_env: String,
}

/// `profiles.six.roots`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SixRoots {
    /// macOS.
    pub macos: SixRoot,
    /// Linux.
    pub linux: SixRoot,
    /// Windows.
    pub windows: SixRoot,
}

/// A six root: a base location and the segments under it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SixRoot {
    /// The base; any non-empty env value is taken.
    pub base: Location,
    /// Appended to the base.
    pub path: Vec<String>,
}

/// `launch`: how seven's browsers are launched.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Launch {
    /// Chromium switches, with `{profile}` for the profile dir.
    pub chromium_args: Vec<String>,
    /// Added for a headless launch.
    pub headless: String,
    /// `--disable-features=`, the prefix of the merged feature list.
    pub disable_features_flag: String,
    /// How Electron apps are launched.
    pub electron: ElectronLaunch,
}

/// `launch.electron`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElectronLaunch {
    /// The port switch, with `{port}`.
    pub port_flag: String,
    /// The first port tried.
    pub min_port: u16,
    /// Ports never used.
    pub reserved_ports: Vec<u16>,
}

/// `platforms`: per-OS locations.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Platforms {
    /// macOS.
    pub macos: Platform,
    /// Linux.
    pub linux: Platform,
    /// Windows, with its roots and registry keys.
    pub windows: WindowsPlatform,
}

/// The locations of one OS.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Platform {
    /// The config dir.
    pub config: Location,
}

/// `platforms.windows`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WindowsPlatform {
    /// The config dir (`%APPDATA%`).
    pub config: Location,
    /// Named roots that browsers' `roots` and `dataRoot` refer to.
    pub roots: BTreeMap<String, Location>,
    /// Registry keys where browsers register themselves.
    pub registry: Registry,
}

/// `platforms.windows.registry`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Registry {
    /// `HKCU` and/or `HKLM`.
    pub hives: Vec<String>,
    /// Key paths whose subkeys are browsers.
    pub start_menu_internet: Vec<String>,
    /// The subkey whose default value is the launch command.
    pub open_command: String,
    /// The App Paths key.
    pub app_paths: String,
    /// Executable names looked up under `app_paths`.
    pub app_path_names: Vec<String>,
}

/// A location: an environment variable, else an absolute path, else segments under home.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Location {
    /// The variable tried first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub env: Option<String>,
    /// A path relative to the home dir.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub home: Option<Vec<String>>,
    /// A literal path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub absolute: Option<String>,
}
