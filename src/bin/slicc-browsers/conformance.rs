//! `slicc-browsers conformance <kind> [FILE]`: run a conformance file through this crate's
//! implementation and end with `N passed, M failed`. Kinds: `corpus`, `protected`.

use std::process::ExitCode;

use slicc_browsers::catalog::Os;
use slicc_browsers::conformance;
use slicc_browsers::corpus::{corpus, Corpus};
use slicc_browsers::protected::{Matcher, Vectors};

use crate::args::Args;
use crate::output::{out, outln};

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
        // `--os linux --os linux` runs linux once.
        let mut once = Vec::new();
        for os in oses {
            if !once.contains(&os) {
                once.push(os);
            }
        }
        once
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
        out!("{failure}")?;
    }
    outln!("{}", report.summary())?;
    Ok(if report.failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
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
    let report = conformance::run_protected(&matcher, &vectors);
    for failure in report.failures() {
        outln!("FAIL {failure}")?;
    }
    outln!("{}", report.summary())?;
    Ok(if report.failures().next().is_none() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
