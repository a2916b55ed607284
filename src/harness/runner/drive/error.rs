//! The driver's errors inside a leg: a session, tab or navigation on the leg's client
//! ([`TabError`]) and the observer's tab, canary and sessions ([`ObserverError`]). Neither leaves
//! the driver as a type: each ends up as text in the leg's [`Record`](super::Record) (an error, a
//! navigation error or a failed outcome), so their `Display` is the record's wording.

use std::fmt;
use std::time::Duration;

use crate::harness::runner::transport::CallError;

/// Why a `Page.navigate` gave no document: the call failed, or the browser answered with an
/// `errorText` (such as `net::ERR_BLOCKED_BY_CLIENT`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum NavigateFault {
    /// The call itself failed.
    Call(CallError),
    /// The browser's `errorText`.
    Refused(String),
}

impl fmt::Display for NavigateFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NavigateFault::Call(e) => e.fmt(f),
            NavigateFault::Refused(text) => f.write_str(text),
        }
    }
}

/// Why the driver has no session, tab or document on the leg's client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum TabError {
    /// A step on `child` found no child session within the wait.
    NoChild(Duration),
    /// The row's page was opened but is not the page (any more).
    NoPage,
    /// A `Target` call to open or attach the tab failed.
    Call {
        /// `Target.createTarget` or `Target.attachToTarget`.
        method: &'static str,
        /// Why.
        error: CallError,
    },
    /// A call's answer lacks the member the driver needs.
    Missing {
        /// The call.
        method: &'static str,
        /// The member (`targetId`, `sessionId`).
        member: &'static str,
    },
    /// `Page.enable` on the new tab failed.
    EnablePage(CallError),
    /// `Page.navigate` to `url` failed.
    Navigate {
        /// The URL.
        url: String,
        /// Why.
        fault: NavigateFault,
    },
    /// No main-frame commit within the wait.
    NoCommit(Duration),
    /// A main-frame commit, but no load event after it within the wait.
    NoLoad(Duration),
}

impl fmt::Display for TabError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TabError::NoChild(wait) => {
                write!(f, "no child session within {}ms", wait.as_millis())
            }
            TabError::NoPage => f.write_str("no page"),
            TabError::Call { method, error } => write!(f, "{method}: {error}"),
            TabError::Missing { method, member } => write!(f, "{method} gave no {member}"),
            TabError::EnablePage(e) => write!(f, "Page.enable on the new tab: {e}"),
            TabError::Navigate { url, fault } => write!(f, "Page.navigate {url}: {fault}"),
            TabError::NoCommit(wait) => {
                write!(f, "no main-frame commit within {}ms", wait.as_millis())
            }
            TabError::NoLoad(wait) => write!(f, "no load event within {}ms", wait.as_millis()),
        }
    }
}

impl std::error::Error for TabError {}

/// Why the observer could not plant the canary or open, attach to or load a tab.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum ObserverError {
    /// The leg has no unguarded observer to plant with.
    NoObserver,
    /// A variable the plant needs is not set: its name (`target`, `cookie`).
    NoVar(&'static str),
    /// The storage canary's script failed on `target`: the recorded failure.
    Canary {
        /// The origin planted on.
        target: String,
        /// The evaluation's failure, as recorded.
        why: String,
    },
    /// A call on the observer failed.
    Call {
        /// The method.
        method: &'static str,
        /// What it was about, when the message names it (the target id it attached to).
        on: Option<String>,
        /// Why.
        error: CallError,
    },
    /// `Page.navigate` to `url` on the observer failed.
    Navigate {
        /// The URL.
        url: String,
        /// Why.
        fault: NavigateFault,
    },
    /// An answer of the observer's lacks a member (`targetId`, `sessionId`).
    Missing(&'static str),
    /// The observer's tab at `url` fired no load event within the wait.
    NoLoad {
        /// The URL.
        url: String,
        /// The wait.
        wait: Duration,
    },
}

impl fmt::Display for ObserverError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ObserverError::NoObserver => f.write_str("no unguarded observer to plant with"),
            ObserverError::NoVar(name) => write!(f, "no {{{name}}}"),
            ObserverError::Canary { target, why } => {
                write!(f, "storage canary on {target}: {why}")
            }
            ObserverError::Call {
                method,
                on: Some(on),
                error,
            } => write!(f, "observer {method} {on}: {error}"),
            ObserverError::Call {
                method,
                on: None,
                error,
            } => write!(f, "observer {method}: {error}"),
            ObserverError::Navigate { url, fault } => {
                write!(f, "observer Page.navigate {url}: {fault}")
            }
            ObserverError::Missing(member) => write!(f, "observer: no {member}"),
            ObserverError::NoLoad { url, wait } => {
                write!(
                    f,
                    "observer: {url} did not load within {}ms",
                    wait.as_millis()
                )
            }
        }
    }
}

impl std::error::Error for ObserverError {}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each error reads as the driver's former `String` did (the record keeps the text).
    #[test]
    fn errors_read_as_before() {
        let timeout = || CallError::Timeout;
        let cases: [(String, &str); 10] = [
            (
                TabError::NoChild(Duration::from_secs(5)).to_string(),
                "no child session within 5000ms",
            ),
            (
                TabError::Missing {
                    method: "Target.createTarget",
                    member: "targetId",
                }
                .to_string(),
                "Target.createTarget gave no targetId",
            ),
            (
                TabError::EnablePage(timeout()).to_string(),
                "Page.enable on the new tab: no answer within the timeout",
            ),
            (
                TabError::NoCommit(Duration::from_millis(250)).to_string(),
                "no main-frame commit within 250ms",
            ),
            (ObserverError::NoVar("cookie").to_string(), "no {cookie}"),
            (
                ObserverError::Call {
                    method: "Target.attachToTarget",
                    on: Some("T9".into()),
                    error: timeout(),
                }
                .to_string(),
                "observer Target.attachToTarget T9: no answer within the timeout",
            ),
            (
                ObserverError::Call {
                    method: "Page.enable",
                    on: None,
                    error: timeout(),
                }
                .to_string(),
                "observer Page.enable: no answer within the timeout",
            ),
            (
                ObserverError::Navigate {
                    url: "http://a.test/".into(),
                    fault: NavigateFault::Refused("net::ERR_ABORTED".into()),
                }
                .to_string(),
                "observer Page.navigate http://a.test/: net::ERR_ABORTED",
            ),
            (
                ObserverError::Missing("sessionId").to_string(),
                "observer: no sessionId",
            ),
            (
                ObserverError::NoLoad {
                    url: "http://a.test/".into(),
                    wait: Duration::from_secs(10),
                }
                .to_string(),
                "observer: http://a.test/ did not load within 10000ms",
            ),
        ];
        for (got, want) in cases {
            assert_eq!(got, want);
        }
    }
}
