//! `slicc-browsers check [--origin <origin>]... <url>...` and `check --json-lines`.

use std::io::{BufRead, Write};
use std::process::ExitCode;

use slicc_browsers::protected::Matcher;

use crate::args::Args;
use crate::output::outln;

/// Says whether each URL is protected, and why. Exits 0 when every URL is allowed, 1 when any
/// is protected. With `--json-lines`, reads JSON strings from standard input and writes
/// `{"url":…,"protected":…}` per line, in order, and exits 0 whatever the answers (they are
/// in the output; 2 when the input is not JSON strings).
pub fn run(mut args: Args) -> Result<ExitCode, String> {
    let origins = args.values("--origin")?;
    let json_lines = args.flag("--json-lines");
    let urls = args.positionals();
    args.finish()?;
    let matcher = Matcher::new(
        &slicc_browsers::shared_catalog().protected_origins,
        &origins,
    )
    .map_err(|e| e.to_string())?;
    if json_lines {
        if !urls.is_empty() {
            return crate::args::usage(
                "--json-lines reads URLs from standard input, not the command line".into(),
            );
        }
        return json_lines_run(&matcher);
    }
    if urls.is_empty() {
        return crate::args::usage("check needs at least one URL (or --json-lines)".into());
    }
    let mut any = false;
    for url in &urls {
        match matcher.explain(url) {
            Some(reason) => {
                any = true;
                outln!("protected  {}  ({reason})", shown(url))?;
            }
            None => outln!("allowed    {}", shown(url))?,
        }
    }
    Ok(if any {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// The URL as typed, or as a JSON string when it holds control characters.
fn shown(url: &str) -> String {
    if url.chars().any(char::is_control) {
        serde_json::to_string(url).unwrap_or_else(|_| url.escape_debug().to_string())
    } else {
        url.to_string()
    }
}

fn json_lines_run(matcher: &Matcher) -> Result<ExitCode, String> {
    let stdin = std::io::stdin();
    // A reader of our own, whose `buffer()` says whether the next line is already here.
    let mut input = std::io::BufReader::with_capacity(64 * 1024, stdin.lock());
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut line = String::new();
    for n in 1u64.. {
        line.clear();
        let read = input
            .read_line(&mut line)
            .map_err(|e| format!("standard input: {e}"))?;
        if read == 0 {
            break;
        }
        let text = line.trim_end_matches(['\n', '\r']);
        if !text.trim().is_empty() {
            let url: String = serde_json::from_str(text)
                .map_err(|e| format!("standard input, line {n}: not a JSON string: {e}"))?;
            let answer = serde_json::json!({ "url": url, "protected": matcher.url(&url) });
            writeln!(out, "{answer}").map_err(|e| format!("standard output: {e}"))?;
        }
        // The answers so far go out before the next read can block: a program that writes
        // one URL and waits for its answer (a coprocess) gets it. A batch on a pipe still
        // writes once per buffered chunk of input, not once per line.
        if input.buffer().is_empty() {
            out.flush().map_err(|e| format!("standard output: {e}"))?;
        }
    }
    out.flush().map_err(|e| format!("standard output: {e}"))?;
    Ok(ExitCode::SUCCESS)
}
