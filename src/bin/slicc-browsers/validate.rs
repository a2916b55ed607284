//! `slicc-browsers validate [--strict] [DIR]`.

use std::path::PathBuf;
use std::process::ExitCode;

use slicc_browsers::validate::validate_dir_strict;

use crate::args::Args;

/// Validates DIR (the crate's own files by default), printing each error, and with `--strict`
/// each warning too. Only errors (rules the spec states) fail the command; without `--strict`
/// the warnings (rules of this crate's own) are only counted, on the last line.
pub fn run(mut args: Args) -> Result<ExitCode, String> {
    let strict = args.flag("--strict");
    let dir = args
        .next_positional()
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    args.finish()?;
    let problems = validate_dir_strict(&dir);
    let (errors, warnings): (Vec<_>, Vec<_>) = problems.iter().partition(|p| p.is_error());
    for p in &errors {
        println!("{p}");
    }
    if strict {
        for p in &warnings {
            println!("{p}");
        }
    }
    let warned = match (warnings.len(), strict) {
        (0, _) => String::new(),
        (n, true) => format!(", {n} warning(s)"),
        (n, false) => format!(", {n} warning(s) (validate --strict lists them)"),
    };
    if errors.is_empty() {
        println!("{}: no problems{warned}", dir.display());
        Ok(ExitCode::SUCCESS)
    } else {
        println!("{} problem(s){warned}", errors.len());
        Ok(ExitCode::FAILURE)
    }
}
