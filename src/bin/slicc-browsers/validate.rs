//! `slicc-browsers validate [--strict] [DIR]`.

use std::path::PathBuf;
use std::process::ExitCode;

use slicc_browsers::validate::validate_dir_strict;

use crate::args::Args;
use crate::output::outln;

/// Validates DIR (the crate's own files by default), printing each error, and with `--strict`
/// each warning too. Only errors (rules the spec states) fail the command (exit 1); without
/// `--strict` the warnings (rules of this crate's own) are only counted, on the last line. A
/// DIR that does not exist or is not a directory is an error of its own (exit 2).
pub fn run(mut args: Args) -> Result<ExitCode, String> {
    let strict = args.flag("--strict");
    let dir = args
        .next_positional()
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    args.finish()?;
    // A DIR that is not there is input the command could not read (exit 2), not a problem
    // found in the files (exit 1).
    match std::fs::metadata(&dir) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => return Err(format!("{}: not a directory", dir.display())),
        Err(e) => return Err(format!("{}: {e}", dir.display())),
    }
    let problems = validate_dir_strict(&dir);
    let (errors, warnings): (Vec<_>, Vec<_>) = problems.iter().partition(|p| p.is_error());
    for p in &errors {
        outln!("{p}")?;
    }
    if strict {
        for p in &warnings {
            outln!("{p}")?;
        }
    }
    let warned = match (warnings.len(), strict) {
        (0, _) => String::new(),
        (n, true) => format!(", {n} warning(s)"),
        (n, false) => format!(", {n} warning(s) (validate --strict lists them)"),
    };
    if errors.is_empty() {
        outln!("{}: no problems{warned}", dir.display())?;
        Ok(ExitCode::SUCCESS)
    } else {
        outln!("{} problem(s){warned}", errors.len())?;
        Ok(ExitCode::FAILURE)
    }
}
