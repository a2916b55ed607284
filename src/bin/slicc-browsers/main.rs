//! `slicc-browsers`: list this machine's browsers, check URLs against the protected origins,
//! run the conformance files, launch a browser for seven, and validate the crate's files.

mod args;
mod check;
mod conformance;
mod corpus;
mod guard;
mod launch;
mod list;
mod validate;

use std::process::ExitCode;

use args::Args;

const USAGE: &str = "\
usage: slicc-browsers <command> [options]

commands:
  list [--json] [--cdp URL]... [--origin ORIGIN]...
                      this machine's browsers, ranked (--json: output schema 1)
  conformance corpus [FILE] [--os darwin|linux|windows]
                      run a corpus file (the shipped one by default) through discovery
  conformance protected [FILE]
                      run protected-origin vectors (the shipped protected.json by default)
  launch [--browser <id>] [--profile <name>] [--headless] [--json]
                      launch a browser for seven in a seven profile and print its endpoint
  check [--origin O]... <url>...
                      say whether each URL is protected, and why (--origin: an extra origin)
  check [--origin O]... --json-lines
                      read JSON strings from stdin, write one {url, protected} object per line
  validate [--strict] [DIR]
                      check the catalog, corpus and vector files (the crate's own by default)
                      against the spec's rules; --strict also prints warnings: rules of this
                      crate's own that the spec does not state (they never fail the command)
  corpus build [DIR] [--check]
                      regenerate DIR/corpus.json from DIR/corpus/ (--check: fail when stale)
";

/// The usage text's last line.
const USAGE_END: &str = "  help                show this text\n";

/// The whole usage text.
fn usage() -> String {
    format!("{USAGE}{}{USAGE_END}", guard::USAGE)
}

fn main() -> ExitCode {
    let mut args = Args::from_env();
    let Some(command) = args.next_positional() else {
        eprint!("{}", usage());
        return ExitCode::from(2);
    };
    let result = match command.as_str() {
        "check" => check::run(args),
        "list" => list::run(args),
        "conformance" => conformance::run(args),
        "launch" => launch::run(args),
        "validate" => validate::run(args),
        "corpus" => corpus::run(args),
        "guard" => guard::run(args),
        "help" | "--help" | "-h" => {
            print!("{}", usage());
            Ok(ExitCode::SUCCESS)
        }
        other => Err(format!("unknown command {other:?}\n{}", usage())),
    };
    match result {
        Ok(code) => code,
        Err(message) => {
            eprintln!("slicc-browsers: {message}");
            ExitCode::from(2)
        }
    }
}
