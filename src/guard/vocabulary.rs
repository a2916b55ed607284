//! The check vocabulary: every check kind and the observers that read them.

use serde::{Deserialize, Serialize};

/// Who reads the data a check is judged on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Observer {
    /// The stand-in's request log.
    Fixture,
    /// Data the guarded transport already delivered: events and named outcomes.
    Client,
    /// An independent CDP connection outside the guard.
    Unguarded,
}

/// A check kind: the vocabulary of §4.3, named as its key in the JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CheckKind {
    /// `beacon`: a beacon from an origin was logged.
    Beacon,
    /// `served`: the fixture logged a request.
    Served,
    /// `header`: a request carried a header.
    Header,
    /// `event`: a delivered event matched.
    Event,
    /// `result`: a named outcome matched.
    Result,
    /// `cookie`: a named call's result contained a cookie.
    Cookie,
    /// `compare`: two named outcomes agree.
    Compare,
    /// `refused`: named refusable steps were refused.
    Refused,
    /// `reached`: named calls reached the browser unrefused.
    Reached,
    /// `attached`: the client attached to a target at a URL or origin.
    Attached,
    /// `delivered`: data for a URL reached the client.
    Delivered,
    /// `title`: the page title, read unguarded.
    Title,
    /// `expression`: a value evaluated unguarded.
    Expression,
    /// `executed`: a phase ran (diagnostic).
    Executed,
    /// `live`: diagnostic.
    Live,
    /// `hops`: every redirect of a chain and its destination were logged.
    Hops,
    /// `detached`: a session detached.
    Detached,
    /// `pre`: the pre-action heartbeat was logged.
    Pre,
    /// `loaded`: a URL (or a heartbeat from its origin) was logged.
    Loaded,
    /// `registration`: the guard refused a refusable step at registration.
    Registration,
    /// `state`: the canary state, read unguarded.
    State,
    /// `filtered`: named calls' responses left a cookie out.
    Filtered,
    /// `blocked`: an error or block for an exact URL.
    Blocked,
    /// `history`: the guard swapped in its own page for an exact URL.
    History,
    /// `frameBlocked`: an out-of-process iframe shows chrome-error for an exact URL.
    FrameBlocked,
    /// `all`: every operand holds.
    All,
    /// `any`: some operand holds.
    Any,
    /// `not`: the operand does not hold.
    Not,
}

impl CheckKind {
    /// Every check kind, in the order the format lists them.
    pub const ALL: [CheckKind; 28] = [
        CheckKind::Beacon,
        CheckKind::Served,
        CheckKind::Header,
        CheckKind::Event,
        CheckKind::Result,
        CheckKind::Cookie,
        CheckKind::Compare,
        CheckKind::Refused,
        CheckKind::Reached,
        CheckKind::Attached,
        CheckKind::Delivered,
        CheckKind::Title,
        CheckKind::Expression,
        CheckKind::Executed,
        CheckKind::Live,
        CheckKind::Hops,
        CheckKind::Detached,
        CheckKind::Pre,
        CheckKind::Loaded,
        CheckKind::Registration,
        CheckKind::State,
        CheckKind::Filtered,
        CheckKind::Blocked,
        CheckKind::History,
        CheckKind::FrameBlocked,
        CheckKind::All,
        CheckKind::Any,
        CheckKind::Not,
    ];

    /// The JSON key that marks this kind.
    pub fn as_str(self) -> &'static str {
        match self {
            CheckKind::Beacon => "beacon",
            CheckKind::Served => "served",
            CheckKind::Header => "header",
            CheckKind::Event => "event",
            CheckKind::Result => "result",
            CheckKind::Cookie => "cookie",
            CheckKind::Compare => "compare",
            CheckKind::Refused => "refused",
            CheckKind::Reached => "reached",
            CheckKind::Attached => "attached",
            CheckKind::Delivered => "delivered",
            CheckKind::Title => "title",
            CheckKind::Expression => "expression",
            CheckKind::Executed => "executed",
            CheckKind::Live => "live",
            CheckKind::Hops => "hops",
            CheckKind::Detached => "detached",
            CheckKind::Pre => "pre",
            CheckKind::Loaded => "loaded",
            CheckKind::Registration => "registration",
            CheckKind::State => "state",
            CheckKind::Filtered => "filtered",
            CheckKind::Blocked => "blocked",
            CheckKind::History => "history",
            CheckKind::FrameBlocked => "frameBlocked",
            CheckKind::All => "all",
            CheckKind::Any => "any",
            CheckKind::Not => "not",
        }
    }

    /// The kind whose JSON key is `key`.
    pub fn from_key(key: &str) -> Option<CheckKind> {
        CheckKind::ALL.into_iter().find(|k| k.as_str() == key)
    }

    /// The observers a check of this kind may declare (two for `blocked`, one for the rest).
    pub fn observers(self) -> &'static [Observer] {
        use CheckKind::*;
        match self {
            Beacon | Served | Header | Hops | Pre | Loaded => &[Observer::Fixture],
            Title | Expression | Live | State | History | FrameBlocked => &[Observer::Unguarded],
            Blocked => &[Observer::Client, Observer::Unguarded],
            _ => &[Observer::Client],
        }
    }

    /// Whether the kind is diagnostic only (`executed`, `live`), never a liveness proof.
    pub fn is_diagnostic(self) -> bool {
        matches!(self, CheckKind::Executed | CheckKind::Live)
    }
}
