//! A `guard selftest`, finished or interrupted (Ctrl-C, SIGTERM), stops its browsers and leaves
//! no temporary folder behind: `TMPDIR` is as empty after it as before (its profiles, and the
//! folders Chromium makes for itself, `org.chromium.Chromium.*`, which a killed browser used to
//! leave there).
//! Skipped (with the reason printed) without /usr/bin/chromium, unless `CI` is set.
#![cfg(all(feature = "cli-full", unix))]

use crate::needs;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The entries of `dir`.
fn entries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// The entries of `dir` the self-test made for its profiles (`slicc-guard-selftest-*`).
fn profiles(dir: &Path) -> Vec<String> {
    let mut found = entries(dir);
    found.retain(|n| n.starts_with("slicc-guard-selftest-"));
    found
}

#[test]
fn a_finished_selftest_leaves_no_temporary_folder() {
    if needs::missing(
        slicc_browsers::harness::selftest::CHROMIUM,
        needs::chromium(),
    ) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_slicc-browsers"))
        .args([
            "guard",
            "selftest",
            "--id",
            "C1.script-nav",
            "--target",
            "seven",
        ])
        .args(["--variant", "prompt"])
        .env("TMPDIR", tmp.path())
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("selftest: 1 rows, 1 behaved"), "{out}");
    let left = entries(tmp.path());
    assert!(left.is_empty(), "left {left:?} in TMPDIR");
}

#[test]
fn an_interrupted_selftest_leaves_no_temporary_folder() {
    if needs::missing(
        slicc_browsers::harness::selftest::CHROMIUM,
        needs::chromium(),
    ) {
        return;
    }
    for signal in ["INT", "TERM"] {
        let tmp = tempfile::tempdir().unwrap();
        let child = Command::new(env!("CARGO_BIN_EXE_slicc-browsers"))
            .args([
                "guard",
                "selftest",
                "--target",
                "seven",
                "--variant",
                "prompt",
                "--parallel",
                "2",
            ])
            .env("TMPDIR", tmp.path())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Interrupt once a browser's profile is there (the run is under way).
        let started = Instant::now();
        while profiles(tmp.path()).is_empty() && started.elapsed() < Duration::from_secs(120) {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(!profiles(tmp.path()).is_empty(), "no browser started");
        std::thread::sleep(Duration::from_millis(300));
        let killed = Command::new("kill")
            .args([&format!("-{signal}"), &child.id().to_string()])
            .status()
            .unwrap();
        assert!(killed.success());
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(130), "SIG{signal}: {err}");
        assert!(err.contains("interrupted"), "{err}");
        // Chromium's own folders go with the profiles: nothing is left.
        let left = entries(tmp.path());
        assert!(left.is_empty(), "SIG{signal} left {left:?} in TMPDIR");
    }
}
