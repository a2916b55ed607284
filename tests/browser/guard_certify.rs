//! `guard certify` on a representative subset, in headless Chromium: the crate's proxy in front
//! of the browser must pass every row (control kept working, attack stopped, liveness proven),
//! on a catalog target and on the client's own origin (an extra origin), with the `prompt` and
//! the `lagging` variant. Skipped (with the reason printed) without /usr/bin/chromium, unless
//! `CI` is set.
#![cfg(all(feature = "cli-full", unix))]

use crate::needs;
use crate::recorded;
use crate::subset;

use slicc_browsers::harness::certify::GUARD_NAME;
use slicc_browsers::harness::runner::summary::Status;
use slicc_browsers::harness::selftest::{SelfTestOptions, CHROMIUM};
use subset::SUBSET;

/// Runs `ids` on `target` with `variant` through the proxy; returns the rows that did not pass.
fn certify_rows(ids: &[&str], target: &str, variant: &str) -> Vec<String> {
    let set = slicc_browsers::guard::vectors();
    for id in ids {
        assert!(set.vector(id).is_some(), "{id} is not a vector any more");
    }
    let options = SelfTestOptions {
        targets: vec![target.into()],
        variants: vec![variant.into()],
        ids: ids.iter().map(|s| s.to_string()).collect(),
        parallel: 2,
        ..SelfTestOptions::default()
    };
    // The subset's certification on seven/prompt is guard_js_agreement's too: run once per
    // test run (tests/browser/recorded.rs).
    let report = recorded::certify("ours", &set, &options);
    println!(
        "{target} {variant}: {} rows in {:.1}s; {}",
        report.rows.len(),
        report.elapsed.as_secs_f64(),
        report.summary.line
    );
    assert_eq!(report.rows.len(), ids.len(), "one row per vector");
    // A partial run misses the other rows, so its line is a GUARD-FAIL naming the proxy.
    assert!(report.summary.line.starts_with("GUARD-FAIL "));
    assert!(report.summary.line.contains(&format!("{GUARD_NAME}@")));
    assert!(!report.summary.missing.is_empty());
    report
        .rows
        .iter()
        .map(|r| &r.row)
        .filter(|r| r.statuses() != [Status::Pass; 3])
        .map(|r| {
            format!(
                "{} {target} {variant}: control {}, guarded {}, live {}{}; {}",
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

#[test]
fn the_proxy_passes_the_subset_in_headless_chromium() {
    if needs::missing(CHROMIUM, needs::chromium()) {
        return;
    }
    let mut problems = certify_rows(&SUBSET, "seven", "prompt");
    // The client's own origin is protected as an extra origin, not by the catalog.
    problems.extend(certify_rows(
        &[
            "C1.script-nav",
            "C3.auto-attach-wait",
            "C4.static-same-site",
            "E2.binding",
        ],
        "own",
        "lagging",
    ));
    assert!(
        problems.is_empty(),
        "rows the proxy did not pass:\n{}",
        problems.join("\n")
    );
}
