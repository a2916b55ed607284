//! The self-test's rule (issue 21): by default the spec's ("controls must pass and guarded
//! expectations must fail"), with `--strict` the stronger reading CI holds our own file to,
//! refined so that an observation the control expects equally must simply hold. No browser:
//! judged rows are built by hand.
#![cfg(all(feature = "guard-runner", not(target_os = "wasi")))]

use std::collections::BTreeMap;
use std::time::Duration;

use slicc_browsers::harness::runner::drive::RowResult;
use slicc_browsers::harness::runner::summary::{Observed, Row, Status};
use slicc_browsers::harness::selftest::{verdict, verdict_strict, SelfTestVerdict};
use slicc_browsers::vectors::{Vector, Vectors};

/// A vector whose control expects `paused` and `body` true, and whose guarded leg expects
/// `paused` false and `body` true (page data a guard lets through: equal on both legs).
fn vector() -> Vector {
    let text = r#"{
      "schemaVersion": 1, "setVersion": "0.0.0", "sources": [],
      "targets": {"seven": {"description": "s"}, "vault": {"description": "v"},
        "vault-x": {"description": "x"}, "apex": {"description": "a"}, "own": {"description": "o"},
        "ordinary": {"description": "o"}, "ordinary-same-site": {"description": "o"}},
      "variants": {"prompt": 0, "lagging": 8000},
      "capabilities": {"autoAttach": "a", "browserSession": "b", "browserContexts": "c"},
      "placeholders": {"target": "t", "ordinary": "o", "tag": "t"},
      "vectors": [{
        "id": "C5.rule", "family": "C", "kind": "cdp", "scope": "any",
        "setup": [{"page": "tab", "url": "{ordinary}/doc?n={tag}"}],
        "trigger": [{"page": "fetch", "url": "{target}/data?n={tag}", "as": "got"}],
        "targets": ["seven"],
        "observe": {
          "paused": {"means": "m", "check": {"event": "Fetch.requestPaused", "observer": "client"}},
          "body": {"means": "m", "check": {"result": "got", "equals": "real", "observer": "client"}}
        },
        "live": "l", "liveCheck": {"loaded": "{target}/data?n={tag}", "observer": "fixture"},
        "control": {"origin": "ordinary", "via": "guard", "expected": {"paused": true, "body": true}},
        "expected": {"paused": false, "body": true}
      }]
    }"#;
    Vectors::parse(text).unwrap().vectors.remove(0)
}

fn observed(pairs: &[(&str, Option<bool>)]) -> Observed {
    pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

/// A judged row: the three statuses and the guarded leg's observations.
fn row(control: Status, guarded: Status, live: Status, seen: &[(&str, Option<bool>)]) -> RowResult {
    let mut row = Row::uniform(
        "C5.rule",
        "seven",
        "prompt",
        "chromium",
        "guard",
        Status::Pass,
        None,
    );
    row.control = control;
    row.guarded = guarded;
    row.live = live;
    let mut observations = BTreeMap::new();
    observations.insert(
        "control".to_string(),
        observed(&[("paused", Some(true)), ("body", Some(true))]),
    );
    observations.insert("guarded".to_string(), observed(seen));
    row.observations = observations;
    if guarded == Status::Fail {
        row.errors
            .push("guarded: paused is true, expected false".to_string());
    }
    RowResult {
        row,
        records: Vec::new(),
        vars: Vec::new(),
        elapsed: Duration::from_millis(1),
        slot: 0,
    }
}

fn behaved(v: SelfTestVerdict) -> bool {
    v == SelfTestVerdict::Behaved
}

#[test]
fn the_spec_rule_does_not_judge_liveness() {
    // A liveness check only a guard's refusal can satisfy never holds unguarded.
    let r = row(
        Status::Pass,
        Status::Fail,
        Status::Fail,
        &[("paused", Some(true)), ("body", Some(true))],
    );
    assert!(
        behaved(verdict(&vector(), &r)),
        "{:?}",
        verdict(&vector(), &r)
    );
    assert!(
        !behaved(verdict_strict(&vector(), &r)),
        "--strict judges liveness"
    );
}

#[test]
fn an_observation_expected_equal_on_both_legs_must_hold_not_flip() {
    // The attack worked (paused) and the page read its data either way (body): behaved under
    // both rules. The rule before issue 21 wanted body false here.
    let r = row(
        Status::Pass,
        Status::Fail,
        Status::Pass,
        &[("paused", Some(true)), ("body", Some(true))],
    );
    assert!(behaved(verdict(&vector(), &r)));
    assert!(
        behaved(verdict_strict(&vector(), &r)),
        "{:?}",
        verdict_strict(&vector(), &r)
    );
    // body expected true on both legs but observed false: --strict says why, the spec's rule
    // still has its failed guarded expectation (paused).
    let r = row(
        Status::Pass,
        Status::Fail,
        Status::Pass,
        &[("paused", Some(true)), ("body", Some(false))],
    );
    assert!(behaved(verdict(&vector(), &r)));
    match verdict_strict(&vector(), &r) {
        SelfTestVerdict::Misbehaved(why) => {
            assert!(
                why.iter()
                    .any(|w| w.contains("guarded.body") && w.contains("both legs")),
                "{why:?}"
            )
        }
        other => panic!("{other:?}"),
    }
    // Under --strict the other names must still come out the other way.
    let r = row(
        Status::Pass,
        Status::Fail,
        Status::Pass,
        &[("paused", None), ("body", Some(true))],
    );
    assert!(!behaved(verdict_strict(&vector(), &r)));
}

#[test]
fn a_failed_control_or_a_guarded_leg_that_proves_no_attack_misbehaves() {
    let worked = [("paused", Some(true)), ("body", Some(true))];
    let r = row(Status::Fail, Status::Fail, Status::Pass, &worked);
    assert!(!behaved(verdict(&vector(), &r)));
    assert!(!behaved(verdict_strict(&vector(), &r)));
    // The guarded leg passed: the attack did not work with no guard.
    let r = row(
        Status::Pass,
        Status::Pass,
        Status::Pass,
        &[("paused", Some(false)), ("body", Some(true))],
    );
    assert!(!behaved(verdict(&vector(), &r)));
    assert!(!behaved(verdict_strict(&vector(), &r)));
    // The guarded leg failed through an error only, with no expectation the other way.
    let mut r = row(
        Status::Pass,
        Status::Fail,
        Status::Pass,
        &[("paused", None), ("body", Some(true))],
    );
    r.row.errors = vec!["guarded: settle: no beacon from http://x within 5000ms".into()];
    match verdict(&vector(), &r) {
        SelfTestVerdict::Misbehaved(why) => {
            assert!(why.iter().any(|w| w.contains("settle")), "{why:?}")
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_skipped_row_is_skipped_under_both_rules() {
    let mut r = row(Status::Skip, Status::Skip, Status::Skip, &[]);
    r.row.reason = Some("not-supported:Network.overrideNetworkState".into());
    for v in [verdict(&vector(), &r), verdict_strict(&vector(), &r)] {
        assert_eq!(
            v,
            SelfTestVerdict::Skipped("not-supported:Network.overrideNetworkState".into())
        );
    }
}

#[test]
fn the_selftest_line_says_per_reason_how_many_rows_skipped() {
    let mut skipped = row(Status::Skip, Status::Skip, Status::Skip, &[]);
    skipped.row.reason = Some("not-applicable:no-ordinary-same-site-origin".into());
    let worked = row(
        Status::Pass,
        Status::Fail,
        Status::Pass,
        &[("paused", Some(true)), ("body", Some(true))],
    );
    let report = slicc_browsers::harness::selftest::SelfTestReport {
        rows: [worked, skipped.clone(), skipped]
            .into_iter()
            .map(|result| slicc_browsers::harness::selftest::SelfTestRow {
                verdict: verdict(&vector(), &result),
                result,
            })
            .collect(),
        elapsed: Duration::from_secs(1),
    };
    assert_eq!(
        report.line(),
        "selftest: 3 rows, 1 behaved, 0 misbehaved, 2 skipped \
         (not-applicable:no-ordinary-same-site-origin=2)"
    );
}

/// Issue 21, reading 9: `selftest` and `certify` take `guard run`'s origin map; every host in it
/// is mapped to the stand-in, an origin the plain-HTTP stand-in cannot serve is refused, and
/// `plain` left out defaults to `ordinary` as the spec says.
#[test]
fn an_origin_map_adds_its_hosts_and_plain_defaults_to_ordinary() {
    use slicc_browsers::harness::runner::expand::Origins;
    use slicc_browsers::harness::selftest::{hosts, SelfTestOptions, HOSTS};
    let without = hosts(&SelfTestOptions::default()).unwrap();
    assert_eq!(without, HOSTS.map(String::from).to_vec());

    let map = Origins::from_json(
        r#"{"ordinary": "http://start.other-team.test", "own": "http://client.example",
            "client": "http://client.example", "seven": "http://seven.sliccy.ai"}"#,
    )
    .unwrap();
    assert_eq!(map.get("plain"), Some("http://start.other-team.test"));
    let options = SelfTestOptions {
        origins: Some(map),
        ..SelfTestOptions::default()
    };
    let with = hosts(&options).unwrap();
    assert!(
        with.iter().any(|h| h == "start.other-team.test"),
        "{with:?}"
    );
    assert_eq!(
        with.iter().filter(|h| *h == "client.example").count(),
        1,
        "{with:?}"
    );

    let https = Origins::from_json(r#"{"ordinary": "https://ordinary.test"}"#).unwrap();
    let err = hosts(&SelfTestOptions {
        origins: Some(https),
        ..SelfTestOptions::default()
    })
    .unwrap_err()
    .to_string();
    assert!(err.contains("plain HTTP only"), "{err}");
}
