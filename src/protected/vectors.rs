//! The protected-origin vectors of `protected.json` (feature `corpus`).

use serde::{Deserialize, Serialize};

use crate::error::Error;

/// The `opener` of a target vector whose opener is protected.
pub const OPENER_PROTECTED: &str = "protected";
/// The `opener` of a target vector whose opener is not protected.
pub const OPENER_UNPROTECTED: &str = "unprotected";
/// The `opener` of a target vector whose opener was gone before the program looked.
pub const OPENER_UNKNOWN: &str = "unknown";

/// `protected.json`: vectors every protected-origin matcher runs, all with the same extra
/// origins.
///
/// ```
/// let v = slicc_browsers::protected::vectors();
/// assert_eq!(v.schema, 1);
/// assert!(v.urls.len() >= 200);
/// assert!(v.urls.iter().any(|u| u.url == "https://seven.sliccy.ai/" && u.protected));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Vectors {
    /// The format version; [`Vectors::parse`] accepts only 1.
    pub schema: u32,
    /// The extra origins every vector runs with.
    pub origins: Vec<String>,
    /// URL vectors.
    pub urls: Vec<UrlVector>,
    /// CDP target vectors.
    pub targets: Vec<TargetVector>,
    /// Cookie-domain vectors.
    pub cookie_domains: Vec<CookieDomainVector>,
    /// Storage-key vectors.
    pub storage_keys: Vec<StorageKeyVector>,
}

/// `urls[]`: a URL and whether it is protected.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UrlVector {
    /// Any text; text that does not parse is expected to be unprotected unless Chromium
    /// might load it on a protected origin.
    pub url: String,
    /// The expected answer.
    pub protected: bool,
}

/// `targets[]`: a CDP target's URL, its previous state and opener, and the expected answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TargetVector {
    /// `TargetInfo.url`; may be empty.
    pub url: String,
    /// Whether the target counted as protected before it went to `url`; left out when false.
    #[serde(default, skip_serializing_if = "is_false")]
    pub previous: bool,
    /// [`OPENER_PROTECTED`], [`OPENER_UNPROTECTED`] or [`OPENER_UNKNOWN`]; `None` for a target
    /// without an opener.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opener: Option<String>,
    /// The expected answer.
    pub protected: bool,
}

/// `cookieDomains[]`: a cookie domain as a browser reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CookieDomainVector {
    /// The domain, possibly with a leading or trailing dot or upper case.
    pub domain: String,
    /// The expected answer.
    pub protected: bool,
}

/// `storageKeys[]`: a CDP storage key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StorageKeyVector {
    /// The key: an origin, then `^`-separated parts (`^0` the top-level site).
    pub key: String,
    /// The expected answer.
    pub protected: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// Parses the embedded [`PROTECTED`](crate::files::PROTECTED).
///
/// The embedded file is proven to parse by the crate's tests, so this never panics in a
/// released crate.
pub fn vectors() -> Vectors {
    Vectors::parse(crate::files::PROTECTED)
        .expect("the embedded protected.json parses (checked by the tests)")
}

impl Vectors {
    /// Parses a `protected.json`, rejecting a `schema` other than 1.
    ///
    /// ```
    /// use slicc_browsers::{protected::Vectors, Error};
    /// let err = Vectors::parse(r#"{"schema": 2}"#).unwrap_err();
    /// assert!(matches!(err, Error::Schema { .. }));
    /// ```
    pub fn parse(text: &str) -> Result<Vectors, Error> {
        crate::json::parse_versioned("protected.json", text, "schema")
    }
}
