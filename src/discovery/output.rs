//! Output schema 1: what `slicc browsers --json` and `playwright-cli list --json` print.
//!
//! The types serialise to exactly the schema: optional fields are left out when absent, and
//! `wsOnly` and `six` are written only as `true`. They also read such a document back, keeping
//! fields a later minor release adds to an installed record.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A whole output schema 1 document: the ranked list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Output {
    /// Always 1.
    pub schema: u32,
    /// The catalog's `minChromiumMajor`.
    pub min_chromium: u32,
    /// The ranked entries, best first.
    pub entries: Vec<Entry>,
}

impl Output {
    /// The entry a program picks when it chooses without being asked: the first entry that is
    /// not six's, or `None` when every entry is six's or there are none.
    pub fn auto(&self) -> Option<&Entry> {
        self.entries.iter().find(|e| !e.is_six())
    }

    /// The document as a JSON value.
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// Which of the two objects an entry carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// A running browser's debugging endpoint.
    Endpoint,
    /// An installed browser or Electron app.
    Installed,
}

/// One ranked entry: an endpoint or an installed browser.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// `cdp:<host>:<port>` for an endpoint; the installed record's id otherwise.
    pub id: String,
    /// `endpoint` or `installed`.
    pub kind: Kind,
    /// 1 to 6 (`rank.tiers`).
    pub tier: u8,
    /// The endpoint's or installed record's name.
    pub name: String,
    /// A copy of the nested object's version, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Present exactly when `kind` is `endpoint`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<Endpoint>,
    /// Present exactly when `kind` is `installed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub installed: Option<Installed>,
}

impl Entry {
    /// Whether this is an endpoint in SLICC six's profile.
    pub fn is_six(&self) -> bool {
        self.endpoint.as_ref().is_some_and(|e| e.six)
    }
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// Where an endpoint was found (`discovery.sourceRank`'s keys).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Source {
    /// A `DevToolsActivePort` file: a browser's dir, a seven profile or six's profile.
    #[serde(rename = "devtools-active-port")]
    DevtoolsActivePort,
    /// A `--cdp` URL.
    #[serde(rename = "flag")]
    Flag,
    /// The process list.
    #[serde(rename = "process")]
    Process,
    /// The port probe.
    #[serde(rename = "probe")]
    Probe,
}

impl Source {
    /// The name output schema 1 and `discovery.sourceRank` use.
    pub fn as_str(self) -> &'static str {
        match self {
            Source::DevtoolsActivePort => "devtools-active-port",
            Source::Flag => "flag",
            Source::Process => "process",
            Source::Probe => "probe",
        }
    }
}

/// A running browser's debugging endpoint.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Endpoint {
    /// `<scheme>://<host>:<port>`, with the host normalised and no path.
    pub cdp: String,
    /// The browser's websocket URL.
    pub web_socket_debugger_url: String,
    /// The display name (§1.3.1 of the discovery rules).
    pub name: String,
    /// `Browser` from `/json/version` after its first `/`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// `Browser` from `/json/version`, verbatim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub product: Option<String>,
    /// `User-Agent` from `/json/version`, verbatim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_agent: Option<String>,
    /// The winning source.
    pub source: Source,
    /// The catalog browser whose default user-data dir held the winning DevToolsActivePort.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub browser: Option<String>,
    /// The browser's user-data dir, when a source knows it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_data_dir: Option<String>,
    /// The seven profile's name, for a DevToolsActivePort in a seven profile root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
    /// Listed without `/json/version` (only the websocket is known); written only as `true`.
    #[serde(default, skip_serializing_if = "is_false")]
    pub ws_only: bool,
    /// An endpoint in SLICC six's profile (tier 6); written only as `true`.
    #[serde(default, skip_serializing_if = "is_false")]
    pub six: bool,
    /// Whether `seven_tabs` is non-empty.
    pub seven_open: bool,
    /// The page targets on a seven origin, in `/json/list` order.
    pub seven_tabs: Vec<SevenTab>,
}

/// A page target on a seven origin.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SevenTab {
    /// The target id.
    pub id: String,
    /// The URL, as `/json/list` gives it.
    pub url: String,
    /// The title.
    pub title: String,
}

/// An installed browser or Electron app, as output schema 1's `installed` object.
///
/// Discovery copies a record into the output unchanged, so fields this crate does not know
/// are kept in [`Installed::extra`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Installed {
    /// The catalog id of a Chromium browser, or `electron:<slug>` for an Electron app.
    pub id: String,
    /// The display name.
    pub name: String,
    /// `chromium` or `electron`.
    pub engine: String,
    /// Where it is installed: the app bundle, the executable, or the package's dir.
    pub path: String,
    /// The program to run.
    pub executable: String,
    /// `supported`, `disabled` (the app blocks remote debugging) or `unknown`.
    pub debug_support: String,
    /// The release channel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel: Option<String>,
    /// The installed version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// The macOS bundle identifier.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bundle_id: Option<String>,
    /// `snap` or `flatpak`, for a Linux package install.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub via: Option<String>,
    /// The snap or flatpak name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub package: Option<String>,
    /// The default user-data dir of this install.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_data_dir: Option<String>,
    /// `true` for a debug build; written only as `true`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub debug_build: Option<bool>,
    /// Fields this crate does not know, kept as they were.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Installed {
    /// A record with the required fields and nothing else.
    pub fn new(
        id: impl Into<String>,
        name: impl Into<String>,
        engine: impl Into<String>,
        path: impl Into<String>,
        executable: impl Into<String>,
        debug_support: impl Into<String>,
    ) -> Installed {
        Installed {
            id: id.into(),
            name: name.into(),
            engine: engine.into(),
            path: path.into(),
            executable: executable.into(),
            debug_support: debug_support.into(),
            channel: None,
            version: None,
            bundle_id: None,
            via: None,
            package: None,
            user_data_dir: None,
            debug_build: None,
            extra: Map::new(),
        }
    }
}
