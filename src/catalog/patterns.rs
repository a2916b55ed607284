//! The catalog's four regular expressions (feature `patterns`): compiled on first use, each
//! once per `Catalog`, and all at once by `Catalog::check_patterns`.
//!
//! Without the feature the catalog carries no regex engine at all: `Catalog::parse` only
//! deserialises.

#[cfg(feature = "patterns")]
use std::sync::OnceLock;

#[cfg(feature = "patterns")]
use regex_lite::Regex;

#[cfg(feature = "patterns")]
use super::Catalog;
#[cfg(feature = "patterns")]
use crate::error::Error;

/// The compiled patterns of one catalog, each compiled on first use (`None` when it does not
/// compile). Empty without feature `patterns`.
#[derive(Debug, Clone, Default)]
pub(super) struct Patterns {
    #[cfg(feature = "patterns")]
    chrome_major: OnceLock<Option<Regex>>,
    #[cfg(feature = "patterns")]
    origin_host: OnceLock<Option<Regex>>,
    #[cfg(feature = "patterns")]
    six_profile: OnceLock<Option<Regex>>,
    #[cfg(feature = "patterns")]
    name: OnceLock<Option<Regex>>,
}

/// Which of the four patterns.
#[cfg(feature = "patterns")]
#[derive(Debug, Clone, Copy)]
enum Which {
    ChromeMajor,
    OriginHost,
    SixProfile,
    Name,
}

#[cfg(feature = "patterns")]
impl Which {
    const ALL: [Which; 4] = [
        Which::ChromeMajor,
        Which::OriginHost,
        Which::SixProfile,
        Which::Name,
    ];

    /// The pattern's JSON path in `catalog.json`.
    fn path(self) -> &'static str {
        match self {
            Which::ChromeMajor => "/discovery/chromeMajorPattern",
            Which::OriginHost => "/seven/originHostPattern",
            Which::SixProfile => "/profiles/sixProfilePattern",
            Which::Name => "/profiles/namePattern",
        }
    }
}

#[cfg(feature = "patterns")]
impl Catalog {
    /// The pattern's text and its cell.
    fn pattern(&self, which: Which) -> (&str, &OnceLock<Option<Regex>>) {
        let p = &self.patterns;
        match which {
            Which::ChromeMajor => (&self.discovery.chrome_major_pattern, &p.chrome_major),
            Which::OriginHost => (&self.seven.origin_host_pattern, &p.origin_host),
            Which::SixProfile => (&self.profiles.six_profile_pattern, &p.six_profile),
            Which::Name => (&self.profiles.name_pattern, &p.name),
        }
    }

    /// Compiles a pattern as it is used: six's case-insensitively (the spec has the program,
    /// not the pattern, say so).
    fn compile(&self, which: Which) -> Result<Regex, regex_lite::Error> {
        let (text, _) = self.pattern(which);
        match which {
            Which::SixProfile => Regex::new(&format!("(?i){text}")),
            _ => Regex::new(text),
        }
    }

    /// The compiled pattern, compiling it on first use; `None` when it does not compile.
    fn compiled(&self, which: Which) -> Option<&Regex> {
        let (_, cell) = self.pattern(which);
        cell.get_or_init(|| self.compile(which).ok()).as_ref()
    }

    /// Compiles every pattern, naming the first that does not compile by its JSON path.
    ///
    /// [`Catalog::parse`] does not compile them (each is compiled when first used);
    /// `validate` and a program that reads a catalog from a user call this to reject a bad
    /// one up front. The compiled patterns are kept, so nothing is compiled twice.
    ///
    /// ```
    /// use slicc_browsers::{Catalog, Error};
    /// let mut doc: serde_json::Value = serde_json::from_str(slicc_browsers::CATALOG).unwrap();
    /// doc["seven"]["originHostPattern"] = "([a-z".into();
    /// let cat = Catalog::parse(&doc.to_string()).unwrap();
    /// let err = cat.check_patterns().unwrap_err();
    /// assert!(err.to_string().starts_with("/seven/originHostPattern: pattern does not compile"));
    /// assert!(slicc_browsers::shared_catalog().check_patterns().is_ok());
    /// ```
    pub fn check_patterns(&self) -> Result<(), Error> {
        for which in Which::ALL {
            let (_, cell) = self.pattern(which);
            if cell.get().is_some_and(Option::is_some) {
                continue;
            }
            match self.compile(which) {
                Ok(re) => {
                    let _ = cell.set(Some(re));
                }
                Err(e) => {
                    return Err(Error::invalid(
                        which.path(),
                        format!("pattern does not compile: {e}"),
                    ))
                }
            }
        }
        Ok(())
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
        let re = self.compiled(Which::ChromeMajor)?;
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

    /// Whether `name` is a valid SLICC profile name (`profiles.namePattern`).
    pub fn valid_profile_name(&self, name: &str) -> bool {
        self.compiled(Which::Name)
            .is_some_and(|re| re.is_match(name))
    }

    /// Whether a dir name in six's root is one of six's profiles (`profiles.sixProfilePattern`,
    /// matched case-insensitively).
    pub fn is_six_profile_name(&self, name: &str) -> bool {
        self.compiled(Which::SixProfile)
            .is_some_and(|re| re.is_match(name))
    }

    /// The catalog's `seven.originHostPattern`, compiled.
    pub(crate) fn origin_host_regex(&self) -> Option<&Regex> {
        self.compiled(Which::OriginHost)
    }
}
