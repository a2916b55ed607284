//! The guard runner's judging half, without a browser: placeholders and legs, predicates, every
//! check kind on hand-built records, liveness proofs, skips, rows and the summary.
#![cfg(feature = "guard-runner")]

use serde_json::{json, Value};
use slicc_browsers::guard::runner::expand::{
    chain_urls, leg_reads, leg_steps, refusal_names, Leg, LegStep, Origins, Phase, Vars,
};
use slicc_browsers::guard::{self, Step, Vector};

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
            slicc_browsers::guard::runner::expand::encode_uri_component(&urls[1])
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
                for check in slicc_browsers::guard::runner::expand::leg_checks(v, leg) {
                    vars.expand_check(check)
                        .unwrap_or_else(|e| panic!("{} {target}: {e}", v.id));
                }
            }
        }
    }
    assert!(steps > 1000, "{steps} steps");
    assert!(reads > 100, "{reads} reads");
}
