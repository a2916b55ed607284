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
mod browser;
mod enums;
mod origin;
mod paths;
mod sections;

pub use active_port::ActivePort;
pub use browser::{Browser, LinuxBrowser, MacosBrowser, WindowsBrowser};
pub use enums::{Channel, Engine, Os};
#[cfg(feature = "protected")]
pub(crate) use origin::default_port;
pub use origin::{split_host_port, Origin};
pub use paths::{home_dir, join_path, six_path_key, Env};
pub use sections::{
    DiscardException, Discovery, Electron, ElectronApp, ElectronLaunch, Launch, Location, Names,
    Platform, Platforms, Pref, ProcessScan, Profiles, ProtectedOrigins, Rank, Registry, Seven,
    SixProfiles, SixRoot, SixRoots, SourceRank, Tiers, WindowsPlatform,
};

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
        let catalog: Catalog = crate::json::parse_versioned("catalog.json", text, "schema")?;
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
