//! The command line's conventions: `--help`/`-h` on stdout with exit 0 for the program and
//! every command, `--version`, and usage errors with exit 2 and the command's usage.
#![cfg(feature = "cli-full")]

use std::process::{Command, Output};

fn cli(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_slicc-browsers"))
        .args(args)
        .output()
        .expect("the binary runs")
}

const COMMANDS: [&str; 6] = [
    "list",
    "check",
    "conformance",
    "launch",
    "validate",
    "corpus",
];

#[test]
fn help_goes_to_stdout_with_exit_0_for_every_command() {
    for help in ["--help", "-h"] {
        let o = cli(&[help]);
        assert_eq!(o.status.code(), Some(0), "{help}");
        assert!(String::from_utf8_lossy(&o.stdout).starts_with("usage: slicc-browsers"));
        for command in COMMANDS {
            let o = cli(&[command, help]);
            assert_eq!(o.status.code(), Some(0), "{command} {help}");
            let out = String::from_utf8_lossy(&o.stdout);
            assert!(
                out.starts_with(&format!("usage: slicc-browsers {command}")),
                "{command} {help}: {out}"
            );
            assert!(o.stderr.is_empty(), "{command} {help}");
        }
    }
}

#[test]
fn version_prints_the_crate_version() {
    for flag in ["--version", "-V"] {
        let o = cli(&[flag]);
        assert_eq!(o.status.code(), Some(0));
        assert_eq!(
            String::from_utf8_lossy(&o.stdout).trim(),
            format!("slicc-browsers {}", env!("CARGO_PKG_VERSION"))
        );
    }
}

#[test]
fn unknown_arguments_exit_2_with_the_commands_usage() {
    for command in COMMANDS {
        // Commands with a kind take it first, so the option is the one thing wrong.
        let line: &[&str] = match command {
            "conformance" => &["conformance", "corpus", "--no-such-option"],
            "corpus" => &["corpus", "build", "--no-such-option"],
            "guard" => &["guard", "fixture", "--no-such-option"],
            _ => &[command, "--no-such-option"],
        };
        let o = cli(line);
        assert_eq!(o.status.code(), Some(2), "{command}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("--no-such-option"), "{command}: {err}");
        assert!(
            err.contains(&format!("usage: slicc-browsers {command}")),
            "{command}: {err}"
        );
        assert!(o.stdout.is_empty(), "{command}");
    }
    let o = cli(&["no-such-command"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("usage: slicc-browsers <command>"));
    let o = cli(&[]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn every_guard_subcommand_has_help_and_refuses_unknown_arguments() {
    for sub in ["fixture", "proxy", "selftest", "run", "certify"] {
        let o = cli(&["guard", sub, "--help"]);
        assert_eq!(o.status.code(), Some(0), "guard {sub} --help");
        assert!(
            String::from_utf8_lossy(&o.stdout).contains(&format!("guard {sub} ")),
            "guard {sub} --help names it"
        );
        // Nothing starts (no stand-in, no browser): the arguments are refused first.
        let o = cli(&["guard", sub, "--no-such-option"]);
        assert_eq!(o.status.code(), Some(2), "guard {sub} --no-such-option");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("usage: slicc-browsers guard"),
            "guard {sub}: {err}"
        );
        assert!(o.stdout.is_empty(), "guard {sub}");
    }
}

#[test]
fn guard_help_indents_every_subcommand_alike() {
    let o = cli(&["guard", "--help"]);
    assert_eq!(o.status.code(), Some(0));
    let out = String::from_utf8_lossy(&o.stdout);
    let subcommands: Vec<&str> = out
        .lines()
        // A usage line, not a description that mentions a subcommand (those are indented deep).
        .filter(|l| l.trim_start().starts_with("guard ") && l.len() - l.trim_start().len() < 8)
        .collect();
    for sub in ["fixture", "proxy", "selftest", "run", "certify"] {
        assert!(
            subcommands
                .iter()
                .any(|l| l.trim_start().starts_with(&format!("guard {sub} "))),
            "guard {sub} in {out}"
        );
    }
    for line in subcommands {
        assert!(line.starts_with("  guard "), "indented by two: {line:?}");
    }
}

/// Runs the binary with its standard output a pipe whose reader has gone (as after
/// `slicc-browsers … | head -1`).
fn cli_into_closed_pipe(args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_slicc-browsers"))
        .args(args)
        .env("SLICC_DISCOVERY", "isolated")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the binary runs");
    drop(child.stdout.take());
    child.wait_with_output().expect("the binary ends")
}

#[test]
fn a_closed_standard_output_is_one_line_and_exit_2_not_a_panic() {
    // `corpus dump` writes megabytes, more than any pipe buffer: its write always meets the
    // closed pipe. Before the commands wrote through `output::write`, `println!` panicked
    // here: exit 101, "failed printing to stdout", and a backtrace under RUST_BACKTRACE.
    let o = cli_into_closed_pipe(&["corpus", "dump"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("slicc-browsers: standard output: "),
        "{err}"
    );
    // Short outputs may fit the pipe before the reader goes (exit 0); never a panic.
    for args in [
        &["--help"][..],
        &["--version"],
        &["validate"],
        &["conformance", "protected"],
        &["list", "--json"],
    ] {
        let o = cli_into_closed_pipe(args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            matches!(o.status.code(), Some(0 | 2)) && !err.contains("panicked"),
            "{args:?}: {:?} {err}",
            o.status
        );
    }
}

#[test]
fn validate_of_a_dir_that_is_not_there_is_exit_2_not_a_problem() {
    // Exit 1 means "the files break rules"; a DIR that does not exist, or a file given as DIR,
    // is input the command could not read (exit 2). Before, both printed "catalog.json: /:
    // [readable] cannot read …" and "1 problem(s)", exit 1.
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("no-such-dir");
    let file = tmp.path().join("catalog.json");
    std::fs::write(&file, "{}").unwrap();
    for dir in [&missing, &file] {
        let o = cli(&["validate", dir.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{}: {err}", dir.display());
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(dir.to_str().unwrap()), "{err}");
        assert!(o.stdout.is_empty());
    }
    // An empty dir is still validated: its missing catalog.json is a problem found (exit 1).
    let empty = tempfile::tempdir().unwrap();
    let o = cli(&["validate", empty.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stdout).contains("[readable]"));
}

#[test]
fn list_refuses_cdp_and_origin_values_discovery_cannot_read() {
    // Discovery leaves such values out; `list` used to do the same silently (exit 0), so a
    // mistyped `--origin` left every seven tab unmarked.
    for (flag, value) in [
        ("--cdp", "garbage"),
        ("--cdp", "ftp://127.0.0.1:5100"),
        ("--cdp", "127.0.0.1:0"),
        ("--origin", "seven.example.test"),
        ("--origin", "localhost:5710"),
    ] {
        let o = Command::new(env!("CARGO_BIN_EXE_slicc-browsers"))
            .args(["list", flag, value])
            .env("SLICC_DISCOVERY", "isolated")
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{flag} {value}: {err}");
        assert!(
            err.lines()
                .next()
                .unwrap_or_default()
                .contains(&format!("{flag} {value:?}")),
            "{err}"
        );
        assert!(err.contains("usage: slicc-browsers list"), "{err}");
    }
    // What discovery reads still runs (nothing answers on port 1: no entries).
    let o = Command::new(env!("CARGO_BIN_EXE_slicc-browsers"))
        .args([
            "list",
            "--json",
            "--cdp",
            "1",
            "--cdp",
            "ws://localhost:1/devtools/browser/x",
            "--origin",
            "http://127.0.0.1:5710/",
        ])
        .env("SLICC_DISCOVERY", "isolated")
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn check_help_says_json_lines_exits_0() {
    // The usage said "exit 1 when any URL is protected" right after --json-lines, which
    // exits 0 whatever its answers (tests/offline/protected_cli.rs holds it to that).
    let o = cli(&["check", "--help"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("so it exits 0 whatever they are"), "{out}");
}

#[test]
fn corpus_build_takes_a_corpus_the_spec_accepts() {
    // A `pid` above u32::MAX: the corpus schema sets no upper bound (corpus-format.md), so
    // `validate` accepts it, but `corpus build` wrote corpus.json and then failed (exit 2)
    // counting its cases with the typed reader, which reads a pid as u32 (as the published
    // crate does).
    let tmp = tempfile::tempdir().unwrap();
    let case = tmp.path().join("corpus/big-pid");
    std::fs::create_dir_all(&case).unwrap();
    std::fs::write(
        case.join("case.json"),
        r#"{"description": "a pid past u32", "needs": ["process"],
            "processes": [{"pid": 5000000000, "command": "x --remote-debugging-port=5100"}]}"#,
    )
    .unwrap();
    std::fs::write(
        case.join("expected.json"),
        r#"{"schema": 1, "minChromium": 116, "entries": []}"#,
    )
    .unwrap();
    let dir = tmp.path().to_str().unwrap();
    let o = cli(&["corpus", "build", dir]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(out.trim_end().ends_with(": 1 cases"), "{out}");
    let o = cli(&["corpus", "build", dir, "--check"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&o.stdout).contains("up to date"));
}

#[test]
fn help_with_a_command_is_that_commands_help() {
    // `help list` printed the program's usage; it is now `list --help`.
    for command in COMMANDS {
        let o = cli(&["help", command]);
        assert_eq!(o.status.code(), Some(0), "help {command}");
        assert_eq!(o.stdout, cli(&[command, "--help"]).stdout, "help {command}");
    }
    let o = cli(&["help", "guard"]);
    assert!(String::from_utf8_lossy(&o.stdout).starts_with("usage: slicc-browsers guard"));
    let o = cli(&["help", "nosuch"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr)
        .starts_with("slicc-browsers: unknown command \"nosuch\""));
}

#[test]
fn conformance_corpus_runs_an_os_given_twice_once() {
    // `--os linux --os linux` ran every linux case twice and counted it twice.
    let once = cli(&["conformance", "corpus", "--os", "linux"]);
    let twice = cli(&["conformance", "corpus", "--os", "linux", "--os", "linux"]);
    assert_eq!(once.status.code(), Some(0));
    assert_eq!(twice.stdout, once.stdout);
    let mixed = cli(&[
        "conformance",
        "corpus",
        "--os",
        "linux",
        "--os",
        "darwin",
        "--os",
        "linux",
    ]);
    let both = cli(&["conformance", "corpus", "--os", "linux", "--os", "darwin"]);
    assert_eq!(mixed.stdout, both.stdout);
}

#[test]
fn list_names_each_cdp_endpoint_that_did_not_answer() {
    // Nothing listens on port 1. `list` used to drop such an endpoint without a word.
    let o = Command::new(env!("CARGO_BIN_EXE_slicc-browsers"))
        .args([
            "list",
            "--cdp",
            "1",
            "--cdp",
            "ws://localhost:1/devtools/browser/x",
        ])
        .env("SLICC_DISCOVERY", "isolated")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("--cdp 1: no CDP endpoint answered at http://127.0.0.1:1"),
        "{err}"
    );
    assert!(
        err.contains("--cdp ws://localhost:1/devtools/browser/x: no CDP endpoint answered"),
        "{err}"
    );
    assert_eq!(String::from_utf8_lossy(&o.stdout), "no browsers found\n");
}

#[test]
fn a_guard_subcommands_help_and_usage_errors_show_that_subcommand_alone() {
    let subs = ["fixture", "proxy", "selftest", "run", "certify"];
    for sub in subs {
        let help = cli(&["guard", sub, "--help"]);
        let wrong = cli(&["guard", sub, "--no-such-option"]);
        for (text, what) in [(&help.stdout, "--help"), (&wrong.stderr, "usage error")] {
            let text = String::from_utf8_lossy(text);
            assert!(
                text.contains(&format!("usage: slicc-browsers guard {sub} ")),
                "guard {sub} {what}: {text}"
            );
            for other in subs.iter().filter(|o| **o != sub) {
                assert!(
                    !text.contains(&format!("  guard {other} ")),
                    "guard {sub} {what} shows guard {other} too: {text}"
                );
            }
        }
    }
    // `guard --help` still lists them all.
    let all = String::from_utf8_lossy(&cli(&["guard", "--help"]).stdout).to_string();
    assert!(
        subs.iter().all(|s| all.contains(&format!("  guard {s} "))),
        "{all}"
    );
}

#[test]
fn listen_says_it_wants_host_and_port() {
    // It used to say only "invalid socket address".
    for bad in ["8931", "127.0.0.1", ":8931", "127.0.0.1:port"] {
        let o = cli(&[
            "guard",
            "proxy",
            "--upstream",
            "http://127.0.0.1:1",
            "--listen",
            bad,
        ]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{bad}: {err}");
        assert!(
            err.contains(&format!("--listen {bad:?}: expected HOST:PORT")),
            "{bad}: {err}"
        );
    }
}
