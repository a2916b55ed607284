//! The Go module (`go.mod` and the `*.go` files at the repository root, package
//! `sliccbrowsers`, and its tests under `test/integration/`): `go vet ./...`, gofmt and
//! `go test ./...`, so that the README's one test command runs the Go side too.
//!
//! It first writes what the crate's corpus helpers answer for every case on every OS
//! ([`slicc_browsers::corpus::dump`], as `slicc-browsers corpus dump` prints it) to a file and
//! names it in `SLICC_BROWSERS_CORPUS_DUMP`, which `test/integration/crosslang_test.go`
//! compares the Go helpers' answers with, case by case.
//!
//! Without `go` the test prints why and passes, or fails when `CI` is set (`.ci/run` installs
//! Debian's `golang-go`).
//!
//! Go (1.19 to at least 1.24) has no way to leave a folder out of `./...` but a `go.mod` of
//! its own (the `ignore` directive came in Go 1.25, and older Go rejects it), so before it
//! runs `go`, this test puts a one-line `go.mod` in the repository's `target/` and
//! `node_modules/` when they exist: whatever Cargo or npm leave there is never a package of
//! the module.
#![cfg(feature = "corpus")]

use crate::needs;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `go` with `args` in the repository root: no module proxy (the module has no
/// dependencies), and a build cache even where `HOME` is unset.
fn go(args: &[&str]) -> Output {
    go_with(args, &[])
}

/// [`go`] with more environment variables.
fn go_with(args: &[&str], vars: &[(&str, &Path)]) -> Output {
    let mut cmd = Command::new("go");
    cmd.args(args).current_dir(root()).env("GOPROXY", "off");
    for (k, v) in vars {
        cmd.env(k, v);
    }
    let unset = |k: &str| std::env::var_os(k).is_none_or(|v| v.is_empty());
    if unset("GOCACHE") && unset("HOME") && unset("XDG_CACHE_HOME") {
        cmd.env(
            "GOCACHE",
            Path::new(env!("CARGO_TARGET_TMPDIR")).join("go-build"),
        );
    }
    cmd.output().expect("go runs")
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Makes `dir` (when it is a folder) a module of its own, which `./...` does not enter.
fn fence_off(dir: &Path) {
    if dir.is_dir() && !dir.join("go.mod").exists() {
        std::fs::write(
            dir.join("go.mod"),
            "// Keeps this folder out of the slicc-browsers Go module's ./... (tests/node_go/go_module.rs).\nmodule ignored\n",
        )
        .expect("write go.mod");
    }
}

/// The module's packages: the root package and its integration tests (test files only),
/// nothing from `target/` or `node_modules/`.
const PACKAGES: [&str; 2] = [
    "github.com/ai-ecoverse/slicc-browsers",
    "github.com/ai-ecoverse/slicc-browsers/test/integration",
];

#[test]
fn go_vet_gofmt_and_go_test_pass() {
    if needs::missing("go (Debian's golang-go)", needs::go()) {
        return;
    }
    fence_off(&root().join("target"));
    fence_off(&root().join("node_modules"));

    let list = go(&["list", "./..."]);
    assert!(list.status.success(), "go list ./...:\n{}", text(&list));
    let listed: Vec<String> = String::from_utf8_lossy(&list.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(listed, PACKAGES, "go list ./... lists other packages");

    let vet = go(&["vet", "./..."]);
    assert!(vet.status.success(), "go vet ./...:\n{}", text(&vet));

    // gofmt over exactly the module's files (what `go list` names), so a stray file elsewhere
    // cannot fail it and none of the module's can escape it.
    let files = go(&[
        "list",
        "-f",
        "{{range .GoFiles}}{{$.Dir}}/{{.}}\n{{end}}{{range .TestGoFiles}}{{$.Dir}}/{{.}}\n{{end}}{{range .XTestGoFiles}}{{$.Dir}}/{{.}}\n{{end}}",
        "./...",
    ]);
    let files: Vec<String> = String::from_utf8_lossy(&files.stdout)
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect();
    assert!(
        files.len() >= 10,
        "only {} Go files: {files:?}",
        files.len()
    );
    let gofmt = Command::new("gofmt")
        .arg("-l")
        .args(&files)
        .output()
        .expect("gofmt runs");
    assert!(
        gofmt.status.success() && gofmt.stdout.is_empty(),
        "gofmt -l lists files that are not gofmt-formatted (run gofmt -w):\n{}",
        text(&gofmt)
    );

    let dir = tempfile::tempdir().expect("temp dir");
    let dump = dir.path().join("corpus-dump.json");
    let answers = slicc_browsers::corpus::dump(
        &slicc_browsers::corpus::corpus(),
        slicc_browsers::shared_catalog(),
    );
    std::fs::write(&dump, answers.to_string()).expect("write the dump");

    let test = go_with(
        &["test", "-count=1", "-v", "./..."],
        &[("SLICC_BROWSERS_CORPUS_DUMP", dump.as_path())],
    );
    let out = text(&test);
    // The package results and every failure, not the whole -v log.
    for line in out.lines().filter(|l| {
        l.starts_with("ok")
            || l.starts_with("FAIL")
            || l.starts_with("---")
            || l.contains("compared")
    }) {
        println!("{line}");
    }
    assert!(test.status.success(), "go test ./... failed:\n{out}");
    assert!(
        out.contains("--- PASS: TestGoHelpersEqualTheCrates"),
        "the cross-language test did not pass (skipped?):\n{out}"
    );
    for package in PACKAGES {
        assert!(
            out.lines()
                .any(|l| l.starts_with("ok") && l.contains(package)),
            "go test did not pass {package}:\n{out}"
        );
    }
}
