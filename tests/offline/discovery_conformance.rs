//! The shipped corpus through the discovery engine: every case on every OS it is for, with
//! every source on (as slicc-cli runs it) and with only the sources the case needs (as a
//! program that supports exactly those would run it).
#![cfg(all(feature = "corpus", feature = "discovery"))]

use slicc_browsers::catalog::Os;
use slicc_browsers::conformance::{run, run_case};
use slicc_browsers::corpus::corpus;
use slicc_browsers::discovery::Sources;

#[test]
fn every_case_passes_on_every_os() {
    let cat = slicc_browsers::catalog();
    let corpus = corpus();
    for &os in Os::ALL {
        let report = run(&cat, &corpus, &[os]);
        for f in &report.failures {
            eprint!("{f}");
        }
        assert!(report.failures.is_empty(), "{os}: {}", report.summary());
        assert!(report.passed > 0, "{os}: no case ran");
    }
}

#[test]
fn every_case_passes_with_only_the_sources_it_needs() {
    let cat = slicc_browsers::catalog();
    let mut ran = 0;
    for case in corpus().cases {
        for &os in Os::ALL {
            let sources = Sources::from_needs(&case.input.needs);
            match run_case(&cat, &case, os, sources) {
                None => {}
                Some(Ok(())) => ran += 1,
                Some(Err(d)) => panic!(
                    "{} ({os}) with only {:?}:\n{}",
                    case.name,
                    case.input.needs,
                    d.join("\n")
                ),
            }
        }
    }
    assert!(ran > 0);
}

#[test]
fn a_wrong_expectation_is_reported_with_its_place() {
    let cat = slicc_browsers::catalog();
    let mut corpus = corpus();
    let case = corpus
        .cases
        .iter_mut()
        .find(|c| c.name == "flag-bare-port")
        .expect("the case is shipped");
    case.expected["entries"][0]["endpoint"]["name"] = "Not Chrome".into();
    let report = run(&cat, &corpus, &[Os::Linux]);
    assert_eq!(report.failures.len(), 1, "{}", report.summary());
    let failure = &report.failures[0];
    assert_eq!(failure.case, "flag-bare-port");
    assert_eq!(
        failure.differences,
        vec!["/entries/0/endpoint/name: expected \"Not Chrome\", got \"Chrome\""]
    );
    assert!(report.summary().ends_with("1 failed"));
}
