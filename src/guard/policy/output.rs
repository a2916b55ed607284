//! What the policy answers each message with ([`Output`]): its verdict, the frames to send
//! each way and the refusals it decided; and the parameters of its own commands.

use serde_json::Value;

/// The CDP error code of a refusal (Chromium's generic server error).
pub const REFUSAL_CODE: i64 = -32000;

/// What the policy did with the message it was given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Passed on unchanged.
    Forward,
    /// Passed on changed: protected targets, cookies or storage taken out.
    Rewrite,
    /// A client command answered with a refusal; the browser never sees it.
    Refuse,
    /// A client command the policy answered itself (`Target.setDiscoverTargets` on the root).
    Answer,
    /// Withheld from the client (protected, or about a session the client does not have).
    Drop,
    /// Kept back until the policy's own checks are answered; a later call releases it.
    Hold,
    /// A response to the policy's own command, swallowed.
    Own,
    /// Not a CDP message (the client gets a protocol error; a browser frame is dropped).
    Invalid,
}

/// A client command the policy answered with an error itself: the command (its session and
/// id), the error's words as its frame in [`Output::to_client`] carries them, and whether it
/// was refused or could not be read. A relay logs these instead of reading its frames back
/// (one the policy kept while it started is answered in the output of a later message).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    /// The session the command came on (empty for the root).
    pub session: String,
    /// The command's id.
    pub id: i64,
    /// The error's message: for a refusal the catalog's refusal, then why in brackets.
    pub message: String,
    /// [`Verdict::Refuse`]: refused (protected, or over one of the guard's bounds);
    /// [`Verdict::Invalid`]: a message Chromium would not take either (no integer id, no
    /// method, a session nobody has...), answered with Chromium's protocol error.
    pub verdict: Verdict,
}

/// The parameters of a command of the policy's own: a value, or parameters encoded once
/// (the same for every session: the `Fetch.enable` of every session's checks).
pub(crate) enum OwnParams {
    /// Encoded with the command.
    Value(Value),
    /// Already JSON text (an object).
    Encoded(std::sync::Arc<str>),
}

impl From<Value> for OwnParams {
    fn from(v: Value) -> OwnParams {
        OwnParams::Value(v)
    }
}

/// What to do after one message: frames to send each way, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Output {
    /// What happened to the message given.
    pub verdict: Verdict,
    /// Why, in a few words (for logs and tests).
    pub why: &'static str,
    /// Frames for the browser, in order (the policy's own commands, then what it forwards).
    pub to_browser: Vec<String>,
    /// Frames for the client, in order.
    pub to_client: Vec<String>,
    /// Sessions the policy is detaching with this output.
    pub detached: Vec<String>,
    /// The refusals the policy decided with this output, in order: their frames are in
    /// `to_client`, or, behind a session's checks, in the output that ends them.
    pub refused: Vec<Refused>,
}

impl Output {
    pub(super) fn new() -> Output {
        Output {
            verdict: Verdict::Forward,
            why: "",
            to_browser: Vec::new(),
            to_client: Vec::new(),
            detached: Vec::new(),
            refused: Vec::new(),
        }
    }

    pub(super) fn set(&mut self, verdict: Verdict, why: &'static str) {
        self.verdict = verdict;
        self.why = why;
    }
}
