//! A vector file in a third style (issue 29): `tests/data/guard-vectors/third-style.json`,
//! written from the spec's sentences the way a guarded leg is read as written: steps named by
//! `as` without `refusable` and judged by `refused`/`reached`, a `guess` whose attempts are each
//! judged, a redirect chain judged by `hops` apart from its destination, cookie rows proving
//! liveness by an unguarded canary `state` read with a refused or filtered call, and a popup
//! that loads for the user without the client.
//!
//! `validate` must accept it (only this crate's stricter readings warn, under `--strict`), the
//! self-test must run it with no guard (every control passes, every row behaves under the
//! spec's rule), and `guard proxy` must pass it on the representative targets (`seven` with
//! `prompt`, the client's own origin with `lagging`). The Chromium tests are skipped (with the
//! reason printed) without /usr/bin/chromium, unless `CI` is set.
#![cfg(all(feature = "cli-full", unix))]

use crate::needs;
use crate::recorded;

use std::path::Path;
use std::process::Command;

use serde_json::Value;
use slicc_browsers::harness::runner::summary::{Row, Status};
use slicc_browsers::harness::selftest::{SelfTestOptions, SelfTestVerdict, CHROMIUM};

const FILE: &str = "tests/data/guard-vectors/third-style.json";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn text() -> String {
    std::fs::read_to_string(root().join(FILE)).unwrap()
}

fn third_style() -> Value {
    serde_json::from_str(&text()).unwrap()
}

fn set() -> slicc_browsers::vectors::Vectors {
    slicc_browsers::vectors::Vectors::parse(&text()).expect("the types read it")
}

#[test]
fn validate_accepts_it_and_only_our_stricter_readings_warn() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("schema")).unwrap();
    for entry in std::fs::read_dir(root().join("schema")).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(
            entry.path(),
            dir.path().join("schema").join(entry.file_name()),
        )
        .unwrap();
    }
    std::fs::copy(root().join("catalog.json"), dir.path().join("catalog.json")).unwrap();
    std::fs::copy(root().join(FILE), dir.path().join("guard-vectors.json")).unwrap();
    let run = |strict: bool| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_slicc-browsers"));
        cmd.arg("validate");
        if strict {
            cmd.arg("--strict");
        }
        let out = cmd.arg(dir.path()).output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).to_string(),
        )
    };
    let (code, stdout) = run(false);
    assert_eq!(code, Some(0), "{stdout}");
    assert!(!stdout.contains(" error "), "{stdout}");
    let (code, stdout) = run(true);
    assert_eq!(code, Some(0), "{stdout}");
    let warned: Vec<&str> = stdout
        .lines()
        .filter(|l| l.contains(": warning ["))
        .collect();
    assert!(!warned.is_empty(), "{stdout}");
    for line in &warned {
        assert!(
            line.contains("[refused-refusable]") || line.contains("[live-by-state]"),
            "a warning other than the stricter readings of issue 29: {line}"
        );
    }
}

/// Every node of `v`, depth first.
fn nodes(v: &Value) -> Vec<&Value> {
    fn walk<'v>(v: &'v Value, out: &mut Vec<&'v Value>) {
        out.push(v);
        match v {
            Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
            Value::Object(m) => m.values().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(v, &mut out);
    out
}

/// The steps of a vector, nested ones included.
fn steps(v: &Value) -> Vec<&Value> {
    let mut out = Vec::new();
    for phase in ["setup", "trigger"] {
        for s in v[phase].as_array().unwrap() {
            out.push(s);
            if let Some(nested) = s["children"].as_array() {
                out.extend(nested);
            }
        }
    }
    out
}

fn having(what: &str, holds: impl Fn(&Value) -> bool) -> Vec<String> {
    let file = third_style();
    let ids: Vec<String> = file["vectors"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|v| holds(v))
        .map(|v| v["id"].as_str().unwrap().to_string())
        .collect();
    assert!(!ids.is_empty(), "no vector of {FILE} has {what}");
    ids
}

#[test]
fn the_file_holds_a_vector_per_reading_of_issue_29() {
    // Reading 1: hops expected true on the guarded leg, the destination observed apart.
    having("a hop chain judged apart from its destination", |v| {
        let observe = v["observe"].as_object().unwrap();
        observe.iter().any(|(name, o)| {
            o["check"].get("hops").is_some()
                && v["expected"][name] == true
                && observe.iter().any(|(other, p)| {
                    p["check"]["loaded"] == o["check"]["to"] && v["expected"][other] == false
                })
        })
    });
    // Reading 2: refused of a step named by `as` without `refusable`, and of a guess.
    let not_refusable = |v: &Value, name: &Value| {
        steps(v)
            .iter()
            .any(|s| s.get("as") == Some(name) && s.get("refusable").is_none())
    };
    having("refused naming a step that is not refusable", |v| {
        nodes(v).iter().any(|n| {
            n["refused"]
                .as_array()
                .is_some_and(|names| names.iter().any(|x| not_refusable(v, x)))
        })
    });
    having("refused and reached over a guess", |v| {
        let guess = steps(v)
            .iter()
            .find(|s| s.get("guess").is_some())
            .map(|s| s["as"].clone());
        guess.is_some_and(|g| {
            let all = nodes(v);
            all.iter()
                .any(|n| n["refused"].as_array().is_some_and(|a| a.contains(&g)))
                && all
                    .iter()
                    .any(|n| n["reached"].as_array().is_some_and(|a| a.contains(&g)))
        })
    });
    // Reading 3: a liveCheck that proves liveness by state and a refused or filtered call.
    for call in ["refused", "filtered"] {
        having(call, |v| {
            let live = nodes(&v["liveCheck"]);
            live.iter().any(|n| n.get("state").is_some())
                && live.iter().any(|n| n.get(call).is_some())
                && !live
                    .iter()
                    .any(|n| n.get("loaded").is_some() || n.get("served").is_some())
        });
    }
    // Item 4: a popup expected to load for the user on the guarded leg.
    having("a popup that loads for the user", |v| {
        steps(v).iter().any(|s| s["page"] == "open")
            && v["observe"]
                .as_object()
                .unwrap()
                .iter()
                .any(|(name, o)| o["check"].get("loaded").is_some() && v["expected"][name] == true)
    });
}

fn problems<'r>(rows: impl Iterator<Item = &'r Row>) -> Vec<String> {
    rows.filter(|r| r.statuses() != [Status::Pass; 3])
        .map(|r| {
            format!(
                "{}: control {}, guarded {}, live {}{}; {}",
                r.id,
                r.control.as_str(),
                r.guarded.as_str(),
                r.live.as_str(),
                r.reason
                    .as_deref()
                    .map(|s| format!(" ({s})"))
                    .unwrap_or_default(),
                r.errors.join("; ")
            )
        })
        .collect()
}

/// Runs the file through `guard proxy` on `target` with `variant` (only `ids`, or every
/// vector listing the target); the rows that did not pass.
fn certify_rows(target: &str, variant: &str, ids: &[&str]) -> Vec<String> {
    let set = set();
    let options = SelfTestOptions {
        targets: vec![target.into()],
        variants: vec![variant.into()],
        ids: ids.iter().map(|s| s.to_string()).collect(),
        parallel: 2,
        ..SelfTestOptions::default()
    };
    // Every vector on seven/prompt is also guard_js_agreement's and guard_js_runner's
    // certification of this file: run once per test run (tests/browser/recorded.rs).
    let report = recorded::certify("third", &set, &options);
    println!(
        "{target} {variant}: {} rows in {:.1}s; {}",
        report.rows.len(),
        report.elapsed.as_secs_f64(),
        report.summary.line
    );
    let want = set
        .vectors
        .iter()
        .filter(|v| v.is_runnable() && v.targets.iter().any(|t| t == target))
        .filter(|v| ids.is_empty() || ids.contains(&v.id.as_str()))
        .count();
    assert_eq!(report.rows.len(), want, "one row per vector");
    problems(report.rows.iter().map(|r| &r.row))
}

#[test]
fn the_proxy_passes_it_in_headless_chromium() {
    if needs::missing(CHROMIUM, needs::chromium()) {
        return;
    }
    let mut problems = certify_rows("seven", "prompt", &[]);
    problems.extend(certify_rows("own", "lagging", &["C3.popup-for-user"]));
    assert!(
        problems.is_empty(),
        "rows the proxy did not pass:\n{}",
        problems.join("\n")
    );
}

#[test]
fn with_no_guard_every_control_passes_and_every_row_behaves() {
    if needs::missing(CHROMIUM, needs::chromium()) {
        return;
    }
    let set = set();
    let options = SelfTestOptions {
        targets: vec!["seven".into()],
        variants: vec!["prompt".into()],
        parallel: 2,
        ..SelfTestOptions::default()
    };
    // guard_js_agreement's self-test of this file too: run once per test run.
    let report = recorded::selftest("third", &set, &options);
    println!("{}", report.line());
    let runnable = set.vectors.iter().filter(|v| v.is_runnable()).count();
    assert_eq!(report.rows.len(), runnable, "one row per vector");
    let mut problems = Vec::new();
    for row in &report.rows {
        let r = &row.result.row;
        match &row.verdict {
            SelfTestVerdict::Behaved => {
                assert_eq!(r.control, Status::Pass, "{}: behaved, control failed", r.id)
            }
            SelfTestVerdict::Skipped(reason) => {
                problems.push(format!("{} skipped: {reason}", r.id))
            }
            SelfTestVerdict::Misbehaved(why) => {
                problems.push(format!("{}: {}", r.id, why.join("; ")))
            }
        }
    }
    assert!(
        problems.is_empty(),
        "rows that did not behave with no guard:\n{}",
        problems.join("\n")
    );
}
