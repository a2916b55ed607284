//! A vector file in another team's style (issue 21): `tests/data/guard-vectors/other-style.json`,
//! written from `shared/spec` alone, never from our own `guard-vectors.json`'s idioms. It holds
//! at least one vector per reading of the format that our runner once read its own way (bare-path
//! `served`, `result.result.value` on page loads, `result` over a guess's attempts, `variant`
//! settles, `children` steps without `session`, an auto-attached child with no `children` step,
//! a detach the client caused itself, the probe read through `Runtime.bindingCalled` and
//! `Runtime.consoleAPICalled` with `$encoded`, the CSP document's title `inline`,
//! `/auth/<tag>?n=`, a `plain` origin same-site with `ordinary`, `reached` on a browser error,
//! fetch/xhr/image page actions with `pre` + `blocked` liveness, a child `navigate` after a
//! popup).
//!
//! `validate` must accept it (the spec's rules, no warning either), and the self-test must run
//! it with no guard: every control passes and every row behaves under the spec's rule.
#![cfg(feature = "cli-full")]

use std::path::Path;
use std::process::Command;

use serde_json::Value;

const FILE: &str = "tests/data/guard-vectors/other-style.json";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn other_style() -> Value {
    serde_json::from_str(&std::fs::read_to_string(root().join(FILE)).unwrap()).unwrap()
}

/// A directory `validate` reads: the crate's catalog and schemas, and the file as
/// `guard-vectors.json`.
fn validate_dir() -> tempfile::TempDir {
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
    dir
}

#[test]
fn validate_accepts_the_other_style_without_a_warning() {
    let dir = validate_dir();
    let out = Command::new(env!("CARGO_BIN_EXE_slicc-browsers"))
        .args(["validate", "--strict"])
        .arg(dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.trim_end().ends_with(": no problems"),
        "validate --strict: {stdout}"
    );
    // The types read it too, as the runner does.
    let text = std::fs::read_to_string(root().join(FILE)).unwrap();
    slicc_browsers::vectors::Vectors::parse(&text).expect("the types read it");
}

/// Every string, object and step of a vector, depth first.
fn walk<'v>(v: &'v Value, out: &mut Vec<&'v Value>) {
    out.push(v);
    match v {
        Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
        Value::Object(m) => m.values().for_each(|x| walk(x, out)),
        _ => {}
    }
}

fn nodes(v: &Value) -> Vec<&Value> {
    let mut out = Vec::new();
    walk(v, &mut out);
    out
}

fn vectors() -> Vec<Value> {
    other_style()["vectors"].as_array().unwrap().clone()
}

/// The ids of the vectors in which `holds` holds for some node.
fn having(what: &str, holds: impl Fn(&Value, &Value) -> bool) -> Vec<String> {
    let ids: Vec<String> = vectors()
        .iter()
        .filter(|v| nodes(v).iter().any(|n| holds(v, n)))
        .map(|v| v["id"].as_str().unwrap().to_string())
        .collect();
    assert!(!ids.is_empty(), "no vector of {FILE} has {what}");
    ids
}

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

#[test]
fn the_file_holds_a_vector_per_reading_of_issue_21() {
    // 1. A settle on the run's variant.
    having("a variant settle", |_, n| n["settle"]["variant"] == true);
    // 2. result.result.value on a page load's outcome, and `result` over a guess's attempts.
    having("result.result.value on a fetch, xhr or image", |v, n| {
        n["path"] == "result.result.value"
            && steps(v).iter().any(|s| {
                s["as"] == n["result"]
                    && ["fetch", "xhr", "image"].contains(&s["page"].as_str().unwrap_or(""))
            })
    });
    having("`result` over a guess", |v, n| {
        n["path"] == "result"
            && steps(v)
                .iter()
                .any(|s| s.get("guess").is_some() && s["as"] == n["result"])
    });
    // 3. A bare-path `served` without `origin`.
    having("a bare-path served", |_, n| {
        n["served"].as_str().is_some_and(|s| s.starts_with('/')) && n.get("origin").is_none()
    });
    // 4. Steps nested in `children` without `session`.
    having("children steps without session", |_, n| {
        n["children"]
            .as_array()
            .is_some_and(|c| c.iter().all(|s| s.get("session").is_none()))
    });
    // 5. An auto-attach with no children step, read as the child.
    having("a child with no children step", |v, n| {
        n["cdp"] == "Target.setAutoAttach"
            && n["params"]["autoAttach"] == true
            && steps(v).iter().all(|s| s.get("children").is_none())
            && steps(v).iter().any(|s| s["session"] == "child")
    });
    // 6. The client turns auto-attach off itself, and the control expects no detach.
    having("a client-caused detach", |v, n| {
        n["cdp"] == "Target.setAutoAttach"
            && n["params"]["autoAttach"] == false
            && v["observe"].as_object().unwrap().iter().any(|(name, o)| {
                o["check"]["detached"] == "child" && v["control"]["expected"][name] == false
            })
    });
    // 7. The probe read through a binding and the console, with $encoded.
    for event in ["Runtime.bindingCalled", "Runtime.consoleAPICalled"] {
        having(event, |v, n| {
            n["event"] == event
                && nodes(n).iter().any(|x| x.get("$encoded").is_some())
                && nodes(v).iter().any(|x| x.as_str() == Some("{probe}"))
        });
    }
    // 8. The CSP document's title, and /auth/<tag>.
    having("the CSP document's inline title", |v, n| {
        n["title"] == "inline"
            && nodes(v)
                .iter()
                .any(|x| x.as_str().is_some_and(|s| s.contains("csp=1")))
    });
    having("/auth/<tag>", |_, n| {
        n.as_str().is_some_and(|s| s.contains("/auth/{tag}?n="))
    });
    // 9. A row whose control needs `plain` same-site with `ordinary` (an in-process frame).
    having("a same-site frame row", |v, n| {
        n["page"] == "iframe" && v["targets"] == serde_json::json!(["own"])
    });
    // 10. `reached`.
    having("a reached check", |_, n| n.get("reached").is_some());
    // 11. fetch, xhr and image with pre + blocked liveness.
    for action in ["fetch", "xhr", "image"] {
        having(action, |v, _| {
            let live = nodes(&v["liveCheck"]);
            steps(v).iter().any(|s| s["page"] == action)
                && live.iter().any(|x| x.get("pre").is_some())
                && live.iter().any(|x| x.get("blocked").is_some())
        });
    }
    // 12. A child navigate after a popup.
    having("a child navigate after a popup", |v, _| {
        let s = steps(v);
        let open = s.iter().position(|s| s["page"] == "open");
        let nav = s
            .iter()
            .position(|s| s["page"] == "navigate" && s["session"] == "child");
        matches!((open, nav), (Some(o), Some(n)) if o < n)
    });
}

use crate::needs;
use crate::recorded;

use slicc_browsers::harness::runner::expand::Origins;
use slicc_browsers::harness::runner::summary::Status;
use slicc_browsers::harness::selftest::{SelfTestOptions, SelfTestVerdict, CHROMIUM};

/// The origin map the other style needs: `plain` same-site with `ordinary` but another origin
/// (`http://plain.ordinary.test`), `ordinary-same-site` next to `own`.
fn origins() -> Origins {
    let text = std::fs::read_to_string(root().join("tests/data/other-style-origins.json")).unwrap();
    Origins::from_json(&text).unwrap()
}

#[test]
fn with_no_guard_every_control_passes_and_every_row_behaves() {
    if needs::missing(CHROMIUM, needs::chromium()) {
        return;
    }
    let text = std::fs::read_to_string(root().join(FILE)).unwrap();
    let set = slicc_browsers::vectors::Vectors::parse(&text).unwrap();
    // Every vector on seven, and the one vector of `own` alone on own, with `prompt` (a variant
    // settle waits 0 ms past the page's own navigation).
    let mut rows = Vec::new();
    for (target, ids) in [
        ("seven", Vec::new()),
        ("own", vec!["C4.same-site-frame".to_string()]),
    ] {
        let options = SelfTestOptions {
            targets: vec![target.into()],
            variants: vec!["prompt".into()],
            ids,
            parallel: 2,
            origins: Some(origins()),
            ..SelfTestOptions::default()
        };
        // Every vector on seven is guard_js_agreement's self-test of this file too: run once
        // per test run (tests/browser/recorded.rs).
        let report = recorded::selftest("other", &set, &options);
        println!(
            "{target}: {} in {:.1}s",
            report.line(),
            report.elapsed.as_secs_f64()
        );
        rows.extend(report.rows);
    }
    let runnable = set.vectors.iter().filter(|v| v.is_runnable()).count();
    assert_eq!(rows.len(), runnable, "one row per vector");
    let mut problems = Vec::new();
    for row in &rows {
        let r = &row.result.row;
        match &row.verdict {
            SelfTestVerdict::Behaved => {
                assert_eq!(r.control, Status::Pass, "{}: behaved, control failed", r.id)
            }
            SelfTestVerdict::Skipped(reason) => {
                problems.push(format!("{} {} skipped: {reason}", r.id, r.target))
            }
            SelfTestVerdict::Misbehaved(why) => {
                problems.push(format!("{} {}: {}", r.id, r.target, why.join("; ")))
            }
        }
    }
    assert!(
        problems.is_empty(),
        "rows that did not behave with no guard:\n{}",
        problems.join("\n")
    );
}

/// `guard selftest` on one row, its output captured: off a terminal (stderr a pipe) the
/// output is what it always was, with no progress line; on a terminal (a pty from util-linux's
/// `script`, when present) one stderr line is kept current.
#[test]
fn progress_shows_on_a_terminal_only() {
    if needs::missing(CHROMIUM, needs::chromium()) {
        return;
    }
    let bin = env!("CARGO_BIN_EXE_slicc-browsers");
    let file = root().join(FILE);
    let origins = root().join("tests/data/other-style-origins.json");
    let args = [
        "guard",
        "selftest",
        "--vectors",
        file.to_str().unwrap(),
        "--origins",
        origins.to_str().unwrap(),
        "--target",
        "own",
        "--variant",
        "prompt",
        "--id",
        "C4.same-site-frame",
    ];
    let out = Command::new(bin).args(args).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    assert!(stderr.is_empty(), "stderr off a terminal: {stderr:?}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    assert!(lines[0].starts_with("wall time "), "{stdout}");
    assert_eq!(
        lines[1],
        "selftest: 1 rows, 1 behaved, 0 misbehaved, 0 skipped"
    );

    // On a terminal: `script` runs the command on a pty (stdout and stderr both), so the
    // progress line shows among the output.
    let has_script = Command::new("script")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_script {
        println!("skipped the terminal half: util-linux's script is missing");
        return;
    }
    let quoted: Vec<String> = std::iter::once(bin)
        .chain(args)
        .map(|a| format!("'{}'", a.replace('\'', "'\\''")))
        .collect();
    let out = Command::new("script")
        .args(["-qec", &quoted.join(" "), "/dev/null"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("\r\x1b[K1/1 rows, 1 behaved, 0 misbehaved, ")
            && text.contains(" elapsed, ETA 0s, last C4.same-site-frame own prompt"),
        "no progress line on a terminal: {text:?}"
    );
}
