//! `slicc-browsers launch` when the browser exits before serving CDP: the error quotes the
//! browser's own last lines (here Chromium's `Missing X server or $DISPLAY`), not a guess.
//! Skipped (with the reason printed) without /usr/bin/chromium, unless `CI` is set.
#![cfg(all(feature = "cli", target_os = "linux"))]

use crate::needs;

use std::process::Command;

#[test]
fn a_browser_that_exits_early_is_quoted_in_the_error() {
    if needs::missing("/usr/bin/chromium", needs::chromium()) {
        return;
    }
    // A temporary home (the seven profile goes there) and no display: a headful Chromium
    // cannot start, and says so on stderr.
    let home = tempfile::tempdir().unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_slicc-browsers"))
        .args(["launch", "--browser", "chromium"])
        .env("HOME", home.path())
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_CACHE_HOME")
        .env_remove("XDG_RUNTIME_DIR")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("before serving CDP; its last words:"), "{err}");
    assert!(err.contains("DISPLAY"), "Chromium's own reason: {err}");
    assert!(!err.contains("another browser may already run"), "{err}");
    assert!(o.stdout.is_empty());
}
