//! What one leg of one row recorded: the data the judge decides on, with no I/O.
//!
//! The driver (or any other runner) fills a [`Record`] while it runs a leg's steps; the judge
//! evaluates the vector's checks on it. Recorded data can be saved as JSON and judged again.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::transport::Event;

/// One request the stand-in logged (the spec's `fixtureServer` log entry).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogEntry {
    /// The full URL, with the request's origin: `http://<Host header><request target>`.
    pub url: String,
    /// The request method.
    pub method: String,
    /// The request headers, names in lower case (repeated headers joined with `, `).
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// When it arrived, in milliseconds since the Unix epoch.
    pub time: u64,
}

/// The outcome a step's `as` names.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "outcome", content = "value")]
pub enum Recorded {
    /// A comparable value. Every named outcome has one shape (issue 21, reading 2): a `cdp`
    /// step's is `{"ok": true, "result": …}` or `{"ok": false, "error": {"code": …, "message":
    /// …}}`; a page action's is that of its `Runtime.evaluate`, `{"ok": true, "result": {"result":
    /// {"type", "value"}}, "value": …}`, whose `value` is the body of a load (`width N` for an
    /// image, `<status> <body>` with `status`) or the value of an `eval`; a `guess`'s is
    /// `{"ok": <an attempt was answered>, "result": [attempts], "value": [attempts]}`. A
    /// `result` check's `path` resolves against the whole outcome; without a path it reads
    /// `value` when there is one, else the whole outcome.
    Value(Value),
    /// No value: a timeout, a timeout sentinel, an evaluation exception or a broken transport.
    /// Checks that read it fail.
    Failed(String),
    /// A background step that had not completed when the leg ended.
    Pending,
}

/// A read the judge needs from the unguarded observer (never through the guard).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "read")]
pub enum Read {
    /// The title of the row's page (`session: "page"`) or child (`"child"`).
    Title {
        /// `page` or `child`.
        session: String,
    },
    /// An expression evaluated in the page or child, by value.
    Expression {
        /// The JavaScript, placeholders expanded.
        expression: String,
        /// `page` or `child`.
        session: String,
    },
    /// The frames of the page or child that show an error page: an array of
    /// `{"url", "unreachableUrl", "frameId", "parentId"?, "oopif": bool}`, including the
    /// out-of-process iframe targets when `frame` is true.
    Errors {
        /// `page` or `child`.
        session: String,
        /// Also read the out-of-process iframe targets, matched by parent frame.
        frame: bool,
    },
    /// `Page.getNavigationHistory` of the page or child: the array of its entries' URLs.
    History {
        /// `page` or `child`.
        session: String,
    },
    /// The canary state on `origin`: the value of cookie `cookie` (or of the storage canary when
    /// `storage`), `""` when it is gone.
    State {
        /// The origin the canary was planted on.
        origin: String,
        /// The canary cookie's name (also the localStorage key).
        cookie: String,
        /// Read the storage canary instead of the cookie.
        storage: bool,
    },
}

/// A session the driver opened or was handed, by the role the vectors name it with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionRecord {
    /// `page` (the row's page), `child` (auto-attached) or `attached` (an explicit
    /// `Target.attachToTarget`).
    pub role: String,
    /// The flat session id.
    pub session_id: String,
    /// The target the session is attached to.
    pub target_id: String,
    /// The target's URL when the session was attached.
    pub url: String,
}

/// Everything one leg recorded.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Record {
    /// The leg's tag (`{tag}`), unique per leg.
    pub tag: String,
    /// The stand-in's log entries from the leg's start to its end (the judge keeps those that
    /// carry the tag).
    pub log: Vec<LogEntry>,
    /// The events the guarded transport delivered during the leg.
    pub events: Vec<Event>,
    /// Each `as` name's outcome.
    pub outcomes: BTreeMap<String, Recorded>,
    /// The refusal names recorded: refusable steps whose error matched `refusal.match`.
    pub refused: BTreeSet<String>,
    /// Every refusable step's error text, matched or not, by refusal name.
    pub refusal_errors: BTreeMap<String, String>,
    /// The sessions the leg used.
    pub sessions: Vec<SessionRecord>,
    /// The roles (`page`, `child`) whose session detached.
    pub detached: BTreeSet<String>,
    /// The phases that ran (`setup`, `trigger`, `child`).
    pub executed: BTreeSet<String>,
    /// The unguarded observer's answers; a read that failed is absent or `Recorded::Failed`.
    pub reads: Vec<(Read, Recorded)>,
    /// Whether an unguarded observer was available for this leg.
    pub observer: bool,
    /// Errors that fail the leg whatever the checks say (`settle: no beacon from …`).
    pub errors: Vec<String>,
    /// Errors the guarded transport gave for a URL a page action loaded: a `Page.navigate`
    /// answered with a protocol error or an `errorText`, a `fetch`, `xhr` or `image` that
    /// rejected. The client form of a `blocked` check reads them (with the error-page
    /// `Page.frameNavigated` and `Network.loadingFailed` events).
    #[serde(default)]
    pub navigation_errors: Vec<NavigationError>,
    /// The `cdp` steps' methods the transport answered "method not found" (see
    /// [`method_not_found`]): a control that failed with one is skipped as
    /// `not-supported:<method>`, never passed and never a guard's failure.
    #[serde(default)]
    pub unsupported: BTreeSet<String>,
}

/// Whether a CDP error says the browser has no such method: JSON-RPC's `-32601`, or
/// Chromium's message `'<method>' wasn't found` (an older Chromium that lacks, or renamed, a
/// method the vectors use).
///
/// ```
/// use slicc_browsers::harness::runner::record::method_not_found;
/// assert!(method_not_found(-32601, "'Network.overrideNetworkState' wasn't found"));
/// assert!(method_not_found(-32000, "'Network.overrideNetworkState' wasn't found"));
/// assert!(!method_not_found(-32000, "slicc: refused: target is on seven's origin"));
/// ```
pub fn method_not_found(code: i64, message: &str) -> bool {
    code == -32601 || message.contains("wasn't found")
}

/// An error the guarded transport gave for the URL a page action loaded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NavigationError {
    /// The role of the session the action ran on (`page` or `child`).
    pub session: String,
    /// The exact URL the action loaded (a chain's first URL when it had hops).
    pub url: String,
    /// The error text (`net::ERR_BLOCKED_BY_CLIENT`, the guard's refusal, `Failed to fetch` …).
    pub error: String,
}
