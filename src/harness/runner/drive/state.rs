//! One leg's shared state: the [`LegState`] its threads share (the step executor in `leg.rs`, the event
//! pump in `pump.rs`, the observer's reads in `observe.rs`) and the records it keeps.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, AtomicUsize};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;

use serde_json::{Map, Value};

use super::{Plant, StandIn};
use crate::harness::runner::expand::{LegStep, Vars};
use crate::harness::runner::record::{Record, Recorded};
use crate::harness::runner::transport::Transport;
use crate::vectors::{Where, SESSION_CHILD, SESSION_PAGE};

/// A session the leg knows.
#[derive(Debug, Clone)]
pub(super) struct LegSession {
    pub(super) session_id: String,
    pub(super) target_id: String,
    /// The session it was auto-attached on (`None`: the browser session, or not auto-attached).
    pub(super) parent: Option<String>,
}

/// The role a session plays in a leg, as the record names it (`SessionRecord::role`,
/// `NavigationError::session`, `detached`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum SessionRole {
    /// The row's page: a `tab` step's, or the `about:blank` tab the driver opens.
    Page,
    /// An auto-attached target a `children` step ran on.
    Child,
    /// An explicit `Target.attachToTarget`.
    Attached,
}

impl SessionRole {
    /// `page`, `child` or `attached`.
    pub(super) fn as_str(self) -> &'static str {
        match self {
            SessionRole::Page => SESSION_PAGE,
            SessionRole::Child => SESSION_CHILD,
            SessionRole::Attached => "attached",
        }
    }

    /// The role a record names (`None`: not one the driver writes).
    pub(super) fn parse(name: &str) -> Option<SessionRole> {
        [SessionRole::Page, SessionRole::Child, SessionRole::Attached]
            .into_iter()
            .find(|r| r.as_str() == name)
    }
}

/// A `page` step's action: the closed vocabulary the driver runs (§3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum PageAction {
    /// Opens a tab (and makes it the row's page).
    Tab,
    /// `Page.navigate` on the page.
    Navigate,
    /// `location.href = to`.
    Href,
    /// `location.replace(to)`.
    Replace,
    /// A submitted GET form.
    Form,
    /// A submitted POST form.
    Post,
    /// `window.open(to)`.
    Open,
    /// An iframe of the URL added to the page.
    Iframe,
    /// The stand-in's framing page for the URL, navigated to.
    Framed,
    /// A `fetch` of the URL.
    Fetch,
    /// An `XMLHttpRequest` of the URL.
    Xhr,
    /// An image of the URL.
    Image,
    /// An expression evaluated on the page.
    Eval,
}

impl PageAction {
    const ALL: [PageAction; 13] = [
        PageAction::Tab,
        PageAction::Navigate,
        PageAction::Href,
        PageAction::Replace,
        PageAction::Form,
        PageAction::Post,
        PageAction::Open,
        PageAction::Iframe,
        PageAction::Framed,
        PageAction::Fetch,
        PageAction::Xhr,
        PageAction::Image,
        PageAction::Eval,
    ];

    /// The action's name in a `page` step.
    pub(super) fn as_str(self) -> &'static str {
        match self {
            PageAction::Tab => "tab",
            PageAction::Navigate => "navigate",
            PageAction::Href => "href",
            PageAction::Replace => "replace",
            PageAction::Form => "form",
            PageAction::Post => "post",
            PageAction::Open => "open",
            PageAction::Iframe => "iframe",
            PageAction::Framed => "framed",
            PageAction::Fetch => "fetch",
            PageAction::Xhr => "xhr",
            PageAction::Image => "image",
            PageAction::Eval => "eval",
        }
    }

    /// The action a `page` step names (`None`: an unknown one).
    pub(super) fn parse(name: &str) -> Option<PageAction> {
        PageAction::ALL.into_iter().find(|a| a.as_str() == name)
    }
}

/// An `answer` step, registered.
#[derive(Debug, Clone)]
pub(super) struct AnswerRule {
    pub(super) url: String,
    pub(super) stage: Option<String>,
    pub(super) cdp: Option<String>,
    pub(super) params: Map<String, Value>,
    pub(super) hold: bool,
}

/// A request the pump saw paused.
#[derive(Debug, Clone)]
pub(super) struct Paused {
    pub(super) url: String,
    pub(super) request_id: String,
    pub(super) session: Option<String>,
}

/// A `children` step, registered at an event index.
#[derive(Debug, Clone)]
pub(super) struct ChildRule {
    pub(super) from_event: usize,
    pub(super) steps: Vec<LegStep>,
    pub(super) r#where: Option<Where>,
}

/// A background load's outcome, once it has one.
#[derive(Default)]
pub(super) struct Background {
    pub(super) done: Mutex<Option<Recorded>>,
    pub(super) cond: Condvar,
}

/// The last page action: when it started (in the stand-in's log and in the client's events),
/// the session it ran on and, for a redirect chain, its final destination.
#[derive(Debug, Clone)]
pub(super) struct ActionMark {
    pub(super) mark: u64,
    pub(super) event: usize,
    pub(super) session: Option<String>,
    pub(super) final_url: Option<String>,
}

/// The state one leg's threads share.
pub(super) struct LegState {
    pub(super) client: Arc<dyn Transport>,
    pub(super) observer: Option<Arc<dyn Transport>>,
    pub(super) stand_in: Arc<dyn StandIn>,
    pub(super) vars: Mutex<Vars>,
    pub(super) record: Mutex<Record>,
    pub(super) page: Mutex<Option<LegSession>>,
    pub(super) children: Mutex<Vec<LegSession>>,
    /// Whether the leg has a `children` step: without one, an auto-attached page or iframe is
    /// still the current child (issue 21, reading 5).
    pub(super) has_children_step: bool,
    /// Sessions the client itself detached (or whose detach its own call caused): their
    /// detaches are not a guard's `detached`.
    pub(super) self_detached: Mutex<BTreeSet<String>>,
    pub(super) rules: Mutex<Vec<ChildRule>>,
    pub(super) answers: Mutex<Vec<AnswerRule>>,
    pub(super) paused: Mutex<Vec<Paused>>,
    /// Targets the driver opened or attached itself: the pump leaves their attach events alone.
    pub(super) own_targets: Mutex<BTreeSet<String>>,
    /// Targets to close when the leg ends (on the client), and on the observer.
    pub(super) opened: Mutex<Vec<String>>,
    pub(super) observer_opened: Mutex<Vec<String>>,
    pub(super) child_threads: Mutex<Vec<JoinHandle<()>>>,
    pub(super) background: Mutex<BTreeMap<String, Arc<Background>>>,
    pub(super) action: Mutex<Option<ActionMark>>,
    /// The observer's session on each origin the canary was planted on.
    pub(super) plant_sessions: Mutex<BTreeMap<String, String>>,
    /// When to plant the canary.
    pub(super) plant: Plant,
    /// The browser context of the row's page (`None`: the default one, or not known).
    pub(super) page_context: Mutex<Option<String>>,
    pub(super) stop: AtomicBool,
    pub(super) detach_delay: u64,
    pub(super) context: Option<String>,
    pub(super) start_event: usize,
    pub(super) start_mark: u64,
    /// Probes that ran: each sent its beacon as it returned, which the log must show before
    /// it is read.
    pub(super) probes: AtomicUsize,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every page action reads back from its name, and every `page` step of the shipped vectors
    /// names one the driver runs.
    #[test]
    fn page_actions_are_closed() {
        for a in PageAction::ALL {
            assert_eq!(PageAction::parse(a.as_str()), Some(a));
        }
        assert_eq!(PageAction::parse("navigate "), None);
        let set = crate::vectors::vectors();
        let mut seen = 0;
        for v in &set.vectors {
            for step in v.all_steps() {
                if let crate::vectors::Step::Page(p) = step {
                    assert!(PageAction::parse(&p.page).is_some(), "{}: {}", v.id, p.page);
                    seen += 1;
                }
            }
        }
        assert!(seen > 50, "{seen}");
        for r in [SessionRole::Page, SessionRole::Child, SessionRole::Attached] {
            assert_eq!(SessionRole::parse(r.as_str()), Some(r));
        }
    }
}
