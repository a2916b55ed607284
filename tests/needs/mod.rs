//! What a test needs from the machine (Chromium, Node): skip locally, fail in CI.
//!
//! A test that needs a tool the machine lacks prints why and returns, so `cargo test` works on
//! a laptop without Chromium; when the environment variable `CI` is set the same absence is a
//! failure, because CI installs the tools (`.ci/run`) and a skip there would hide a broken
//! install.

/// `true` when the test must stop here because `what` is not `present`: prints the reason
/// locally, panics when `CI` is set. `false` when `what` is present.
pub fn missing(what: &str, present: bool) -> bool {
    if present {
        return false;
    }
    if std::env::var_os("CI").is_some_and(|v| !v.is_empty()) {
        panic!("{what} is missing, and CI is set: .ci/run installs it, so the install is broken");
    }
    println!("skipped: {what} is missing (CI installs it; with CI set this test fails)");
    true
}

/// Whether `/usr/bin/chromium` (Debian's Chromium) is installed.
#[allow(dead_code)]
pub fn chromium() -> bool {
    std::path::Path::new("/usr/bin/chromium").exists()
}

/// Whether `node` runs.
#[allow(dead_code)]
pub fn node() -> bool {
    std::process::Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Whether `go` runs.
#[allow(dead_code)]
pub fn go() -> bool {
    std::process::Command::new("go")
        .arg("version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The output of a command that must succeed: panics saying what went wrong when it did not
/// start or exited non-zero (with its stderr).
#[allow(dead_code)]
pub fn succeeded(what: &str, out: std::io::Result<std::process::Output>) -> std::process::Output {
    let out = out.unwrap_or_else(|e| panic!("{what} does not start: {e}"));
    assert!(
        out.status.success(),
        "{what} failed ({}): {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out
}
