//! The guard policy's cost of protected local paths, per client command: realistic commands
//! on an attached page judged with no protected path, with a protected profile folder judged
//! lexically, and with the proxy's file system view ([`FsPaths`]) over a real temporary
//! folder (what `guard proxy` runs with once discovery finds the browser's profile).
//!
//! `cargo bench --features guard-proxy --bench guard_paths`

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use serde_json::{json, Value};
use slicc_browsers::guard::policy::{Config, Policy, RESERVED_IDS};
use slicc_browsers::guard::proxy::FsPaths;
use slicc_browsers::protected::Matcher;
use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

const PRELUDE: &str = include_str!("../tests/data/guard_policy/prelude.jsonl");

/// A policy with `config` that attached the client to an ordinary page as session `S1` (the
/// policy's own commands answered as the trace runner of tests/offline/guard_policy.rs does).
fn attached(matcher: &Matcher, config: Config) -> Policy {
    let mut policy = Policy::with_config(matcher.clone(), config);
    // The policy's own commands not answered yet: (id, method, session).
    let mut sent: Vec<(i64, String, String)> = Vec::new();
    for (i, line) in PRELUDE.lines().map(str::trim).enumerate() {
        if line.is_empty() || line.starts_with("//") {
            continue;
        }
        let step: Value = serde_json::from_str(line).expect("a trace line is JSON");
        let out = if let Some(f) = step.get("c") {
            policy.from_client(&f.to_string(), i as u64)
        } else if let Some(f) = step.get("b") {
            policy.from_browser(&f.to_string(), i as u64)
        } else if let Some(method) = step.get("own").and_then(Value::as_str) {
            let session = step["session"].as_str().unwrap_or_default();
            let at = sent
                .iter()
                .rposition(|(_, m, s)| m == method && s == session)
                .expect("the policy sent the command the prelude answers");
            let (id, _, _) = sent.remove(at);
            let mut answer = json!({"id": id, "result": step["result"]});
            if !session.is_empty() {
                answer["sessionId"] = json!(session);
            }
            policy.from_browser(&answer.to_string(), i as u64)
        } else {
            continue;
        };
        for f in &out.to_browser {
            let v: Value = serde_json::from_str(f).expect("the policy sends JSON");
            if let Some(id) = v["id"].as_i64().filter(|id| RESERVED_IDS.contains(id)) {
                let method = v["method"].as_str().unwrap_or_default().to_string();
                let session = v["sessionId"].as_str().unwrap_or_default().to_string();
                sent.push((id, method, session));
            }
        }
    }
    policy
}

/// A ~100 KB bundled script as a client injects it: a licence comment first, then code with
/// divisions, comments, regular expressions and URL paths (a slash about every 30 bytes).
fn bundle() -> String {
    let mut s = String::from("/*! For license information please see main.js.LICENSE.txt */\n");
    let mut i = 0;
    while s.len() < 100_000 {
        s.push_str(&format!(
            "var w{i}=a.b/c;// step {i}\nfunction f{i}(x){{return fetch('/api/v1/items/'+x).then(r=>r.json()).then(d=>d.n/2)}}\nconst re{i}=/^\\/static\\/[a-z]+\\.js$/i;\n"
        ));
        i += 1;
    }
    s
}

/// The commands of one case, as client frames on session `S1` (ids from 1).
fn frames(commands: &[(&str, Value)]) -> Vec<String> {
    commands
        .iter()
        .enumerate()
        .map(|(i, (method, params))| {
            json!({"id": i + 1, "method": method, "params": params, "sessionId": "S1"}).to_string()
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let matcher = Matcher::new(
        &slicc_browsers::shared_catalog().protected_origins,
        &[] as &[&str],
    )
    .expect("the catalog's origins parse");
    // A real profile folder, an upload beside it, a link into it.
    let tmp = tempfile::tempdir().expect("a temporary folder");
    let base = std::fs::canonicalize(tmp.path()).expect("the temporary folder resolves");
    let profile = base.join("profile");
    std::fs::create_dir_all(profile.join("Default/Local Storage/leveldb")).expect("a profile");
    std::fs::write(profile.join("Default/Cookies"), "x").expect("a cookie file");
    std::fs::write(base.join("upload.txt"), "y").expect("an upload");
    let upload = base.join("upload.txt").display().to_string();

    let plain = frames(&[
        (
            "Runtime.callFunctionOn",
            json!({"functionDeclaration": "function() { return this.textContent }",
                "executionContextId": 1,
                "arguments": [{"value": "hello"}, {"value": 3}], "returnByValue": true, "awaitPromise": true}),
        ),
        (
            "Input.dispatchMouseEvent",
            json!({"type": "mousePressed", "x": 100.5, "y": 200, "button": "left", "clickCount": 1}),
        ),
        (
            "Page.navigate",
            json!({"url": "https://www.example.com/account/settings?tab=2", "frameId": "PAGE1"}),
        ),
        (
            "Runtime.evaluate",
            json!({"expression": "document.querySelectorAll('a[href]').length", "returnByValue": true}),
        ),
    ]);
    let xpath = frames(&[
        (
            "DOM.performSearch",
            json!({"query": "//div[@id='main']//a[contains(@href, '/login')]"}),
        ),
        (
            "Runtime.callFunctionOn",
            json!({"functionDeclaration": "(sel, re) => document.evaluate(sel, document).iterateNext()",
                "executionContextId": 1,
                "arguments": [{"value": "//button[normalize-space()='OK']"}, {"value": "/^https?:\\/\\//i"}]}),
        ),
        (
            "Runtime.evaluate",
            json!({"expression": "/profile/.test(location.href)"}),
        ),
        (
            "DOM.setFileInputFiles",
            json!({"nodeId": 7, "files": [upload]}),
        ),
    ]);
    let script = bundle();
    let args: Vec<Value> = (0..500)
        .map(|i| json!({"value": format!("/api/v1/items/{i}/details")}))
        .collect();
    let html = format!(
        "<div>{}</div>",
        "<a href=\"/docs/page\">/docs/page</a> ".repeat(2_500)
    );
    let big = frames(&[
        (
            "Runtime.evaluate",
            json!({"expression": script, "includeCommandLineAPI": false}),
        ),
        (
            "Page.addScriptToEvaluateOnNewDocument",
            json!({"source": script, "runImmediately": true}),
        ),
        (
            "Runtime.callFunctionOn",
            json!({"functionDeclaration": "(...a) => a.length",
                "executionContextId": 1, "arguments": args}),
        ),
        ("DOM.setOuterHTML", json!({"nodeId": 9, "outerHTML": html})),
    ]);

    // The 500 URL paths alone: one file system look-up each with a resolver.
    let urls = frames(&[(
        "Runtime.callFunctionOn",
        json!({"functionDeclaration": "(...a) => a.length",
            "executionContextId": 1, "arguments": args}),
    )]);

    let arms: [(&str, Config); 3] = [
        ("none", Config::default()),
        (
            "lexical",
            Config {
                protected_paths: vec![profile.display().to_string()],
                ..Config::default()
            },
        ),
        (
            "fs",
            Config {
                protected_paths: vec![profile.display().to_string()],
                local_paths: Some(Arc::new(FsPaths)),
                ..Config::default()
            },
        ),
    ];
    let mut group = c.benchmark_group("guard_paths");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    for (case, cmds) in [
        ("plain", &plain),
        ("xpath", &xpath),
        ("big", &big),
        ("urls", &urls),
    ] {
        group.throughput(Throughput::Elements(cmds.len() as u64));
        for (arm, config) in &arms {
            let mut policy = attached(&matcher, config.clone());
            // Each command answered, so nothing piles up between iterations.
            let answers: Vec<String> = (1..=cmds.len())
                .map(|i| json!({"id": i, "result": {}, "sessionId": "S1"}).to_string())
                .collect();
            // Every command here goes to the browser: the bench measures judging, not refusing.
            for (f, a) in cmds.iter().zip(&answers) {
                let out = policy.from_client(f, 1);
                assert_eq!(
                    out.to_browser.len(),
                    1,
                    "{arm} {case}: {:?} {f:.120}",
                    out.why
                );
                policy.from_browser(a, 1);
            }
            group.bench_function(format!("{case} ({} commands), {arm}", cmds.len()), |b| {
                b.iter(|| {
                    let mut n = 0;
                    for (f, a) in cmds.iter().zip(&answers) {
                        n += policy.from_client(black_box(f), 1).to_browser.len();
                        n += policy.from_browser(a, 1).to_client.len();
                    }
                    black_box(n)
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
