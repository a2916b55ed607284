//! Rows judged per second: every row of the shipped guard vectors (each vector on each of its
//! targets), judged on synthetic recordings of both legs. The recordings hold what a real leg
//! leaves: the stand-in log of every URL the steps load (documents, chains, heartbeats,
//! beacons, `/plant`), error-page and request events for them, an outcome for every `as`,
//! and an answer to every unguarded read, so every check kind does its full work.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use serde_json::{json, Value};
use slicc_browsers::guard::{self, Step, Vector};
use slicc_browsers::harness::runner::expand::{
    chain_start, encode_uri_component, leg_reads, leg_steps, Leg, LegStep, Origins, Vars,
};
use slicc_browsers::harness::runner::judge::{judge_row, Environment, LegRun, RowSpec};
use slicc_browsers::harness::runner::{
    Event, LogEntry, Read, Record, Recorded as Outcome, SessionRecord, Status,
};
use std::collections::BTreeMap;
use std::hint::black_box;

const O: &str = "http://ordinary.test:8080";

fn origins() -> Origins {
    Origins::from_json(
        &json!({
            "ordinary": O, "ordinary-same-site": "http://same.sliccy.test:8080",
            "seven": "http://seven.sliccy.ai:8080", "vault": "http://vault.sliccy.ai:8080",
            "vault-x": "http://pr-7.vault.sliccy.ai:8080", "apex": "http://sliccy.ai:8080",
            "own": "http://client.test:8080", "client": "http://client.test:8080",
            "cross": "http://cross.test:8080"
        })
        .to_string(),
    )
    .expect("the bench's origin map is valid")
}

fn entry(url: String) -> LogEntry {
    LogEntry {
        url,
        method: "GET".into(),
        headers: BTreeMap::from([("user-agent".to_string(), "bench".to_string())]),
        time: 1,
    }
}

fn urls_of(steps: &[LegStep], out: &mut Vec<String>) {
    for s in steps {
        if let Step::Page(p) = &s.step {
            if let Some(url) = &p.url {
                out.push(chain_start(p.hops.as_deref().unwrap_or(&[]), url));
                out.push(url.clone());
            }
        }
        urls_of(&s.children, out);
    }
}

/// A leg's synthetic recording.
fn record(v: &Vector, leg: Leg, vars: &Vars) -> Record {
    let tag = vars.tag().to_string();
    let target = vars.get("target").unwrap_or(O).to_string();
    let steps = leg_steps(v, leg, vars).expect("shipped vectors expand");
    let mut urls = Vec::new();
    urls_of(&steps, &mut urls);
    let mut r = Record {
        tag: tag.clone(),
        observer: true,
        sessions: vec![SessionRecord {
            role: "page".into(),
            session_id: "S1".into(),
            target_id: "T1".into(),
            url: format!("{O}/doc?n=start-{tag}"),
        }],
        ..Record::default()
    };
    for u in &urls {
        r.log.push(entry(u.clone()));
        r.log.push(entry(format!(
            "{O}/live?tag={tag}&step=pre&to={}",
            encode_uri_component(u)
        )));
        r.events.push(Event {
            method: "Network.requestWillBeSent".into(),
            params: json!({"requestId": "1", "request": {"url": u}}),
            session_id: Some("S1".into()),
        });
        r.events.push(Event {
            method: "Page.frameNavigated".into(),
            params: json!({"frame": {"id": "F", "url": u}}),
            session_id: Some("S1".into()),
        });
    }
    r.log.push(entry(format!(
        "{O}/beacon?tag={tag}&origin={}&href=x",
        encode_uri_component(&target)
    )));
    r.log
        .push(entry(format!("{target}/plant?tag={tag}&name=k&value=v")));
    r.log.push(entry(format!("{target}/live?n=dest-{tag}")));
    for (i, _) in (0..20).enumerate() {
        r.log.push(entry(format!("{O}/unrelated?n=other-{i}")));
    }
    for s in v.all_steps() {
        if let Some(name) = s.name() {
            r.outcomes.insert(
                name.to_string(),
                Outcome::Value(json!({"ok": true, "result": {"cookies": [
                    {"name": format!("k{tag}"), "value": tag, "domain": "ordinary.test"}
                ], "entries": [["k", tag]]}})),
            );
        }
    }
    for read in leg_reads(v, leg, vars) {
        let answer = match &read {
            Read::Title { .. } => json!("doc"),
            Read::Expression { .. } => json!("function"),
            Read::Errors { .. } => json!([{"url": "chrome-error://chromewebdata/",
                "unreachableUrl": format!("{target}/doc?n=dest-{tag}"), "frameId": "F", "oopif": false}]),
            Read::History { .. } => Value::Array(urls.iter().map(|u| json!(u)).collect()),
            Read::State { .. } => json!(tag),
        };
        r.reads.push((read, Outcome::Value(answer)));
    }
    r
}

struct Prepared {
    vector: Vector,
    target: String,
    control: (Vars, Record),
    guarded: (Vars, Record),
}

fn prepare() -> Vec<Prepared> {
    let set = guard::vectors();
    let o = origins();
    let mut out = Vec::new();
    for (n, v) in set.vectors.iter().enumerate() {
        for target in &v.targets {
            let legs = [Leg::Control, Leg::Guarded].map(|leg| {
                let mut vars = Vars::for_leg(&o, leg, target, &format!("t{n}{leg:?}"), "k");
                vars.set("beacon", "/*b*/").set("probe", "/*p*/");
                let rec = record(v, leg, &vars);
                (vars, rec)
            });
            let [control, guarded] = legs;
            out.push(Prepared {
                vector: v.clone(),
                target: target.clone(),
                control,
                guarded,
            });
        }
    }
    out
}

fn judge_all(rows: &[Prepared], env: &Environment) -> usize {
    let mut passed = 0;
    for p in rows {
        let spec = RowSpec {
            vector: &p.vector,
            target: &p.target,
            variant: "prompt",
            transport: "bench",
            transport_variant: false,
        };
        let control = LegRun {
            vars: &p.control.0,
            record: &p.control.1,
        };
        let runs = [control, control];
        let n = if p.vector.control.via == "unguarded" {
            2
        } else {
            1
        };
        let row = judge_row(
            &spec,
            env,
            &runs[..n],
            &LegRun {
                vars: &p.guarded.0,
                record: &p.guarded.1,
            },
        );
        passed += usize::from(row.live == Status::Pass);
    }
    passed
}

fn bench(c: &mut Criterion) {
    let rows = prepare();
    let env = Environment {
        origins: origins(),
        observer: true,
        ..Environment::default()
    };
    let mut group = c.benchmark_group("guard_judge");
    group.throughput(Throughput::Elements(rows.len() as u64));
    group.bench_function(format!("judge_row x{}", rows.len()), |b| {
        b.iter(|| black_box(judge_all(black_box(&rows), &env)))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
