//! The guard policy on its recorded traces (tests/data/guard_policy: every family, both
//! directions, the policy's own commands answered): messages handled per second.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use serde_json::Value;
use slicc_browsers::guard::policy::{Config, Policy};
use slicc_browsers::protected::Matcher;
use std::hint::black_box;

const TRACES: &[(&str, &str)] = &[
    (
        "prelude.jsonl",
        include_str!("../tests/data/guard_policy/prelude.jsonl"),
    ),
    (
        "c1.jsonl",
        include_str!("../tests/data/guard_policy/c1.jsonl"),
    ),
    (
        "c2.jsonl",
        include_str!("../tests/data/guard_policy/c2.jsonl"),
    ),
    (
        "c3.jsonl",
        include_str!("../tests/data/guard_policy/c3.jsonl"),
    ),
    (
        "c4.jsonl",
        include_str!("../tests/data/guard_policy/c4.jsonl"),
    ),
    (
        "c5.jsonl",
        include_str!("../tests/data/guard_policy/c5.jsonl"),
    ),
    (
        "c6.jsonl",
        include_str!("../tests/data/guard_policy/c6.jsonl"),
    ),
    (
        "e.jsonl",
        include_str!("../tests/data/guard_policy/e.jsonl"),
    ),
    (
        "b.jsonl",
        include_str!("../tests/data/guard_policy/b.jsonl"),
    ),
];

/// A step of a trace: from the client (`true`) or the browser, as the frame's text.
type Step = (bool, String);

fn steps(name: &str, out: &mut Vec<Step>) {
    let text = TRACES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, t)| *t)
        .expect("a known trace");
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with("//") {
            continue;
        }
        let step: Value = serde_json::from_str(line).expect("a trace line is JSON");
        if let Some(inc) = step.get("include").and_then(Value::as_str) {
            steps(inc, out);
        } else if let Some(f) = step.get("c") {
            out.push((true, f.to_string()));
        } else if let Some(f) = step.get("b") {
            out.push((false, f.to_string()));
        }
    }
}

fn bench(c: &mut Criterion) {
    let matcher = Matcher::new(
        &slicc_browsers::shared_catalog().protected_origins,
        &["http://127.0.0.1:5710"],
    )
    .expect("the extra origin parses");
    // Each trace runs on a fresh policy, as recorded.
    let traces: Vec<Vec<Step>> = TRACES
        .iter()
        .filter(|(n, _)| *n != "prelude.jsonl")
        .map(|(n, _)| {
            let mut v = Vec::new();
            steps(n, &mut v);
            v
        })
        .collect();
    let total: usize = traces.iter().map(Vec::len).sum();
    let mut group = c.benchmark_group("guard_policy");
    group.throughput(Throughput::Elements(total as u64));
    group.bench_function(format!("{total} recorded messages"), |b| {
        b.iter(|| {
            let mut sent = 0usize;
            for trace in &traces {
                let mut policy = Policy::new(matcher.clone());
                for (i, (client, frame)) in trace.iter().enumerate() {
                    let out = if *client {
                        policy.from_client(frame, i as u64)
                    } else {
                        policy.from_browser(frame, i as u64)
                    };
                    sent += out.to_client.len() + out.to_browser.len();
                }
            }
            black_box(sent)
        })
    });
    // The same with a protected profile folder (every client command's strings are read for
    // local paths; lexically: the proxy's file system view is not in the policy).
    let config = Config {
        protected_paths: vec!["/home/u/.config/chromium".into()],
        ..Config::default()
    };
    group.bench_function(
        format!("{total} recorded messages, profile protected"),
        |b| {
            b.iter(|| {
                let mut sent = 0usize;
                for trace in &traces {
                    let mut policy = Policy::with_config(matcher.clone(), config.clone());
                    for (i, (client, frame)) in trace.iter().enumerate() {
                        let out = if *client {
                            policy.from_client(frame, i as u64)
                        } else {
                            policy.from_browser(frame, i as u64)
                        };
                        sent += out.to_client.len() + out.to_browser.len();
                    }
                }
                black_box(sent)
            })
        },
    );
    // The common case on its own: ordinary events on an attached page, forwarded.
    let mut policy = Policy::new(matcher.clone());
    let mut prelude = Vec::new();
    steps("prelude.jsonl", &mut prelude);
    for (i, (client, frame)) in prelude.iter().enumerate() {
        if *client {
            policy.from_client(frame, i as u64);
        } else {
            policy.from_browser(frame, i as u64);
        }
    }
    let ordinary = [
        r#"{"method":"Network.requestWillBeSent","params":{"requestId":"R1","loaderId":"L1","documentURL":"https://www.example.com/","request":{"url":"https://cdn.example.com/app.js","method":"GET","headers":{"Referer":"https://www.example.com/"}},"type":"Script","frameId":"PAGE1"},"sessionId":"S1"}"#,
        r#"{"method":"Network.responseReceived","params":{"requestId":"R1","loaderId":"L1","type":"Script","response":{"url":"https://cdn.example.com/app.js","status":200,"headers":{"content-type":"text/javascript"}}},"sessionId":"S1"}"#,
        r#"{"method":"Network.loadingFinished","params":{"requestId":"R1","encodedDataLength":5120},"sessionId":"S1"}"#,
        r#"{"method":"Runtime.consoleAPICalled","params":{"type":"log","args":[{"type":"string","value":"hello"}],"executionContextId":1,"timestamp":1}},"sessionId":"S1"}"#,
    ];
    group.throughput(Throughput::Elements(ordinary.len() as u64));
    group.bench_function("ordinary page events", |b| {
        b.iter(|| {
            let mut n = 0;
            for f in &ordinary {
                n += policy.from_browser(black_box(f), 1).to_client.len();
            }
            black_box(n)
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
