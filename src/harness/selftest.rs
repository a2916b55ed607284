//! The no-guard self-test (not on `wasm32-wasip1`): every runnable vector on every target it
//! lists, in headless Chromium with nothing guarding it (the spec's `npm run test:guard`).
//!
//! The stand-in ([`Fixture`]) listens on a random loopback port; each parallel slot launches
//! its own Debian Chromium (`/usr/bin/chromium`) headless in a temporary profile, with
//! `--remote-debugging-port=0` and `--host-resolver-rules` mapping every stand-in host to the
//! fixture (started directly, not through `crate::launch`, which sits a layer above `guard`
//! and makes seven profiles). Chromium's HTTPS upgrades are off (`--disable-features=HttpsUpgrades,…`): with
//! them, Chromium 156 first sends a TLS ClientHello for each `http://` host. The browser's
//! process group is killed when the self-test ends, also on failure or panic.
//!
//! The "guarded" client is Chromium itself: each leg gets two fresh CDP connections to the
//! slot's browser, one as the client and one as the unguarded observer. Under the spec's rule
//! ([`verdict`], the default) a row **behaves** when its control passes and its guarded
//! expectations fail: the guarded leg fails with some expected name observed the other way
//! (the attack works when nothing guards). Under `--strict` ([`verdict_strict`], what CI holds
//! our own file to) its liveness must pass too, and every guarded expectation comes out the
//! other way, except a name the control expects equally, which must simply hold. Otherwise it
//! **misbehaves**: a defect in the vector or the runner. Rows a precheck skips (a null origin,
//! the vector's own `skip`, a method the browser lacks) count as skipped. Text vectors are not
//! rows of the self-test.
//!
//! # Origins
//!
//! `--origins FILE` ([`SelfTestOptions::origins`]) replaces the table below with the map
//! `guard run` reads, for every target (its optional names default as the spec says: `plain`
//! to `ordinary`); every host it names is mapped to the stand-in. Without it:
//!
//! | name | origin |
//! | --- | --- |
//! | `ordinary`, `log` | `http://ordinary.test` |
//! | `plain` | `http://plain.example`: cross-site with `ordinary`, as every protected target is |
//! | `cross` | `http://cross.example` |
//! | `client`, `own` | `http://client.example` |
//! | `seven`, `vault`, `vault-x`, `apex` | `http://seven.sliccy.ai`, `http://vault.sliccy.ai`, `http://vault-x.sliccy.ai`, `http://sliccy.ai` |
//! | `ordinary-same-site` | `http://other.client.example` on `own` rows; null on the `*.sliccy.ai` targets (their whole site is protected) |
//!
//! The Chromium launcher ([`Chromium`], its flags, the process-group kill) lives in
//! `harness/chromium.rs` and is re-exported here under its 1.x paths.
//!
//! Size: about 630 lines before its tests, kept in one file (issue 18 item 5): the run's slots
//! (the [`Guard`] it implements), its options and the verdicts of
//! its report are one flow from `selftest` to [`SelfTestReport`].

use std::collections::BTreeMap;
use std::io;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::cdp::{leg_clients, CdpClient, CdpOptions};
pub use super::chromium::{
    kill_launched, Chromium, ChromiumError, BACKGROUND_FLAGS, BROWSER_UI_FEATURES, CHROMIUM,
    DISABLED_FEATURES, QUIET_FLAGS,
};
use super::fixture::{Fixture, FixtureOptions};
use super::runner::drive::{
    self, count_rows, Clients, Guard, GuardConnectError, LegRequest, RowResult, RunError,
    RunOptions, StandIn,
};
use super::runner::expand::Origins;
use super::runner::judge::CapabilitySet;
use super::runner::record::LogEntry;
use super::runner::summary::Status;
use crate::vectors::{Outcome, Vector, Vectors};

/// The hosts the self-test maps to the stand-in.
pub const HOSTS: [&str; 10] = [
    "ordinary.test",
    "plain.example",
    "cross.example",
    "client.example",
    "other.client.example",
    "seven.sliccy.ai",
    "vault.sliccy.ai",
    "vault-x.sliccy.ai",
    "sliccy.ai",
    "www.sliccy.ai",
];

/// The client's own origin (`client` and `own`): the extra origin a guard under test protects
/// besides the catalog's (slicc-cli's `--origin`).
pub const OWN_ORIGIN: &str = "http://client.example";

/// The self-test's origin map for rows on `target` (see the module docs).
pub fn origins_for(target: &str) -> Origins {
    let pairs: [(&str, Option<&str>); 11] = [
        ("ordinary", Some("http://ordinary.test")),
        ("plain", Some("http://plain.example")),
        ("log", Some("http://ordinary.test")),
        ("cross", Some("http://cross.example")),
        ("client", Some(OWN_ORIGIN)),
        ("own", Some(OWN_ORIGIN)),
        ("seven", Some("http://seven.sliccy.ai")),
        ("vault", Some("http://vault.sliccy.ai")),
        ("vault-x", Some("http://vault-x.sliccy.ai")),
        ("apex", Some("http://sliccy.ai")),
        (
            "ordinary-same-site",
            (target == crate::vectors::TARGET_OWN).then_some("http://other.client.example"),
        ),
    ];
    let mut origins = Origins::new();
    for (name, origin) in pairs {
        // Every name and origin above is valid.
        let _ = origins.set(name, origin);
    }
    origins
}

/// Why a self-test (or a certification, which runs the same way) could not run.
#[derive(Debug)]
#[non_exhaustive]
pub enum SelfTestError {
    /// [`SelfTestOptions::chromium`] does not exist.
    NotInstalled(String),
    /// An origin of [`SelfTestOptions::origins`] is not `http://`: the stand-in serves plain
    /// HTTP only.
    NotHttp {
        /// The origin's name.
        name: &'static str,
        /// The origin.
        origin: String,
    },
    /// An origin of [`SelfTestOptions::origins`] has no host.
    NoHost {
        /// The origin's name.
        name: &'static str,
        /// The origin.
        origin: String,
    },
    /// The stand-in could not be started.
    StandIn(io::Error),
    /// The rows could not be run ([`drive::run`]).
    Run(RunError),
}

impl std::fmt::Display for SelfTestError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SelfTestError::NotInstalled(program) => write!(f, "{program} is not installed"),
            SelfTestError::NotHttp { name, origin } => write!(
                f,
                "origin map: {name} is {origin}, but the stand-in serves plain HTTP only \
                 (map every name to an http:// origin, or to null)"
            ),
            SelfTestError::NoHost { name, origin } => {
                write!(f, "origin map: {name} is {origin}, which has no host")
            }
            SelfTestError::StandIn(e) => write!(f, "cannot start the stand-in: {e}"),
            SelfTestError::Run(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for SelfTestError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SelfTestError::StandIn(e) => Some(e),
            SelfTestError::Run(e) => Some(e),
            _ => None,
        }
    }
}

impl From<RunError> for SelfTestError {
    fn from(e: RunError) -> SelfTestError {
        SelfTestError::Run(e)
    }
}

/// Callers that report errors as text (`?` into `Result<_, String>`) keep working.
impl From<SelfTestError> for String {
    fn from(e: SelfTestError) -> String {
        e.to_string()
    }
}

impl StandIn for Fixture {
    fn mark(&self) -> u64 {
        u64::try_from(self.len()).unwrap_or(u64::MAX)
    }

    fn since(&self, mark: u64, _tag: &str) -> Vec<LogEntry> {
        self.log_since(usize::try_from(mark).unwrap_or(usize::MAX))
    }
}

/// A [`Guard`] over one browser per parallel slot (launched on first use, and once more when
/// it died), with two fresh CDP connections per leg: the guarded client and the unguarded
/// observer. The self-test's "guard" is Chromium itself; `guard certify`'s is a proxy in front
/// of it.
pub(crate) struct Slots<B: Send, E> {
    slots: Vec<Mutex<Option<B>>>,
    launch: Box<dyn Fn() -> Result<B, E> + Send + Sync>,
    /// The guarded client's and the observer's WebSocket URLs on a slot's browser.
    endpoints: fn(&B) -> (String, String),
    transport: &'static str,
    call_timeout: Duration,
}

impl<B: Send, E: std::error::Error + Send + Sync + 'static> Slots<B, E> {
    /// `parallel` empty slots.
    pub(crate) fn new(
        parallel: usize,
        launch: Box<dyn Fn() -> Result<B, E> + Send + Sync>,
        endpoints: fn(&B) -> (String, String),
        transport: &'static str,
        call_timeout: Duration,
    ) -> Slots<B, E> {
        Slots {
            slots: (0..parallel.max(1)).map(|_| Mutex::new(None)).collect(),
            launch,
            endpoints,
            transport,
            call_timeout,
        }
    }

    fn urls(&self, slot: usize) -> Result<(String, String), GuardConnectError> {
        let cell = self
            .slots
            .get(slot)
            .ok_or(GuardConnectError::NoSlot(slot))?;
        let mut cell = cell
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(b) = cell.as_ref() {
            return Ok((self.endpoints)(b));
        }
        let browser = (self.launch)().map_err(|e| GuardConnectError::Launch(Box::new(e)))?;
        let urls = (self.endpoints)(&browser);
        *cell = Some(browser);
        Ok(urls)
    }

    fn relaunch(&self, slot: usize) {
        if let Some(cell) = self.slots.get(slot) {
            let mut cell = cell
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            *cell = None;
        }
    }
}

impl<B: Send, E: std::error::Error + Send + Sync + 'static> Guard for Slots<B, E> {
    fn transport(&self) -> String {
        self.transport.into()
    }

    fn capabilities(&self) -> CapabilitySet {
        CapabilitySet::all()
    }

    fn has_observer(&self) -> bool {
        true
    }

    fn connect(&self, leg: &LegRequest<'_>) -> Result<Clients, GuardConnectError> {
        let options = CdpOptions::new().call_timeout(self.call_timeout);
        let mut attempt = 0;
        loop {
            let (guarded_url, observer_url) = self.urls(leg.slot)?;
            let both = CdpClient::connect(&guarded_url, options.clone()).and_then(|guarded| {
                CdpClient::connect(&observer_url, options.clone())
                    .map(|observer| (guarded, observer))
            });
            match both {
                Ok((guarded, observer)) => return Ok(leg_clients(guarded, observer)),
                // A browser that died is launched again, once.
                Err(_) if attempt == 0 => {
                    attempt += 1;
                    self.relaunch(leg.slot);
                }
                Err(e) => return Err(GuardConnectError::Cdp(e)),
            }
        }
    }
}

/// The run options of `options`' rows: its origin map when it has one, else the self-test's
/// own (see the module docs).
fn run_options(options: &SelfTestOptions) -> RunOptions {
    let mut run = RunOptions {
        origins: options.origins.clone().unwrap_or_else(|| origins_for("")),
        targets: options.targets.clone(),
        variants: options.variants.clone(),
        ids: options.ids.clone(),
        parallel: options.parallel.max(1),
        ..RunOptions::default()
    };
    if options.origins.is_none() {
        for t in crate::vectors::PROTECTED_TARGETS {
            run.target_origins.insert(t.to_string(), origins_for(t));
        }
    }
    run
}

/// The hosts a run with `options` maps to its stand-in: [`HOSTS`], and the host of every origin
/// of its origin map. Fails on an origin the stand-in cannot serve: it speaks plain HTTP only.
pub fn hosts(options: &SelfTestOptions) -> Result<Vec<String>, SelfTestError> {
    let mut hosts: Vec<String> = HOSTS.iter().map(|h| h.to_string()).collect();
    let Some(origins) = &options.origins else {
        return Ok(hosts);
    };
    for name in super::runner::expand::REQUIRED_ORIGINS
        .into_iter()
        .chain(super::runner::expand::OPTIONAL_ORIGINS.map(|(n, _)| n))
    {
        let Some(origin) = origins.get(name) else {
            continue;
        };
        if !origin.starts_with("http://") {
            return Err(SelfTestError::NotHttp {
                name,
                origin: origin.to_string(),
            });
        }
        let host = super::runner::expand::host_of(origin).ok_or_else(|| SelfTestError::NoHost {
            name,
            origin: origin.to_string(),
        })?;
        if !hosts.iter().any(|h| h == host) {
            hosts.push(host.to_string());
        }
    }
    Ok(hosts)
}

/// `set` with only its runnable vectors (text vectors are not rows of the self-test).
pub fn runnable(set: &Vectors) -> Vectors {
    Vectors {
        vectors: set
            .vectors
            .iter()
            .filter(|v| v.is_runnable())
            .cloned()
            .collect(),
        ..set.clone()
    }
}

/// How many rows of `set` a run with `options` covers (text vectors' `not-run` rows too: pass
/// [`runnable`]`(set)` for the self-test's count).
pub fn rows_selected(set: &Vectors, options: &SelfTestOptions) -> Result<usize, RunError> {
    count_rows(set, &run_options(options))
}

/// Runs the rows of `set` that `options` selects in headless Chromium (a text vector's rows
/// are `not-run`), one
/// slot's browser (or browser and guard) made by `launch(program, stand_in_port)`, each leg's
/// guarded client and observer connected to the two URLs `endpoints` gives. The stand-in is
/// started first and closed last, after every slot's browser is gone. Returns the judged rows
/// in set order and how long the run took.
pub(crate) fn run_in_chromium<B, E, L>(
    set: &Vectors,
    options: &SelfTestOptions,
    launch: L,
    endpoints: fn(&B) -> (String, String),
    transport: &'static str,
    on_row: &(dyn Fn(&RowResult) + Sync),
) -> Result<(Vec<RowResult>, Duration), SelfTestError>
where
    B: Send + 'static,
    E: std::error::Error + Send + Sync + 'static,
    L: Fn(&str, &[String], u16, &SelfTestOptions) -> Result<B, E> + Send + Sync + 'static,
{
    if !Path::new(&options.chromium).exists() {
        return Err(SelfTestError::NotInstalled(options.chromium.clone()));
    }
    let hosts = hosts(options)?;
    let fixture =
        Arc::new(Fixture::start(FixtureOptions::default()).map_err(SelfTestError::StandIn)?);
    let started = Instant::now();
    let run = run_options(options);
    let (program, port) = (options.chromium.clone(), fixture.port());
    let slot_options = options.clone();
    let guard = Slots::new(
        run.parallel,
        Box::new(move || launch(&program, &hosts, port, &slot_options)),
        endpoints,
        transport,
        options.call_timeout,
    );
    let stand_in: Arc<dyn StandIn> = Arc::clone(&fixture) as Arc<dyn StandIn>;
    let results = drive::run(set, &guard, stand_in, &run, on_row);
    // The browsers go first (their process groups killed), then the stand-in.
    drop(guard);
    fixture.close();
    Ok((results?, started.elapsed()))
}

/// What the self-test runs.
#[derive(Debug, Clone)]
pub struct SelfTestOptions {
    /// The Chromium to launch (default [`CHROMIUM`]).
    pub chromium: String,
    /// The targets (empty: all).
    pub targets: Vec<String>,
    /// The variants (empty: every variant of the set).
    pub variants: Vec<String>,
    /// Vector ids (empty: all); `X*` is a prefix.
    pub ids: Vec<String>,
    /// Parallel slots, each with its own browser.
    pub parallel: usize,
    /// How long one CDP call may take.
    pub call_timeout: Duration,
    /// The origin map (`--origins`, read as `guard run` reads it), used for every target's
    /// rows; `None`: the self-test's own map (see the module docs). Every host it names is
    /// mapped to the stand-in too.
    pub origins: Option<Origins>,
    /// Judge rows by the stricter rule ([`verdict_strict`], `--strict`) instead of the spec's
    /// ([`verdict`]).
    pub strict: bool,
}

impl Default for SelfTestOptions {
    fn default() -> Self {
        SelfTestOptions {
            chromium: CHROMIUM.to_string(),
            targets: Vec::new(),
            variants: Vec::new(),
            ids: Vec::new(),
            parallel: 1,
            call_timeout: Duration::from_secs(20),
            origins: None,
            strict: false,
        }
    }
}

/// How a row came out in the self-test.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SelfTestVerdict {
    /// Control and liveness passed, and the attack worked.
    Behaved,
    /// A defect in the vector or the runner: why.
    Misbehaved(Vec<String>),
    /// Skipped, with the reason.
    Skipped(String),
}

/// One self-test row.
#[derive(Debug, Clone)]
pub struct SelfTestRow {
    /// The judged row and its records.
    pub result: RowResult,
    /// How it came out.
    pub verdict: SelfTestVerdict,
}

/// The self-test's result.
#[derive(Debug, Clone)]
pub struct SelfTestReport {
    /// Every row, in set order.
    pub rows: Vec<SelfTestRow>,
    /// How long it took.
    pub elapsed: Duration,
}

impl SelfTestReport {
    /// Rows that behaved.
    pub fn behaved(&self) -> usize {
        self.count(|v| matches!(v, SelfTestVerdict::Behaved))
    }

    /// Rows that misbehaved.
    pub fn misbehaved(&self) -> usize {
        self.count(|v| matches!(v, SelfTestVerdict::Misbehaved(_)))
    }

    /// Rows that skipped.
    pub fn skipped(&self) -> usize {
        self.count(|v| matches!(v, SelfTestVerdict::Skipped(_)))
    }

    fn count(&self, f: impl Fn(&SelfTestVerdict) -> bool) -> usize {
        self.rows.iter().filter(|r| f(&r.verdict)).count()
    }

    /// Skipped rows per reason.
    pub fn skips(&self) -> BTreeMap<String, usize> {
        let mut out = BTreeMap::new();
        for r in &self.rows {
            if let SelfTestVerdict::Skipped(reason) = &r.verdict {
                *out.entry(reason.clone()).or_insert(0) += 1;
            }
        }
        out
    }

    /// `selftest: <rows> rows, <b> behaved, <m> misbehaved, <s> skipped`, followed by
    /// ` (<reason>=<count>, …)` when rows skipped, as the certification line's `skips`.
    pub fn line(&self) -> String {
        let mut line = format!(
            "selftest: {} rows, {} behaved, {} misbehaved, {} skipped",
            self.rows.len(),
            self.behaved(),
            self.misbehaved(),
            self.skipped()
        );
        let skips = self.skips();
        if !skips.is_empty() {
            let parts: Vec<String> = skips.iter().map(|(r, n)| format!("{r}={n}")).collect();
            line.push_str(&format!(" ({})", parts.join(", ")));
        }
        line
    }
}

/// How a judged row came out in the self-test under the spec's rule (`npm run test:guard`:
/// "controls must pass and guarded expectations must fail"): a row **behaves** when its control
/// passed and its guarded leg failed with at least one guarded expectation observed the other
/// way (the attack worked). A guarded leg that failed only through errors (a settle that timed
/// out, a broken transport) proves no attack, so it misbehaves; liveness is not judged, since a
/// file may hold live checks that only a guard's refusal satisfies. See [`verdict_strict`].
pub fn verdict(vector: &Vector, result: &RowResult) -> SelfTestVerdict {
    judge_row(vector, result, false)
}

/// The stricter reading (`guard selftest --strict`, what CI holds our own file to): the
/// control and liveness passed, and every guarded expectation a guard must bring about came
/// out the other way, except that one the control expects equally (the same name with the same
/// boolean in `control.expected`) must simply hold, since it holds whether or not a guard
/// runs. Names expecting `"either"` are not judged.
pub fn verdict_strict(vector: &Vector, result: &RowResult) -> SelfTestVerdict {
    judge_row(vector, result, true)
}

fn judge_row(vector: &Vector, result: &RowResult, strict: bool) -> SelfTestVerdict {
    let row = &result.row;
    if row.skipped() {
        return SelfTestVerdict::Skipped(row.reason.clone().unwrap_or_else(|| "skip".into()));
    }
    let mut why = Vec::new();
    if row.control != Status::Pass {
        why.push(format!("control: {}", row.control.as_str()));
    }
    if strict && row.live != Status::Pass {
        why.push(format!("live: {}", row.live.as_str()));
    }
    if why.is_empty() {
        let guarded = row.observations.get("guarded");
        let control = match &vector.control.expected {
            crate::vectors::Expected::Checks(c) => Some(c),
            crate::vectors::Expected::Text(_) => None,
        };
        let mut attack_worked = false;
        if let crate::vectors::Expected::Checks(expected) = &vector.expected {
            for (name, outcome) in expected.iter() {
                let Outcome::Is(want) = outcome else {
                    continue;
                };
                let seen = guarded.and_then(|g| g.get(name)).copied().flatten();
                if seen == Some(!want) {
                    attack_worked = true;
                }
                if !strict {
                    continue;
                }
                let equal_on_both = control.and_then(|c| c.get(name)) == Some(&Outcome::Is(*want));
                let should = if equal_on_both { *want } else { !want };
                if seen != Some(should) {
                    why.push(if equal_on_both {
                        format!(
                            "guarded.{name}: expected {want} on both legs, so it holds unguarded \
                             too, observed {}",
                            seen.map_or_else(|| "nothing".to_string(), |b| b.to_string())
                        )
                    } else {
                        format!(
                            "guarded.{name}: the attack should work unguarded ({}), observed {}",
                            !want,
                            seen.map_or_else(|| "nothing".to_string(), |b| b.to_string())
                        )
                    });
                }
            }
        }
        let guarded_failed = row.guarded == Status::Fail && attack_worked;
        if !strict && !guarded_failed {
            why.push(format!(
                "guarded: {}, and no guarded expectation came out the other way (the attack \
                 should work unguarded)",
                row.guarded.as_str()
            ));
        }
    }
    if why.is_empty() {
        SelfTestVerdict::Behaved
    } else {
        // The guarded leg's mismatches are the attack working: only other errors explain.
        why.extend(
            row.errors
                .iter()
                .filter(|e| !(e.starts_with("guarded: ") && e.contains(", expected ")))
                .cloned(),
        );
        SelfTestVerdict::Misbehaved(why)
    }
}

/// Runs the self-test over `set`'s runnable vectors, calling `on_row` as each row is judged.
pub fn selftest(
    set: &Vectors,
    options: &SelfTestOptions,
    on_row: &(dyn Fn(&SelfTestRow) + Sync),
) -> Result<SelfTestReport, SelfTestError> {
    let judged = |result: &RowResult| {
        let v = set.vector(&result.row.id)?;
        Some(SelfTestRow {
            verdict: if options.strict {
                verdict_strict(v, result)
            } else {
                verdict(v, result)
            },
            result: result.clone(),
        })
    };
    let (results, elapsed) = run_in_chromium(
        &runnable(set),
        options,
        |program, hosts, port, _| {
            let hosts: Vec<&str> = hosts.iter().map(String::as_str).collect();
            Chromium::launch(program, &hosts, port)
        },
        |b: &Chromium| (b.ws_url().to_string(), b.ws_url().to_string()),
        "chromium",
        &|result| {
            if let Some(row) = judged(result) {
                on_row(&row);
            }
        },
    )?;
    Ok(SelfTestReport {
        rows: results.iter().filter_map(judged).collect(),
        elapsed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The self-test's errors are typed and read as their former text; none of these starts a
    /// browser (a missing program, an unknown variant before any slot launches, a slot whose
    /// launch fails without running anything).
    #[test]
    fn launch_and_run_errors_are_typed() {
        let set = crate::vectors::vectors();
        let missing = SelfTestOptions {
            chromium: "/nonexistent/chromium".into(),
            ..SelfTestOptions::default()
        };
        let e = selftest(&set, &missing, &|_| {}).expect_err("no browser");
        assert!(
            matches!(&e, SelfTestError::NotInstalled(p) if p == "/nonexistent/chromium"),
            "{e:?}"
        );
        assert_eq!(e.to_string(), "/nonexistent/chromium is not installed");

        // An existing program, but the run fails on its variant before a slot launches it.
        let bad_variant = SelfTestOptions {
            chromium: "/bin/true".into(),
            variants: vec!["sideways".into()],
            ..SelfTestOptions::default()
        };
        let e = selftest(&set, &bad_variant, &|_| {}).expect_err("an unknown variant");
        let SelfTestError::Run(RunError::UnknownVariant { variant, .. }) = &e else {
            panic!("{e:?}");
        };
        assert_eq!(variant, "sideways");
        assert!(
            e.to_string()
                .starts_with("unknown variant \"sideways\": use one of "),
            "{e}"
        );

        let no_host = SelfTestOptions {
            origins: Some(
                Origins::new()
                    .with("ordinary", Some("http://[::1"))
                    .expect("an origin the map takes"),
            ),
            ..SelfTestOptions::default()
        };
        let e = hosts(&no_host).expect_err("no host");
        assert!(
            matches!(&e, SelfTestError::NoHost { name: "ordinary", origin } if origin == "http://[::1"),
            "{e:?}"
        );
        assert_eq!(
            e.to_string(),
            "origin map: ordinary is http://[::1, which has no host"
        );

        let slots: Slots<(), ChromiumError> = Slots::new(
            1,
            Box::new(|| {
                Err(ChromiumError::NoCdp {
                    program: "chromium".into(),
                    waited: Duration::from_secs(30),
                })
            }),
            |_| (String::new(), String::new()),
            "chromium",
            Duration::from_secs(1),
        );
        let vector = &set.vectors[0];
        let leg = |slot| LegRequest {
            vector,
            target: "seven",
            variant: "prompt",
            detach_delay: 0,
            slot,
            leg: crate::harness::runner::expand::Leg::Guarded,
            run: 0,
        };
        let Err(e) = slots.connect(&leg(0)) else {
            panic!("a slot whose launch fails connects");
        };
        let GuardConnectError::Launch(why) = &e else {
            panic!("{e:?}");
        };
        assert!(
            matches!(
                why.downcast_ref::<ChromiumError>(),
                Some(ChromiumError::NoCdp { .. })
            ),
            "{why:?}"
        );
        assert_eq!(e.to_string(), "chromium did not serve CDP within 30s");
        let Err(e) = slots.connect(&leg(3)) else {
            panic!("slot 3 of 1 connects");
        };
        assert!(matches!(e, GuardConnectError::NoSlot(3)), "{e:?}");
        assert_eq!(e.to_string(), "no slot 3");
    }
}
