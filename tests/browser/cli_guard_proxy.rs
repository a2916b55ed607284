//! `slicc-browsers guard proxy` as an operator meets it: one line of words on stderr per
//! refusal (the method, the protected origin, why), nothing of the kind with `--quiet`; an
//! `--upstream` where no DevTools WebSocket answers fails at start; and when the browser goes
//! away the proxy says so and exits 1.
//!
//! Skipped (with the reason printed) without /usr/bin/chromium, unless `CI` is set.
#![cfg(all(feature = "cli-full", unix))]

use crate::needs;

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::json;
use slicc_browsers::harness::cdp::{CdpClient, CdpOptions};
use slicc_browsers::harness::fixture::{Fixture, FixtureOptions};
use slicc_browsers::harness::runner::Transport;
use slicc_browsers::harness::selftest::Chromium;

const CHROMIUM: &str = "/usr/bin/chromium";

/// The proxy process, killed when the test ends however it ends.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `guard proxy` in front of `upstream` with `extra` arguments: the process, its
/// endpoint (from its first stdout line), and its stderr lines as they come.
fn start(
    upstream: &str,
    profile: &str,
    extra: &[&str],
) -> (Running, String, mpsc::Receiver<String>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_slicc-browsers"))
        .args([
            "guard",
            "proxy",
            "--upstream",
            upstream,
            "--listen",
            "127.0.0.1:0",
        ])
        .args(["--protect-path", profile])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let stdout = child.stdout.take().expect("stdout");
    let stderr = child.stderr.take().expect("stderr");
    let running = Running(child);
    let endpoint = crate::proxy_common::proxy_endpoint(stdout);
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    (running, endpoint, rx)
}

/// The stderr lines that come within `within`.
fn lines_within(rx: &mpsc::Receiver<String>, within: Duration) -> Vec<String> {
    let deadline = Instant::now() + within;
    let mut lines = Vec::new();
    while let Some(left) = deadline.checked_duration_since(Instant::now()) {
        match rx.recv_timeout(left) {
            Ok(line) => lines.push(line),
            Err(_) => break,
        }
    }
    lines
}

#[test]
fn refusals_are_told_in_words_and_a_browser_gone_ends_the_proxy() {
    if needs::missing("/usr/bin/chromium", needs::chromium()) {
        return;
    }
    let fixture = Fixture::start(FixtureOptions::default()).expect("the fixture serves");
    let browser = Chromium::launch(CHROMIUM, &["*.sliccy.ai", "sliccy.ai"], fixture.port())
        .expect("chromium serves CDP");
    let profile = browser.profile_dir().display().to_string();
    let refuse = |endpoint: &str| {
        let client = CdpClient::connect_endpoint(endpoint, CdpOptions::new()).expect("a client");
        let answer = client.send(
            "Target.createTarget",
            json!({"url": "https://vault.sliccy.ai/doc?n=cli"}),
            None,
        );
        assert!(answer.is_err(), "the vault was not refused: {answer:?}");
    };

    // By default: a line of words per refusal, naming the method and the origin.
    let (mut proxy, endpoint, rx) = start(&browser.http_url(), &profile, &[]);
    refuse(&endpoint);
    let lines = lines_within(&rx, Duration::from_secs(3));
    assert!(
        lines.iter().any(
            |l| l.starts_with("guard proxy: refused Target.createTarget")
                && l.contains("(https://vault.sliccy.ai)")
        ),
        "no refusal line: {lines:#?}"
    );
    // --quiet: none.
    let (quiet, quiet_endpoint, quiet_rx) = start(&browser.http_url(), &profile, &["--quiet"]);
    refuse(&quiet_endpoint);
    let said = lines_within(&quiet_rx, Duration::from_secs(2));
    assert!(
        !said.iter().any(|l| l.contains("refused")),
        "--quiet still said: {said:#?}"
    );
    drop(quiet);

    // The browser goes away: the proxy says so and exits 1.
    drop(browser);
    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(status) = proxy.0.try_wait().expect("the proxy's status") {
            break Some(status);
        }
        if Instant::now() > deadline {
            break None;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let said = lines_within(&rx, Duration::from_millis(500));
    assert_eq!(
        status.and_then(|s| s.code()),
        Some(1),
        "the proxy did not exit 1 when the browser went away; it said {said:#?}"
    );
    assert!(
        said.iter().any(|l| l.contains("went away")),
        "the proxy did not say the browser went away: {said:#?}"
    );
}

#[test]
fn an_upstream_that_is_no_devtools_endpoint_fails_at_start() {
    // A port nothing listens on (bound, then let go), and a plain HTTP server.
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let http = std::net::TcpListener::bind("127.0.0.1:0").expect("a listener");
    let http_port = http.local_addr().expect("its address").port();
    std::thread::spawn(move || {
        for stream in http.incoming().flatten() {
            let mut s = stream;
            let mut buf = [0u8; 1024];
            let _ = s.read(&mut buf);
            let _ = std::io::Write::write_all(
                &mut s,
                b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi",
            );
        }
    });
    for upstream in [
        format!("ws://127.0.0.1:{closed}/devtools/browser/x"),
        format!("ws://127.0.0.1:{http_port}/devtools/browser/x"),
        format!("http://127.0.0.1:{http_port}"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_slicc-browsers"))
            .args(["guard", "proxy", "--upstream", &upstream, "--quiet"])
            .args(["--protect-path", "/nonexistent-profile"])
            .output()
            .expect("the binary runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{upstream}: {stderr}");
        assert!(
            stderr.contains("--upstream") || stderr.contains("version"),
            "{upstream}: {stderr}"
        );
    }
}
