//! The no-guard self-test on a representative subset, in headless Chromium: one vector of each
//! family and sub-family (C1-C6, E1-E6, B), on `seven`, variant `prompt`, under `--strict`:
//! every control and every liveness check must pass, and every guarded expectation must come
//! out the other way.
//! Skipped (with the reason printed) without /usr/bin/chromium, unless `CI` is set.
#![cfg(all(feature = "cli", unix))]

mod needs;
mod subset;

use slicc_browsers::harness::runner::summary::Status;
use slicc_browsers::harness::selftest::{
    self, SelfTestOptions, SelfTestVerdict as Verdict, CHROMIUM,
};
use subset::SUBSET;

#[test]
fn the_subset_behaves_in_headless_chromium() {
    if needs::missing(CHROMIUM, needs::chromium()) {
        return;
    }
    let set = slicc_browsers::guard::vectors();
    for id in SUBSET {
        assert!(set.vector(id).is_some(), "{id} is not a vector any more");
    }
    let options = SelfTestOptions {
        targets: vec!["seven".into()],
        variants: vec!["prompt".into()],
        ids: SUBSET.iter().map(|s| s.to_string()).collect(),
        parallel: 2,
        // Our own file is held to the stricter rule: liveness too, and every guarded
        // expectation the other way (or holding where the control expects the same).
        strict: true,
        ..SelfTestOptions::default()
    };
    let report = selftest::selftest(&set, &options, &|_| {}).expect("the self-test runs");
    println!("{} in {:.1}s", report.line(), report.elapsed.as_secs_f64());
    assert_eq!(report.rows.len(), SUBSET.len(), "one row per vector");
    let mut problems = Vec::new();
    for row in &report.rows {
        let r = &row.result.row;
        match &row.verdict {
            Verdict::Behaved => {
                assert_eq!(
                    r.control,
                    Status::Pass,
                    "{}: behaved with a failed control",
                    r.id
                );
                assert_eq!(r.live, Status::Pass, "{}: behaved without liveness", r.id);
            }
            Verdict::Skipped(reason) => problems.push(format!("{} skipped: {reason}", r.id)),
            Verdict::Misbehaved(why) => problems.push(format!("{}: {}", r.id, why.join("; "))),
        }
    }
    assert!(
        problems.is_empty(),
        "rows that did not behave:\n{}",
        problems.join("\n")
    );
    assert_eq!(report.behaved(), SUBSET.len());
}
