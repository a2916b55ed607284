//! The driver (not on `wasm32-wasip1`): runs a leg's steps over a guarded [`Transport`], with an
//! optional unguarded observer, and fills the [`Record`] the judge decides on.
//!
//! One leg, in order:
//!
//! 1. A background event pump starts on the guarded transport. It answers paused requests and
//!    auth challenges (`answer` steps; every other paused request is continued untouched),
//!    runs `children` steps on auto-attached targets and resumes them, notes detached
//!    sessions and the row page's popups (`{popupTarget}`).
//! 2. For rows that plant the canary, the observer opens the stand-in's
//!    `{target}/plant?tag=&name=&value=` in the leg's browser context and stores the storage
//!    canary there ([`canary_plant`](super::js::canary_plant)), outside the guard.
//! 3. Setup, then trigger: every step kind of the format (§3), placeholders expanded just
//!    before each step runs, so that values the leg learns (`{pageTarget}`, `{popupTarget}`,
//!    `{context}`) are known.
//! 4. The leg's data is collected: background loads an observation reads (up to 10 s), the
//!    client's events, the stand-in's log from the leg's start, and the observer's reads.
//!
//! Every session's role is recorded: `page` (the row's page: a `tab` step's, or an
//! `about:blank` tab the driver opens when a step needs a page before any `tab`), `child`
//! (an auto-attached target a `children` step ran on) and `attached` (an explicit
//! `Target.attachToTarget`).

mod error;
mod leg;
mod observe;
mod pump;
mod remote;
mod rows;
mod state;
mod steps;
mod tabs;
mod util;

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::expand::{ExpandedChecks, LegChecks, LegStep, Vars};
use super::record::{LogEntry, Record};
use super::transport::Transport;

pub use super::plan::{
    cookie_for, names_read, plants_canary, says_plant, uses_default_context, Plant,
};
pub use remote::{RemoteStandIn, StandInUrlError};
pub use rows::{
    count_rows, new_tag, run, variant_delay, Clients, Guard, GuardConnectError, LegRequest,
    RowResult, RunError, RunOptions,
};

/// How long a page navigation, a page's load or a tab's first load may take.
const LOAD_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a step waits for a child session to exist, or for a popup's target id.
const CHILD_WAIT: Duration = Duration::from_secs(5);
/// How long an observation that reads a background step's outcome waits for it.
pub const BACKGROUND_WAIT: Duration = Duration::from_secs(10);
/// What a `settle` adds after its wait.
const SETTLE_EXTRA: Duration = Duration::from_millis(600);
/// A `settle`'s default wait.
const SETTLE_DEFAULT_MS: u64 = 10_000;
/// How long the end of a leg waits for the beacons of the probes that ran to be logged.
const PROBE_WAIT: Duration = Duration::from_secs(3);
/// How often polled conditions are looked at.
const POLL: Duration = Duration::from_millis(50);
/// The most `guess` attempts one step makes.
const MAX_GUESSES: u64 = 64;

/// Milliseconds since the Unix epoch (the stand-in log's clock).
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// Where the driver reads the stand-in's request log.
pub trait StandIn: Send + Sync {
    /// A position in the log: the entries logged from now on are at or after it.
    fn mark(&self) -> u64;
    /// The retained entries logged at or after `mark`, oldest first: at least those whose URL
    /// or headers carry `tag` (an implementation may return more; the judge keeps those).
    fn since(&self, mark: u64, tag: &str) -> Vec<LogEntry>;
}

/// What one leg runs with.
#[derive(Clone)]
pub struct LegSetup {
    /// The client the steps run on (the guard; the observer for an unguarded control).
    pub client: Arc<dyn Transport>,
    /// The unguarded observer, when there is one.
    pub observer: Option<Arc<dyn Transport>>,
    /// The leg's variables ([`Vars::for_leg`] plus `beacon` and `probe`); the driver sets
    /// `pageTarget`, `popupTarget` and `context` as it learns them.
    pub vars: Vars,
    /// The leg's steps ([`super::expand::leg_steps`]), `setup` then `trigger`.
    pub steps: Vec<LegStep>,
    /// The delay of the row's variant, in ms (before an explicit `Target.detachFromTarget` and
    /// for `settle.variant`).
    pub detach_delay: u64,
    /// The browser context the leg's tabs open in (`None`: the default one).
    pub context: Option<String>,
    /// When to plant the canary through the observer.
    pub plant: Plant,
    /// The `as` names an observation or the liveness check reads (their background loads are
    /// awaited, up to [`BACKGROUND_WAIT`], before the leg ends).
    pub awaited: Vec<String>,
}

/// Runs one leg over `setup.client` and returns what it recorded, with the leg's final
/// variables and `checks` expanded with them: the observer reads the judge needs come from that
/// expansion ([`ExpandedChecks::reads`]), made before the leg's tabs close.
pub fn run_leg<'v>(
    setup: &LegSetup,
    stand_in: Arc<dyn StandIn>,
    checks: &LegChecks<'v>,
) -> (Record, Vars, ExpandedChecks<'v>) {
    leg::run(setup, stand_in, checks)
}

#[cfg(test)]
mod fake;
#[cfg(test)]
mod tests;
