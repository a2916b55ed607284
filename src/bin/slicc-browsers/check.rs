//! `slicc-browsers check [--origin <origin>]... [--protect <pattern>]... <url>...` and
//! `check --json-lines`.
//!
//! Each argument must be an absolute URL; one without a scheme that reads as a host (and
//! path) is judged as `https://` that, and said so on stderr. Anything else is a usage error
//! (exit 2) before any answer.

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
    let patterns = crate::protect::take(&mut args)?;
    let json_lines = args.flag("--json-lines");
    let urls = args.positionals();
    args.finish()?;
    let matcher = Matcher::new(
        &slicc_browsers::shared_catalog().protected_origins,
        &origins,
    )
    .map_err(|e| e.to_string())?
    .protecting(&patterns);
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
    // Every argument is read before any answer: a mistyped one is exit 2 with nothing judged,
    // never an `allowed` for something that is not a URL.
    let mut judged = Vec::with_capacity(urls.len());
    for url in &urls {
        judged.push(absolute(url)?);
    }
    let mut any = false;
    for (typed, url) in urls.iter().zip(&judged) {
        if typed != url {
            eprintln!(
                "check: {} has no scheme: judged as {}",
                shown(typed),
                shown(url)
            );
        }
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

/// The absolute URL `typed` names: itself when it parses as one (`https://…`, `about:blank`),
/// `https://<typed>` when it has no scheme but reads as a host with an optional path
/// (`seven.sliccy.ai`, `example.com/app`), else a usage error saying what was expected.
fn absolute(typed: &str) -> Result<String, String> {
    // `localhost:5710` parses as the scheme `localhost`; a port after the colon says it is a
    // host and port.
    let host_and_port = typed
        .split_once(':')
        .is_some_and(|(_, port)| !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()));
    match url::Url::parse(typed) {
        Ok(_) if !host_and_port => return Ok(typed.to_string()),
        Ok(_) | Err(url::ParseError::RelativeUrlWithoutBase) => {
            let bare = typed.trim();
            let host_first = bare
                .chars()
                .next()
                .is_some_and(|c| c.is_alphanumeric() || c == '[');
            if host_first && !bare.chars().any(char::is_whitespace) {
                let guess = format!("https://{bare}");
                if let Ok(parsed) = url::Url::parse(&guess) {
                    if parsed.host().is_some() {
                        return Ok(parsed.to_string());
                    }
                }
            }
        }
        Err(_) => {}
    }
    crate::args::usage(format!(
        "{} is not an absolute URL: expected scheme://host/path, such as \
         https://seven.sliccy.ai/ (a bare host such as seven.sliccy.ai is read as \
         https://seven.sliccy.ai/)",
        serde_json::to_string(typed).unwrap_or_else(|_| typed.escape_debug().to_string())
    ))
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
