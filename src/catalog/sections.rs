//! The catalog's sections other than `browsers`: Electron apps, ranking, discovery, seven,
//! protected origins, profiles, launch and platforms.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

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
