//! `slicc-browsers validate [DIR]`.

use std::path::PathBuf;
use std::process::ExitCode;

use slicc_browsers::validate::validate_dir;

use crate::args::Args;

/// Validates DIR (the crate's own files by default), printing each problem.
pub fn run(mut args: Args) -> Result<ExitCode, String> {
    let dir = args
        .next_positional()
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    args.finish()?;
    let problems = validate_dir(&dir);
    for p in &problems {
        println!("{p}");
    }
    if problems.is_empty() {
        println!("{}: no problems", dir.display());
        Ok(ExitCode::SUCCESS)
    } else {
        println!("{} problem(s)", problems.len());
        Ok(ExitCode::FAILURE)
    }
}
