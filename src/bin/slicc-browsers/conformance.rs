//! `slicc-browsers conformance <kind> [FILE]`: run a conformance file through this crate's
//! implementation and end with `N passed, M failed`.

use std::process::ExitCode;

use slicc_browsers::catalog::Os;
use slicc_browsers::corpus::{corpus, Corpus};
use slicc_browsers::discovery::conformance;

use crate::args::Args;

/// Dispatches on the kind of file: `corpus`.
pub fn run(mut args: Args) -> Result<ExitCode, String> {
    let kind = args
        .next_positional()
        .ok_or("conformance needs a kind: corpus [FILE] [--os darwin|linux|windows]")?;
    match kind.as_str() {
        "corpus" => run_corpus(args),
        other => Err(format!(
            "unknown conformance kind {other:?} (expected corpus)"
        )),
    }
}

/// Every case of FILE (the shipped corpus by default) on each OS it is for (or only the
/// `--os` ones), through the discovery engine on a fake host.
fn run_corpus(mut args: Args) -> Result<ExitCode, String> {
    let oses = args
        .values("--os")?
        .iter()
        .map(|o| o.parse::<Os>().map_err(|e| e.to_string()))
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
