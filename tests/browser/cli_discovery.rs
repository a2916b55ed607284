//! The `list` and `conformance corpus` commands, run as a user would. `list` runs with
//! `SLICC_DISCOVERY` narrowing it to a temporary home and a browser stand-in this test
//! serves itself, so it never reads the machine's own browsers or processes.
#![cfg(all(unix, feature = "cli", feature = "validate"))]

use crate::needs;

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_slicc-browsers");

/// A stand-in browser on a free loopback port: `/json/version` and `/json/list` answer, with
/// one seven tab.
fn stand_in() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            let mut buf = [0u8; 2048];
            let n = stream.read(&mut buf).unwrap_or(0);
            let request = String::from_utf8_lossy(&buf[..n]);
            let body = if request.starts_with("GET /json/version ") {
                format!(
                    r#"{{"Browser":"Chrome/150.0.7800.12","User-Agent":"Mozilla/5.0 Chrome/150.0.7800.12","webSocketDebuggerUrl":"ws://127.0.0.1:{port}/devtools/browser/cli"}}"#
                )
            } else if request.starts_with("GET /json/list ") {
                r#"[{"id":"T1","type":"page","title":"seven","url":"https://seven.sliccy.ai/"}]"#
                    .to_string()
            } else {
                let _ = stream.write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n");
                continue;
            };
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            );
        }
    });
    port
}

fn list(home: &Path, mode: &str, path: &str, args: &[&str]) -> Output {
    Command::new(BIN)
        .arg("list")
        .args(args)
        .env_clear()
        .env("HOME", home)
        .env("PATH", path)
        .env("SLICC_DISCOVERY", mode)
        .output()
        .expect("slicc-browsers runs")
}

fn browsers_schema_problems(value: &Value) -> Vec<String> {
    let schema: Value = serde_json::from_str(slicc_browsers::BROWSERS_SCHEMA).unwrap();
    slicc_browsers::validate::schema_problems(
        "list --json",
        "schema/browsers.schema.json",
        &schema,
        value,
    )
    .into_iter()
    .map(|p| p.to_string())
    .collect()
}

#[test]
fn list_json_is_output_schema_1() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let port = stand_in();
    // The stand-in's DevToolsActivePort in Chromium's default dir (Linux layout; macOS: the
    // Application Support one), and a Chromium binary on a PATH of our own.
    let env = |_: &str| None;
    let cat = slicc_browsers::shared_catalog();
    let os = slicc_browsers::catalog::Os::current().unwrap();
    let dir = cat.user_data_dirs(
        cat.browser("chromium").unwrap(),
        os,
        home.to_str().unwrap(),
        &env,
    )[0]
    .clone();
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        Path::new(&dir).join("DevToolsActivePort"),
        format!("{port}\n/devtools/browser/cli\n"),
    )
    .unwrap();
    let bin = tmp.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::write(bin.join("chromium"), "#!/bin/sh\n").unwrap();

    let cdp = format!("localhost:{port}");
    let out = list(
        &home,
        "home",
        bin.to_str().unwrap(),
        &["--json", "--cdp", &cdp],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let value: Value = serde_json::from_slice(&out.stdout).expect("list --json prints JSON");
    assert_eq!(browsers_schema_problems(&value), Vec::<String>::new());
    let ids: Vec<&str> = value["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_str().unwrap())
        .collect();
    let endpoint_id = format!("cdp:127.0.0.1:{port}");
    if os == slicc_browsers::catalog::Os::Linux {
        assert_eq!(ids, vec![endpoint_id.as_str(), "chromium"]);
    } else {
        assert_eq!(ids, vec![endpoint_id.as_str()]);
    }
    let endpoint = &value["entries"][0]["endpoint"];
    assert_eq!(value["entries"][0]["tier"], 1, "a seven tab makes tier 1");
    assert_eq!(
        endpoint["source"], "devtools-active-port",
        "the file outranks the flag"
    );
    assert_eq!(endpoint["browser"], "chromium");
    assert_eq!(endpoint["name"], "Chromium");
    assert_eq!(endpoint["sevenTabs"][0]["id"], "T1");

    let isolated = list(&home, "isolated", bin.to_str().unwrap(), &["--json"]);
    let value: Value = serde_json::from_slice(&isolated.stdout).unwrap();
    assert_eq!(
        value["entries"],
        Value::Array(Vec::new()),
        "isolated reads nothing without --cdp"
    );

    let table = list(&home, "home", bin.to_str().unwrap(), &["--cdp", &cdp]);
    let text = String::from_utf8(table.stdout).unwrap();
    let mut lines = text.lines();
    assert!(lines.next().unwrap().starts_with("TIER  ID"), "{text}");
    let row = lines.next().unwrap();
    assert!(
        row.starts_with(&format!(
            "1     {endpoint_id}  Chromium  150.0.7800.12  devtools-active-port"
        )),
        "{text}"
    );
}

#[test]
fn list_lists_debian_chromium() {
    if needs::missing("/usr/bin/chromium", needs::chromium()) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let out = list(tmp.path(), "installed", "/usr/bin:/bin", &["--json"]);
    let value: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(browsers_schema_problems(&value), Vec::<String>::new());
    let chromium = value["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["installed"]["path"] == "/usr/bin/chromium")
        .unwrap_or_else(|| panic!("chromium in {value:#}"));
    assert_eq!(chromium["id"], "chromium");
    assert_eq!(chromium["tier"], 4);
}

#[test]
fn conformance_corpus_passes_and_reports_failures() {
    let out = Command::new(BIN)
        .args(["conformance", "corpus"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{text}");
    let last = text.lines().last().unwrap();
    assert!(
        last.ends_with(" passed, 0 failed") && !last.starts_with("0 "),
        "{last}"
    );

    let mut corpus: Value = serde_json::from_str(slicc_browsers::CORPUS).unwrap();
    let case = corpus["cases"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|c| c["name"] == "flag-bare-port")
        .unwrap();
    case["expected"]["entries"][0]["tier"] = 1.into();
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("corpus.json");
    std::fs::write(&file, corpus.to_string()).unwrap();
    let out = Command::new(BIN)
        .args([
            "conformance",
            "corpus",
            file.to_str().unwrap(),
            "--os",
            "windows",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(!out.status.success());
    assert!(
        text.contains("FAIL flag-bare-port (windows)\n  /entries/0/tier: expected 1, got 2\n"),
        "{text}"
    );
    assert!(text.trim_end().ends_with(" passed, 1 failed"), "{text}");
}

/// A stand-in whose `/json/version` names its product with terminal control sequences, as
/// any process on the machine may serve.
fn hostile_stand_in() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            let mut buf = [0u8; 2048];
            let n = stream.read(&mut buf).unwrap_or(0);
            let request = String::from_utf8_lossy(&buf[..n]);
            let body = if request.starts_with("GET /json/version ") {
                format!(
                    r#"{{"Browser":"Evil\u001b]0;owned\u0007\u001b[2J/150.0.7800.12\u001b[31m","User-Agent":"Mozilla/5.0 Chrome/150.0.7800.12","webSocketDebuggerUrl":"ws://127.0.0.1:{port}/devtools/browser/cli"}}"#
                )
            } else if request.starts_with("GET /json/list ") {
                "[]".to_string()
            } else {
                let _ = stream.write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n");
                continue;
            };
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            );
        }
    });
    port
}

#[test]
fn the_table_shows_control_characters_escaped() {
    // The table printed an endpoint's product and version as served: escape sequences
    // reached the user's terminal (here: set its title, clear the screen, turn text red).
    let home = tempfile::tempdir().unwrap();
    let port = hostile_stand_in();
    let cdp = format!("127.0.0.1:{port}");
    let o = list(home.path(), "isolated", "/usr/bin:/bin", &["--cdp", &cdp]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.contains(&format!("cdp:127.0.0.1:{port}")), "{out}");
    assert!(!out.chars().any(|c| c.is_control() && c != '\n'), "{out:?}");
    assert!(out.contains(r"Evil\u{1b}]0;owned\u{7}\u{1b}[2J"), "{out}");
    // --json keeps the text as served (JSON escapes it).
    let o = list(
        home.path(),
        "isolated",
        "/usr/bin:/bin",
        &["--json", "--cdp", &cdp],
    );
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["entries"][0]["name"], "Evil\u{1b}]0;owned\u{7}\u{1b}[2J");
}
