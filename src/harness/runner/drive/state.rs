//! One leg's shared state: the [`Leg`] its threads share (the step executor in `leg.rs`, the event
//! pump in `pump.rs`, the observer's reads in `observe.rs`) and the records it keeps.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, AtomicUsize};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;

use serde_json::{Map, Value};

use super::{Plant, StandIn};
use crate::harness::runner::expand::{LegStep, Vars};
use crate::harness::runner::record::{Outcome, Record};
use crate::harness::runner::transport::Transport;
use crate::vectors::Where;

/// A session the leg knows.
#[derive(Debug, Clone)]
pub(super) struct Session {
    pub(super) session_id: String,
    pub(super) target_id: String,
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
    pub(super) done: Mutex<Option<Outcome>>,
    pub(super) cond: Condvar,
}

/// The last page action: when it started and, for a redirect chain, its final destination.
#[derive(Debug, Clone)]
pub(super) struct ActionMark {
    pub(super) mark: u64,
    pub(super) final_url: Option<String>,
}

/// The state one leg's threads share.
pub(super) struct Leg {
    pub(super) client: Arc<dyn Transport>,
    pub(super) observer: Option<Arc<dyn Transport>>,
    pub(super) stand_in: Arc<dyn StandIn>,
    pub(super) vars: Mutex<Vars>,
    pub(super) record: Mutex<Record>,
    pub(super) page: Mutex<Option<Session>>,
    pub(super) children: Mutex<Vec<Session>>,
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
