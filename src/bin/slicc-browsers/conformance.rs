//! `slicc-browsers conformance <kind> [FILE]`: run a conformance file through this crate's
//! implementation and end with `N passed, M failed`. Kinds: `corpus`, `protected`.

use std::process::ExitCode;

use slicc_browsers::catalog::Os;
use slicc_browsers::conformance;
use slicc_browsers::corpus::{corpus, Corpus};
use slicc_browsers::protected::{Matcher, Opener, Vectors};

use crate::args::Args;

/// Dispatches on the kind of file: `corpus` or `protected`.
pub fn run(mut args: Args) -> Result<ExitCode, String> {
    let Some(kind) = args.next_positional() else {
        return args.error("conformance needs a kind: corpus or protected");
    };
    match kind.as_str() {
        "corpus" => run_corpus(args),
        "protected" => run_protected(args),
        other => args.error(format!(
            "unknown conformance kind {other:?} (expected corpus or protected)"
        )),
    }
}

/// Every case of FILE (the shipped corpus by default) on each OS it is for (or only the
/// `--os` ones), through the discovery engine on a fake host.
fn run_corpus(mut args: Args) -> Result<ExitCode, String> {
    let oses = args
        .values("--os")?
        .iter()
        .map(|o| o.parse::<Os>().or_else(|e| args.error(e.to_string())))
        .collect::<Result<Vec<Os>, String>>()?;
    let oses = if oses.is_empty() {
        Os::ALL.to_vec()
    } else {
        oses
    };
    let file = args.next_positional();
    args.finish()?;
    let corpus = match &file {
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
            Corpus::parse(&text).map_err(|e| format!("{path}: {e}"))?
        }
        None => corpus(),
    };
    let report = conformance::run(slicc_browsers::shared_catalog(), &corpus, &oses);
    for failure in &report.failures {
        print!("{failure}");
    }
    println!("{}", report.summary());
    Ok(if report.failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// Tallies passes and prints each failure.
#[derive(Default)]
struct Tally {
    passed: usize,
    failed: usize,
}

impl Tally {
    fn check(&mut self, what: &str, input: &str, expected: bool, got: bool) {
        if expected == got {
            self.passed += 1;
        } else {
            self.failed += 1;
            let word = |b: bool| if b { "protected" } else { "allowed" };
            println!(
                "FAIL {what} {input:?}: expected {}, got {}",
                word(expected),
                word(got)
            );
        }
    }

    fn finish(self) -> ExitCode {
        println!("{} passed, {} failed", self.passed, self.failed);
        if self.failed == 0 {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        }
    }
}

/// `conformance protected [FILE]`: every vector of FILE (the shipped `protected.json` by
/// default) through the matcher, with the file's `origins` as the extra origins.
fn run_protected(mut args: Args) -> Result<ExitCode, String> {
    let file = args.next_positional();
    args.finish()?;
    let (name, text) = match &file {
        Some(path) => (
            path.clone(),
            std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?,
        ),
        None => (
            "protected.json".to_string(),
            slicc_browsers::PROTECTED.to_string(),
        ),
    };
    let vectors = Vectors::parse(&text).map_err(|e| format!("{name}: {e}"))?;
    let matcher = Matcher::new(
        &slicc_browsers::shared_catalog().protected_origins,
        &vectors.origins,
    )
    .map_err(|e| format!("{name}: {e}"))?;
    let mut tally = Tally::default();
    for v in &vectors.urls {
        tally.check("url", &v.url, v.protected, matcher.url(&v.url));
    }
    for v in &vectors.targets {
        let Some(opener) = Opener::from_name(v.opener.as_deref()) else {
            tally.failed += 1;
            println!("FAIL target {:?}: unknown opener {:?}", v.url, v.opener);
            continue;
        };
        let what = format!(
            "target (previous {}, opener {})",
            v.previous,
            opener.name().unwrap_or("none")
        );
        tally.check(
            &what,
            &v.url,
            v.protected,
            matcher.target(&v.url, v.previous, opener),
        );
    }
    for v in &vectors.cookie_domains {
        tally.check(
            "cookie domain",
            &v.domain,
            v.protected,
            matcher.cookie_domain(&v.domain),
        );
    }
    for v in &vectors.storage_keys {
        tally.check(
            "storage key",
            &v.key,
            v.protected,
            matcher.storage_key(&v.key),
        );
    }
    Ok(tally.finish())
}
