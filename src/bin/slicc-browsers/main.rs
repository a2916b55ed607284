//! `slicc-browsers`: list this machine's browsers, check URLs against the protected origins,
//! run the conformance files, launch a browser for seven, and validate the crate's files.

mod args;
mod check;
mod conformance;
mod corpus;
#[cfg(feature = "cli-full")]
mod guard;
#[cfg(feature = "cli-full")]
mod guard_run;
mod launch;
mod list;
mod output;
mod protect;
#[cfg(feature = "cli-full")]
mod signals;
#[cfg(feature = "cli-full")]
mod validate;

use std::process::ExitCode;

use args::Args;

const USAGE: &str = "\
usage: slicc-browsers <command> [options]

commands:
  list          this machine's browsers, ranked
  check         say whether URLs are protected, and why
  conformance   run a corpus or protected-origin vector file
  launch        launch a browser for seven and print its endpoint
  corpus        regenerate corpus.json, or dump what its helpers answer
  validate      check the catalog, corpus and vector files (feature cli-full)
  guard         the guard vectors: stand-in fixture, reference guard proxy, runners
                (feature cli-full)
  help          show this text (also -h, --help; `help <command>` or `<command> --help`
                for a command)

options:
  -h, --help     show this text
  -V, --version  print the version

exit status: 0 done; 1 the answer is negative (a URL is protected, a case or vector failed,
validate found problems); 2 the command could not run (bad usage, unreadable input).
";

/// A command: its name, usage and what runs it.
struct Command {
    name: &'static str,
    usage: &'static [&'static str],
    run: fn(Args) -> Result<ExitCode, String>,
}

/// Every command, with the usage `<command> --help` prints.
const COMMANDS: &[Command] = &[
    Command {
        name: "list",
        usage: &["\
usage: slicc-browsers list [--json] [--cdp URL]... [--origin ORIGIN]...
  this machine's browsers, ranked (--json: output schema 1; --cdp: a CDP endpoint to include;
  --origin: an extra seven origin)
"],
        run: list::run,
    },
    Command {
        name: "check",
        usage: &["\
usage: slicc-browsers check [--origin O]... [--protect PATTERN]... [--protect-file FILE]... <url>...
       slicc-browsers check [--origin O]... [--protect PATTERN]... [--protect-file FILE]... --json-lines
  say whether each URL is protected, and why (--origin: an extra origin); exit 1 when any
  is protected. Each URL must be absolute (https://host/path); a bare host or host/path
  (seven.sliccy.ai) is judged as https://seven.sliccy.ai/, anything else is exit 2.
  --json-lines: read JSON strings from stdin and write one {url, protected} object per line;
  the answers are in the output, so it exits 0 whatever they are.
  ", protect::USAGE, "
"],
        run: check::run,
    },
    Command {
        name: "conformance",
        usage: &["\
usage: slicc-browsers conformance corpus [FILE] [--os darwin|linux|windows]
       slicc-browsers conformance protected [FILE]
  run a corpus file through discovery, or protected-origin vectors through the matcher (the
  shipped files by default); ends with `N passed, M failed`, exit 1 when M > 0
"],
        run: conformance::run,
    },
    Command {
        name: "launch",
        usage: &["\
usage: slicc-browsers launch [--browser <id>] [--profile <name>] [--headless] [--json]
  launch a browser for seven in a seven profile and print its endpoint
"],
        run: launch::run,
    },
    Command {
        name: "validate",
        usage: &["\
usage: slicc-browsers validate [--strict] [DIR]
  check the catalog, corpus and vector files (the crate's own by default) against the spec's
  rules; exit 1 on problems, 2 when DIR is not a directory. --strict also prints warnings:
  rules of this crate's own that the spec does not state (they never fail the command)
"],
        run: validate_run,
    },
    Command {
        name: "corpus",
        usage: &["\
usage: slicc-browsers corpus build [DIR] [--check]
       slicc-browsers corpus dump [FILE]
  regenerate DIR/corpus.json from DIR/corpus/ (--check: fail when stale); dump: print as JSON
  what the corpus helpers answer for every case of FILE (the shipped corpus.json by default) on
  darwin, linux and windows, which the Go module's test/integration/crosslang_test.go compares
  with its own helpers
"],
        run: corpus::run,
    },
    Command {
        name: "guard",
        usage: GUARD_USAGE,
        run: guard_run,
    },
];

/// The usage of `guard` and its subcommands.
#[cfg(feature = "cli-full")]
const GUARD_USAGE: &[&str] = &[
    "usage: slicc-browsers guard <subcommand> [options]\n  ",
    guard::USAGE,
    guard_run::USAGE,
];
/// The usage of `guard` in a build without it.
#[cfg(not(feature = "cli-full"))]
const GUARD_USAGE: &[&str] = &["\
usage: slicc-browsers guard fixture|proxy|selftest|run|certify [options]
  the guard tools (the stand-in, the reference guard proxy, the vector runners); not in this
  build: build with --features cli-full
"];

/// `validate`, in a build with it.
#[cfg(feature = "cli-full")]
fn validate_run(args: Args) -> Result<ExitCode, String> {
    validate::run(args)
}

/// `guard`, in a build with it.
#[cfg(feature = "cli-full")]
fn guard_run(args: Args) -> Result<ExitCode, String> {
    guard::run(args)
}

/// `validate` in a build without it: says how to get it.
#[cfg(not(feature = "cli-full"))]
fn validate_run(_: Args) -> Result<ExitCode, String> {
    Err(not_in_this_build("validate"))
}

/// `guard` in a build without it: says how to get it.
#[cfg(not(feature = "cli-full"))]
fn guard_run(_: Args) -> Result<ExitCode, String> {
    Err(not_in_this_build("guard"))
}

/// The error of a command this build leaves out (feature `cli` without `cli-full`).
#[cfg(not(feature = "cli-full"))]
fn not_in_this_build(command: &str) -> String {
    format!(
        "{command} is not in this build (it needs the feature cli-full): run \
         `cargo run --features cli-full -- {command} …`, or install it with \
         `cargo install --path . --features cli-full`"
    )
}

/// The usage of `guard <sub>` alone, when `sub` is one of its subcommands.
#[cfg(feature = "cli-full")]
fn guard_usage_of(sub: &str, all: &str) -> Option<String> {
    guard::usage_of(sub, all)
}

/// Without the guard tools there is one usage for all of them.
#[cfg(not(feature = "cli-full"))]
fn guard_usage_of(_: &str, _: &str) -> Option<String> {
    None
}

fn main() -> ExitCode {
    let mut args = match Args::from_env() {
        Ok(args) => args,
        Err(message) => return usage_failure(&message, USAGE),
    };
    if args.wants_version() {
        return printed(output::outln!(
            "slicc-browsers {}",
            env!("CARGO_PKG_VERSION")
        ));
    }
    let Some(name) = args.next_positional() else {
        if args.wants_help() {
            return printed(output::out!("{USAGE}"));
        }
        return usage_failure("no command given", USAGE);
    };
    if name == "help" {
        // `help <command>` is `<command> --help`.
        return match args.next_positional() {
            None => printed(output::out!("{USAGE}")),
            Some(topic) => match COMMANDS.iter().find(|c| c.name == topic) {
                Some(command) => printed(output::out!("{}", command.usage.concat())),
                None => usage_failure(&format!("unknown command {topic:?}"), USAGE),
            },
        };
    }
    let Some(command) = COMMANDS.iter().find(|c| c.name == name) else {
        return usage_failure(&format!("unknown command {name:?}"), USAGE);
    };
    // `guard <subcommand> --help` and its usage errors show that subcommand's usage alone.
    let usage = match (command.name, args.peek_positional()) {
        ("guard", Some(sub)) => guard_usage_of(sub, &command.usage.concat()),
        _ => None,
    }
    .unwrap_or_else(|| command.usage.concat());
    if args.wants_help() {
        return printed(output::out!("{usage}"));
    }
    match (command.run)(args) {
        Ok(code) => code,
        Err(message) if args::usage_error() => usage_failure(&message, &usage),
        Err(message) => {
            eprintln!("slicc-browsers: {message}");
            ExitCode::from(2)
        }
    }
}

/// Exit 0 when the text went to standard output, else its error on stderr and exit 2.
fn printed(written: Result<(), String>) -> ExitCode {
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("slicc-browsers: {message}");
            ExitCode::from(2)
        }
    }
}

/// A usage error: the message and the usage on stderr, exit 2.
fn usage_failure(message: &str, usage: &str) -> ExitCode {
    eprintln!("slicc-browsers: {message}");
    eprint!("{usage}");
    ExitCode::from(2)
}
