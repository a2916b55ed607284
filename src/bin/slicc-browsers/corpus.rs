//! `slicc-browsers corpus build [DIR] [--check]`: regenerates `corpus.json` from `corpus/`;
//! `slicc-browsers corpus dump [FILE]`: prints what the corpus helpers answer for every case.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::args::Args;
use crate::output::outln;

/// Runs a `corpus` subcommand.
pub fn run(mut args: Args) -> Result<ExitCode, String> {
    match args.next_positional().as_deref() {
        Some("build") => build(args),
        Some("dump") => dump(args),
        Some(other) => args.error(format!(
            "unknown corpus command {other:?} (expected build or dump)"
        )),
        None => args.error("corpus needs a command: build or dump"),
    }
}

/// Writes DIR/corpus.json (the crate's own by default); with `--check`, only reports
/// whether it is up to date.
fn build(mut args: Args) -> Result<ExitCode, String> {
    let check = args.flag("--check");
    let dir = args
        .next_positional()
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    args.finish()?;
    let text = slicc_browsers::corpus::build(&dir).map_err(|e| e.to_string())?;
    let path = dir.join("corpus.json");
    let current = std::fs::read_to_string(&path).unwrap_or_default();
    if check {
        if current == text {
            outln!("{}: up to date", path.display())?;
            return Ok(ExitCode::SUCCESS);
        }
        outln!(
            "{}: stale; run `slicc-browsers corpus build`",
            path.display()
        )?;
        return Ok(ExitCode::FAILURE);
    }
    if current != text {
        std::fs::write(&path, &text)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    // Counted on the JSON, not the typed `Corpus`: a file the spec accepts may hold what the
    // typed reader refuses (a `pid` above `u32::MAX`: the schema sets no upper bound).
    let cases = serde_json::from_str::<serde_json::Value>(&text).map_err(|e| e.to_string())?
        ["cases"]
        .as_array()
        .map_or(0, Vec::len);
    outln!("{}: {cases} cases", path.display())?;
    Ok(ExitCode::SUCCESS)
}

/// Prints, as JSON, what the corpus helpers answer for every case of FILE (the shipped
/// corpus.json by default) on darwin, linux and windows: what the Go module's cross-language
/// test compares its own helpers with (`slicc_browsers::corpus::dump`).
fn dump(mut args: Args) -> Result<ExitCode, String> {
    let file = args.next_positional();
    args.finish()?;
    let corpus = match file {
        Some(path) => {
            let text =
                std::fs::read_to_string(&path).map_err(|e| format!("cannot read {path}: {e}"))?;
            slicc_browsers::corpus::Corpus::parse(&text).map_err(|e| format!("{path}: {e}"))?
        }
        None => slicc_browsers::corpus::corpus(),
    };
    let dump = slicc_browsers::corpus::dump(&corpus, slicc_browsers::shared_catalog());
    let text = serde_json::to_string_pretty(&dump).map_err(|e| e.to_string())?;
    outln!("{text}")?;
    Ok(ExitCode::SUCCESS)
}
