//! A client command read once, and what a concern decides about it: the one shape every
//! concern judging a client command is handed (client.rs).

use serde_json::Value;

use super::refusal::Refusal;
use super::table::Concern;

/// A client command, read once (by `Core::client_frame`, client.rs): what every concern
/// judging it is handed.
pub(super) struct ClientCommand<'a> {
    /// The session it came on (empty for the root).
    pub(super) key: &'a str,
    /// Its id (a 32-bit integer outside [`RESERVED_IDS`](super::core::RESERVED_IDS)).
    pub(super) id: i64,
    /// Its method.
    pub(super) method: &'a str,
    /// The concern its entry in the table routes it to, if any.
    pub(super) concern: Option<Concern>,
    /// Its parameters (an empty object when it has none).
    pub(super) params: &'a Value,
    /// The whole command, parsed (for the concerns that rewrite it).
    pub(super) v: &'a Value,
    /// The command as the client sent it (what is forwarded unchanged).
    pub(super) frame: &'a str,
}

impl ClientCommand<'_> {
    /// Its method's domain (`Network` for `Network.enable`).
    pub(super) fn domain(&self) -> &str {
        self.method.split('.').next().unwrap_or_default()
    }
}

#[cfg(test)]
impl<'a> ClientCommand<'a> {
    /// Command `method` with `params` on the root session, for a unit test of one concern.
    pub(super) fn bare(method: &'a str, params: &'a Value) -> ClientCommand<'a> {
        ClientCommand {
            key: "",
            id: 1,
            method,
            concern: super::table::table()
                .command(method)
                .and_then(|e| e.concern),
            params,
            v: params,
            frame: "",
        }
    }
}

/// What a concern decided about a client command.
pub(super) enum Step {
    /// Answered or held by the concern: nothing more to do.
    Done,
    /// Refused, for this reason.
    Refuse(Refusal<'static>),
    /// Goes on to the common checks, rewritten when `Some`.
    Go(Option<Value>),
}
