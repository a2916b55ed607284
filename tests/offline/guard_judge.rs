//! The guard runner's judging half, without a browser: placeholders and legs, predicates, every
//! check kind on hand-built records, liveness proofs, skips, rows and the summary.
#![cfg(feature = "guard-runner")]

use serde_json::{json, Value};
use slicc_browsers::guard::{self, Step, Vector};
use slicc_browsers::harness::runner::expand::{
    chain_urls, leg_reads, leg_steps, refusal_names, Leg, LegStep, Origins, Phase, Vars,
};

const O: &str = "http://ordinary.test:8080";
const SAME: &str = "http://same.sliccy.test:8080";
const SEVEN: &str = "http://seven.sliccy.ai:8080";
const CLIENT: &str = "http://client.test:8080";

fn origins() -> Origins {
    Origins::from_json(
        &json!({
            "ordinary": O, "ordinary-same-site": SAME, "seven": SEVEN,
            "vault": "http://vault.sliccy.ai:8080", "vault-x": "http://pr-7.vault.sliccy.ai:8080",
            "apex": "http://sliccy.ai:8080", "own": CLIENT, "client": CLIENT,
            "cross": "http://cross.test:8080"
        })
        .to_string(),
    )
    .unwrap()
}

fn vector(v: Value) -> Vector {
    serde_json::from_value(v).unwrap()
}

/// A minimal runnable vector around `setup`, `trigger` and `observe`.
fn base(setup: Value, trigger: Value, observe: Value, control: Value, expected: Value) -> Vector {
    vector(json!({
        "id": "C9.test", "family": "C", "kind": "cdp", "scope": "any",
        "setup": setup, "trigger": trigger, "targets": ["seven", "vault"],
        "observe": observe, "live": "x",
        "liveCheck": {"loaded": "{target}/doc?n=dest-{tag}", "observer": "fixture"},
        "control": {"origin": "ordinary", "via": "guard", "expected": control},
        "expected": expected
    }))
}

fn flat(steps: &[LegStep]) -> Vec<(usize, Option<String>)> {
    let mut out = Vec::new();
    for s in steps {
        out.push((s.index, s.refusal_name.clone()));
        out.extend(flat(&s.children));
    }
    out
}

fn refusable(method: &str, name: Option<&str>, on: Option<&str>) -> Value {
    let mut v = json!({"cdp": method, "refusable": true, "refusal": {"match": "refus"}});
    if let Some(n) = name {
        v["as"] = json!(n);
    }
    if let Some(o) = on {
        v["on"] = json!(o);
    }
    v
}

#[test]
fn refusal_names_count_children_text_and_filtered_steps() {
    let v = base(
        json!([
            {"cdp": "Page.enable"},
            {"children": [
                {"text": "nested words"},
                refusable("Runtime.enable", None, None)
            ], "requires": ["autoAttach"]},
            {"page": "tab", "url": "{ordinary}/doc?n=start-{tag}"}
        ]),
        json!([
            refusable("Network.getCookies", Some("lookup"), Some("guarded")),
            refusable("Network.clearBrowserCookies", None, Some("control")),
            refusable("Page.reload", None, None)
        ]),
        json!({"a": {"means": "m", "check": {"detached": "page", "observer": "client"}}}),
        json!({"a": false}),
        json!({"a": true}),
    );
    // §3.2: flat order, children followed by their nested steps, text steps counted
    assert_eq!(
        refusal_names(&v),
        vec![
            (3, "refused.3".to_string()),
            (5, "lookup".to_string()),
            (6, "refused.6".to_string()),
            (7, "refused.7".to_string()),
        ]
    );
    let vars = Vars::for_leg(&origins(), Leg::Control, "seven", "t0", "c0");
    let control = leg_steps(&v, Leg::Control, &vars).unwrap();
    // indexes are kept after on-filtering: the guarded-only step 5 is gone, 6 keeps its name
    assert_eq!(
        flat(&control),
        vec![
            (0, None),
            (1, None),
            (2, None),
            (3, Some("refused.3".into())),
            (4, None),
            (6, Some("refused.6".into())),
            (7, Some("refused.7".into())),
        ]
    );
    let guarded = leg_steps(
        &v,
        Leg::Guarded,
        &Vars::for_leg(&origins(), Leg::Guarded, "seven", "t1", "c1"),
    )
    .unwrap();
    assert_eq!(
        flat(&guarded)
            .into_iter()
            .map(|(i, _)| i)
            .collect::<Vec<_>>(),
        vec![0, 1, 2, 3, 4, 5, 7]
    );
    assert_eq!(guarded[3].phase, Phase::Trigger);
    assert_eq!(guarded[1].children[1].phase, Phase::Setup);
    // the tab step got its default background and its placeholders
    match &guarded[2].step {
        Step::Page(p) => {
            assert_eq!(p.background, Some(true));
            assert_eq!(p.url.as_deref(), Some(&*format!("{O}/doc?n=start-t1")));
        }
        other => panic!("expected the tab step, got {other:?}"),
    }
}

#[test]
fn control_target_is_plain_and_guarded_target_is_the_protected_origin() {
    let o = origins();
    let c = Vars::for_leg(&o, Leg::Control, "vault", "t0", "k0");
    let g = Vars::for_leg(&o, Leg::Guarded, "vault", "t1", "k1");
    assert_eq!(c.get("target"), Some(O));
    assert_eq!(g.get("target"), Some("http://vault.sliccy.ai:8080"));
    assert_eq!(g.get("targetHost"), Some("vault.sliccy.ai"));
    assert_eq!(g.get("cross"), Some("http://cross.test:8080"));
    // log defaults to ordinary
    assert_eq!(g.get("log"), Some(O));
    assert_eq!(
        g.expand_str("{target}/x?{tag}&{cookie}&{unknown}&{ {1}"),
        "http://vault.sliccy.ai:8080/x?t1&k1&{unknown}&{ {1}"
    );
    let v = g.expand_value(&json!({"{target}": ["{seven}", 1, {"k": "{vault-x}"}]}));
    assert_eq!(
        v,
        json!({"{target}": [SEVEN, 1, {"k": "http://pr-7.vault.sliccy.ai:8080"}]})
    );
}

#[test]
fn null_origins_are_never_substituted() {
    let o = origins().with("ordinary-same-site", None).unwrap();
    let g = Vars::for_leg(&o, Leg::Guarded, "seven", "t", "c");
    assert_eq!(g.get("ordinary-same-site"), None);
    assert_eq!(
        g.expand_str("{ordinary-same-site}/doc"),
        "{ordinary-same-site}/doc"
    );
    assert_eq!(
        g.null_reason_in_str("{ordinary-same-site}/doc"),
        Some("ordinary-same-site".to_string())
    );
    // a null target reports the target's name
    let o = origins().with("vault-x", None).unwrap();
    let g = Vars::for_leg(&o, Leg::Guarded, "vault-x", "t", "c");
    assert_eq!(
        g.null_reason_in_str("{target}/x"),
        Some("vault-x".to_string())
    );
    assert_eq!(
        g.null_reason_in_str("{targetHost}"),
        Some("vault-x".to_string())
    );
    // an optional name defaulting to a null one reports the null one
    let o = Origins::new().with("seven", Some(SEVEN)).unwrap();
    let g = Vars::for_leg(&o, Leg::Guarded, "seven", "t", "c");
    assert_eq!(
        g.null_reason_in_str("{plain}"),
        Some("ordinary".to_string())
    );
    assert_eq!(
        g.null_reason_in_str("{beacon}"),
        Some("ordinary".to_string())
    );
    assert_eq!(g.null_reason_in_str("{seven}"), None);
    // unknown names and malformed origins are errors
    assert!(Origins::new().with("sevn", Some(SEVEN)).is_err());
    assert!(Origins::new().with("seven", Some("http://a/")).is_err());
    assert!(Origins::from_json("[]").is_err());
}

#[test]
fn hop_chains_nest_like_encode_uri_component() {
    let hops: Vec<guard::Hop> = serde_json::from_value(json!([
        {"origin": O, "code": 301}, {"origin": "http://cross.test:8080", "code": 307}
    ]))
    .unwrap();
    let urls = chain_urls(&hops, &format!("{SEVEN}/doc?n=dest-t&csp=1"));
    assert_eq!(urls.len(), 3);
    assert_eq!(
        urls[1],
        "http://cross.test:8080/hop?code=307&to=http%3A%2F%2Fseven.sliccy.ai%3A8080%2Fdoc%3Fn%3Ddest-t%26csp%3D1"
    );
    assert_eq!(
        urls[0],
        format!(
            "{O}/hop?code=301&to={}",
            slicc_browsers::harness::runner::expand::encode_uri_component(&urls[1])
        )
    );
    assert_eq!(urls[2], format!("{SEVEN}/doc?n=dest-t&csp=1"));
}

#[test]
fn every_shipped_vector_expands_on_both_legs_of_every_target() {
    let set = guard::vectors();
    let o = origins();
    let mut steps = 0;
    let mut reads = 0;
    for v in &set.vectors {
        for target in &v.targets {
            for leg in [Leg::Control, Leg::Guarded] {
                let mut vars = Vars::for_leg(&o, leg, target, "tag1", "cookie1");
                for name in ["beacon", "probe", "pageTarget", "popupTarget", "context"] {
                    vars.set(name, "x");
                }
                let built = leg_steps(v, leg, &vars)
                    .unwrap_or_else(|e| panic!("{} {target} {leg:?}: {e}", v.id));
                let text = format!("{built:?}");
                // every placeholder the file declares is expanded
                for name in set.placeholders.keys() {
                    if name == "responseOrigin" {
                        continue;
                    }
                    assert!(
                        !text.contains(&format!("{{{name}}}")),
                        "{} {target} {leg:?}: {{{name}}} left in {text}",
                        v.id
                    );
                }
                steps += built.len();
                reads += leg_reads(v, leg, &vars).len();
                for check in slicc_browsers::harness::runner::expand::leg_checks(v, leg) {
                    vars.expand_check(check)
                        .unwrap_or_else(|e| panic!("{} {target}: {e}", v.id));
                }
            }
        }
    }
    assert!(steps > 1000, "{steps} steps");
    assert!(reads > 100, "{reads} reads");
}

// ---------------------------------------------------------------------------------------------
// The judge on hand-built records

use std::collections::BTreeMap;

use slicc_browsers::guard::Check;
use slicc_browsers::harness::runner::judge::{
    evaluate, judge_leg, judge_live, precheck, required_capabilities, CapabilitySet, Environment,
    EvalError, LegRun, RowSpec, Truth, SKIP_OBSERVER,
};
use slicc_browsers::harness::runner::predicate::matches;
use slicc_browsers::harness::runner::summary::{summarize, Row, Status, SummaryInput};
use slicc_browsers::harness::runner::{
    judge_row, Event, LogEntry, NavigationError, Read, Record, Recorded as Outcome, SessionRecord,
};

const TAG_C: &str = "ctl1";
const TAG_G: &str = "grd1";

fn env() -> Environment {
    Environment {
        origins: origins(),
        capabilities: CapabilitySet::all(),
        observer: true,
        own_static: false,
    }
}

fn shipped(id: &str) -> Vector {
    guard::vectors()
        .vector(id)
        .unwrap_or_else(|| panic!("{id} is shipped"))
        .clone()
}

fn vars(leg: Leg, target: &str) -> Vars {
    let tag = if leg == Leg::Control { TAG_C } else { TAG_G };
    let mut v = Vars::for_leg(&origins(), leg, target, tag, &format!("k{tag}"));
    v.set("beacon", "/*beacon*/").set("probe", "/*probe*/");
    v
}

/// A record with the row's page session `S1` on target `T1`.
fn record(tag: &str) -> Record {
    Record {
        tag: tag.into(),
        observer: true,
        sessions: vec![SessionRecord {
            role: "page".into(),
            session_id: "S1".into(),
            target_id: "T1".into(),
            url: format!("{O}/doc?n=start-{tag}"),
        }],
        ..Default::default()
    }
}

fn hit(r: &mut Record, url: &str) {
    r.log.push(LogEntry {
        url: url.into(),
        method: "GET".into(),
        headers: BTreeMap::new(),
        time: 1,
    });
}

fn hit_with(r: &mut Record, url: &str, headers: &[(&str, &str)]) {
    r.log.push(LogEntry {
        url: url.into(),
        method: "GET".into(),
        headers: headers
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        time: 1,
    });
}

fn beacon(r: &mut Record, from: &str) {
    let tag = r.tag.clone();
    hit(
        r,
        &format!(
            "{O}/beacon?tag={tag}&origin={}&href=x",
            slicc_browsers::harness::runner::expand::encode_uri_component(from)
        ),
    );
}

fn pre(r: &mut Record, to: &str) {
    let tag = r.tag.clone();
    hit(
        r,
        &format!(
            "{O}/live?tag={tag}&step=pre&to={}",
            slicc_browsers::harness::runner::expand::encode_uri_component(to)
        ),
    );
}

fn ev(r: &mut Record, method: &str, params: Value, session: Option<&str>) {
    r.events.push(Event {
        method: method.into(),
        params,
        session_id: session.map(str::to_string),
    });
}

fn check(v: Value) -> Check {
    serde_json::from_value(v).unwrap()
}

/// Evaluates `c` on the guarded leg (target seven) of a vector with no steps of note.
fn eval_on(c: Value, r: &Record) -> Result<Truth, EvalError> {
    let v = base(
        json!([{"page": "tab", "url": "{ordinary}/doc?n=start-{tag}"},
               refusable("Network.getCookies", Some("read"), None)]),
        json!([{"cdp": "Page.enable", "as": "en"}]),
        json!({"a": {"means": "m", "check": {"detached": "page", "observer": "client"}}}),
        json!({"a": false}),
        json!({"a": true}),
    );
    let g = vars(Leg::Guarded, "seven");
    evaluate(
        &v,
        Leg::Guarded,
        &LegRun {
            vars: &g,
            record: r,
        },
        true,
        &check(c),
    )
}

fn holds(c: Value, r: &Record) -> bool {
    match eval_on(c.clone(), r) {
        Ok(Truth::True) => true,
        Ok(Truth::False) => false,
        other => panic!("{c}: {other:?}"),
    }
}

fn dest(origin: &str, tag: &str) -> String {
    format!("{origin}/doc?n=dest-{tag}")
}

#[test]
fn fixture_checks_read_only_the_legs_tagged_entries() {
    let mut r = record(TAG_G);
    // beacon: by the origin query, not by where it was sent
    assert!(!holds(
        json!({"beacon": "{target}", "observer": "fixture"}),
        &r
    ));
    beacon(&mut r, SEVEN);
    assert!(holds(
        json!({"beacon": "{target}", "observer": "fixture"}),
        &r
    ));
    assert!(!holds(
        json!({"beacon": "{vault}", "observer": "fixture"}),
        &r
    ));
    // another leg's beacon (other tag) does not count
    let mut other = record(TAG_G);
    other.tag = TAG_G.into();
    hit(
        &mut other,
        &format!("{O}/beacon?tag=zzz&origin=http%3A%2F%2Fvault.sliccy.ai%3A8080"),
    );
    assert!(!holds(
        json!({"beacon": "{vault}", "observer": "fixture"}),
        &other
    ));
    // an inline beacon without an origin query counts for the origin it was sent to
    hit(
        &mut other,
        &format!("{SEVEN}/beacon?tag=inline-dest-{TAG_G}"),
    );
    assert!(holds(
        json!({"beacon": "{seven}", "observer": "fixture"}),
        &other
    ));

    // served: exact, or a path without query against entries with one
    hit(&mut r, &format!("{SEVEN}/plant?tag={TAG_G}&name=k&value=v"));
    assert!(holds(
        json!({"served": "/plant", "origin": "{target}", "observer": "fixture"}),
        &r
    ));
    assert!(!holds(
        json!({"served": "/plant", "origin": "{vault}", "observer": "fixture"}),
        &r
    ));
    assert!(!holds(
        json!({"served": "{target}/plant?tag=x", "observer": "fixture"}),
        &r
    ));

    // header with on and value
    hit_with(
        &mut r,
        &format!("{SEVEN}/auth?n={TAG_G}"),
        &[("authorization", "Basic dTpw")],
    );
    assert!(holds(
        json!({"header": "authorization", "on": "{target}/auth?n={tag}", "value": "Basic dTpw", "observer": "fixture"}),
        &r
    ));
    assert!(holds(
        json!({"header": "authorization", "on": "{target}/auth?n={tag}", "observer": "fixture"}),
        &r
    ));
    assert!(!holds(
        json!({"header": "authorization", "on": "{target}/auth?n={tag}", "value": "Basic eDp5", "observer": "fixture"}),
        &r
    ));
    assert!(!holds(
        json!({"header": "x-guard-tag", "on": "{target}/auth?n={tag}", "observer": "fixture"}),
        &r
    ));

    // loaded: the exact URL, or the document's own /live heartbeat on its origin
    let url = dest(SEVEN, TAG_G);
    let c = json!({"loaded": "{target}/doc?n=dest-{tag}", "observer": "fixture"});
    assert!(!holds(c.clone(), &r));
    hit(&mut r, &format!("{SEVEN}/live?n=start-{TAG_G}"));
    assert!(
        !holds(c.clone(), &r),
        "a heartbeat of another document is no load"
    );
    hit(&mut r, &format!("{SEVEN}/live?n=dest-{TAG_G}"));
    assert!(holds(c.clone(), &r));
    let mut r2 = record(TAG_G);
    hit(&mut r2, &url);
    assert!(holds(c, &r2));

    // pre: the runner's heartbeat with the exact URL
    let p = json!({"pre": "{target}/doc?n=dest-{tag}", "observer": "fixture"});
    assert!(!holds(p.clone(), &r2));
    pre(&mut r2, &format!("{url}x"));
    assert!(!holds(p.clone(), &r2));
    pre(&mut r2, &url);
    assert!(holds(p, &r2));
}

#[test]
fn hops_needs_every_nested_redirect_url_not_the_destination() {
    let hops = json!([{"origin": "{ordinary}", "code": 302}, {"origin": "{cross}", "code": 302}]);
    let c = json!({"hops": hops, "to": "{target}/doc?n=dest-{tag}", "observer": "fixture"});
    let chain: Vec<guard::Hop> = serde_json::from_value(json!([
        {"origin": O, "code": 302}, {"origin": "http://cross.test:8080", "code": 302}
    ]))
    .unwrap();
    let urls = chain_urls(&chain, &dest(SEVEN, TAG_G));
    let mut r = record(TAG_G);
    for (i, u) in urls[..2].iter().enumerate() {
        assert!(!holds(c.clone(), &r), "only {i} of 2 redirects logged");
        hit(&mut r, u);
    }
    // The destination is judged by its own observation (issue 29, reading 1).
    assert!(holds(c.clone(), &r));
    hit(&mut r, &urls[2]);
    assert!(holds(c.clone(), &r));
    // pre on a chain is the chain's first URL; loaded with index picks that position
    let mut r = record(TAG_G);
    pre(&mut r, &urls[0]);
    hit(&mut r, &urls[1]);
    assert!(holds(
        json!({"pre": {"hops": hops, "to": "{target}/doc?n=dest-{tag}"}, "observer": "fixture"}),
        &r
    ));
    assert!(holds(
        json!({"loaded": {"hops": hops, "to": "{target}/doc?n=dest-{tag}", "index": 1}, "observer": "fixture"}),
        &r
    ));
    assert!(!holds(
        json!({"loaded": {"hops": hops, "to": "{target}/doc?n=dest-{tag}"}, "observer": "fixture"}),
        &r
    ));
}

#[test]
fn client_checks_read_events_outcomes_sessions_and_refusals() {
    let mut r = record(TAG_G);
    let url = dest(SEVEN, TAG_G);
    // event with a where predicate
    let paused = json!({"event": "Fetch.requestPaused", "where": {"params": {"request": {"url": "{target}/doc?n=dest-{tag}"}}}, "observer": "client"});
    ev(
        &mut r,
        "Fetch.requestPaused",
        json!({"request": {"url": format!("{O}/x")}}),
        Some("S1"),
    );
    assert!(!holds(paused.clone(), &r));
    ev(
        &mut r,
        "Fetch.requestPaused",
        json!({"request": {"url": url}}),
        Some("S1"),
    );
    assert!(holds(paused, &r));
    // result at a path; failed and pending outcomes are no value
    r.outcomes.insert(
        "list".into(),
        Outcome::Value(json!({"ok": true, "result": {"targetInfos": [{"url": url}]}})),
    );
    assert!(holds(
        json!({"result": "list", "path": "result.targetInfos", "equals": {"$some": {"url": {"$contains": "n=dest-{tag}"}}}, "observer": "client"}),
        &r
    ));
    assert!(holds(
        json!({"result": "list", "path": "result.targetInfos.0.url", "equals": "{target}/doc?n=dest-{tag}", "observer": "client"}),
        &r
    ));
    assert!(!holds(
        json!({"result": "list", "path": "result.nothing", "equals": {}, "observer": "client"}),
        &r
    ));
    r.outcomes.insert("late".into(), Outcome::Pending);
    r.outcomes
        .insert("bad".into(), Outcome::Failed("timeout".into()));
    for name in ["late", "bad", "absent"] {
        assert!(!holds(
            json!({"result": name, "equals": {"$regex": ""}, "observer": "client"}),
            &r
        ));
        assert!(holds(
            json!({"not": {"result": name, "equals": {"$regex": ""}, "observer": "client"}, "observer": "client"}),
            &r
        ));
    }
    // cookie / filtered: the canary by name, for the target's host
    let cookies = |names: &[(&str, &str)]| json!({"ok": true, "result": {"cookies": names.iter().map(|(n, d)| json!({"name": n, "value": "v", "domain": d})).collect::<Vec<_>>()}});
    r.outcomes.insert(
        "read".into(),
        Outcome::Value(cookies(&[("kgrd1", "seven.sliccy.ai")])),
    );
    let leaked =
        json!({"cookie": "{cookie}", "from": "read", "on": "{target}", "observer": "client"});
    let filtered = json!({"filtered": {"from": ["read"], "cookie": "{cookie}", "on": "{target}"}, "observer": "client"});
    assert!(holds(leaked.clone(), &r));
    assert!(!holds(filtered.clone(), &r));
    r.outcomes.insert(
        "read".into(),
        Outcome::Value(cookies(&[
            ("kgrd1", "vault.sliccy.ai"),
            ("other", "seven.sliccy.ai"),
        ])),
    );
    assert!(!holds(leaked.clone(), &r));
    assert!(holds(filtered.clone(), &r));
    r.outcomes.insert(
        "read".into(),
        Outcome::Value(cookies(&[("kgrd1", ".sliccy.ai")])),
    );
    assert!(
        holds(leaked, &r),
        "a domain cookie of the parent domain reaches seven"
    );
    // a refused call delivered no response: not filtered, but refused
    r.outcomes.insert(
        "read".into(),
        Outcome::Value(
            json!({"ok": false, "error": {"code": -32000, "message": "slicc: refused"}}),
        ),
    );
    assert!(!holds(filtered, &r));
    // Read from its outcome, the error matching the step's refusal.match: refused (issue 29,
    // reading 2); a registration refusal needs the driver's record.
    let refused = json!({"refused": ["read"], "observer": "client"});
    assert!(holds(refused.clone(), &r));
    assert!(!holds(
        json!({"registration": "any", "observer": "client"}),
        &r
    ));
    r.outcomes.insert(
        "read".into(),
        Outcome::Value(
            json!({"ok": false, "error": {"code": -32000, "message": "no such cookie jar"}}),
        ),
    );
    assert!(!holds(refused.clone(), &r), "a browser error is no refusal");
    r.outcomes.insert(
        "read".into(),
        Outcome::Value(json!({"ok": false, "error": {"code": -32000, "message": "slicc: refused: target is on seven's origin"}})),
    );
    r.refused.insert("read".into());
    r.refusal_errors.insert(
        "read".into(),
        "slicc: refused: target is on seven's origin".into(),
    );
    assert!(holds(refused, &r));
    assert!(holds(json!({"refused": "all", "observer": "client"}), &r));
    assert!(holds(
        json!({"registration": "any", "observer": "client"}),
        &r
    ));
    assert!(holds(
        json!({"refused": ["read"], "refusal": {"match": "seven's origin"}, "observer": "client"}),
        &r
    ));
    assert!(!holds(
        json!({"refused": ["read"], "refusal": {"match": "^denied"}, "observer": "client"}),
        &r
    ));
    // reached: answered, not refused, ok not false
    r.outcomes.insert(
        "en".into(),
        Outcome::Value(json!({"ok": true, "result": {}})),
    );
    assert!(holds(json!({"reached": ["en"], "observer": "client"}), &r));

    assert!(!holds(
        json!({"reached": ["read"], "observer": "client"}),
        &r
    ));
    // compare
    r.outcomes
        .insert("a".into(), Outcome::Value(json!({"result": {"x": [1, 2]}})));
    r.outcomes.insert(
        "b".into(),
        Outcome::Value(json!({"result": {"x": [1, 2]}, "other": 1})),
    );
    assert!(holds(
        json!({"compare": ["a", "b"], "path": "result.x", "observer": "client"}),
        &r
    ));
    assert!(!holds(
        json!({"compare": ["a", "b"], "path": "other", "observer": "client"}),
        &r
    ));
    // detached and executed
    assert!(!holds(
        json!({"detached": "page", "observer": "client"}),
        &r
    ));
    r.detached.insert("page".into());
    assert!(holds(json!({"detached": "page", "observer": "client"}), &r));
    assert!(!holds(
        json!({"detached": "child", "observer": "client"}),
        &r
    ));
    r.executed.insert("trigger".into());
    assert!(holds(
        json!({"executed": "trigger", "observer": "client"}),
        &r
    ));
    assert!(!holds(
        json!({"executed": "child", "observer": "client"}),
        &r
    ));
}

#[test]
fn the_reached_all_claim_above_is_about_cdp_steps_only() {
    // `reached: "all"` is every `as` of the leg's cdp steps: here `read` (refused) and `en`
    let mut r = record(TAG_G);
    r.outcomes
        .insert("en".into(), Outcome::Value(json!({"ok": true})));
    r.outcomes
        .insert("read".into(), Outcome::Value(json!({"ok": true})));
    assert!(holds(json!({"reached": "all", "observer": "client"}), &r));
    r.refused.insert("read".into());
    assert!(!holds(json!({"reached": "all", "observer": "client"}), &r));
}

#[test]
fn attached_and_delivered() {
    let mut r = record(TAG_G);
    let at = json!({"attached": "{target}", "observer": "client"});
    let child = json!({"attached": "{target}", "session": "child", "observer": "client"});
    // the row's own page never counts without a session
    r.sessions[0].url = dest(SEVEN, TAG_G);
    assert!(!holds(at.clone(), &r));
    // a child attached while about:blank, whose main frame then navigated to the target
    r.sessions.push(SessionRecord {
        role: "child".into(),
        session_id: "S2".into(),
        target_id: "T2".into(),
        url: String::new(),
    });
    assert!(!holds(child.clone(), &r));
    ev(
        &mut r,
        "Page.frameNavigated",
        json!({"frame": {"id": "F", "url": dest(SEVEN, TAG_G)}}),
        Some("S2"),
    );
    assert!(holds(child.clone(), &r));
    assert!(holds(at.clone(), &r));
    assert!(!holds(
        json!({"attached": "{vault}", "observer": "client"}),
        &r
    ));
    // an explicit attach seen only as Target.attachedToTarget with the URL
    let mut r = record(TAG_G);
    ev(
        &mut r,
        "Target.attachedToTarget",
        json!({"sessionId": "S9", "targetInfo": {"targetId": "T9", "url": dest(SEVEN, TAG_G)}, "waitingForDebugger": false}),
        None,
    );
    assert!(holds(at, &r));

    let d = json!({"delivered": "{target}/hop", "observer": "client"});
    let mut r = record(TAG_G);
    // the target hop URL only inside another hop's `to` (encoded) is not data for it
    ev(
        &mut r,
        "Network.requestWillBeSent",
        json!({"requestId": "1", "request": {"url": format!("{O}/hop?code=302&to=http%3A%2F%2Fseven.sliccy.ai%3A8080%2Fhop")}}),
        Some("S1"),
    );
    assert!(!holds(d.clone(), &r));
    ev(
        &mut r,
        "Network.responseReceived",
        json!({"requestId": "1", "response": {"url": format!("{SEVEN}/hop?code=302&to=x")}}),
        Some("S1"),
    );
    assert!(holds(d, &r));
}

#[test]
fn block_checks_client_and_unguarded() {
    let url = dest(SEVEN, TAG_G);
    let client = json!({"blocked": {"url": "{target}/doc?n=dest-{tag}", "session": "page"}, "observer": "client"});
    // an error page for the exact URL on the page session
    let mut r = record(TAG_G);
    ev(
        &mut r,
        "Page.frameNavigated",
        json!({"frame": {"id": "F", "url": "chrome-error://chromewebdata/", "unreachableUrl": format!("{url}x")}}),
        Some("S1"),
    );
    assert!(!holds(client.clone(), &r), "an error for a different URL");
    ev(
        &mut r,
        "Page.frameNavigated",
        json!({"frame": {"id": "F", "url": "chrome-error://chromewebdata/", "unreachableUrl": url}}),
        Some("S2"),
    );
    assert!(!holds(client.clone(), &r), "another session");
    ev(
        &mut r,
        "Page.frameNavigated",
        json!({"frame": {"id": "G", "parentId": "F", "url": "chrome-error://chromewebdata/", "unreachableUrl": url}}),
        Some("S1"),
    );
    assert!(!holds(client.clone(), &r), "a subframe without frame: true");
    assert!(holds(
        json!({"blocked": {"url": "{target}/doc?n=dest-{tag}", "session": "page", "frame": true}, "observer": "client"}),
        &r
    ));
    ev(
        &mut r,
        "Page.frameNavigated",
        json!({"frame": {"id": "F", "url": "chrome-error://chromewebdata/", "unreachableUrl": url}}),
        Some("S1"),
    );
    assert!(holds(client.clone(), &r));
    // a failed load whose request's last URL is the exact one
    let mut r = record(TAG_G);
    ev(
        &mut r,
        "Network.requestWillBeSent",
        json!({"requestId": "7", "request": {"url": url}}),
        Some("S1"),
    );
    ev(
        &mut r,
        "Network.requestWillBeSent",
        json!({"requestId": "7", "request": {"url": format!("{O}/elsewhere")}}),
        Some("S1"),
    );
    ev(
        &mut r,
        "Network.loadingFailed",
        json!({"requestId": "7", "errorText": "net::ERR_BLOCKED_BY_CLIENT"}),
        Some("S1"),
    );
    assert!(!holds(client.clone(), &r), "the request had moved on");
    ev(
        &mut r,
        "Network.requestWillBeSent",
        json!({"requestId": "8", "request": {"url": url}}),
        Some("S1"),
    );
    ev(
        &mut r,
        "Network.loadingFailed",
        json!({"requestId": "8", "errorText": "net::ERR_FAILED"}),
        Some("S1"),
    );
    assert!(holds(client.clone(), &r));
    // a recorded navigation error
    let mut r = record(TAG_G);
    r.navigation_errors.push(NavigationError {
        session: "page".into(),
        url: url.clone(),
        error: "slicc: refused".into(),
    });
    assert!(holds(client, &r));
    // anyOf and chains
    assert!(holds(
        json!({"blocked": {"anyOf": ["{vault}/x", "{target}/doc?n=dest-{tag}"]}, "observer": "client"}),
        &r
    ));

    // the observer's error frames
    let read = |frame: bool| Read::Errors {
        session: "page".into(),
        frame,
    };
    let unguarded = json!({"blocked": {"url": "{target}/doc?n=dest-{tag}", "session": "page"}, "observer": "unguarded"});
    let mut r = record(TAG_G);
    assert!(!holds(unguarded.clone(), &r), "no read: false");
    r.reads.push((read(false), Outcome::Value(json!([{"url": "chrome-error://chromewebdata/", "unreachableUrl": url, "frameId": "F", "oopif": false}]))));
    assert!(holds(unguarded, &r));
    let fb = json!({"frameBlocked": {"url": "{target}/doc?n=dest-{tag}"}, "observer": "unguarded"});
    r.reads.push((read(true), Outcome::Value(json!([{"url": "chrome-error://chromewebdata/", "unreachableUrl": url, "frameId": "T5", "parentId": "F", "oopif": true}]))));
    assert!(holds(fb.clone(), &r));
    // the client holds a session on that frame target: not frameBlocked
    r.sessions.push(SessionRecord {
        role: "child".into(),
        session_id: "S5".into(),
        target_id: "T5".into(),
        url: String::new(),
    });
    assert!(!holds(fb, &r));

    // history: pre, the URL in the observer's history, and no fixture request for it
    let h = json!({"history": {"url": "{target}/doc?n=dest-{tag}", "session": "page"}, "observer": "unguarded"});
    let mut r = record(TAG_G);
    r.reads.push((
        Read::History {
            session: "page".into(),
        },
        Outcome::Value(json!([format!("{O}/doc?n=start-{TAG_G}"), url])),
    ));
    assert!(!holds(h.clone(), &r), "no pre heartbeat");
    pre(&mut r, &url);
    assert!(holds(h.clone(), &r));
    hit(&mut r, &url);
    assert!(
        !holds(h, &r),
        "the fixture served it: the guard did not swap its page in"
    );
}

#[test]
fn unguarded_reads_title_expression_state() {
    let mut r = record(TAG_G);
    let title = json!({"title": "rewritten", "via": "unguarded", "observer": "unguarded"});
    assert!(!holds(title.clone(), &r));
    r.reads.push((
        Read::Title {
            session: "page".into(),
        },
        Outcome::Value(json!("rewritten")),
    ));
    assert!(holds(title, &r));
    let expr = format!("location.origin === '{SEVEN}' && navigator.connection.effectiveType");
    r.reads.push((
        Read::Expression {
            expression: expr,
            session: "page".into(),
        },
        Outcome::Value(json!("slow-2g")),
    ));
    assert!(holds(
        json!({"expression": "location.origin === '{target}' && navigator.connection.effectiveType", "equals": {"$regex": "2g$"}, "via": "unguarded", "observer": "unguarded"}),
        &r
    ));
    assert!(!holds(
        json!({"expression": "location.origin === '{target}' && navigator.connection.effectiveType", "equals": "2g", "via": "unguarded", "observer": "unguarded"}),
        &r
    ));
    // a failed read (an evaluation exception) is never a value
    r.reads.push((
        Read::Expression {
            expression: "boom".into(),
            session: "page".into(),
        },
        Outcome::Failed("ReferenceError".into()),
    ));
    assert!(!holds(
        json!({"expression": "boom", "equals": {"$regex": ""}, "via": "unguarded", "observer": "unguarded"}),
        &r
    ));
    let state = |value: &str, storage: bool| json!({"state": {"origin": "{target}", "cookie": "{cookie}", "value": value, "storage": storage}, "observer": "unguarded"});
    r.reads.push((
        Read::State {
            origin: SEVEN.into(),
            cookie: "kgrd1".into(),
            storage: false,
        },
        Outcome::Value(json!(TAG_G)),
    ));
    r.reads.push((
        Read::State {
            origin: SEVEN.into(),
            cookie: "kgrd1".into(),
            storage: true,
        },
        Outcome::Value(Value::Null),
    ));
    assert!(holds(state("{tag}", false), &r));
    assert!(!holds(state("", false), &r));
    assert!(
        holds(state("", true), &r),
        "a null storage read is a gone canary"
    );
    assert!(!holds(state("{tag}", true), &r));
}

#[test]
fn a_missing_observer_skips_unless_an_available_alternative_exists() {
    let r = record(TAG_G);
    let v = base(
        json!([{"page": "tab", "url": "{ordinary}/x"}]),
        json!([{"wait": 1}]),
        json!({}),
        json!({"a": true}),
        json!({"a": true}),
    );
    let g = vars(Leg::Guarded, "seven");
    let run = LegRun {
        vars: &g,
        record: &r,
    };
    let title = json!({"title": "t", "via": "unguarded", "observer": "unguarded"});
    assert_eq!(
        evaluate(&v, Leg::Guarded, &run, false, &check(title.clone())),
        Ok(Truth::Skip(SKIP_OBSERVER.into()))
    );
    // an any with a fixture alternative can do without it (the unguarded one counts false)
    let any = json!({"any": [title.clone(), {"detached": "page", "observer": "client"}], "observer": "client"});
    assert_eq!(
        evaluate(&v, Leg::Guarded, &run, false, &check(any)),
        Ok(Truth::False)
    );
    // all needs every operand's observer
    let all =
        json!({"all": [title, {"detached": "page", "observer": "client"}], "observer": "client"});
    assert_eq!(
        evaluate(&v, Leg::Guarded, &run, false, &check(all)),
        Ok(Truth::Skip(SKIP_OBSERVER.into()))
    );
}

fn live_of(id: &str, r: &Record) -> (Status, Vec<String>) {
    let v = shipped(id);
    let g = vars(Leg::Guarded, "seven");
    let verdict = judge_live(
        &v,
        &LegRun {
            vars: &g,
            record: r,
        },
        true,
    );
    (verdict.status, verdict.errors)
}

#[test]
fn liveness_accepts_each_proof_the_spec_allows() {
    let url = dest(SEVEN, TAG_G);
    // 1. the exact URL logged
    let mut r = record(TAG_G);
    hit(&mut r, &url);
    assert_eq!(live_of("C1.script-nav", &r).0, Status::Pass);
    // 2. a /live heartbeat from the target's origin
    let mut r = record(TAG_G);
    hit(&mut r, &format!("{SEVEN}/live?n=dest-{TAG_G}"));
    assert_eq!(live_of("C1.script-nav", &r).0, Status::Pass);
    // 3. pre + an exact-URL block: client error page, observer error frame, history
    let mut r = record(TAG_G);
    pre(&mut r, &url);
    ev(
        &mut r,
        "Page.frameNavigated",
        json!({"frame": {"id": "F", "url": "chrome-error://chromewebdata/", "unreachableUrl": url}}),
        Some("S1"),
    );
    assert_eq!(live_of("C1.script-nav", &r).0, Status::Pass);
    let mut r = record(TAG_G);
    pre(&mut r, &url);
    r.reads.push((
        Read::Errors {
            session: "page".into(),
            frame: false,
        },
        Outcome::Value(json!([{"unreachableUrl": url, "frameId": "F", "oopif": false}])),
    ));
    assert_eq!(live_of("C1.script-nav", &r).0, Status::Pass);
    let mut r = record(TAG_G);
    pre(&mut r, &url);
    r.reads.push((
        Read::History {
            session: "page".into(),
        },
        Outcome::Value(json!([url])),
    ));
    assert_eq!(live_of("C1.script-nav", &r).0, Status::Pass);
    // pre + frameBlocked (C4's frame rows)
    let mut r = record(TAG_G);
    pre(&mut r, &url);
    r.reads.push((
        Read::Errors {
            session: "page".into(),
            frame: true,
        },
        Outcome::Value(
            json!([{"unreachableUrl": url, "frameId": "T7", "parentId": "F", "oopif": true}]),
        ),
    ));
    assert_eq!(live_of("C4.static-cross-site", &r).0, Status::Pass);
    // 4. a matched registration refusal
    let mut r = record(TAG_G);
    r.refused.insert("initScript".into());
    assert_eq!(live_of("C1.script-nav", &r).0, Status::Pass);
    // a chain: pre for its first URL + a block of one of its URLs
    let v = shipped("C2.301");
    let chain = chain_urls(
        &serde_json::from_value::<Vec<guard::Hop>>(
            json!([{"origin": O, "code": 301}, {"origin": "http://cross.test:8080", "code": 301}]),
        )
        .unwrap(),
        &url,
    );
    let mut r = record(TAG_G);
    pre(&mut r, &chain[0]);
    ev(
        &mut r,
        "Page.frameNavigated",
        json!({"frame": {"id": "F", "url": "chrome-error://chromewebdata/", "unreachableUrl": chain[2]}}),
        Some("S1"),
    );
    let g = vars(Leg::Guarded, "seven");
    assert_eq!(
        judge_live(
            &v,
            &LegRun {
                vars: &g,
                record: &r
            },
            true
        )
        .status,
        Status::Pass
    );
    // the served /plant proof of the cookie rows
    let mut r = record(TAG_G);
    hit(&mut r, &format!("{SEVEN}/plant?tag={TAG_G}&name=k&value=v"));
    assert_eq!(live_of("C6.read-cookies", &r).0, Status::Pass);
}

#[test]
fn liveness_rejects_what_proves_nothing() {
    let url = dest(SEVEN, TAG_G);
    // nothing at all
    let (s, errors) = live_of("C1.script-nav", &record(TAG_G));
    assert_eq!(s, Status::Fail);
    assert!(
        errors.iter().any(|e| e.contains("does not hold")),
        "{errors:?}"
    );
    // an error for a different URL, with the pre heartbeat
    let mut r = record(TAG_G);
    pre(&mut r, &url);
    ev(
        &mut r,
        "Page.frameNavigated",
        json!({"frame": {"id": "F", "url": "chrome-error://chromewebdata/", "unreachableUrl": format!("{SEVEN}/doc?n=other-{TAG_G}")}}),
        Some("S1"),
    );
    assert_eq!(live_of("C1.script-nav", &r).0, Status::Fail);
    // the exact-URL block without the pre heartbeat
    let mut r = record(TAG_G);
    ev(
        &mut r,
        "Page.frameNavigated",
        json!({"frame": {"id": "F", "url": "chrome-error://chromewebdata/", "unreachableUrl": url}}),
        Some("S1"),
    );
    assert_eq!(live_of("C1.script-nav", &r).0, Status::Fail);
    // the pre heartbeat alone
    let mut r = record(TAG_G);
    pre(&mut r, &url);
    assert_eq!(live_of("C1.script-nav", &r).0, Status::Fail);
    // a refusal that did not match refusal.match is not recorded as refused: no proof
    let mut r = record(TAG_G);
    r.refusal_errors
        .insert("initScript".into(), "Internal error".into());
    assert_eq!(live_of("C1.script-nav", &r).0, Status::Fail);
    // the same URL on another origin, and a heartbeat from another origin
    let mut r = record(TAG_G);
    hit(&mut r, &dest("http://vault.sliccy.ai:8080", TAG_G));
    hit(&mut r, &format!("{O}/live?n=dest-{TAG_G}"));
    assert_eq!(live_of("C1.script-nav", &r).0, Status::Fail);

    // liveChecks that hold through what §4.6 refuses
    let g = vars(Leg::Guarded, "seven");
    let mut r = record(TAG_G);
    r.outcomes.insert(
        "nav".into(),
        Outcome::Value(json!({"ok": true, "result": {"frameId": "F"}})),
    );
    beacon(&mut r, SEVEN);
    ev(&mut r, "Page.loadEventFired", json!({}), Some("S1"));
    hit(&mut r, &format!("{O}/plant?tag={TAG_G}"));
    let with_live = |live: Value| {
        let mut v = shipped("C1.script-nav");
        v.live_check = Some(check(live));
        judge_live(
            &v,
            &LegRun {
                vars: &g,
                record: &r,
            },
            true,
        )
    };
    for (what, live) in [
        (
            "command completion",
            json!({"result": "nav", "path": "ok", "equals": true, "observer": "client"}),
        ),
        (
            "an event",
            json!({"event": "Page.loadEventFired", "observer": "client"}),
        ),
        (
            "a beacon",
            json!({"beacon": "{target}", "observer": "fixture"}),
        ),
        (
            "a negation",
            json!({"not": {"detached": "page", "observer": "client"}, "observer": "client"}),
        ),
        (
            "a request off the target",
            json!({"served": "/plant", "origin": "{ordinary}", "observer": "fixture"}),
        ),
        (
            "all of them",
            json!({"all": [
            {"result": "nav", "path": "ok", "equals": true, "observer": "client"},
            {"beacon": "{target}", "observer": "fixture"}], "observer": "client"}),
        ),
    ] {
        let verdict = with_live(live);
        assert_eq!(verdict.status, Status::Fail, "{what}");
        assert!(
            verdict
                .errors
                .iter()
                .any(|e| e.contains("proves no liveness")),
            "{what}: {:?}",
            verdict.errors
        );
    }
    // the diagnostic checks are not allowed at any depth
    for live in [
        json!({"executed": "trigger", "observer": "client"}),
        json!({"any": [{"live": true, "observer": "unguarded"}, {"loaded": "{target}/x", "observer": "fixture"}], "observer": "client"}),
    ] {
        let verdict = with_live(live.clone());
        assert_eq!(verdict.status, Status::Fail, "{live}");
        assert!(
            verdict.errors[0].contains("diagnostic"),
            "{:?}",
            verdict.errors
        );
    }
}

fn cookie_vector() -> Vector {
    shipped("C6.read-cookies")
}

fn cookies_result(with_canary: bool, tag: &str, host: &str) -> Outcome {
    let mut list = vec![json!({"name": "other", "value": "1", "domain": host})];
    if with_canary {
        list.push(json!({"name": format!("k{tag}"), "value": tag, "domain": host}));
    }
    Outcome::Value(json!({"ok": true, "result": {"cookies": list}}))
}

#[test]
fn depends_on_skips_and_a_refusal_on_one_leg_fails_only_that_leg() {
    let v = cookie_vector();
    let spec = RowSpec {
        vector: &v,
        target: "seven",
        variant: "prompt",
        transport: "cdp",
        transport_variant: false,
    };
    let (cv, gv) = (vars(Leg::Control, "seven"), vars(Leg::Guarded, "seven"));
    let refuse = |r: &mut Record| {
        r.outcomes.insert(
            "read".into(),
            Outcome::Value(
                json!({"ok": false, "error": {"code": -32000, "message": "slicc: refused"}}),
            ),
        );
        r.refused.insert("read".into());
        r.refusal_errors
            .insert("read".into(), "slicc: refused".into());
    };
    let plant = |r: &mut Record, tag: &str, origin: &str| {
        hit(r, &format!("{origin}/plant?tag={tag}&name=k&value=v"))
    };

    // a guard that filters on the target and allows the ordinary origin: every leg passes
    let mut c = record(TAG_C);
    c.outcomes
        .insert("read".into(), cookies_result(true, TAG_C, "ordinary.test"));
    let mut g = record(TAG_G);
    g.outcomes.insert(
        "read".into(),
        cookies_result(false, TAG_G, "seven.sliccy.ai"),
    );
    plant(&mut g, TAG_G, SEVEN);
    let row = judge_row(
        &spec,
        &env(),
        &[LegRun {
            vars: &cv,
            record: &c,
        }],
        &LegRun {
            vars: &gv,
            record: &g,
        },
    );
    assert_eq!(row.statuses(), [Status::Pass; 3], "{:?}", row.errors);
    assert_eq!(row.observations["guarded"]["leaked"], Some(false));

    // refused on the guarded leg only: `leaked` (dependsOn read) is skipped there, and the
    // refusal name is an observation; the row passes
    let mut g2 = record(TAG_G);
    refuse(&mut g2);
    let row = judge_row(
        &spec,
        &env(),
        &[LegRun {
            vars: &cv,
            record: &c,
        }],
        &LegRun {
            vars: &gv,
            record: &g2,
        },
    );
    assert_eq!(row.statuses(), [Status::Pass; 3], "{:?}", row.errors);
    assert_eq!(row.observations["guarded"]["leaked"], None);
    assert_eq!(row.observations["guarded"]["read"], Some(true));
    assert_eq!(row.observations["guarded"]["withheld"], Some(true));

    // refused on the control leg only: the control fails, the guarded leg keeps its verdict
    let mut c2 = record(TAG_C);
    refuse(&mut c2);
    let row = judge_row(
        &spec,
        &env(),
        &[LegRun {
            vars: &cv,
            record: &c2,
        }],
        &LegRun {
            vars: &gv,
            record: &g,
        },
    );
    assert_eq!(row.control, Status::Fail);
    assert_eq!(row.guarded, Status::Pass);
    assert!(
        row.errors
            .iter()
            .any(|e| e.starts_with("control: withheld is true")),
        "{:?}",
        row.errors
    );

    // C6.clear-cookies: refused on both legs passes (the control's only name depends on it)
    let v = shipped("C6.clear-cookies");
    let spec = RowSpec { vector: &v, ..spec };
    let (mut c3, mut g3) = (record(TAG_C), record(TAG_G));
    for (r, tag, origin) in [(&mut c3, TAG_C, O), (&mut g3, TAG_G, SEVEN)] {
        r.outcomes
            .insert("clear".into(), Outcome::Value(json!({"ok": false})));
        r.refused.insert("clear".into());
        r.reads.push((
            Read::State {
                origin: origin.into(),
                cookie: format!("k{tag}"),
                storage: false,
            },
            Outcome::Value(json!(tag)),
        ));
    }
    let row = judge_row(
        &spec,
        &env(),
        &[LegRun {
            vars: &cv,
            record: &c3,
        }],
        &LegRun {
            vars: &gv,
            record: &g3,
        },
    );
    assert_eq!(row.statuses(), [Status::Pass; 3], "{:?}", row.errors);
    // allowed on the control: judged on its effect (the canary must be gone)
    let mut c4 = record(TAG_C);
    c4.outcomes
        .insert("clear".into(), Outcome::Value(json!({"ok": true})));
    c4.reads.push((
        Read::State {
            origin: O.into(),
            cookie: format!("k{TAG_C}"),
            storage: false,
        },
        Outcome::Value(json!(TAG_C)),
    ));
    let row = judge_row(
        &spec,
        &env(),
        &[LegRun {
            vars: &cv,
            record: &c4,
        }],
        &LegRun {
            vars: &gv,
            record: &g3,
        },
    );
    assert_eq!(row.control, Status::Fail);
}

#[test]
fn either_only_for_design_dependent_names_and_either_when_on_the_guarded_leg() {
    let url = dest(SEVEN, TAG_G);
    let v = shipped("C1.script-nav");
    let gv = vars(Leg::Guarded, "seven");
    // the guard blocked the exact URL (pre + error page) without detaching
    let mut g = record(TAG_G);
    pre(&mut g, &url);
    ev(
        &mut g,
        "Page.frameNavigated",
        json!({"frame": {"id": "F", "url": "chrome-error://chromewebdata/", "unreachableUrl": url}}),
        Some("S1"),
    );
    let verdict = judge_leg(
        &v,
        Leg::Guarded,
        &LegRun {
            vars: &gv,
            record: &g,
        },
        true,
    );
    assert_eq!(verdict.status, Status::Pass, "{:?}", verdict.errors);
    assert_eq!(verdict.observations["detached"], Some(false));
    // neither blocked nor detached: detached stays required
    let g2 = record(TAG_G);
    let verdict = judge_leg(
        &v,
        Leg::Guarded,
        &LegRun {
            vars: &gv,
            record: &g2,
        },
        true,
    );
    assert_eq!(verdict.status, Status::Fail);
    assert!(
        verdict
            .errors
            .iter()
            .any(|e| e == "detached is false, expected true"),
        "{:?}",
        verdict.errors
    );
    // eitherWhen does not apply on the control leg
    let cv = vars(Leg::Control, "seven");
    let ctl_url = dest(O, TAG_C);
    let mut c = record(TAG_C);
    hit(&mut c, &ctl_url);
    beacon(&mut c, O);
    c.detached.insert("page".into());
    pre(&mut c, &ctl_url);
    ev(
        &mut c,
        "Page.frameNavigated",
        json!({"frame": {"id": "F", "url": "chrome-error://chromewebdata/", "unreachableUrl": ctl_url}}),
        Some("S1"),
    );
    let verdict = judge_leg(
        &v,
        Leg::Control,
        &LegRun {
            vars: &cv,
            record: &c,
        },
        true,
    );
    assert_eq!(verdict.status, Status::Fail);
    c.detached.clear();
    let verdict = judge_leg(
        &v,
        Leg::Control,
        &LegRun {
            vars: &cv,
            record: &c,
        },
        true,
    );
    assert_eq!(verdict.status, Status::Pass, "{:?}", verdict.errors);

    // "either" on a name that is not design-dependent is an error
    let mut bad = v.clone();
    bad.expected = serde_json::from_value(json!({"beaconed": "either", "detached": true})).unwrap();
    let mut g3 = record(TAG_G);
    g3.detached.insert("page".into());
    let verdict = judge_leg(
        &bad,
        Leg::Guarded,
        &LegRun {
            vars: &gv,
            record: &g3,
        },
        true,
    );
    assert_eq!(verdict.status, Status::Fail);
    assert!(
        verdict.errors[0].contains("not in designDependent"),
        "{:?}",
        verdict.errors
    );
    // and it is accepted for a design-dependent one, either way
    let mut ok = v.clone();
    ok.expected = serde_json::from_value(json!({"beaconed": false, "detached": "either"})).unwrap();
    for detached in [false, true] {
        let mut g4 = record(TAG_G);
        if detached {
            g4.detached.insert("page".into());
        }
        let verdict = judge_leg(
            &ok,
            Leg::Guarded,
            &LegRun {
                vars: &gv,
                record: &g4,
            },
            true,
        );
        assert_eq!(
            verdict.status,
            Status::Pass,
            "{detached}: {:?}",
            verdict.errors
        );
    }
}

#[test]
fn leg_errors_and_missing_observations_fail_the_leg() {
    let v = shipped("C1.script-nav");
    let gv = vars(Leg::Guarded, "seven");
    let mut g = record(TAG_G);
    g.detached.insert("page".into());
    assert_eq!(
        judge_leg(
            &v,
            Leg::Guarded,
            &LegRun {
                vars: &gv,
                record: &g
            },
            true
        )
        .status,
        Status::Pass
    );
    g.errors
        .push(format!("settle: no beacon from {SEVEN} within 5000ms"));
    let verdict = judge_leg(
        &v,
        Leg::Guarded,
        &LegRun {
            vars: &gv,
            record: &g,
        },
        true,
    );
    assert_eq!(verdict.status, Status::Fail);
    assert!(verdict.errors[0].starts_with("settle: no beacon"));
    let mut bad = v.clone();
    bad.expected = serde_json::from_value(json!({"nowhere": true})).unwrap();
    g.errors.clear();
    let verdict = judge_leg(
        &bad,
        Leg::Guarded,
        &LegRun {
            vars: &gv,
            record: &g,
        },
        true,
    );
    assert_eq!(verdict.status, Status::Fail);
    assert!(verdict.errors[0].contains("observe does not define"));
}

fn spec_for<'a>(v: &'a Vector, target: &'a str) -> RowSpec<'a> {
    RowSpec {
        vector: v,
        target,
        variant: "prompt",
        transport: "cdp",
        transport_variant: false,
    }
}

#[test]
fn null_origins_skip_rows_and_drop_any_alternatives() {
    // C4.static-same-site starts on {ordinary-same-site}: a null one skips the row
    let v = shipped("C4.static-same-site");
    let mut e = env();
    e.origins = origins().with("ordinary-same-site", None).unwrap();
    let row = precheck(&spec_for(&v, "seven"), &e).expect("skips");
    assert_eq!(row.statuses(), [Status::Skip; 3]);
    assert_eq!(
        row.reason.as_deref(),
        Some("not-applicable:no-ordinary-same-site-origin")
    );
    assert!(precheck(&spec_for(&v, "seven"), &env()).is_none());
    // a null target
    let v = shipped("C1.script-nav");
    e.origins = origins().with("vault-x", None).unwrap();
    assert_eq!(
        precheck(&spec_for(&v, "vault-x"), &e)
            .unwrap()
            .reason
            .as_deref(),
        Some("not-applicable:no-vault-x-origin")
    );
    assert!(precheck(&spec_for(&v, "seven"), &e).is_none());

    // checks: an `any` alternative needing a null origin is dropped, the rest judged
    let obs = |check: Value| json!({"a": {"means": "m", "check": check}});
    let mk = |check: Value| {
        base(
            json!([{"page": "tab", "url": "{ordinary}/x"}]),
            json!([{"wait": 1}]),
            obs(check),
            json!({"a": true}),
            json!({"a": false}),
        )
    };
    e.origins = origins().with("ordinary-same-site", None).unwrap();
    let any = json!({"any": [{"beacon": "{ordinary-same-site}", "observer": "fixture"}, {"beacon": "{target}", "observer": "fixture"}], "observer": "client"});
    let v = mk(any);
    assert!(precheck(&spec_for(&v, "seven"), &e).is_none());
    let (cv, gv) = (
        Vars::for_leg(&e.origins, Leg::Control, "seven", TAG_C, "k"),
        Vars::for_leg(&e.origins, Leg::Guarded, "seven", TAG_G, "k"),
    );
    let mut c = record(TAG_C);
    beacon(&mut c, O);
    hit(&mut c, &format!("{O}/x?n={TAG_C}"));
    let mut g = record(TAG_G);
    hit(&mut g, &dest(SEVEN, TAG_G));
    let row = judge_row(
        &spec_for(&v, "seven"),
        &e,
        &[LegRun {
            vars: &cv,
            record: &c,
        }],
        &LegRun {
            vars: &gv,
            record: &g,
        },
    );
    assert_eq!(row.statuses(), [Status::Pass; 3], "{:?}", row.errors);
    // every alternative needs it: the row skips
    let v = mk(
        json!({"any": [{"beacon": "{ordinary-same-site}", "observer": "fixture"}, {"served": "{ordinary-same-site}/x", "observer": "fixture"}], "observer": "client"}),
    );
    assert_eq!(
        precheck(&spec_for(&v, "seven"), &e)
            .unwrap()
            .reason
            .as_deref(),
        Some("not-applicable:no-ordinary-same-site-origin")
    );
    // a required check (plain, all, not) needs it: the row skips
    for check in [
        json!({"beacon": "{ordinary-same-site}", "observer": "fixture"}),
        json!({"all": [{"beacon": "{target}", "observer": "fixture"}, {"beacon": "{ordinary-same-site}", "observer": "fixture"}], "observer": "client"}),
        json!({"not": {"beacon": "{ordinary-same-site}", "observer": "fixture"}, "observer": "client"}),
    ] {
        let v = mk(check.clone());
        assert_eq!(
            precheck(&spec_for(&v, "seven"), &e)
                .unwrap()
                .reason
                .as_deref(),
            Some("not-applicable:no-ordinary-same-site-origin"),
            "{check}"
        );
    }
    // a setup step on one leg referencing it skips the row too
    let v = base(
        json!([{"page": "tab", "url": "{ordinary}/x"}, {"page": "iframe", "url": "{ordinary-same-site}/y", "on": "control"}]),
        json!([{"wait": 1}]),
        obs(json!({"beacon": "{target}", "observer": "fixture"})),
        json!({"a": true}),
        json!({"a": false}),
    );
    assert_eq!(
        precheck(&spec_for(&v, "seven"), &e)
            .unwrap()
            .reason
            .as_deref(),
        Some("not-applicable:no-ordinary-same-site-origin")
    );
}

#[test]
fn capability_observer_observable_and_text_skips() {
    // C3.auto-attach-wait requires autoAttach and browserSession
    let v = shipped("C3.auto-attach-wait");
    let mut e = env();
    e.capabilities = CapabilitySet::from_names(["browserSession", "browserContexts"]);
    let row = precheck(&spec_for(&v, "seven"), &e).unwrap();
    assert_eq!(row.reason.as_deref(), Some("not-supported:autoAttach"));
    e.capabilities = CapabilitySet::from_names(["autoAttach"]);
    assert_eq!(
        precheck(&spec_for(&v, "seven"), &e)
            .unwrap()
            .reason
            .as_deref(),
        Some("not-supported:browserSession")
    );
    e.capabilities = CapabilitySet::all();
    assert!(precheck(&spec_for(&v, "seven"), &e).is_none());
    // a page-or-browser cookie call with a browserContextId needs browserSession, stated or not
    let v = base(
        json!([{"page": "tab", "url": "{ordinary}/x"}]),
        json!([{"cdp": "Storage.getCookies", "params": {"browserContextId": "{context}"}, "session": "page-or-browser", "as": "read"}]),
        json!({"a": {"means": "m", "check": {"cookie": "{cookie}", "from": "read", "observer": "client"}}}),
        json!({"a": true}),
        json!({"a": false}),
    );
    assert_eq!(
        required_capabilities(&v),
        vec!["browserSession".to_string()]
    );
    e.capabilities = CapabilitySet::from_names(["autoAttach", "browserContexts"]);
    assert_eq!(
        precheck(&spec_for(&v, "seven"), &e)
            .unwrap()
            .reason
            .as_deref(),
        Some("not-supported:browserSession")
    );
    // implied by children steps and child sessions
    let v = base(
        json!([{"page": "tab", "url": "{ordinary}/x"}, {"children": [{"cdp": "Page.enable", "session": "child"}]}]),
        json!([{"wait": 1}]),
        json!({"a": {"means": "m", "check": {"detached": "child", "observer": "client"}}}),
        json!({"a": true}),
        json!({"a": false}),
    );
    assert_eq!(required_capabilities(&v), vec!["autoAttach".to_string()]);

    // no observer: a row with a required unguarded check skips, one with an unguarded control too
    let mut e = env();
    e.observer = false;
    let v = shipped("C5.new-url");
    assert_eq!(
        precheck(&spec_for(&v, "seven"), &e)
            .unwrap()
            .reason
            .as_deref(),
        Some(SKIP_OBSERVER)
    );
    let mut u = shipped("C1.script-nav");
    u.control.via = "unguarded".into();
    assert_eq!(
        precheck(&spec_for(&u, "seven"), &e)
            .unwrap()
            .reason
            .as_deref(),
        Some(SKIP_OBSERVER)
    );
    // C1.script-nav's unguarded checks are all inside `any`s with fixture/client alternatives
    assert!(precheck(&spec_for(&shipped("C1.script-nav"), "seven"), &e).is_none());

    // observable.own false on own, when own is a static server
    let v = shipped("C2.301");
    let mut e = env();
    assert!(precheck(&spec_for(&v, "own"), &e).is_none());
    e.own_static = true;
    assert_eq!(
        precheck(&spec_for(&v, "own"), &e)
            .unwrap()
            .reason
            .as_deref(),
        Some("not-observable")
    );
    assert!(precheck(&spec_for(&v, "seven"), &e).is_none());
    // the vector's own skip entry, and text rows
    let v = shipped("C4.static-same-site");
    assert_eq!(
        precheck(&spec_for(&v, "vault"), &env())
            .unwrap()
            .reason
            .as_deref(),
        Some("not-applicable: no unprotected page is same-site with a sliccy.ai host")
    );
    let t = shipped("C1.back-forward-cache");
    let row = precheck(&spec_for(&t, "seven"), &env()).unwrap();
    assert_eq!(row.statuses(), [Status::NotRun; 3]);
    assert_eq!(row.reason, None);
    // judge_row gives the same for any records
    let (cv, gv) = (vars(Leg::Control, "seven"), vars(Leg::Guarded, "seven"));
    let r = record("x");
    assert_eq!(
        judge_row(
            &spec_for(&t, "seven"),
            &env(),
            &[LegRun {
                vars: &cv,
                record: &r
            }],
            &LegRun {
                vars: &gv,
                record: &r
            }
        ),
        row
    );
}

#[test]
fn an_unguarded_control_needs_the_effect_in_both_runs() {
    let mut v = shipped("E3.bypass-csp");
    v.control.via = "unguarded".into();
    let spec = spec_for(&v, "seven");
    let cv = vars(Leg::Control, "seven");
    let mut cpv = vars(Leg::Guarded, "seven");
    cpv.set("tag", "ctlp1");
    let gv = vars(Leg::Guarded, "seven");
    let effect = |tag: &str, origin: &str| {
        let mut r = record(tag);
        hit(&mut r, &format!("{origin}/doc?n=dest-{tag}&csp=1"));
        hit(&mut r, &format!("{origin}/beacon?tag=inline-dest-{tag}"));
        r
    };
    let c1 = effect(TAG_C, O);
    let c2 = effect("ctlp1", SEVEN);
    let mut g = record(TAG_G);
    hit(&mut g, &format!("{SEVEN}/doc?n=dest-{TAG_G}&csp=1"));
    let both = [
        LegRun {
            vars: &cv,
            record: &c1,
        },
        LegRun {
            vars: &cpv,
            record: &c2,
        },
    ];
    let row = judge_row(
        &spec,
        &env(),
        &both,
        &LegRun {
            vars: &gv,
            record: &g,
        },
    );
    assert_eq!(row.statuses(), [Status::Pass; 3], "{:?}", row.errors);
    assert_eq!(row.via, "unguarded");
    assert_eq!(
        row.observations["controlProtected"]["inlineRan"],
        Some(true)
    );
    // the protected run lacks the effect: the control fails
    let c3 = record("ctlp1");
    let row = judge_row(
        &spec,
        &env(),
        &[
            LegRun {
                vars: &cv,
                record: &c1,
            },
            LegRun {
                vars: &cpv,
                record: &c3,
            },
        ],
        &LegRun {
            vars: &gv,
            record: &g,
        },
    );
    assert_eq!(row.control, Status::Fail);
    assert!(
        row.errors
            .iter()
            .any(|e| e.starts_with("controlProtected: ")),
        "{:?}",
        row.errors
    );
    // one run only is an error
    let row = judge_row(
        &spec,
        &env(),
        &both[..1],
        &LegRun {
            vars: &gv,
            record: &g,
        },
    );
    assert_eq!(row.control, Status::Fail);
}

#[test]
fn predicates_follow_the_format_note() {
    let ok = |p: Value, a: Value| matches(&p, &a).unwrap_or_else(|e| panic!("{p}: {e}"));
    assert!(ok(json!("a"), json!("a")));
    assert!(!ok(json!("a"), json!("b")));
    assert!(ok(json!(1), json!(1.0)));
    assert!(!ok(json!(1), json!("1")));
    assert!(ok(json!(null), json!(null)));
    assert!(!ok(json!(false), json!(null)));
    assert!(ok(json!({}), json!({"x": 1})));
    assert!(!ok(json!({}), json!([1])));
    assert!(ok(
        json!({"a": {"b": 1}}),
        json!({"a": {"b": 1, "c": 2}, "d": 3})
    ));
    assert!(!ok(json!({"a": {"b": 1}}), json!({"a": {"c": 2}})));
    assert!(
        !ok(json!({"a": null}), json!({})),
        "a missing member is not null"
    );
    assert!(ok(json!({"$contains": "lo w"}), json!("hello world")));
    assert!(
        ok(json!({"$contains": "\"k\":1"}), json!({"k": 1})),
        "non-strings by their JSON text"
    );
    assert!(ok(json!({"$regex": "^[1-9]"}), json!(12)));
    assert!(!ok(json!({"$regex": "^[1-9]"}), json!(0)));
    assert!(
        ok(json!({"$regex": "world"}), json!("hello world")),
        "a search, not anchored"
    );
    assert!(ok(json!({"$regex": "\"ok\":true"}), json!({"ok": true})));
    assert!(ok(json!({"$some": {}}), json!([1, {}])));
    assert!(!ok(json!({"$some": {}}), json!([])));
    assert!(!ok(json!({"$some": {}}), json!({"a": {}})));
    assert!(ok(
        json!({"$some": {"$some": {"$contains": "t1"}}}),
        json!([["k", "v"], ["c", "xt1x"]])
    ));
    assert!(ok(json!({"$every": {"$regex": "a"}}), json!(["a", "ba"])));
    assert!(!ok(json!({"$every": {"$regex": "a"}}), json!(["a", "b"])));
    assert!(
        !ok(json!({"$every": {}}), json!([])),
        "$every needs a non-empty array"
    );
    // several keys: every one must match
    assert!(ok(json!({"$contains": "a", "$regex": "b$"}), json!("ab")));
    assert!(!ok(json!({"$contains": "a", "$regex": "c$"}), json!("ab")));
    assert!(
        !ok(json!({"url": "x", "$contains": "x"}), json!("x")),
        "plain keys need an object"
    );
    // $encoded: prefix, then base64 whose text contains the value
    let b64 = "aHR0cDovL3NldmVuLnNsaWNjeS5haTo4MDgwL2RvYz9uPTE="; // http://seven.sliccy.ai:8080/doc?n=1
    assert!(ok(
        json!({"$encoded": {"value": "http://seven.sliccy.ai:8080/doc"}}),
        json!(b64)
    ));
    assert!(ok(
        json!({"$encoded": {"value": "/doc", "prefix": "data:;base64,"}}),
        json!(format!("data:;base64,{b64}"))
    ));
    assert!(!ok(
        json!({"$encoded": {"value": "/doc", "prefix": "data:;base64,"}}),
        json!(b64)
    ));
    assert!(!ok(json!({"$encoded": {"value": "vault"}}), json!(b64)));
    assert!(!ok(
        json!({"$encoded": {"value": "x"}}),
        json!("not base64!")
    ));
    assert!(!ok(json!({"$encoded": {"value": "x"}}), json!(5)));
    // invalid predicates are errors, never panics
    for bad in [
        json!([1]),
        json!({"a": [1]}),
        json!({"$regex": "("}),
        json!({"$some": {"$regex": "["}}),
        json!({"$nope": 1}),
        json!({"$contains": 1}),
        json!({"$encoded": "x"}),
        json!({"$encoded": {"value": 1}}),
        json!({"$encoded": {"value": "x", "other": 1}}),
    ] {
        assert!(matches(&bad, &json!("x")).is_err(), "{bad}");
    }
    // in a check, an invalid predicate is an error of the leg, not a panic
    let r = record(TAG_G);
    assert!(eval_on(
        json!({"result": "x", "equals": [1], "observer": "client"}),
        &r
    )
    .is_err());
    assert!(eval_on(
        json!({"event": "A.b", "where": {"$regex": "("}, "observer": "client"}),
        &r
    )
    .is_err());
}

fn row(id: &str, target: &str, variant: &str, status: Status, reason: Option<&str>) -> Row {
    Row::uniform(
        id,
        target,
        variant,
        "cdp",
        "guard",
        status,
        reason.map(str::to_string),
    )
}

#[test]
fn summary_lists_missing_rows_and_prints_the_line() {
    let mut set = guard::vectors();
    set.set_version = "1.2.3".into();
    set.vectors = vec![
        shipped("C1.script-nav"),
        shipped("C1.back-forward-cache"),
        shipped("C4.static-same-site"),
    ];
    let mut scoped = shipped("E1.onload");
    scoped.id = "E1.mine".into();
    scoped.scope = "my-guard".into();
    set.vectors.push(scoped);
    let transports = ["cdp".to_string()];
    let variants = ["prompt".to_string()];
    let input = |rows: &'static [Row]| SummaryInput {
        guard: "my-guard",
        sha: "abc123",
        set: &set,
        scope: None,
        variants: Some(&variants),
        transports: &transports,
        rows,
    };
    let mut rows = Vec::new();
    for t in ["seven", "vault", "vault-x", "apex", "own"] {
        rows.push(row("C1.script-nav", t, "prompt", Status::Pass, None));
    }
    for t in ["seven", "vault", "vault-x", "apex"] {
        rows.push(row(
            "C1.back-forward-cache",
            t,
            "prompt",
            Status::NotRun,
            None,
        ));
    }
    rows.push(row(
        "C4.static-same-site",
        "seven",
        "prompt",
        Status::Pass,
        None,
    ));
    rows.push(row(
        "C4.static-same-site",
        "vault",
        "prompt",
        Status::Skip,
        Some("not-applicable: x"),
    ));
    let rows: &'static [Row] = Box::leak(rows.into_boxed_slice());
    // own is missing for C4.static-same-site; E1.mine is out of scope
    let s = summarize(input(rows));
    assert_eq!(s.missing.len(), 1);
    assert_eq!(
        (s.missing[0].id.as_str(), s.missing[0].target.as_str()),
        ("C4.static-same-site", "own")
    );
    assert!(!s.pass);
    assert_eq!(
        s.line,
        "GUARD-FAIL my-guard@abc123 (vectors slicc-browsers@1.2.3) skips 1 (not-applicable: x=1)"
    );
    assert_eq!((s.not_run, s.skipped, s.failed, s.rows), (4, 1, 0, 11));
    // complete: pass, with the skips appended
    let mut all = rows.to_vec();
    all.push(row(
        "C4.static-same-site",
        "own",
        "prompt",
        Status::Skip,
        Some("not-supported:autoAttach"),
    ));
    let all: &'static [Row] = Box::leak(all.into_boxed_slice());
    let s = summarize(input(all));
    assert!(s.missing.is_empty(), "{:?}", s.missing);
    assert!(s.pass);
    assert_eq!(s.line, "GUARD-PASS my-guard@abc123 (vectors slicc-browsers@1.2.3) skips 2 (not-applicable: x=1, not-supported:autoAttach=1)");
    // the guard's scope brings its own vectors in
    let s = summarize(SummaryInput {
        scope: Some("my-guard"),
        ..input(all)
    });
    assert_eq!(s.missing.len(), 5);
    assert!(s.missing.iter().all(|m| m.id == "E1.mine"));
    // a failing row fails the line; no skips, no suffix
    let mut failing: Vec<Row> = all.iter().filter(|r| !r.skipped()).cloned().collect();
    failing.push(row(
        "C4.static-same-site",
        "vault",
        "prompt",
        Status::Pass,
        None,
    ));
    failing.push(row(
        "C4.static-same-site",
        "own",
        "prompt",
        Status::Pass,
        None,
    ));
    failing[0].guarded = Status::Fail;
    let failing: &'static [Row] = Box::leak(failing.into_boxed_slice());
    let s = summarize(input(failing));
    assert_eq!(
        s.line,
        "GUARD-FAIL my-guard@abc123 (vectors slicc-browsers@1.2.3)"
    );
    assert_eq!(s.failed, 1);
    // every variant of the set when none is named, plus those found in rows
    let s = summarize(SummaryInput {
        variants: None,
        ..input(all)
    });
    assert_eq!(
        s.variants,
        vec!["lagging".to_string(), "prompt".to_string()]
    );
    assert_eq!(s.missing.len(), 12);
    assert!(s.missing.iter().all(|m| m.variant == "lagging"));
    // no rows at all never passes
    let s = summarize(SummaryInput {
        rows: &[],
        ..input(all)
    });
    assert!(!s.pass);
}

#[test]
fn rows_serialize_as_documented() {
    let mut r = row("C1.script-nav", "vault", "lagging", Status::Pass, None);
    r.observations.insert(
        "guarded".into(),
        [
            ("beaconed".to_string(), Some(false)),
            ("detached".to_string(), None),
        ]
        .into_iter()
        .collect(),
    );
    let v = serde_json::to_value(&r).unwrap();
    assert_eq!(v["control"], "pass");
    assert!(v.get("reason").is_none());
    assert_eq!(v["observations"]["guarded"]["detached"], Value::Null);
    assert_eq!(v["transportVariant"], false);
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "id",
            "target",
            "variant",
            "transport",
            "via",
            "control",
            "guarded",
            "live",
            "observations",
            "errors",
            "transportVariant"
        ]
    );
    let s = row(
        "C3.x",
        "seven",
        "prompt",
        Status::Skip,
        Some("not-supported:autoAttach"),
    );
    let v = serde_json::to_value(&s).unwrap();
    assert_eq!(
        (v["guarded"].as_str(), v["reason"].as_str()),
        (Some("skip"), Some("not-supported:autoAttach"))
    );
    assert_eq!(serde_json::to_value(Status::NotRun).unwrap(), "not-run");
    let back: Row = serde_json::from_value(v).unwrap();
    assert_eq!(back, s);
}

#[test]
fn every_shipped_row_is_judged_without_panicking_on_empty_and_full_records() {
    let set = guard::vectors();
    let e = env();
    let mut judged = 0;
    for v in &set.vectors {
        for target in &v.targets {
            let spec = spec_for(v, target);
            let (cv, gv) = (vars(Leg::Control, target), vars(Leg::Guarded, target));
            let (c, g) = (record(TAG_C), record(TAG_G));
            let controls = [
                LegRun {
                    vars: &cv,
                    record: &c,
                },
                LegRun {
                    vars: &cv,
                    record: &c,
                },
            ];
            let n = if v.control.via == "unguarded" { 2 } else { 1 };
            let row = judge_row(
                &spec,
                &e,
                &controls[..n],
                &LegRun {
                    vars: &gv,
                    record: &g,
                },
            );
            if precheck(&spec, &e).is_some() {
                continue;
            }
            judged += 1;
            // with nothing recorded, no liveness can be proven and no control shows its effect
            assert_eq!(row.live, Status::Fail, "{} {target}", v.id);
            assert_eq!(
                row.control,
                Status::Fail,
                "{} {target}: {:?}",
                v.id,
                row.errors
            );
            assert!(!row.errors.is_empty());
        }
    }
    assert!(judged > 300, "{judged}");
}

/// On every shipped vector, the runner's refusal names and leg steps are the guard module's:
/// `refusal_names` gives `Vector::refusal_names` with the indexes of `Vector::all_steps`, and
/// each leg step (nested ones too) is the step of `all_steps` at its index, named by
/// `guard::refusal_name`.
#[test]
fn the_runner_numbers_and_names_steps_as_the_guard_module_does() {
    let set = guard::vectors();
    let mut checked = 0;
    for v in set.vectors.iter().filter(|v| v.is_runnable()) {
        let all = v.all_steps();
        let named = refusal_names(v);
        assert_eq!(
            named.iter().map(|(_, n)| n.clone()).collect::<Vec<_>>(),
            v.refusal_names(),
            "{}",
            v.id
        );
        for (i, name) in &named {
            assert!(all[*i].is_refusable(), "{}: step {i}", v.id);
            assert_eq!(name, &guard::refusal_name(all[*i].name(), *i), "{}", v.id);
        }
        for leg in [Leg::Control, Leg::Guarded] {
            let vars = Vars::for_leg(&origins(), leg, "seven", "t0", "c0");
            let steps = leg_steps(v, leg, &vars).unwrap_or_else(|e| panic!("{}: {e}", v.id));
            let mut last = None;
            for (i, name) in flat(&steps) {
                assert!(last < Some(i), "{}: indexes in flat order", v.id);
                last = Some(i);
                let step = all[i];
                assert!(step.runs_on(leg.as_str()), "{}: step {i}", v.id);
                let want = step
                    .is_refusable()
                    .then(|| guard::refusal_name(step.name(), i));
                assert_eq!(name, want, "{}: step {i}", v.id);
                checked += 1;
            }
        }
    }
    assert!(checked > 100, "{checked} leg steps checked");
}

/// Issue 21, reading 13: on a Chromium that lacks a method a row calls (Chromium 148 and
/// `Network.overrideNetworkState`), the control fails only because the browser answered
/// "method not found": the row is a skip `not-supported:<method>`, never a pass and never a
/// guard failure. A control that failed without such an answer still fails.
#[test]
fn a_control_failing_on_a_method_the_browser_lacks_is_a_not_supported_skip() {
    let v = shipped("E6.network-state");
    let spec = RowSpec {
        vector: &v,
        target: "seven",
        variant: "prompt",
        transport: "cdp",
        transport_variant: false,
    };
    let (cv, gv) = (vars(Leg::Control, "seven"), vars(Leg::Guarded, "seven"));
    // Both legs reached their destination; the override never applied (no 2g anywhere).
    let mut c = record(TAG_C);
    hit(&mut c, &dest(O, TAG_C));
    let mut g = record(TAG_G);
    hit(&mut g, &dest(SEVEN, TAG_G));
    let judge = |c: &Record, g: &Record| {
        judge_row(
            &spec,
            &env(),
            &[LegRun {
                vars: &cv,
                record: c,
            }],
            &LegRun {
                vars: &gv,
                record: g,
            },
        )
    };
    let row = judge(&c, &g);
    assert_eq!(row.control, Status::Fail, "{:?}", row.errors);
    assert_eq!(row.reason, None);

    c.unsupported.insert("Network.overrideNetworkState".into());
    let row = judge(&c, &g);
    assert_eq!(row.statuses(), [Status::Skip; 3], "{:?}", row.errors);
    assert_eq!(
        row.reason.as_deref(),
        Some("not-supported:Network.overrideNetworkState")
    );
    // The summary counts it as a skip with that reason, not as coverage.
    let set = guard::vectors();
    let summary = summarize(SummaryInput {
        guard: "g",
        sha: "s",
        set: &set,
        scope: None,
        variants: None,
        transports: &["cdp".to_string()],
        rows: &[row],
    });
    assert!(
        summary
            .line
            .contains("not-supported:Network.overrideNetworkState=1"),
        "{}",
        summary.line
    );
}
