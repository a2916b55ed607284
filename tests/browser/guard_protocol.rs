//! The guard's table of every CDP command (`guard::policy::table`, `commands.json`) against
//! the protocol of the installed Chromium: its `/json/protocol` (a headless Chromium this test
//! launches, temporary profile, `--remote-debugging-port=0`) lists every domain's commands,
//! parameters and events, and the test fails naming each one the table lacks. A Chromium
//! upgrade is then a decision written into the table, not a command forwarded unseen.
//!
//! Skipped (with the reason printed) without /usr/bin/chromium, unless `CI` is set.
#![cfg(all(feature = "guard", feature = "guard-runner", unix))]

use crate::needs;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use serde_json::Value;
use slicc_browsers::guard::policy::table::{table, Class};
use slicc_browsers::harness::selftest::Chromium;

const CHROMIUM: &str = "/usr/bin/chromium";

/// The body of an HTTP GET of `path` on `base` (`http://host:port`), read to its
/// `Content-Length`.
fn get(base: &str, path: &str) -> String {
    let addr = base.trim_start_matches("http://");
    let mut s = TcpStream::connect(addr).unwrap_or_else(|e| panic!("connects to {addr}: {e}"));
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    write!(s, "GET {path} HTTP/1.1\r\nHost: {addr}\r\n\r\n").unwrap();
    let mut buf = Vec::new();
    let mut chunk = [0u8; 65536];
    loop {
        let n = s
            .read(&mut chunk)
            .unwrap_or_else(|e| panic!("reads {path}: {e}"));
        if n == 0 {
            break;
        }
        buf.extend_from_slice(&chunk[..n]);
        let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") else {
            continue;
        };
        let head = String::from_utf8_lossy(&buf[..end]).to_ascii_lowercase();
        let len = head
            .lines()
            .find_map(|l| l.strip_prefix("content-length:"))
            .and_then(|v| v.trim().parse::<usize>().ok());
        if len.is_some_and(|len| buf.len() >= end + 4 + len) {
            return String::from_utf8_lossy(&buf[end + 4..end + 4 + len.unwrap_or(0)]).into_owned();
        }
    }
    panic!("{path}: the connection closed before the whole body came");
}

#[test]
fn the_table_covers_the_installed_chromiums_protocol() {
    if needs::missing(CHROMIUM, needs::chromium()) {
        return;
    }
    let mut browser = Chromium::launch(CHROMIUM, &[], 1).expect("chromium serves CDP");
    let body = get(&browser.http_url(), "/json/protocol");
    let version = get(&browser.http_url(), "/json/version");
    browser.kill();
    let protocol: Value = serde_json::from_str(&body).expect("/json/protocol is JSON");
    let domains = protocol["domains"].as_array().map_or(0, Vec::len);
    assert!(domains > 40, "/json/protocol lists {domains} domains");
    let t = table();
    let missing = t.missing(&protocol);
    let counts = t.counts();
    println!(
        "table of Chromium {}: {}; installed: {}",
        t.chromium,
        counts
            .iter()
            .map(|(c, n)| format!("{} {n}", c.name()))
            .collect::<Vec<_>>()
            .join(", "),
        serde_json::from_str::<Value>(&version).unwrap_or_default()["Browser"]
    );
    assert!(
        missing.is_empty(),
        "the guard's table (src/guard/policy/commands.json) lacks {} of the installed Chromium's protocol; classify each (forward, judge, answer or refuse, every parameter with its judge):\n{}",
        missing.len(),
        missing.join("\n")
    );
    // Every class is used, and a refused command says why.
    assert!(counts.iter().all(|(_, n)| *n > 0), "{counts:?}");
    for (name, e) in t.commands() {
        if e.class == Class::Refuse {
            assert!(e.why.as_deref().is_some_and(|w| w.len() > 10), "{name}");
        }
    }
}
