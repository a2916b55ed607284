//! Rows: every (vector, target, variant) a run covers, each run as its legs and judged, over
//! parallel slots.

use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::{json, Value};

use super::util::lock;
use super::{run_leg, LegSetup, StandIn};
use crate::harness::runner::expand::{ExpandedChecks, Leg, Origins, Vars};
use crate::harness::runner::judge::{judge_runs, JudgedRun, LegRun};
use crate::harness::runner::plan::{
    CapabilitySet, Environment, LegClient, LegContext, LegPlan, RowPlan, RowSpec, RunPlan,
};
use crate::harness::runner::record::Record;
use crate::harness::runner::summary::Row;
use crate::harness::runner::transport::{CallError, Transport};
use crate::vectors::{Vector, Vectors};

/// One leg the runner is about to run: what a [`Guard`] is told when it connects.
#[derive(Debug, Clone, Copy)]
pub struct LegRequest<'a> {
    /// The vector.
    pub vector: &'a Vector,
    /// The row's protected target.
    pub target: &'a str,
    /// The row's variant.
    pub variant: &'a str,
    /// The variant's delay in ms before the client's `Target.detachFromTarget`.
    pub detach_delay: u64,
    /// The parallel slot running the row (0-based): a guard keeps one browser per slot.
    pub slot: usize,
    /// The leg.
    pub leg: Leg,
    /// For an unguarded control, which of its two runs: 0 against the ordinary origin, 1
    /// against the protected stand-in (always 0 otherwise).
    pub run: usize,
}

/// The clients of one leg.
pub struct Clients {
    /// The client carrying the guarded leg (the guard).
    pub guarded: Arc<dyn Transport>,
    /// The independent unguarded observer on the same browser, when there is one.
    pub observer: Option<Arc<dyn Transport>>,
    /// Whether the guard configured its own transport for the variant's delay.
    pub transport_variant: bool,
    /// Releases the leg's clients (called once the leg has been recorded).
    pub close: Option<Box<dyn FnOnce() + Send>>,
}

/// Why a [`Guard`] gave no clients for a leg (the leg then fails with `connect: <why>`).
#[derive(Debug)]
#[non_exhaustive]
pub enum GuardConnectError {
    /// A CDP connection failed.
    Cdp(CallError),
    /// The CDP connection to a named endpoint failed.
    Endpoint {
        /// The endpoint as the guard names it in messages (`guard run`: `--guard <url>`).
        name: String,
        /// Why.
        error: CallError,
    },
    /// The runner asked for a parallel slot the guard does not keep.
    NoSlot(usize),
    /// The slot's browser (or browser and guard) could not be started.
    Launch(Box<dyn std::error::Error + Send + Sync>),
}

impl std::fmt::Display for GuardConnectError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GuardConnectError::Cdp(e) => e.fmt(f),
            GuardConnectError::Endpoint { name, error } => write!(f, "{name}: {error}"),
            GuardConnectError::NoSlot(slot) => write!(f, "no slot {slot}"),
            GuardConnectError::Launch(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for GuardConnectError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            GuardConnectError::Cdp(e) | GuardConnectError::Endpoint { error: e, .. } => Some(e),
            GuardConnectError::Launch(e) => Some(e.as_ref()),
            GuardConnectError::NoSlot(_) => None,
        }
    }
}

impl From<CallError> for GuardConnectError {
    fn from(e: CallError) -> GuardConnectError {
        GuardConnectError::Cdp(e)
    }
}

/// A guard under test: how the runner gets its clients. Called once per leg (a fresh
/// connection per leg keeps one leg's auto-attach, discovery or interception from leaking into
/// the next); `slot` lets a guard keep one browser per parallel slot.
pub trait Guard: Send + Sync {
    /// The transport's name, as rows report it (such as `cdp`).
    fn transport(&self) -> String;
    /// What the transport supports.
    fn capabilities(&self) -> CapabilitySet;
    /// Whether [`Guard::connect`] supplies an unguarded observer.
    fn has_observer(&self) -> bool;
    /// Whether `own` is a static server (rows with `observable.own: false` skip on `own`).
    fn own_static(&self) -> bool {
        false
    }
    /// The clients for one leg.
    fn connect(&self, leg: &LegRequest<'_>) -> Result<Clients, GuardConnectError>;
}

/// What a run covers and how.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// The origin map.
    pub origins: Origins,
    /// Per-target origin maps that replace [`RunOptions::origins`] for that target's rows (a
    /// self-test maps `ordinary-same-site` next to each target).
    pub target_origins: BTreeMap<String, Origins>,
    /// The targets to run (empty: every target of each vector).
    pub targets: Vec<String>,
    /// The variants to run, each a name of the set's `variants` or a runner-defined
    /// `<name>-<N>s` / `<name>-<N>ms` (empty: every variant of the set).
    pub variants: Vec<String>,
    /// Vector ids to run (empty: all); an id ending in `*` is a prefix.
    pub ids: Vec<String>,
    /// The guard's scope: vectors of that scope run besides `any` ones.
    pub scope: Option<String>,
    /// Parallel slots (0 counts as 1).
    pub parallel: usize,
}

/// Why a run (or its row count) cannot start.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RunError {
    /// A variant of [`RunOptions::variants`] is neither one of the set's nor a runner-defined
    /// `<name>-<N>s` / `<name>-<N>ms`.
    UnknownVariant {
        /// The variant asked for.
        variant: String,
        /// The set's variants, in its order.
        known: Vec<String>,
    },
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::UnknownVariant { variant, known } => write!(
                f,
                "unknown variant {variant:?}: use one of {} or <name>-<N>s / <name>-<N>ms",
                known.join(", ")
            ),
        }
    }
}

impl std::error::Error for RunError {}

/// Callers that report errors as text (`?` into `Result<_, String>`) keep working.
impl From<RunError> for String {
    fn from(e: RunError) -> String {
        e.to_string()
    }
}

/// One judged row, with what its legs recorded.
#[derive(Debug, Clone)]
pub struct RowResult {
    /// The report row.
    pub row: Row,
    /// Each run's record: `control` (and `controlProtected`), `guarded`.
    pub records: Vec<(String, Record)>,
    /// Each run's variables as the judge read them (placeholders of its checks), in the order
    /// of `records`: with a record, what another judge needs to judge the run again.
    pub vars: Vec<(String, Vars)>,
    /// How long the row took.
    pub elapsed: Duration,
    /// The slot that ran it.
    pub slot: usize,
}

/// A row to run.
#[derive(Debug, Clone)]
struct Job {
    order: usize,
    vector: usize,
    target: String,
    variant: String,
    delay: u64,
}

/// The delay of a variant: the set's value, or a runner-defined `<name>-<N>s` / `-<N>ms`.
pub fn variant_delay(set: &Vectors, name: &str) -> Option<u64> {
    if let Some(ms) = set.variants.get(name) {
        return Some(*ms);
    }
    let (_, last) = name.rsplit_once('-')?;
    if let Some(n) = last.strip_suffix("ms") {
        return n.parse().ok();
    }
    last.strip_suffix('s')
        .and_then(|n| n.parse::<u64>().ok())
        .map(|s| s.saturating_mul(1000))
}

/// Whether a vector id is selected by `ids` (empty selects all; `X*` is a prefix).
fn selected(ids: &[String], id: &str) -> bool {
    ids.is_empty()
        || ids.iter().any(|want| match want.strip_suffix('*') {
            Some(prefix) => id.starts_with(prefix),
            None => want == id,
        })
}

/// The rows a run covers, in set order: (vector index, target, variant, delay). Errors name an
/// unknown variant.
fn jobs(set: &Vectors, options: &RunOptions) -> Result<Vec<Job>, RunError> {
    let variants: Vec<String> = if options.variants.is_empty() {
        set.variants.keys().map(str::to_string).collect()
    } else {
        options.variants.clone()
    };
    let mut delays = Vec::new();
    for v in &variants {
        let delay = variant_delay(set, v).ok_or_else(|| RunError::UnknownVariant {
            variant: v.clone(),
            known: set.variants.keys().map(str::to_string).collect(),
        })?;
        delays.push((v.clone(), delay));
    }
    let mut out = Vec::new();
    for (i, vector) in set.vectors.iter().enumerate() {
        if !vector.is_for(options.scope.as_deref()) || !selected(&options.ids, &vector.id) {
            continue;
        }
        for target in &vector.targets {
            if !options.targets.is_empty() && !options.targets.contains(target) {
                continue;
            }
            for (variant, delay) in &delays {
                out.push(Job {
                    order: out.len(),
                    vector: i,
                    target: target.clone(),
                    variant: variant.clone(),
                    delay: *delay,
                });
            }
        }
    }
    Ok(out)
}

/// How many rows a run covers.
pub fn count_rows(set: &Vectors, options: &RunOptions) -> Result<usize, RunError> {
    jobs(set, options).map(|j| j.len())
}

/// Runs every row the options select, `parallel` at a time, calling `on_row` as each row is
/// judged; returns the results in set order.
pub fn run(
    set: &Vectors,
    guard: &dyn Guard,
    stand_in: Arc<dyn StandIn>,
    options: &RunOptions,
    on_row: &(dyn Fn(&RowResult) + Sync),
) -> Result<Vec<RowResult>, RunError> {
    let queue = Mutex::new(jobs(set, options)?.into_iter().collect::<VecDeque<Job>>());
    let results: Mutex<Vec<(usize, RowResult)>> = Mutex::new(Vec::new());
    let slots = options.parallel.max(1);
    std::thread::scope(|scope| {
        for slot in 0..slots {
            let queue = &queue;
            let results = &results;
            let stand_in = Arc::clone(&stand_in);
            scope.spawn(move || loop {
                let Some(job) = lock(queue).pop_front() else {
                    return;
                };
                let started = Instant::now();
                let vector = &set.vectors[job.vector];
                let (row, records, vars) = run_row(vector, &job, slot, guard, &stand_in, options);
                let result = RowResult {
                    row,
                    records,
                    vars,
                    elapsed: started.elapsed(),
                    slot,
                };
                on_row(&result);
                lock(results).push((job.order, result));
            });
        }
    });
    let mut results = results
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    results.sort_by_key(|(order, _)| *order);
    Ok(results.into_iter().map(|(_, r)| r).collect())
}

/// A tag unique to the process run and leg: alphanumeric, so it survives percent-encoding.
pub fn new_tag() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    static BASE: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let base = BASE.get_or_init(|| {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let mixed = (nanos ^ u128::from(std::process::id()) << 64) % 36u128.pow(6);
        base36(u64::try_from(mixed).unwrap_or(0), 6)
    });
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    format!("g{base}{}", base36(n, 1))
}

fn base36(mut n: u64, min: usize) -> String {
    const DIGITS: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = Vec::new();
    while n > 0 || out.len() < min {
        out.push(DIGITS[usize::try_from(n % 36).unwrap_or(0)]);
        n /= 36;
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

/// A judged row with each run's record and variables.
type RowRun = (Row, Vec<(String, Record)>, Vec<(String, Vars)>);

/// Runs a row's legs and judges them: the row's [`RowPlan`], each of its leg runs, then the
/// judge on what they recorded.
fn run_row(
    vector: &Vector,
    job: &Job,
    slot: usize,
    guard: &dyn Guard,
    stand_in: &Arc<dyn StandIn>,
    options: &RunOptions,
) -> RowRun {
    let transport = guard.transport();
    let origins = options
        .target_origins
        .get(&job.target)
        .unwrap_or(&options.origins)
        .clone();
    let env = Environment {
        origins,
        capabilities: guard.capabilities(),
        observer: guard.has_observer(),
        own_static: guard.own_static(),
    };
    let spec = RowSpec {
        vector,
        target: &job.target,
        variant: &job.variant,
        transport: &transport,
        transport_variant: false,
    };
    let plan = match RowPlan::new(spec, &env, new_tag) {
        RowPlan::Decided(row) => return (row, Vec::new(), Vec::new()),
        RowPlan::Run(plan) => plan,
    };
    let mut runs: Vec<(&str, Record, Vars, ExpandedChecks<'_>)> = Vec::new();
    let mut transport_variant = true;
    for leg in &plan.legs {
        let req = LegRequest {
            vector,
            target: &job.target,
            variant: &job.variant,
            detach_delay: job.delay,
            slot,
            leg: leg.leg,
            run: leg.run,
        };
        let (record, vars, checks, acknowledged) = run_one(&plan, leg, &req, guard, stand_in);
        transport_variant &= acknowledged;
        runs.push((leg.name, record, vars, checks));
    }
    let mut spec = plan.spec;
    spec.transport_variant = transport_variant;
    let judged: Vec<JudgedRun<'_>> = runs
        .iter()
        .map(|(_, record, vars, checks)| JudgedRun {
            run: LegRun { vars, record },
            checks,
        })
        .collect();
    let (guarded, controls) = judged.split_last().expect("the plan has a guarded run");
    let row = judge_runs(&spec, &env, controls, guarded);
    drop(judged);
    let vars = runs
        .iter()
        .map(|(n, _, v, _)| (n.to_string(), v.clone()))
        .collect();
    let records = runs
        .into_iter()
        .map(|(n, r, _, _)| (n.to_string(), r))
        .collect();
    (row, records, vars)
}

/// Runs one leg run of a plan: connects, makes its browser context, runs it and releases the
/// clients. Steps that do not build, a failure to connect or a missing observer are a recorded
/// error (which fails the leg); the checks are then expanded with the planned variables.
fn run_one<'v>(
    plan: &RunPlan<'v>,
    leg: &LegPlan<'v>,
    req: &LegRequest<'_>,
    guard: &dyn Guard,
    stand_in: &Arc<dyn StandIn>,
) -> (Record, Vars, ExpandedChecks<'v>, bool) {
    let failed = |why: String| {
        let record = Record {
            tag: leg.vars.tag().to_string(),
            errors: vec![why],
            ..Record::default()
        };
        let checks = leg.checks.expand(&leg.vars);
        (record, leg.vars.clone(), checks, false)
    };
    let steps = match &leg.steps {
        Ok(s) => s.clone(),
        Err(e) => return failed(format!("steps: {e}")),
    };
    let clients = match guard.connect(req) {
        Ok(c) => c,
        Err(e) => return failed(format!("connect: {e}")),
    };
    let client = match leg.client {
        LegClient::Observer => match &clients.observer {
            Some(o) => Arc::clone(o),
            None => {
                if let Some(close) = clients.close {
                    close();
                }
                return failed("an unguarded control needs the observer".into());
            }
        },
        LegClient::Guard => Arc::clone(&clients.guarded),
    };
    let context = match plan.context {
        LegContext::Fresh => client
            .send(
                "Target.createBrowserContext",
                json!({ "disposeOnDetach": true }),
                None,
            )
            .ok()
            .and_then(|r| {
                r.get("browserContextId")
                    .and_then(Value::as_str)
                    .map(str::to_string)
            }),
        LegContext::Default => None,
    };
    let setup = LegSetup {
        client: Arc::clone(&client),
        observer: clients.observer.clone(),
        vars: leg.vars.clone(),
        steps,
        detach_delay: req.detach_delay,
        context: context.clone(),
        plant: plan.plant,
        awaited: plan.awaited.clone(),
    };
    let (record, vars, checks) = run_leg(&setup, Arc::clone(stand_in), &leg.checks);
    if let Some(ctx) = context {
        let _ = client.send(
            "Target.disposeBrowserContext",
            json!({ "browserContextId": ctx }),
            None,
        );
    }
    let acknowledged = clients.transport_variant;
    drop(setup);
    drop(client);
    if let Some(close) = clients.close {
        close();
    }
    (record, vars, checks, acknowledged)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_are_unique_and_alphanumeric() {
        let a = new_tag();
        let b = new_tag();
        assert_ne!(a, b);
        assert!(a.chars().all(|c| c.is_ascii_alphanumeric()), "{a}");
    }

    #[test]
    fn runner_defined_variants_parse() {
        let set = crate::vectors::vectors();
        assert_eq!(variant_delay(&set, "prompt"), Some(0));
        assert_eq!(variant_delay(&set, "lagging"), Some(8000));
        assert_eq!(variant_delay(&set, "lagging-8s"), Some(8000));
        assert_eq!(variant_delay(&set, "slow-250ms"), Some(250));
        assert_eq!(variant_delay(&set, "nope"), None);
    }

    #[test]
    fn an_unknown_variant_is_a_typed_error() {
        let set = crate::vectors::vectors();
        let options = RunOptions {
            variants: vec!["prompt".into(), "sideways".into()],
            ..RunOptions::default()
        };
        let Err(e) = count_rows(&set, &options) else {
            panic!("an unknown variant counts rows");
        };
        let known: Vec<String> = set.variants.keys().map(str::to_string).collect();
        assert!(known.len() > 1, "{known:?}");
        assert_eq!(
            e,
            RunError::UnknownVariant {
                variant: "sideways".into(),
                known: known.clone(),
            }
        );
        assert_eq!(
            e.to_string(),
            format!(
                "unknown variant \"sideways\": use one of {} or <name>-<N>s / <name>-<N>ms",
                known.join(", ")
            )
        );
        let runner_defined = RunOptions {
            variants: vec!["prompt-3s".into()],
            ..RunOptions::default()
        };
        assert!(count_rows(&set, &runner_defined).is_ok_and(|n| n > 0));
    }

    #[test]
    fn id_selection() {
        assert!(selected(&[], "C1.x"));
        assert!(selected(&["C1*".into()], "C1.x"));
        assert!(!selected(&["C1.y".into()], "C1.x"));
    }
}
