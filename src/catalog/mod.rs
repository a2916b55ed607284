//! The typed catalog (feature `serde`): every object of `catalog.json` as a struct.
//!
//! The types mirror the file one to one (`camelCase` names) and accept unknown fields, so a
//! catalog from a later minor release still parses. [`Catalog::parse`] reads the text in one
//! pass and rejects any `schema` other than 1. The four regular expressions
//! (`chromeMajorPattern`, `originHostPattern`, `sixProfilePattern`, `namePattern`) are compiled
//! only by what uses them, with feature `patterns` (which `discovery` and `launch` turn on):
//! `Catalog::chrome_major`, `Catalog::user_agent_passes`, `Catalog::is_seven_origin`,
//! `Catalog::valid_profile_name` and `Catalog::is_six_profile_name` compile theirs on first
//! use, and `Catalog::check_patterns` compiles all four and names one that does not compile.
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
mod patterns;
mod sections;

pub use active_port::ActivePort;
pub use browser::{Browser, LinuxBrowser, MacosBrowser, WindowsBrowser};
pub use enums::{Channel, Engine, Os};
#[cfg(feature = "protected")]
pub(crate) use origin::default_port;
#[cfg(any(feature = "protected", feature = "discovery"))]
pub use origin::NotAnOrigin;
pub use origin::{split_host_port, Origin};
pub use paths::{home_dir, join_path, six_path_key, Env};
use patterns::Patterns;
pub use sections::{
    DiscardException, Discovery, Electron, ElectronApp, ElectronLaunch, Launch, Location, Names,
    Platform, Platforms, Pref, ProcessScan, Profiles, ProtectedOrigins, Rank, Registry, Seven,
    SixProfiles, SixRoot, SixRoots, SourceRank, Tiers, WindowsPlatform,
};

use serde::{Deserialize, Serialize};

use crate::error::Error;

/// Parses the embedded [`CATALOG`](crate::files::CATALOG).
///
/// Each call parses anew (one pass over the text, no pattern compiled) and returns an owned
/// copy; use [`shared_catalog`] for one instance parsed once per process. The embedded file is
/// proven to parse by the crate's tests, so this never panics in a released crate.
pub fn catalog() -> Catalog {
    Catalog::parse(crate::files::CATALOG)
        .expect("the embedded catalog.json parses (checked by the tests)")
}

/// The embedded catalog, parsed on first use and shared for the life of the process.
pub fn shared_catalog() -> &'static Catalog {
    static SHARED: std::sync::OnceLock<Catalog> = std::sync::OnceLock::new();
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
    #[cfg_attr(not(feature = "patterns"), allow(dead_code))]
    patterns: Patterns,
}

impl Catalog {
    /// Parses a catalog, rejecting a schema other than 1.
    ///
    /// The text is deserialised once; the four regular expressions are compiled on first use
    /// (with feature `patterns`), and `Catalog::check_patterns` compiles them all at once and
    /// names a bad one. The error names what was wrong: the line and column of a JSON or shape
    /// error, or the schema value found.
    ///
    /// ```
    /// use slicc_browsers::{Catalog, Error};
    /// let err = Catalog::parse(r#"{"schema": 2}"#).unwrap_err();
    /// assert!(matches!(err, Error::Schema { .. }));
    /// ```
    pub fn parse(text: &str) -> Result<Catalog, Error> {
        crate::json::parse_typed("catalog.json", text, "schema", |c: &Catalog| c.schema)
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
}
