//! The discovery conformance corpus (feature `corpus`): [`corpus()`], its types, and the
//! helpers a harness needs to run a case as a fake machine.
//!
//! Each [`Case`] is a fake machine: files under a fake home, an environment, `--cdp` URLs, a
//! process list, fake HTTP servers and installed browsers, with the ranked list it must
//! produce (an output schema 1 document). A harness lays a case out with a [`Layout`] (the OS
//! under test, a home dir, the case's environment and the catalog), feeds discovery the
//! case's fakes, and compares what discovery prints with [`Case::expected`] as parsed JSON:
//!
//! ```
//! use slicc_browsers::corpus::{corpus, Layout, NEED_FLAG, NEED_USER_DATA_DIRS};
//!
//! let cat = slicc_browsers::catalog();
//! for case in corpus().cases {
//!     if !case.runs("linux", &[NEED_USER_DATA_DIRS, NEED_FLAG]) {
//!         continue;
//!     }
//!     let env = |k: &str| case.input.env.get(k).cloned();
//!     let layout = Layout { os: "linux", home: "/home/me", env: &env, catalog: &cat };
//!     for (path, _contents) in case.files(&layout) {
//!         assert!(path.starts_with('/'));
//!     }
//!     let expected = case.expected(&layout);
//!     assert_eq!(expected["schema"], 1);
//! }
//! ```

mod build;
mod case;
mod dump;
mod layout;

pub use build::build;
pub use dump::{dump, DUMP_HOMES, DUMP_SELF_PID};
pub use layout::{is_token, token_names, Layout, TOKENS};

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use crate::error::Error;

/// Need: `DevToolsActivePort` files in browsers' default user-data dirs.
pub const NEED_USER_DATA_DIRS: &str = "user-data-dirs";
/// Need: `DevToolsActivePort` files in SLICC's (seven's) profile roots.
pub const NEED_PROFILES: &str = "seven-profiles";
/// Need: `--cdp` URLs.
pub const NEED_FLAG: &str = "flag";
/// Need: the process-list source.
pub const NEED_PROCESS: &str = "process";
/// Need: port probing (slicc only).
pub const NEED_PROBE: &str = "probe";
/// Need: extra seven origins.
pub const NEED_ORIGINS: &str = "origins";
/// Need: installed browsers take part in the ranking.
pub const NEED_INSTALLED: &str = "installed";
/// Need: detecting SLICC six's profile dirs and flagging their endpoints.
pub const NEED_SIX: &str = "six";

/// Every need, in the order corpus-format.md lists them.
pub const NEEDS: [&str; 8] = [
    NEED_USER_DATA_DIRS,
    NEED_PROFILES,
    NEED_FLAG,
    NEED_PROCESS,
    NEED_PROBE,
    NEED_ORIGINS,
    NEED_INSTALLED,
    NEED_SIX,
];

/// Parses the embedded [`CORPUS`](crate::files::CORPUS).
///
/// The embedded file is proven to parse by the crate's tests, so this never panics in a
/// released crate.
pub fn corpus() -> Corpus {
    Corpus::parse(crate::files::CORPUS)
        .expect("the embedded corpus.json parses (checked by the tests)")
}

/// `corpus.json`: every case, sorted by name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Corpus {
    /// The corpus schema version; [`Corpus::parse`] accepts only 1.
    pub schema: u32,
    /// The cases.
    pub cases: Vec<Case>,
}

impl Corpus {
    /// Parses a corpus, rejecting a schema other than 1; errors name the line and column.
    ///
    /// ```
    /// use slicc_browsers::{corpus::Corpus, Error};
    /// assert!(matches!(Corpus::parse(r#"{"schema": 2, "cases": []}"#), Err(Error::Schema { .. })));
    /// assert!(Corpus::parse(r#"{"schema": 1, "cases": []}"#).unwrap().cases.is_empty());
    /// ```
    pub fn parse(text: &str) -> Result<Corpus, Error> {
        crate::json::parse_versioned("corpus.json", text, "schema")
    }

    /// The case with this name.
    pub fn case(&self, name: &str) -> Option<&Case> {
        self.cases.iter().find(|c| c.name == name)
    }
}

/// One case: its name (the `corpus/<name>` dir), its input and the output it must produce.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Case {
    /// The case's directory name, kebab-case.
    pub name: String,
    /// `case.json`: the fake machine.
    #[serde(rename = "case")]
    pub input: Input,
    /// `expected.json`: an output schema 1 document, tokens unexpanded (see [`Case::expected`]).
    pub expected: Value,
}

/// `case.json`: a fake machine. Every member but `description` and `needs` is optional, and
/// an empty or absent one is left out when written.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Input {
    /// What the case pins.
    pub description: String,
    /// The OSes the case runs on (`darwin`, `linux`, `windows`); empty means all.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub os: Vec<String>,
    /// What a program must support to run the case (the `NEED_*` values).
    pub needs: Vec<String>,
    /// The only environment discovery sees; values may hold tokens.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
    /// File contents by path; each path starts with a token.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub files: BTreeMap<String, String>,
    /// `--cdp` URLs, in order; they may hold tokens.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cdp: Vec<String>,
    /// Extra seven origins.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub origins: Vec<String>,
    /// The ports the probe tries (never 9222 to 9229).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub probe_ports: Vec<u16>,
    /// The fake process list, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub processes: Vec<FakeProcess>,
    /// Fake HTTP servers by `host:port`; any other port refuses connections.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub http: BTreeMap<String, Server>,
    /// Installed browsers in output schema 1's `installed` shape, ranked with the endpoints.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub installed: Vec<Value>,
    /// In the cases that need six exactly: `Some(Some(id))`, the first entry that is not six's,
    /// or `Some(None)` (`null`) when there is none. `None` when the member is absent.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub auto: Option<Option<String>>,
}

/// Reads a member that is present (even as `null`) as `Some`, so absent stays `None`.
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Option<String>>, D::Error> {
    Option::<String>::deserialize(d).map(Some)
}

/// One row of the fake process list: a pid, or `self` for the scanning process.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FakeProcess {
    /// The pid (absent for the `self` row).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    /// The scanning process itself; the harness fills in its real pid. Written only as `true`.
    #[serde(rename = "self", default, skip_serializing_if = "is_false")]
    pub self_: bool,
    /// The full command line; may hold tokens.
    pub command: String,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// A fake HTTP server: the bodies of `/json/version` and `/json/list` (also `/json`).
/// A missing body answers 404; so does every other path.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Server {
    /// The body of `GET /json/version`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<Value>,
    /// The body of `GET /json/list` and `GET /json`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list: Option<Vec<Value>>,
}
