//! The command line's conventions: `--help`/`-h` on stdout with exit 0 for the program and
//! every command, `--version`, and usage errors with exit 2 and the command's usage.
#![cfg(feature = "cli")]

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
