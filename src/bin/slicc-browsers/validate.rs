//! `slicc-browsers validate [--strict] [DIR]`.

use std::path::PathBuf;
use std::process::ExitCode;

use slicc_browsers::validate::{validate_dir_strict, Problem};

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
    print_folded(&errors)?;
    if strict {
        print_folded(&warnings)?;
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

/// Prints each problem, a problem that repeats another's rule and message (at other places) folded
/// into one line under the first: `  and 57 more like it (the last at FILE: PATH)`.
fn print_folded(problems: &[&Problem]) -> Result<(), String> {
    // The message without the place `validate` appends to it.
    let base = |p: &Problem| -> String {
        match p.message.rfind(" (line ") {
            Some(i) if p.message.ends_with(')') => p.message[..i].to_string(),
            _ => p.message.clone(),
        }
    };
    let mut shown: Vec<(String, String, &Problem, usize, &Problem)> = Vec::new();
    for p in problems {
        let key = (p.rule.clone(), base(p));
        match shown.iter_mut().find(|s| s.0 == key.0 && s.1 == key.1) {
            Some(entry) => {
                entry.3 += 1;
                entry.4 = p;
            }
            None => shown.push((key.0, key.1, p, 0, p)),
        }
    }
    for (_, _, first, more, last) in shown {
        outln!("{first}")?;
        if more > 0 {
            outln!(
                "  and {more} more like it (the last at {}: {})",
                last.file,
                if last.path.is_empty() {
                    "/"
                } else {
                    &last.path
                }
            )?;
        }
    }
    Ok(())
}
