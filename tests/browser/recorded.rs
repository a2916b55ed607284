//! Guard-vector runs that several tests assert on, each run once per test run.
//!
//! The same self-test or certification (the same vectors, options and browser) is asked for by
//! more than one test: the representative subset's self-test and certification by
//! `guard_selftest`, `guard_certify` and `guard_js_agreement`, the other-style and third-style
//! files' by `guard_other_style`, `guard_third_style`, `guard_js_runner` and
//! `guard_js_agreement`. The first test that asks runs it and writes what it recorded (every row
//! with its records, the summary) to a file of this test run; the others wait for that file and
//! read it, and each keeps every assertion it had on the rows. Under `cargo test` the tests are
//! threads of one process and the run is the process; under cargo nextest every test is a
//! process of its own and the run is nextest's (`NEXTEST_RUN_ID`). A recording is never reused
//! from another run: each run records afresh, so a test still fails when the browser, the
//! vectors or the guard changed.
//!
//! Only the recording is shared: a self-test's rows are judged by each test's own
//! `strict` (a judging option: the legs a strict and a plain self-test record are the same).
//! When the test that runs a recording fails (it panics, or is killed), the next test that waits
//! for it runs it itself.
#![cfg(all(feature = "cli-full", unix))]

use std::hash::{Hash, Hasher};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, SystemTime};

use serde_json::{json, Value};
use slicc_browsers::harness::certify::{self, CertifyReport};
use slicc_browsers::harness::runner::drive::RowResult;
use slicc_browsers::harness::runner::summary::Status;
use slicc_browsers::harness::selftest::{self, SelfTestOptions, SelfTestReport, SelfTestRow};
use slicc_browsers::vectors::Vectors;

/// What one run recorded: its rows, the certification's summary, how long it took.
struct Recording {
    rows: Vec<RowResult>,
    summary: Option<Value>,
    elapsed: Duration,
}

/// The self-test of `set` (which `name` names: `ours`, `other`, `third`) with `options`, run
/// once per test run; its rows judged by `options.strict`, as [`selftest::selftest`] judges them.
pub fn selftest(name: &str, set: &Vectors, options: &SelfTestOptions) -> SelfTestReport {
    let mut unjudged = options.clone();
    unjudged.strict = false;
    let recording = once("selftest", name, &unjudged, || {
        let run = |options: &SelfTestOptions| {
            let report = selftest::selftest(set, options, &|_| {}).expect("the self-test runs");
            let rows = report.rows.into_iter().map(|r| r.result).collect();
            (rows, report.elapsed)
        };
        let (rows, elapsed) = run(&unjudged);
        // With no guard, a row misbehaves when an effect did not appear in time (a control's
        // page, or the attack's, starved by the other tests' browsers).
        let flaky = |r: &RowResult| {
            set.vector(&r.row.id).is_some_and(|v| {
                matches!(
                    selftest::verdict_strict(v, r),
                    selftest::SelfTestVerdict::Misbehaved(_)
                )
            })
        };
        let (rows, again) = once_more(rows, &unjudged, flaky, run);
        Recording {
            rows,
            summary: None,
            elapsed: elapsed + again,
        }
    });
    let rows = recording
        .rows
        .into_iter()
        .filter_map(|result| {
            let v = set.vector(&result.row.id)?;
            Some(SelfTestRow {
                verdict: if options.strict {
                    selftest::verdict_strict(v, &result)
                } else {
                    selftest::verdict(v, &result)
                },
                result,
            })
        })
        .collect();
    SelfTestReport {
        rows,
        elapsed: recording.elapsed,
    }
}

/// The files whose every row the crate's proxy passes (`guard_certify`, `guard_third_style`):
/// their certification runs a row whose control or liveness failed once more.
const EVERY_ROW_PASSES: [&str; 2] = ["ours", "third"];

/// `guard certify` of `set` (which `name` names) with `options`, through the crate's proxy, run
/// once per test run.
pub fn certify(name: &str, set: &Vectors, options: &SelfTestOptions) -> CertifyReport {
    let recording = once("certify", name, options, || {
        let run = |options: &SelfTestOptions| {
            let report = certify::certify(set, options, &|_| {}).expect("the certification runs");
            (report.rows, report.elapsed)
        };
        let (rows, elapsed) = run(options);
        // Through the guard, only a row whose guarded leg passed: its control or liveness
        // missed its page's events in time. A guarded leg that failed counts at once, so that
        // a guard letting an attack through now and then fails the run. Only in a file whose
        // every row the proxy must pass: the other-style file's rows that fail by its design
        // (liveness the proxy cannot show) are compared between runners, not run again.
        let flaky = |r: &RowResult| {
            let (control, guarded, live) = (r.row.control, r.row.guarded, r.row.live);
            EVERY_ROW_PASSES.contains(&name)
                && guarded == Status::Pass
                && [control, live].contains(&Status::Fail)
        };
        let (rows, again) = once_more(rows, options, flaky, run);
        let summary = certify::summary(set, options, &rows);
        Recording {
            rows,
            summary: Some(serde_json::to_value(&summary).expect("a summary is JSON")),
            elapsed: elapsed + again,
        }
    });
    CertifyReport {
        rows: recording.rows,
        summary: serde_json::from_value(recording.summary.expect("a certification's summary"))
            .expect("the summary reads back"),
        elapsed: recording.elapsed,
    }
}

/// Runs once more, in one run of their own, the rows of a run that `flaky` picks (those where a
/// slow machine can be the cause), with `run`; each second run's row takes the first's place,
/// and counts. Returns the rows and the time the second run took.
fn once_more(
    mut rows: Vec<RowResult>,
    options: &SelfTestOptions,
    flaky: impl Fn(&RowResult) -> bool,
    run: impl Fn(&SelfTestOptions) -> (Vec<RowResult>, Duration),
) -> (Vec<RowResult>, Duration) {
    let key = |r: &RowResult| {
        (
            r.row.id.clone(),
            r.row.target.clone(),
            r.row.variant.clone(),
        )
    };
    let again: Vec<usize> = (0..rows.len()).filter(|&i| flaky(&rows[i])).collect();
    if again.is_empty() {
        return (rows, Duration::ZERO);
    }
    let mut alone = SelfTestOptions {
        targets: Vec::new(),
        variants: Vec::new(),
        ids: Vec::new(),
        ..options.clone()
    };
    for &i in &again {
        let r = &rows[i].row;
        println!(
            "once more: {} on {} ({}): control {}, guarded {}, live {}; {}",
            r.id,
            r.target,
            r.variant,
            r.control.as_str(),
            r.guarded.as_str(),
            r.live.as_str(),
            r.errors.join("; ")
        );
        for (list, item) in [
            (&mut alone.ids, &r.id),
            (&mut alone.targets, &r.target),
            (&mut alone.variants, &r.variant),
        ] {
            if !list.contains(item) {
                list.push(item.clone());
            }
        }
    }
    let (second, took) = run(&alone);
    for i in again {
        let k = key(&rows[i]);
        let r = second
            .iter()
            .find(|r| key(r) == k)
            .unwrap_or_else(|| panic!("{k:?} runs again"));
        rows[i] = r.clone();
    }
    (rows, took)
}

/// This test run's name: nextest's run id, or this process (its id and start time).
fn run_id() -> &'static str {
    static ID: OnceLock<String> = OnceLock::new();
    ID.get_or_init(|| match std::env::var("NEXTEST_RUN_ID") {
        Ok(id) if !id.is_empty() => format!("nextest-{id}"),
        _ => {
            let t = SystemTime::now()
                .duration_since(SystemTime::UNIX_EPOCH)
                .unwrap_or_default();
            format!("process-{}-{}", std::process::id(), t.as_nanos())
        }
    })
}

/// This run's folder of recordings (under the target dir's folder for tests); the folders of
/// runs older than a day are removed.
fn run_dir() -> PathBuf {
    let all = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("recorded");
    let dir = all.join(run_id());
    if !dir.exists() {
        std::fs::create_dir_all(&dir).expect("the recordings' folder");
        for old in std::fs::read_dir(&all).into_iter().flatten().flatten() {
            let old_enough = old
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.elapsed().ok())
                .is_some_and(|age| age > Duration::from_secs(24 * 3600));
            if old_enough {
                let _ = std::fs::remove_dir_all(old.path());
            }
        }
    }
    dir
}

/// Removes the claim when the test that made it panics before the recording is written.
struct Claim(PathBuf);

impl Drop for Claim {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Whether the process that wrote `claim` (its first line, a process id) still runs.
fn claimant_alive(claim: &Path) -> bool {
    let Ok(text) = std::fs::read_to_string(claim) else {
        // Gone, or not written yet: look again at the next turn.
        return true;
    };
    let Some(pid) = text
        .lines()
        .next()
        .and_then(|l| l.trim().parse::<i32>().ok())
    else {
        return true;
    };
    match rustix::process::Pid::from_raw(pid) {
        Some(pid) => rustix::process::test_kill_process(pid).is_ok(),
        None => false,
    }
}

/// The recording of `kind` on `name` with `options`: read from this run's file when another
/// test wrote it, else run by `record` here (claimed first, so that one test runs it while the
/// others wait) and written.
fn once(
    kind: &str,
    name: &str,
    options: &SelfTestOptions,
    record: impl FnOnce() -> Recording,
) -> Recording {
    // Every option but the judging one names the run (the chromium path, targets, variants,
    // ids, slots, call timeout, origin map).
    let described = format!("{kind} {name} {options:?}");
    let mut h = std::collections::hash_map::DefaultHasher::new();
    described.hash(&mut h);
    let key = format!("{kind}-{name}-{:016x}", h.finish());
    let dir = run_dir();
    let done = dir.join(format!("{key}.json"));
    let claim = dir.join(format!("{key}.claim"));
    let mut record = Some(record);
    loop {
        if let Ok(text) = std::fs::read_to_string(&done) {
            let v: Value = serde_json::from_str(&text).expect("a recording is JSON");
            assert_eq!(
                v["described"],
                json!(described),
                "{key}: another run's options"
            );
            println!("{kind} {name}: the recording another test of this run made ({key})");
            return read(&v);
        }
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&claim)
        {
            Ok(mut f) => {
                let _ = writeln!(f, "{}", std::process::id());
                drop(f);
                let _claim = Claim(claim.clone());
                // A recording another test finished between the look above and the claim.
                if done.exists() {
                    continue;
                }
                let recording = (record.take().expect("recorded once"))();
                let tmp = dir.join(format!("{key}.{}.tmp", std::process::id()));
                std::fs::write(&tmp, write(&described, &recording).to_string())
                    .expect("the recording is written");
                std::fs::rename(&tmp, &done).expect("the recording is in place");
                println!("{kind} {name}: recorded here ({key})");
                return recording;
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                if !claimant_alive(&claim) {
                    let _ = std::fs::remove_file(&claim);
                    continue;
                }
                std::thread::sleep(Duration::from_millis(500));
            }
            Err(e) => panic!("{}: {e}", claim.display()),
        }
    }
}

fn write(described: &str, r: &Recording) -> Value {
    let rows: Vec<Value> = r
        .rows
        .iter()
        .map(|row| {
            json!({
                "row": row.row,
                "records": row.records,
                "vars": row.vars,
                "elapsed": row.elapsed.as_secs_f64(),
                "slot": row.slot,
            })
        })
        .collect();
    json!({
        "described": described,
        "rows": rows,
        "summary": r.summary,
        "elapsed": r.elapsed.as_secs_f64(),
    })
}

fn read(v: &Value) -> Recording {
    let rows = v["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|row| RowResult {
            row: serde_json::from_value(row["row"].clone()).expect("a row reads back"),
            records: serde_json::from_value(row["records"].clone()).expect("records read back"),
            vars: serde_json::from_value(row["vars"].clone()).expect("vars read back"),
            elapsed: Duration::from_secs_f64(row["elapsed"].as_f64().expect("elapsed")),
            slot: row["slot"].as_u64().expect("slot") as usize,
        })
        .collect();
    Recording {
        rows,
        summary: (!v["summary"].is_null()).then(|| v["summary"].clone()),
        elapsed: Duration::from_secs_f64(v["elapsed"].as_f64().expect("elapsed")),
    }
}
