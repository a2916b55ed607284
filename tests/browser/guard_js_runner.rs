//! The JavaScript runner (`guard-runner.mjs`) and stand-in (`fixture.mjs`) live, in headless
//! Chromium, on the representative subset (`tests/subset`):
//!
//! - `npm run test:guard`'s script with no guard, on `seven` and `own` (one Chromium each):
//!   every row behaves (control passes, guarded expectations fail);
//! - the same runner through `slicc-browsers guard proxy`: every row passes;
//! - the JavaScript runner against the crate's stand-in (`slicc-browsers guard fixture`), and
//!   the crate's runner (`slicc-browsers guard run`) against `fixture.mjs`: each stand-in serves
//!   the other runner as its own.
//!
//! Every Chromium is headless, in a temporary profile, `--remote-debugging-port=0`, hosts mapped
//! with `--host-resolver-rules`, and killed at the end (`scripts/guard-kit/chromium.mjs`, or the
//! crate's `selftest::Chromium`). Skipped (with the reason printed) without /usr/bin/chromium or
//! node, unless `CI` is set.
#![cfg(all(feature = "cli-full", unix))]

use crate::needs;
use crate::recorded;
use crate::subset;

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

use serde_json::{json, Value};
use slicc_browsers::harness::runner::expand::{OPTIONAL_ORIGINS, REQUIRED_ORIGINS};
use slicc_browsers::harness::selftest::{self, Chromium, CHROMIUM, HOSTS};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn runs_here() -> bool {
    !(needs::missing("/usr/bin/chromium", needs::chromium())
        || needs::missing("node", needs::node()))
}

/// `--id` for each vector of the subset.
fn subset_ids() -> Vec<String> {
    subset::SUBSET
        .iter()
        .flat_map(|id| ["--id".to_string(), id.to_string()])
        .collect()
}

/// Runs `scripts/test-guard.mjs` with `args`; returns (rows, behaved, misbehaved, skipped),
/// after printing its output. A row that misbehaved where a slow machine can be the cause runs
/// once more (the row alone, on its target), and its second verdict counts: with no guard, every
/// misbehaviour is an effect that did not appear in time (a control's page starved by the other
/// tests' browsers misses the vector's fixed wait); through the guard (`--certify`), only a row
/// whose guarded leg has no complaint, so that a guard letting an attack through now and then
/// fails at once.
fn test_guard(args: &[String]) -> (usize, usize, usize, usize) {
    let first = test_guard_once(args);
    let certify = args.iter().any(|a| a == "--certify");
    let again: Vec<&Misbehaved> = first
        .misbehaved
        .iter()
        .filter(|m| !certify || !m.why.iter().any(|w| w.starts_with("guarded: ")))
        .collect();
    let (rows, mut behaved, mut misbehaved, mut skipped) = first.counts;
    if again.is_empty() {
        return first.counts;
    }
    // The arguments without their rows (--id, --target), then each retried row on its target.
    let mut base = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "--id" || a == "--target" {
            it.next();
        } else {
            base.push(a.clone());
        }
    }
    for m in again {
        println!(
            "once more: {} on {} (misbehaved: {})",
            m.id,
            m.target,
            m.why.join("; ")
        );
        let mut args = base.clone();
        args.extend(["--id", &m.id, "--target", &m.target].map(String::from));
        let (r, b, mb, s) = test_guard_once(&args).counts;
        assert_eq!(r, 1, "the row {} on {} runs again alone", m.id, m.target);
        behaved += b;
        misbehaved = misbehaved - 1 + mb;
        skipped += s;
    }
    (rows, behaved, misbehaved, skipped)
}

/// A row that misbehaved in a run of `scripts/test-guard.mjs`: its `MISBEHAVED <id> <target>
/// <variant>` line and the reasons indented under it.
struct Misbehaved {
    id: String,
    target: String,
    why: Vec<String>,
}

/// One run of `scripts/test-guard.mjs`: its summary's counts and the rows that misbehaved.
struct TestGuardRun {
    counts: (usize, usize, usize, usize),
    misbehaved: Vec<Misbehaved>,
}

fn test_guard_once(args: &[String]) -> TestGuardRun {
    let out = Command::new("node")
        .arg(root().join("scripts/test-guard.mjs"))
        .args(args)
        .output()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}{}", String::from_utf8_lossy(&out.stderr));
    let mut misbehaved: Vec<Misbehaved> = Vec::new();
    for line in stdout.lines() {
        if let Some(row) = line.strip_prefix("MISBEHAVED ") {
            let mut words = row.split(' ');
            let (Some(id), Some(target)) = (words.next(), words.next()) else {
                panic!("a MISBEHAVED line without its id and target: {line:?}");
            };
            misbehaved.push(Misbehaved {
                id: id.to_string(),
                target: target.to_string(),
                why: Vec::new(),
            });
        } else if let (Some(why), Some(m)) = (line.strip_prefix("  "), misbehaved.last_mut()) {
            m.why.push(why.to_string());
        }
    }
    let last = stdout.lines().last().unwrap_or("");
    let n: Vec<usize> = last
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|s| s.parse().ok())
        .collect();
    assert!(
        last.starts_with("test:guard: ") && n.len() == 4,
        "no summary line: {last:?}"
    );
    assert_eq!(
        misbehaved.len(),
        n[2],
        "one MISBEHAVED line per row the summary counts"
    );
    TestGuardRun {
        counts: (n[0], n[1], n[2], n[3]),
        misbehaved,
    }
}

/// Kills the child's process group when dropped (also when a test fails).
struct Kill(Child);

impl Drop for Kill {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn the_js_runner_with_no_guard_behaves_on_the_subset() {
    if !runs_here() {
        return;
    }
    let mut args = subset_ids();
    args.extend(["--target", "seven", "--target", "own"].map(String::from));
    let (rows, behaved, misbehaved, _) = test_guard(&args);
    let set = slicc_browsers::guard::vectors();
    let want: usize = ["seven", "own"]
        .iter()
        .map(|t| {
            subset::SUBSET
                .iter()
                .filter(|id| {
                    set.vector(id)
                        .is_some_and(|v| v.targets.iter().any(|x| x == t))
                })
                .count()
        })
        .sum();
    assert_eq!(rows, want, "one row per vector and target it lists");
    assert_eq!(misbehaved, 0, "every row behaves with no guard");
    assert_eq!(
        behaved, rows,
        "no row skips on Chromium with every capability"
    );
    // The other-style file, with its origin map, on seven: every row behaves too.
    let other = root().join("tests/data/guard-vectors/other-style.json");
    let origins = root().join("tests/data/other-style-origins.json");
    let args: Vec<String> = [
        "--vectors",
        other.to_str().unwrap(),
        "--origins",
        origins.to_str().unwrap(),
        "--target",
        "seven",
    ]
    .map(String::from)
    .to_vec();
    let (rows, behaved, misbehaved, _) = test_guard(&args);
    let text = std::fs::read_to_string(&other).unwrap();
    let other_set = slicc_browsers::vectors::Vectors::parse(&text).unwrap();
    let on_seven = other_set
        .vectors
        .iter()
        .filter(|v| v.targets.iter().any(|t| t == "seven"))
        .count();
    assert_eq!(rows, on_seven, "one row per vector on seven");
    assert_eq!(misbehaved, 0, "every other-style row behaves with no guard");
    assert_eq!(behaved, rows);
}

#[test]
fn the_js_runner_through_guard_proxy_passes_the_subset() {
    if !runs_here() {
        return;
    }
    let mut args = subset_ids();
    args.extend(
        [
            "--target",
            "seven",
            "--certify",
            "--proxy",
            env!("CARGO_BIN_EXE_slicc-browsers"),
        ]
        .map(String::from),
    );
    let (rows, passed, failed, _) = test_guard(&args);
    assert_eq!(rows, subset::SUBSET.len());
    assert_eq!(failed, 0, "every row passes through the crate's guard");
    assert_eq!(passed, rows);
}

#[test]
fn the_js_runner_behaves_against_the_crate_stand_in() {
    if !runs_here() {
        return;
    }
    let mut fixture = Kill(
        Command::new(env!("CARGO_BIN_EXE_slicc-browsers"))
            .args(["guard", "fixture"])
            .stdout(Stdio::piped())
            .spawn()
            .expect("guard fixture starts"),
    );
    let (tx, rx) = std::sync::mpsc::channel();
    let stdout = fixture.0.stdout.take().expect("its stdout");
    std::thread::spawn(move || {
        // The first line is the origin; the rest (the log) is read and dropped.
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let origin = rx
        .recv_timeout(std::time::Duration::from_secs(30))
        .expect("guard fixture prints its origin");
    let mut args = subset_ids();
    args.extend(["--target", "seven", "--standin", &origin].map(String::from));
    let (rows, behaved, misbehaved, _) = test_guard(&args);
    assert_eq!(rows, subset::SUBSET.len());
    assert_eq!(
        misbehaved, 0,
        "every row behaves against the crate's stand-in"
    );
    assert_eq!(behaved, rows);
}

#[test]
fn the_crate_runner_behaves_against_fixture_mjs() {
    if !runs_here() {
        return;
    }
    let mut node = Kill(
        Command::new("node")
            .arg(root().join("tests/js/serve-fixture.mjs"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("node starts"),
    );
    let mut first = String::new();
    BufReader::new(node.0.stdout.take().expect("its stdout"))
        .read_line(&mut first)
        .expect("fixture.mjs prints its origin");
    let origin = first.trim().to_string();
    let port: u16 = origin
        .rsplit(':')
        .next()
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no port in {origin:?}"));
    let mut chromium = Chromium::launch(CHROMIUM, &HOSTS, port).expect("Chromium starts");
    let origins = selftest::origins_for("seven");
    let map: serde_json::Map<String, Value> = REQUIRED_ORIGINS
        .into_iter()
        .chain(OPTIONAL_ORIGINS.map(|(n, _)| n))
        .map(|n| (n.to_string(), json!(origins.get(n))))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let map_file = dir.path().join("origins.json");
    std::fs::write(&map_file, Value::Object(map).to_string()).unwrap();
    // `guard run` on the rows `ids` names: its JSON rows, one per id.
    let guard_run = |ids: &[String]| -> Vec<Value> {
        let out = Command::new(env!("CARGO_BIN_EXE_slicc-browsers"))
            .args(["guard", "run", "--guard", chromium.ws_url(), "--observer"])
            .arg(chromium.ws_url())
            .arg("--origins")
            .arg(&map_file)
            .args([
                "--fixture",
                &origin,
                "--target",
                "seven",
                "--variant",
                "prompt",
                "--json",
            ])
            .args(ids.iter().flat_map(|id| ["--id", id]))
            .output()
            .expect("guard run runs");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let rows: Vec<Value> = stdout
            .lines()
            .filter(|l| l.starts_with('{'))
            .map(|l| serde_json::from_str(l).expect("a JSON row"))
            .collect();
        assert_eq!(
            rows.len(),
            ids.len(),
            "one row per vector: {stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        rows
    };
    // With no guard, a row behaves when its control passed and its attack worked.
    let behaves = |r: &Value| {
        let attack_worked = r["errors"].as_array().is_some_and(|e| {
            e.iter()
                .filter_map(Value::as_str)
                .any(|e| e.starts_with("guarded: ") && e.contains(", expected "))
        });
        r["control"] == "pass" && r["guarded"] == "fail" && attack_worked
    };
    let ids: Vec<String> = subset::SUBSET.iter().map(|s| s.to_string()).collect();
    let mut rows = guard_run(&ids);
    // A row that misbehaved (an effect that did not appear in time, on a slow machine) runs
    // once more, and its second verdict counts.
    let again: Vec<String> = rows
        .iter()
        .filter(|r| !behaves(r))
        .filter_map(|r| r["id"].as_str().map(String::from))
        .collect();
    if !again.is_empty() {
        println!("once more: {again:?}");
        let second = guard_run(&again);
        rows.retain(|r| behaves(r));
        rows.extend(second);
    }
    chromium.kill();
    if let Some(stdin) = node.0.stdin.as_mut() {
        let _ = stdin.flush();
    }
    drop(node);
    assert_eq!(rows.len(), subset::SUBSET.len(), "one row per vector");
    let misbehaved: Vec<String> = rows
        .iter()
        .filter(|r| !behaves(r))
        .map(Value::to_string)
        .collect();
    assert!(
        misbehaved.is_empty(),
        "with no guard, every control passes and every attack works:\n{}",
        misbehaved.join("\n")
    );
}

#[test]
fn the_spec_example_runs_as_written() {
    if !runs_here() {
        return;
    }
    // The example's code as the spec writes it (both variants, parallel 6, the fixture), on
    // the set cut to C1.script-nav so that it ends in minutes; no guard, so every row fails
    // its guarded leg and the line is a GUARD-FAIL.
    let out = needs::succeeded(
        "node",
        Command::new("node")
            .arg(root().join("tests/js/spec-example.mjs"))
            .arg("C1.script-nav")
            .output(),
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let summary: Value = serde_json::from_str(text.lines().next().unwrap_or("")).expect("JSON");
    for key in [
        "set",
        "schemaVersion",
        "guard",
        "sha",
        "variants",
        "targets",
        "transports",
        "results",
        "skipped",
        "notRun",
        "missing",
        "pass",
        "line",
        "skips",
        "observerSkipped",
    ] {
        assert!(
            summary.get(key).is_some(),
            "the summary has {key}: {summary}"
        );
    }
    let set = slicc_browsers::guard::vectors();
    let targets = set.vector("C1.script-nav").expect("shipped").targets.len();
    let results = summary["results"].as_array().expect("results");
    assert_eq!(results.len(), targets * 2, "every target, both variants");
    assert_eq!(summary["missing"], json!([]));
    assert_eq!(summary["pass"], json!(false));
    assert!(
        summary["line"].as_str().is_some_and(|l| l
            .starts_with("GUARD-FAIL my-guard@build-sha (vectors @ai-ecoverse/slicc-browsers@")),
        "{}",
        summary["line"]
    );
    for r in results {
        assert_eq!(
            (&r["control"], &r["guarded"], &r["live"]),
            (&json!("pass"), &json!("fail"), &json!("pass")),
            "{r}"
        );
    }
}

#[test]
fn bad_input_is_refused_with_where_and_a_silent_client_never_hangs_the_run() {
    if needs::missing("node", needs::node()) {
        return;
    }
    let out = needs::succeeded(
        "node",
        Command::new("node")
            .arg(root().join("tests/js/errors.mjs"))
            .output(),
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let said = |k: &str, what: &str| {
        assert!(
            v[k].as_str().is_some_and(|m| m.contains(what)),
            "{k}: {}",
            v[k]
        );
    };
    said("badVersion", "guard vectors/schemaVersion: is 2");
    said(
        "noCheck",
        "(C1.script-nav)/observe/arrived: is expected but has no check",
    );
    said("wrongClient", "run options/client: needs send(");
    said("wrongFactory", "clientFactory: must return a client");
    said(
        "badOrigin",
        "targets/seven: \"seven.sliccy.ai\" is not an origin",
    );
    // A client that never answers: every call times out (200 ms), each leg stops at 3 s.
    let ms = v["hung"]["ms"].as_u64().expect("ms");
    assert!(ms < 60_000, "the run took {ms} ms");
    let row = &v["hung"]["row"];
    assert_eq!(row["control"], "fail", "{row}");
    assert!(
        row["errors"].as_array().is_some_and(|e| e.iter().any(|e| e
            .as_str()
            .is_some_and(|e| e.contains("did not finish within 3000 ms")))),
        "{row}"
    );
}

/// Runs `file` (which `name` names) on seven/prompt through `guard proxy` with both runners;
/// panics unless every row has the same (control, guarded, live) in both. The crate's run is
/// guard_js_agreement's and guard_third_style's certification of the file too: run once per
/// test run (tests/browser/recorded.rs).
fn same_statuses_through_the_proxy(name: &str, file: &str, origins_file: Option<&str>) {
    let file = root().join(file);
    let text = std::fs::read_to_string(&file).unwrap();
    let set = slicc_browsers::vectors::Vectors::parse(&text).unwrap();
    let origins = origins_file.map(|f| {
        slicc_browsers::harness::runner::expand::Origins::from_json(
            &std::fs::read_to_string(root().join(f)).unwrap(),
        )
        .unwrap()
    });
    let options = selftest::SelfTestOptions {
        targets: vec!["seven".into()],
        variants: vec!["prompt".into()],
        parallel: 2,
        origins,
        ..selftest::SelfTestOptions::default()
    };
    let report = recorded::certify(name, &set, &options);
    let crate_rows: std::collections::BTreeMap<String, Value> = report
        .rows
        .iter()
        .map(|r| {
            let v = serde_json::to_value(&r.row).unwrap();
            (
                r.row.id.clone(),
                json!([v["control"], v["guarded"], v["live"]]),
            )
        })
        .collect();
    // The JavaScript runner's statuses, by id: every row, or the rows `ids` names.
    let js_run = |ids: &[&String]| -> std::collections::BTreeMap<String, Value> {
        let mut node = Command::new("node");
        node.arg(root().join("scripts/test-guard.mjs"))
            .arg("--vectors")
            .arg(&file);
        if let Some(f) = origins_file {
            node.arg("--origins").arg(root().join(f));
        }
        for id in ids {
            node.arg("--id").arg(id);
        }
        let out = node
            .args(["--target", "seven", "--certify", "--json", "--proxy"])
            .arg(env!("CARGO_BIN_EXE_slicc-browsers"))
            .output()
            .expect("node runs");
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter(|l| l.starts_with('{'))
            .map(|l| {
                let v: Value = serde_json::from_str(l).expect("a JSON row");
                (
                    v["id"].as_str().unwrap_or("").to_string(),
                    json!([v["control"], v["guarded"], v["live"]]),
                )
            })
            .collect()
    };
    let mut js_rows = js_run(&[]);
    // A row where the runners disagree because the JavaScript one's control or liveness missed
    // its page's events in time (its guarded leg passed) runs once more there, as the crate's
    // recording runs such rows once more (tests/browser/recorded.rs).
    let again: Vec<&String> = js_rows
        .iter()
        .filter(|(id, js)| {
            crate_rows.get(*id) != Some(*js)
                && js[1] == "pass"
                && (js[0] == "fail" || js[2] == "fail")
        })
        .map(|(id, _)| id)
        .collect();
    if !again.is_empty() {
        println!("once more in the JavaScript runner: {again:?}");
        let second = js_run(&again);
        assert_eq!(second.len(), again.len(), "the rows run again: {second:?}");
        js_rows.extend(second);
    }
    println!(
        "{}:\ncrate: {crate_rows:?}\njs:    {js_rows:?}",
        file.display()
    );
    assert!(!crate_rows.is_empty());
    assert_eq!(
        crate_rows, js_rows,
        "the same rows, the same statuses row by row"
    );
}

#[test]
fn both_runners_through_guard_proxy_give_the_same_statuses_on_the_other_and_third_style_files() {
    if !runs_here() {
        return;
    }
    same_statuses_through_the_proxy(
        "other",
        "tests/data/guard-vectors/other-style.json",
        Some("tests/data/other-style-origins.json"),
    );
    same_statuses_through_the_proxy("third", "tests/data/guard-vectors/third-style.json", None);
}

#[test]
fn the_driver_calls_instrument_load_popup_and_call_a_browser() {
    if !runs_here() {
        return;
    }
    let out = needs::succeeded(
        "node",
        Command::new("node")
            .arg(root().join("tests/js/driver-calls.mjs"))
            .output(),
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["identifier"], true, "{v}");
    assert_eq!(v["load"]["ok"], true, "{v}");
    assert_eq!(
        v["beacon"], true,
        "instrument's beacon ran in the loaded document: {v}"
    );
    assert_eq!(v["failedLoad"]["ok"], false, "{v}");
    assert_eq!(v["popup"], json!({ "type": "page", "opener": true }), "{v}");
    assert_eq!(v["call"]["ok"], false, "{v}");
    assert!(
        v["call"]["error"]["code"].is_number(),
        "a protocol error keeps its code: {v}"
    );
    assert_eq!(v["refusal"], true, "{v}");
    assert_eq!(v["notRefusal"], false, "{v}");
}
