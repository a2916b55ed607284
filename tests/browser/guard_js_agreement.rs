//! One reading of the format, two languages: the crate's runner records legs in headless
//! Chromium (the no-guard self-test and `guard certify` through `guard proxy`, on the
//! representative subset of our vectors and on the other-style and third-style files of
//! `tests/data`), and `guard-driver.mjs` judges the same recorded legs, in Node and in a plain
//! page that loads it and `guard-runner.mjs` over HTTP (no bundler). Every row must agree with
//! the crate's, field by field.
//!
//! Skipped (with the reason printed) without /usr/bin/chromium or node, unless `CI` is set.
#![cfg(all(feature = "cli-full", unix))]

use crate::needs;
use crate::recorded;
use crate::subset;

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{json, Value};
use slicc_browsers::harness::cdp::{CdpClient, CdpOptions};
use slicc_browsers::harness::runner::drive::RowResult;
use slicc_browsers::harness::runner::expand::{Origins, OPTIONAL_ORIGINS, REQUIRED_ORIGINS};
use slicc_browsers::harness::runner::Transport;
use slicc_browsers::harness::selftest::{self, Chromium, SelfTestOptions, CHROMIUM};
use slicc_browsers::vectors::Vectors;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// An origin map as the JavaScript judge takes it: each name to its origin or null.
fn origins_json(origins: &Origins) -> Value {
    let mut map = serde_json::Map::new();
    for name in REQUIRED_ORIGINS
        .into_iter()
        .chain(OPTIONAL_ORIGINS.map(|(n, _)| n))
    {
        map.insert(name.to_string(), json!(origins.get(name)));
    }
    Value::Object(map)
}

/// The cases of `rows`, each with what the JavaScript judge needs, and the crate's row.
fn cases(set: &str, rows: &[RowResult], origins: &dyn Fn(&str) -> Origins) -> Vec<(Value, Value)> {
    rows.iter()
        .map(|r| {
            let runs: Vec<Value> = r
                .records
                .iter()
                .zip(&r.vars)
                .map(|((name, record), (_, vars))| json!({ "name": name, "vars": vars, "record": record }))
                .collect();
            let case = json!({
                "set": set,
                "id": r.row.id,
                "target": r.row.target,
                "variant": r.row.variant,
                "transport": r.row.transport,
                "transportVariant": r.row.transport_variant,
                "origins": origins_json(&origins(&r.row.target)),
                "observer": true,
                "runs": runs,
            });
            (case, serde_json::to_value(&r.row).expect("a row is JSON"))
        })
        .collect()
}

/// Records legs: the self-test (no guard) and the certification (through `guard proxy`) of the
/// set `name` names (`ids`: every vector when empty). Each is another test's run too
/// (guard_selftest, guard_certify, guard_other_style, guard_third_style, guard_js_runner): run
/// once per test run (tests/browser/recorded.rs).
fn record(
    name: &str,
    set: &Vectors,
    ids: &[&str],
    origins: Option<Origins>,
) -> (Vec<RowResult>, Vec<RowResult>) {
    let options = SelfTestOptions {
        targets: vec!["seven".into()],
        variants: vec!["prompt".into()],
        ids: ids.iter().map(|s| s.to_string()).collect(),
        parallel: 2,
        origins,
        ..SelfTestOptions::default()
    };
    let unguarded = recorded::selftest(name, set, &options)
        .rows
        .into_iter()
        .map(|r| r.result)
        .collect();
    let guarded = recorded::certify(name, set, &options).rows;
    (unguarded, guarded)
}

/// The rows that differ from the crate's, field by field.
fn disagreements(cases: &[(Value, Value)], js_rows: &[Value], how: &str) -> Vec<String> {
    assert_eq!(js_rows.len(), cases.len(), "{how}: one row per case");
    let mut out = Vec::new();
    for ((case, rust), js) in cases.iter().zip(js_rows) {
        let fields = [
            "id",
            "target",
            "variant",
            "transport",
            "via",
            "control",
            "guarded",
            "live",
            "reason",
            "observations",
            "errors",
            "transportVariant",
        ];
        for f in fields {
            if rust.get(f) != js.get(f) {
                out.push(format!(
                    "{how} {} {} ({} runs): {f}: crate {} / js {}",
                    case["id"],
                    case["set"],
                    case["runs"].as_array().map_or(0, Vec::len),
                    rust.get(f).unwrap_or(&Value::Null),
                    js.get(f).unwrap_or(&Value::Null)
                ));
            }
        }
    }
    out
}

fn judge_in_node(input: &Path) -> Vec<Value> {
    let out = std::process::Command::new("node")
        .arg(root().join("tests/js/judge-records-node.mjs"))
        .arg(input)
        .output()
        .expect("node runs");
    assert!(
        out.status.success(),
        "node: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("node prints a JSON array")
}

/// Serves the crate's directory (GET only, no `..`) and `/cases.json` from memory on a
/// loopback port, until the test ends.
fn serve(cases: String) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
    let port = listener.local_addr().expect("its address").port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let cases = cases.clone();
            std::thread::spawn(move || {
                let mut reader = BufReader::new(&stream);
                let mut line = String::new();
                if reader.read_line(&mut line).is_err() {
                    return;
                }
                loop {
                    let mut h = String::new();
                    if reader.read_line(&mut h).map_or(true, |n| n == 0) || h == "\r\n" {
                        break;
                    }
                }
                let path = line.split(' ').nth(1).unwrap_or("/").to_string();
                let path = path.split('?').next().unwrap_or("/");
                let (status, kind, body) = if path == "/cases.json" {
                    ("200 OK", "application/json", cases.into_bytes())
                } else if path.contains("..") {
                    ("404 Not Found", "text/plain", b"no".to_vec())
                } else {
                    let kind = match Path::new(path).extension().and_then(|e| e.to_str()) {
                        Some("mjs" | "js") => "text/javascript",
                        Some("html") => "text/html",
                        Some("json") => "application/json",
                        _ => "text/plain",
                    };
                    match std::fs::read(root().join(path.trim_start_matches('/'))) {
                        Ok(b) => ("200 OK", kind, b),
                        Err(_) => ("404 Not Found", "text/plain", b"no".to_vec()),
                    }
                };
                let mut s = &stream;
                let _ = write!(
                    s,
                    "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                    body.len()
                );
                let _ = s.write_all(&body);
            });
        }
    });
    port
}

fn judge_in_page(cases: String) -> Value {
    let port = serve(cases);
    let mut chromium = Chromium::launch(CHROMIUM, &["jskit.test"], port).expect("Chromium starts");
    let client = CdpClient::connect(
        chromium.ws_url(),
        CdpOptions::new().call_timeout(Duration::from_secs(60)),
    )
    .expect("CDP connects");
    let target = client
        .send(
            "Target.createTarget",
            json!({ "url": "http://jskit.test/tests/js/judge-page.html" }),
            None,
        )
        .expect("a tab opens");
    let session = client
        .attach(target["targetId"].as_str().expect("a target id"))
        .expect("attached");
    let mut answer = Value::Null;
    for _ in 0..100 {
        answer = client
            .send(
                "Runtime.evaluate",
                json!({ "expression": "window.__result", "awaitPromise": true, "returnByValue": true }),
                Some(&session),
            )
            .expect("Runtime.evaluate answers");
        if answer.pointer("/result/type") == Some(&json!("string")) {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    client.close();
    chromium.kill();
    let text = answer
        .pointer("/result/value")
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("the page judged nothing: {answer}"));
    serde_json::from_str(text).expect("the page's result is JSON")
}

#[test]
fn both_judges_agree_on_recorded_legs_in_node_and_in_a_page() {
    if needs::missing("/usr/bin/chromium", needs::chromium())
        || needs::missing("node", needs::node())
    {
        return;
    }
    let ours = slicc_browsers::guard::vectors();
    let other_text =
        std::fs::read_to_string(root().join("tests/data/guard-vectors/other-style.json")).unwrap();
    let other = Vectors::parse(&other_text).expect("the other-style file parses");
    let other_origins = Origins::from_json(
        &std::fs::read_to_string(root().join("tests/data/other-style-origins.json")).unwrap(),
    )
    .unwrap();

    // The third-style file: steps named by `as` only, guess attempts, hop chains judged apart
    // from their destination, cookie rows live by state and a refused or filtered call.
    let third_text =
        std::fs::read_to_string(root().join("tests/data/guard-vectors/third-style.json")).unwrap();
    let third = Vectors::parse(&third_text).expect("the third-style file parses");

    // Every vector of the other-style and third-style files (no ids: all of them).
    let (a, b) = record("ours", &ours, &subset::SUBSET, None);
    let (e, f) = record("third", &third, &[], None);
    let (c, d) = record("other", &other, &[], Some(other_origins.clone()));
    let mut all = Vec::new();
    all.extend(cases("ours", &a, &selftest::origins_for));
    all.extend(cases("ours", &b, &selftest::origins_for));
    all.extend(cases("other", &c, &|_| other_origins.clone()));
    all.extend(cases("other", &d, &|_| other_origins.clone()));
    all.extend(cases("third", &e, &selftest::origins_for));
    all.extend(cases("third", &f, &selftest::origins_for));
    let ran = all
        .iter()
        .filter(|(_, r)| r["control"] != json!("skip"))
        .count();
    println!("{} rows recorded, {ran} not skipped", all.len());
    assert!(ran >= 40, "too few rows ran to compare: {ran}");
    let input = json!({
        "sets": {
            "ours": serde_json::from_str::<Value>(slicc_browsers::GUARD_VECTORS).unwrap(),
            "other": serde_json::from_str::<Value>(&other_text).unwrap(),
            "third": serde_json::from_str::<Value>(&third_text).unwrap(),
        },
        "cases": all.iter().map(|(c, _)| c.clone()).collect::<Vec<_>>(),
    });
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("cases.json");
    std::fs::write(&file, input.to_string()).unwrap();
    // To judge the same legs again by hand: SLICC_JS_CASES=<dir> keeps the cases and the rows.
    if let Some(keep) = std::env::var_os("SLICC_JS_CASES") {
        let keep = PathBuf::from(keep);
        let rows: Vec<&Value> = all.iter().map(|(_, r)| r).collect();
        let _ = std::fs::create_dir_all(&keep);
        let _ = std::fs::write(keep.join("cases.json"), input.to_string());
        let _ = std::fs::write(keep.join("rows.json"), json!(rows).to_string());
    }

    let node_rows = judge_in_node(&file);
    let mut bad = disagreements(&all, &node_rows, "node");
    let page = judge_in_page(input.to_string());
    assert_eq!(page["node"], json!(false), "the page has no Node globals");
    for (module, name) in [
        ("driver", "judgeRow"),
        ("driver", "summary"),
        ("driver", "result"),
        ("runner", "run"),
        ("runner", "summary"),
    ] {
        assert!(
            page["names"][module]
                .as_array()
                .is_some_and(|n| n.contains(&json!(name))),
            "the page loaded guard-{module}.mjs with {name}: {}",
            page["names"]
        );
    }
    let page_rows = page["rows"].as_array().expect("rows").clone();
    bad.extend(disagreements(&all, &page_rows, "page"));
    assert!(
        bad.is_empty(),
        "{} disagreements:\n{}",
        bad.len(),
        bad.join("\n")
    );
}
