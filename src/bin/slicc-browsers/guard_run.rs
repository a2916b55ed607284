//! `guard selftest` and `guard run`: the guard vectors run in headless Chromium with no guard,
//! or against a running guard.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde_json::Value;
use slicc_browsers::harness::cdp::{leg_clients, CdpClient, CdpOptions};
use slicc_browsers::harness::fixture::{Fixture, FixtureOptions};
use slicc_browsers::harness::runner::drive::{
    self, count_rows, Clients, Guard, GuardConnectError, LegRequest, RemoteStandIn, RowResult,
    RunOptions, StandIn,
};
use slicc_browsers::harness::runner::expand::Origins;
use slicc_browsers::harness::runner::judge::CapabilitySet;
use slicc_browsers::harness::runner::summary::{summarize, SummaryInput};
use slicc_browsers::harness::selftest::{self, SelfTestOptions, SelfTestVerdict};
use slicc_browsers::vectors::Vectors;

use crate::args::Args;

/// The usage lines of `guard selftest` and `guard run`.
pub const USAGE: &str =
    "  guard selftest [--vectors FILE] [--origins <map.json>] [--target T]... [--variant V]...
                 [--id ID]... [--parallel N] [--strict] [--json] [--chromium PATH]
                 [--records DIR]
                      run every runnable vector in headless Chromium with no guard: a row
                      behaves when its control passes and its guarded expectations fail (the
                      spec's rule); --strict: liveness must pass too and every guarded
                      expectation come out the other way, or hold where the control expects
                      the same; ends with `selftest: <rows> rows, <b> behaved, <m> misbehaved,
                      <s> skipped` (exit 1 when a row misbehaved; --origins: the origin map, as
                      guard run's; --json: each row as a JSON line; --records: what each
                      misbehaving row's legs recorded, one file a row)
  guard run --guard <cdp-url> --observer <cdp-url> --origins <map.json> [--vectors FILE]
            [--target T]... [--variant V]... [--id ID]... [--guard-name NAME] [--sha SHA]
            [--capabilities LIST] [--transport NAME] [--fixture URL | --fixture-port P] [--json]
                      certify a running guard; ends with the GUARD-PASS / GUARD-FAIL line
  guard certify [--vectors FILE] [--origins <map.json>] [--target T]... [--variant V]...
                [--id ID]... [--parallel N] [--json] [--chromium PATH] [--records DIR]
                [--protect PATTERN]... [--protect-file FILE]...
                      certify the crate's own guard: headless Chromium, the stand-in and
                      `guard proxy` in front, every row's client through the proxy and its
                      observer straight to Chromium; lists failed and missing rows and ends with
                      `GUARD-PASS slicc-browsers-proxy@<version> (…)` or `GUARD-FAIL …` (exit 1;
                      a run limited by --target, --variant or --id always misses rows);
                      --protect: the proxy also protects these sites (as guard proxy's), so
                      an --origins map that puts seven, vault, vault-x and apex on your site
                      certifies the guard for it
";

/// Reads an `--origins` map file: the origin map `guard run`, `guard selftest` and
/// `guard certify` all take.
fn read_origins(path: &str) -> Result<Origins, String> {
    let text =
        std::fs::read_to_string(path).map_err(|e| format!("--origins {path}: cannot read: {e}"))?;
    Origins::from_json(&text).map_err(|e| format!("--origins {path}: {e}"))
}

/// Reads `--vectors FILE`, or the crate's own set.
fn vectors(args: &mut Args) -> Result<Vectors, String> {
    match args.value("--vectors")? {
        None => Ok(slicc_browsers::vectors::vectors()),
        Some(path) => {
            let text = std::fs::read_to_string(&path)
                .map_err(|e| format!("--vectors {path}: cannot read: {e}"))?;
            Vectors::parse(&text).map_err(|e| format!("--vectors {path}: {e}"))
        }
    }
}

/// How a finished row counts on the progress line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tally {
    /// Behaved (self-test) or passed (certification).
    Good,
    /// Misbehaved or failed.
    Bad,
    /// Skipped, or a text row not run.
    Other,
}

/// The counts behind the progress line.
#[derive(Debug, Default, Clone, Copy)]
struct Counts {
    done: usize,
    good: usize,
    bad: usize,
}

/// The progress line: `<done>/<total> rows, <good> <good word>, <bad> <bad word>, <elapsed>
/// elapsed, ETA <left>, last <row>`. The ETA is the mean time per finished row (wall time, so
/// parallel slots count once) times the rows left.
fn progress_line(
    counts: Counts,
    total: usize,
    words: (&str, &str),
    elapsed: std::time::Duration,
    last: &str,
) -> String {
    let eta = if counts.done == 0 {
        "?".to_string()
    } else {
        let per_row = elapsed.as_secs_f64() / counts.done as f64;
        duration(per_row * total.saturating_sub(counts.done) as f64)
    };
    format!(
        "{}/{total} rows, {} {}, {} {}, {} elapsed, ETA {eta}, last {last}",
        counts.done,
        counts.good,
        words.0,
        counts.bad,
        words.1,
        duration(elapsed.as_secs_f64()),
    )
}

/// `42s`, `3m05s`, `1h02m`.
fn duration(secs: f64) -> String {
    let s = secs.max(0.0).round() as u64;
    match s {
        0..=59 => format!("{s}s"),
        60..=3599 => format!("{}m{:02}s", s / 60, s % 60),
        _ => format!("{}h{:02}m", s / 3600, (s % 3600) / 60),
    }
}

/// Progress on stderr, one line kept current (rows done of total, good and bad so far,
/// elapsed, estimated time left), only when stderr is a terminal: off a terminal nothing is
/// written.
struct Progress {
    total: usize,
    counts: Mutex<Counts>,
    words: (&'static str, &'static str),
    started: Instant,
    on: bool,
}

impl Progress {
    /// `words`: what a good and a bad row are called (`behaved`/`misbehaved`,
    /// `passed`/`failed`).
    fn new(total: usize, words: (&'static str, &'static str)) -> Progress {
        Progress {
            total,
            counts: Mutex::new(Counts::default()),
            words,
            started: Instant::now(),
            on: std::io::stderr().is_terminal(),
        }
    }

    fn tick(&self, last: &str, tally: Tally) {
        let mut counts = self
            .counts
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        counts.done += 1;
        match tally {
            Tally::Good => counts.good += 1,
            Tally::Bad => counts.bad += 1,
            Tally::Other => {}
        }
        if self.on {
            eprint!(
                "\r\x1b[K{}",
                progress_line(
                    *counts,
                    self.total,
                    self.words,
                    self.started.elapsed(),
                    last
                )
            );
        }
    }

    fn end(&self) {
        if self.on {
            eprintln!();
        }
    }
}

/// How a certification row counts: passed, failed, or neither (skipped, not run).
fn row_tally(row: &slicc_browsers::harness::runner::summary::Row) -> Tally {
    if row.failed() {
        Tally::Bad
    } else if row.skipped() || row.not_run() {
        Tally::Other
    } else {
        Tally::Good
    }
}

fn parallel(args: &mut Args) -> Result<usize, String> {
    match args.value("--parallel")? {
        None => Ok(1),
        Some(p) => match p.parse::<usize>() {
            Ok(n) if (1..=16).contains(&n) => Ok(n),
            _ => Err(format!("--parallel {p:?} is not a number from 1 to 16")),
        },
    }
}

/// What `guard selftest` and `guard certify` share: the set, which rows in which Chromium,
/// `--json`, `--records DIR` (created) and the progress line.
struct BrowserRun {
    set: Vectors,
    options: SelfTestOptions,
    json: bool,
    records: Option<String>,
    progress: Progress,
}

impl BrowserRun {
    /// `runnable_only`: the self-test, which runs no text vector.
    fn parse(mut args: Args, runnable_only: bool) -> Result<BrowserRun, String> {
        let set = vectors(&mut args)?;
        let options = SelfTestOptions {
            chromium: args
                .value("--chromium")?
                .unwrap_or_else(|| selftest::CHROMIUM.to_string()),
            targets: args.values("--target")?,
            variants: args.values("--variant")?,
            ids: args.values("--id")?,
            parallel: parallel(&mut args)?,
            origins: match args.value("--origins")? {
                None => None,
                Some(path) => Some(read_origins(&path)?),
            },
            strict: runnable_only && args.flag("--strict"),
            ..SelfTestOptions::default()
        };
        let json = args.flag("--json");
        let records = args.value("--records")?;
        args.finish()?;
        if let Some(dir) = &records {
            std::fs::create_dir_all(dir).map_err(|e| format!("--records {dir}: {e}"))?;
        }
        let total = if runnable_only {
            selftest::rows_selected(&selftest::runnable(&set), &options)?
        } else {
            selftest::rows_selected(&set, &options)?
        };
        let words = if runnable_only {
            ("behaved", "misbehaved")
        } else {
            ("passed", "failed")
        };
        let progress = Progress::new(total, words);
        crate::signals::stop_browsers_on_signal();
        Ok(BrowserRun {
            set,
            options,
            json,
            records,
            progress,
        })
    }

    /// Notes a judged row: progress, and what its legs recorded when `keep` and `--records`.
    fn row_done(&self, result: &RowResult, tally: Tally, keep: bool) {
        let r = &result.row;
        self.progress
            .tick(&format!("{} {} {}", r.id, r.target, r.variant), tally);
        if let (Some(dir), true) = (&self.records, keep) {
            let file = format!("{dir}/{}.{}.{}.json", r.id, r.target, r.variant);
            let body =
                serde_json::json!({ "row": r, "records": result.records, "vars": result.vars });
            let _ = std::fs::write(
                &file,
                serde_json::to_string_pretty(&body).unwrap_or_default(),
            );
        }
    }
}

/// `wall time <s>s, <r> rows/minute at --parallel <n>`.
fn wall_time(elapsed: std::time::Duration, rows: usize, parallel: usize) -> String {
    let minutes = elapsed.as_secs_f64() / 60.0;
    format!(
        "wall time {:.1}s, {:.1} rows/minute at --parallel {parallel}",
        elapsed.as_secs_f64(),
        if minutes > 0.0 {
            rows as f64 / minutes
        } else {
            0.0
        },
    )
}

/// `guard selftest`.
pub fn selftest(args: Args) -> Result<ExitCode, String> {
    let run = BrowserRun::parse(args, true)?;
    let stdout = Mutex::new(std::io::stdout());
    let report = selftest::selftest(&run.set, &run.options, &|row| {
        let r = &row.result.row;
        let (tally, keep) = match row.verdict {
            SelfTestVerdict::Behaved => (Tally::Good, false),
            SelfTestVerdict::Misbehaved(_) => (Tally::Bad, true),
            SelfTestVerdict::Skipped(_) => (Tally::Other, false),
        };
        run.row_done(&row.result, tally, keep);
        if run.json {
            let mut line = serde_json::to_value(r).unwrap_or(Value::Null);
            let (verdict, why) = match &row.verdict {
                SelfTestVerdict::Behaved => ("behaved", Vec::new()),
                SelfTestVerdict::Misbehaved(why) => ("misbehaved", why.clone()),
                SelfTestVerdict::Skipped(reason) => ("skipped", vec![reason.clone()]),
            };
            line["selftest"] = Value::String(verdict.into());
            line["why"] = why.into();
            line["ms"] = u64::try_from(row.result.elapsed.as_millis())
                .unwrap_or(u64::MAX)
                .into();
            let mut out = stdout
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let _ = writeln!(out, "{line}");
        }
    })?;
    run.progress.end();
    let mut out = std::io::stdout().lock();
    for row in &report.rows {
        if let SelfTestVerdict::Misbehaved(why) = &row.verdict {
            let r = &row.result.row;
            let _ = writeln!(out, "MISBEHAVED {} {} {}", r.id, r.target, r.variant);
            for w in why {
                let _ = writeln!(out, "  {w}");
            }
        }
    }
    let _ = writeln!(
        out,
        "{}",
        wall_time(report.elapsed, report.rows.len(), run.options.parallel)
    );
    let _ = writeln!(out, "{}", report.line());
    Ok(if report.misbehaved() > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// `guard certify`: the crate's proxy in front of headless Chromium, every row through it.
pub fn certify(mut args: Args) -> Result<ExitCode, String> {
    let patterns = crate::protect::take(&mut args)?;
    let run = BrowserRun::parse(args, false)?;
    let report = slicc_browsers::harness::certify::certify_protecting(
        &run.set,
        &run.options,
        &patterns,
        &|result| {
            run.row_done(result, row_tally(&result.row), result.row.failed());
            if run.json {
                if let Ok(line) = serde_json::to_string(&result.row) {
                    // A reader that has gone does not stop the run (nor panic it).
                    let _ = crate::output::outln!("{line}");
                }
            }
        },
    )?;
    run.progress.end();
    let mut out = std::io::stdout().lock();
    for result in &report.rows {
        let r = &result.row;
        if r.failed() {
            let _ = writeln!(out, "FAILED {} {} {}", r.id, r.target, r.variant);
            for e in &r.errors {
                let _ = writeln!(out, "  {e}");
            }
        }
    }
    let o = &run.options;
    let limited = !(o.targets.is_empty() && o.variants.is_empty() && o.ids.is_empty());
    if limited {
        let _ = writeln!(
            out,
            "{} rows missing (the run was limited by --target, --variant or --id)",
            report.summary.missing.len()
        );
    } else {
        for key in &report.summary.missing {
            let _ = writeln!(
                out,
                "MISSING {} {} {} {}",
                key.id, key.target, key.variant, key.transport
            );
        }
    }
    let _ = writeln!(
        out,
        "{}",
        wall_time(report.elapsed, report.rows.len(), run.options.parallel)
    );
    // What the rows that ran did, before the line that (when limited) can only fail.
    let _ = writeln!(out, "{}", rows_run(&report.summary));
    let _ = writeln!(out, "{}", report.summary.line);
    Ok(if report.summary.pass {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `N rows run: P passed` and the failed, skipped and not-run counts that are not zero.
fn rows_run(summary: &slicc_browsers::harness::runner::summary::Summary) -> String {
    let run = summary.passed + summary.failed + summary.skipped + summary.not_run;
    let mut line = format!("{run} rows run: {} passed", summary.passed);
    for (n, word) in [
        (summary.failed, "failed"),
        (summary.skipped, "skipped"),
        (summary.not_run, "not run (text rows)"),
    ] {
        if n > 0 {
            line.push_str(&format!(", {n} {word}"));
        }
    }
    line
}

/// A running guard and its observer, reached over CDP: two fresh connections per leg.
struct Remote {
    guard: String,
    observer: String,
    capabilities: CapabilitySet,
    transport: String,
}

impl Guard for Remote {
    fn transport(&self) -> String {
        self.transport.clone()
    }

    fn capabilities(&self) -> CapabilitySet {
        self.capabilities
    }

    fn has_observer(&self) -> bool {
        true
    }

    fn connect(&self, _leg: &LegRequest<'_>) -> Result<Clients, GuardConnectError> {
        let guarded =
            CdpClient::connect_endpoint(&self.guard, CdpOptions::new()).map_err(|error| {
                GuardConnectError::Endpoint {
                    name: format!("--guard {}", self.guard),
                    error,
                }
            })?;
        let observer =
            CdpClient::connect_endpoint(&self.observer, CdpOptions::new()).map_err(|error| {
                GuardConnectError::Endpoint {
                    name: format!("--observer {}", self.observer),
                    error,
                }
            })?;
        Ok(leg_clients(guarded, observer))
    }
}

/// `guard run`.
pub fn run(mut args: Args) -> Result<ExitCode, String> {
    let set = vectors(&mut args)?;
    let guard_url = args.required("--guard", "<cdp-url>")?;
    let observer_url = args.required("--observer", "<cdp-url>")?;
    let origins = read_origins(&args.required("--origins", "<map.json>")?)?;
    let capabilities = match args.value("--capabilities")? {
        None => CapabilitySet::all(),
        Some(list) => CapabilitySet::from_names(list.split(',').map(str::trim)),
    };
    let guard_name = args
        .value("--guard-name")?
        .unwrap_or_else(|| "guard".into());
    let sha = args.value("--sha")?.unwrap_or_else(|| "unknown".into());
    let transport = args.value("--transport")?.unwrap_or_else(|| "cdp".into());
    let fixture_url = args.value("--fixture")?;
    let fixture_port = args.value("--fixture-port")?;
    let json = args.flag("--json");
    let options = RunOptions {
        origins,
        targets: args.values("--target")?,
        variants: args.values("--variant")?,
        ids: args.values("--id")?,
        parallel: 1,
        ..RunOptions::default()
    };
    args.finish()?;

    let (stand_in, own_fixture): (Arc<dyn StandIn>, Option<Arc<Fixture>>) = match fixture_url {
        Some(url) => (
            Arc::new(RemoteStandIn::parse(&url).map_err(|e| format!("--fixture: {e}"))?),
            None,
        ),
        None => {
            let port = match fixture_port {
                None => 0,
                Some(p) => p
                    .parse::<u16>()
                    .map_err(|_| format!("--fixture-port {p:?} is not a port number"))?,
            };
            let fixture = Arc::new(
                Fixture::start(FixtureOptions {
                    port,
                    ..FixtureOptions::default()
                })
                .map_err(|e| format!("cannot start the stand-in on port {port}: {e}"))?,
            );
            eprintln!("stand-in: {}", fixture.origin());
            (Arc::clone(&fixture) as Arc<dyn StandIn>, Some(fixture))
        }
    };
    let guard = Remote {
        guard: guard_url,
        observer: observer_url,
        capabilities,
        transport: transport.clone(),
    };
    let progress = Progress::new(count_rows(&set, &options)?, ("passed", "failed"));
    let results = drive::run(&set, &guard, stand_in, &options, &|result| {
        let r = &result.row;
        progress.tick(
            &format!("{} {} {}", r.id, r.target, r.variant),
            row_tally(r),
        );
        if json {
            if let Ok(line) = serde_json::to_string(r) {
                // A reader that has gone does not stop the run (nor panic it).
                let _ = crate::output::outln!("{line}");
            }
        }
    })?;
    progress.end();
    if let Some(f) = own_fixture {
        f.close();
    }
    let rows: Vec<_> = results.into_iter().map(|r| r.row).collect();
    let variants = (!options.variants.is_empty()).then_some(options.variants.as_slice());
    let summary = summarize(SummaryInput {
        guard: &guard_name,
        sha: &sha,
        set: &set,
        scope: None,
        variants,
        transports: &[transport],
        rows: &rows,
    });
    crate::output::outln!("{}", summary.line)?;
    Ok(if summary.pass {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_limited_run_says_what_its_rows_did() {
        // A run limited by --id: 3 rows ran and passed, 826 are missing, so the line is
        // GUARD-FAIL; the line before it says the rows that ran passed.
        let mut summary = slicc_browsers::harness::runner::summary::Summary {
            set: "1.0.0".into(),
            schema_version: 1,
            guard: "g".into(),
            sha: "s".into(),
            variants: Vec::new(),
            targets: Vec::new(),
            transports: Vec::new(),
            rows: 829,
            passed: 3,
            failed: 0,
            skipped: 0,
            observer_skipped: 0,
            not_run: 0,
            skips: Default::default(),
            missing: Vec::new(),
            pass: false,
            line: "GUARD-FAIL g@s".into(),
        };
        assert_eq!(rows_run(&summary), "3 rows run: 3 passed");
        summary.failed = 1;
        summary.skipped = 2;
        assert_eq!(
            rows_run(&summary),
            "6 rows run: 3 passed, 1 failed, 2 skipped"
        );
    }

    #[test]
    fn the_progress_line_counts_rows_and_estimates_the_time_left() {
        let counts = Counts {
            done: 10,
            good: 8,
            bad: 1,
        };
        assert_eq!(
            progress_line(
                counts,
                40,
                ("behaved", "misbehaved"),
                Duration::from_secs(100),
                "C1.x seven prompt"
            ),
            "10/40 rows, 8 behaved, 1 misbehaved, 1m40s elapsed, ETA 5m00s, last C1.x seven prompt"
        );
        let none = Counts::default();
        assert_eq!(
            progress_line(none, 3, ("passed", "failed"), Duration::ZERO, "-"),
            "0/3 rows, 0 passed, 0 failed, 0s elapsed, ETA ?, last -"
        );
        assert_eq!(duration(7300.0), "2h01m");
    }
}
