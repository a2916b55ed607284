//! A real browser: Debian's Chromium, started headless by this test on a port of its own
//! choosing (`--remote-debugging-port=0`) with a fresh profile, is found by the process scan
//! of a `SystemHost` whose home and environment are a temporary dir (so the machine's own
//! browsers and profiles stay unseen) while its process list and HTTP are real. Installed
//! discovery finds `/usr/bin/chromium` with the version it reports. The test stops the browser.
#![cfg(all(target_os = "linux", feature = "discovery"))]

use crate::needs;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use slicc_browsers::catalog::Os;
use slicc_browsers::discovery::{discover, installed, Options, Source, SystemHost};

const CHROMIUM: &str = "/usr/bin/chromium";

/// Stops the browser's whole process group when the test ends, passed or not.
struct Browser(Child);

impl Drop for Browser {
    fn drop(&mut self) {
        let group = format!("-{}", self.0.id());
        let _ = Command::new("kill").args(["-KILL", "--", &group]).status();
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `Chromium 156.0.8078.108 built on Debian …` → `156.0.8078.108`.
fn reported_version() -> String {
    let out = Command::new(CHROMIUM)
        .arg("--version")
        .stderr(Stdio::null())
        .output()
        .expect("chromium --version runs");
    let text = String::from_utf8_lossy(&out.stdout);
    text.split_whitespace()
        .find(|w| w.chars().next().is_some_and(|c| c.is_ascii_digit()) && w.contains('.'))
        .unwrap_or_else(|| panic!("a version in {text:?}"))
        .to_string()
}

fn start(profile: &Path, home: &Path) -> Browser {
    use std::os::unix::process::CommandExt;
    let child = Command::new(CHROMIUM)
        .args([
            "--headless",
            "--remote-debugging-port=0",
            &format!("--user-data-dir={}", profile.display()),
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "about:blank",
        ])
        .env("HOME", home)
        // Chromium makes its singleton socket's folder in TMPDIR; a killed one leaves it.
        .env("TMPDIR", home)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .expect("chromium starts");
    Browser(child)
}

#[test]
fn a_headless_chromium_is_found_by_the_process_scan() {
    if needs::missing(CHROMIUM, Path::new(CHROMIUM).exists()) {
        return;
    }
    let version = reported_version();
    let tmp = tempfile::tempdir().unwrap();
    let profile = tmp.path().join("profile");
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let mut browser = start(&profile, &home);

    let active_port = profile.join("DevToolsActivePort");
    let deadline = Instant::now() + Duration::from_secs(60);
    let port: u16 = loop {
        if let Some(port) = std::fs::read_to_string(&active_port)
            .ok()
            .and_then(|t| t.lines().next().and_then(|l| l.trim().parse().ok()))
        {
            break port;
        }
        if let Ok(Some(status)) = browser.0.try_wait() {
            panic!("chromium exited before writing DevToolsActivePort: {status}");
        }
        assert!(
            Instant::now() < deadline,
            "chromium wrote no DevToolsActivePort within a minute"
        );
        std::thread::sleep(Duration::from_millis(100));
    };

    let env: BTreeMap<String, String> = [("PATH".to_string(), "/usr/bin:/bin".to_string())].into();
    let host = SystemHost::isolated(home.to_str().unwrap(), env);
    let mut options = Options::new(Os::Linux);
    options.probe_ports.clear(); // never probe 9222-9229: a developer's own browser lives there
    let out = discover(&host, &options);

    let dir = profile.to_str().unwrap();
    let entry = out
        .entries
        .iter()
        .find(|e| {
            e.endpoint
                .as_ref()
                .and_then(|ep| ep.user_data_dir.as_deref())
                == Some(dir)
        })
        .unwrap_or_else(|| panic!("the started browser in {:#?}", out.entries));
    let ep = entry.endpoint.as_ref().unwrap();
    assert_eq!(entry.id, format!("cdp:127.0.0.1:{port}"));
    assert_eq!(ep.cdp, format!("http://127.0.0.1:{port}"));
    assert_eq!(ep.source, Source::Process, "found through the process scan");
    assert_eq!(ep.version.as_deref(), Some(version.as_str()));
    assert_eq!(entry.version.as_deref(), Some(version.as_str()));
    let product = ep.product.as_deref().unwrap();
    assert!(
        product == format!("HeadlessChrome/{version}") || product == format!("Chrome/{version}"),
        "{product}"
    );
    assert!(ep
        .web_socket_debugger_url
        .starts_with(&format!("ws://127.0.0.1:{port}/devtools/browser/")));
    assert_eq!(entry.tier, 2);
    assert!(!ep.six && !ep.ws_only);

    let installed = installed::scan(&host, Os::Linux);
    let chromium = installed
        .iter()
        .find(|r| r.path == CHROMIUM)
        .unwrap_or_else(|| panic!("{CHROMIUM} among {installed:#?}"));
    assert_eq!(chromium.id, "chromium");
    assert_eq!(chromium.engine, "chromium");
    assert_eq!(
        chromium.version.as_deref(),
        Some(version.as_str()),
        "dpkg's version, without the Debian revision"
    );
    drop(browser);
}
