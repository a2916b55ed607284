//! `fixture.mjs` is the stand-in: the same raw requests sent to it and to the crate's stand-in
//! (`harness::fixture::Fixture`) get the same status, headers and body, and are logged as the
//! same entries (`url` with the Host header, `method`, `headers`). With `tls` it serves HTTPS and
//! logs `https://<Host>` URLs. Skipped (with the reason printed) without node, unless `CI` is set.
#![cfg(all(feature = "cli-full", unix))]

use crate::needs;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::Value;
use slicc_browsers::harness::fixture::{Fixture, FixtureOptions};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

struct Kill(Child);

impl Drop for Kill {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Sends one raw request (with `Connection: close`) and returns (status, headers, body);
/// headers lower-cased, sorted, without the ones only a server's framing adds.
fn exchange(port: u16, request: &str) -> (u16, Vec<(String, String)>, Vec<u8>) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connects");
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.write_all(request.as_bytes()).unwrap();
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a response head");
    let head = String::from_utf8_lossy(&raw[..split]).to_string();
    let body = raw[split + 4..].to_vec();
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|c| c.parse().ok())
        .expect("a status");
    let mut headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .filter(|(k, _)| !matches!(k.as_str(), "date" | "connection" | "keep-alive"))
        .collect();
    headers.sort();
    (status, headers, body)
}

fn request(method: &str, target: &str, extra: &str) -> String {
    format!(
        "{method} {target} HTTP/1.1\r\nHost: seven.sliccy.ai\r\nUser-Agent: t\r\n{extra}Connection: close\r\nContent-Length: 0\r\n\r\n"
    )
}

const TARGETS: [(&str, &str, &str); 20] = [
    ("GET", "/doc?n=t1", ""),
    ("GET", "/doc?n=t1%3Cb%3E&csp=1", ""),
    ("GET", "/hop?code=302&to=http%3A%2F%2Fx.test%2Fdoc%3Fn%3Dt1", ""),
    ("GET", "/hop?code=307&to=http%3A%2F%2Fx.test%2F", "Origin: http://a.test\r\n"),
    ("GET", "/hop?code=200&to=x", ""),
    ("GET", "/hop?code=301", ""),
    ("GET", "/framed?src=http%3A%2F%2Fa.test%2F%22%3Cx%3E", ""),
    ("GET", "/framed", ""),
    ("GET", "/data?n=t1", "Origin: http://a.test\r\n"),
    ("GET", "/img?t1", ""),
    ("GET", "/live?n=t1", ""),
    ("GET", "/auth?t1", ""),
    ("GET", "/auth/t1", "Authorization: Basic dTpw\r\n"),
    ("GET", "/rewritten?t1", ""),
    ("GET", "/plant?n=t1", ""),
    ("GET", "/plant?tag=t1&name=c1&value=v%C3%A9", ""),
    ("POST", "/beacon?tag=t1&origin=http%3A%2F%2Fa.test", ""),
    (
        "OPTIONS",
        "/data?n=t1",
        "Origin: http://a.test\r\nAccess-Control-Request-Method: PUT\r\nAccess-Control-Request-Headers: x-a\r\n",
    ),
    ("GET", "/nope?t1", ""),
    ("HEAD", "/doc?n=t1", ""),
];

fn node_fixture(args: &[&str]) -> (Kill, String) {
    let mut child = Kill(
        Command::new("node")
            .arg(root().join("tests/js/serve-fixture.mjs"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("node starts"),
    );
    let mut first = String::new();
    BufReader::new(child.0.stdout.take().expect("stdout"))
        .read_line(&mut first)
        .expect("fixture.mjs prints its origin");
    (child, first.trim().to_string())
}

fn port_of(origin: &str) -> u16 {
    origin
        .rsplit(':')
        .next()
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no port in {origin:?}"))
}

/// The log as `/log?n=t1` answers it, without the times.
fn log_of(port: u16) -> Value {
    let (_, _, body) = exchange(port, &request("GET", "/log?n=t1", ""));
    let mut v: Value = serde_json::from_slice(&body).expect("JSON");
    for list in ["hits", "beacons"] {
        for e in v[list].as_array_mut().expect("a list") {
            e.as_object_mut().unwrap().remove("time");
        }
    }
    v
}

#[test]
fn fixture_mjs_answers_and_logs_as_the_crate_stand_in() {
    if needs::missing("node", needs::node()) {
        return;
    }
    let rust = Fixture::start(FixtureOptions::default()).expect("the stand-in starts");
    let (_node, origin) = node_fixture(&[]);
    let node_port = port_of(&origin);
    assert!(origin.starts_with("http://127.0.0.1:"), "{origin}");
    let mut differ = Vec::new();
    for (method, target, extra) in TARGETS {
        let req = request(method, target, extra);
        let a = exchange(rust.port(), &req);
        let b = exchange(node_port, &req);
        if a != b {
            differ.push(format!(
                "{method} {target}:\n  crate {} {:?} {:?}\n  node  {} {:?} {:?}",
                a.0,
                a.1,
                String::from_utf8_lossy(&a.2),
                b.0,
                b.1,
                String::from_utf8_lossy(&b.2)
            ));
        }
    }
    let (a, b) = (log_of(rust.port()), log_of(node_port));
    assert_eq!(
        a["hits"].as_array().map(Vec::len),
        Some(TARGETS.iter().filter(|t| t.1.contains("t1")).count()),
        "every request naming t1 is logged"
    );
    if a != b {
        differ.push(format!("/log:\n  crate {a}\n  node  {b}"));
    }
    rust.close();
    assert!(differ.is_empty(), "{}", differ.join("\n"));
}

#[test]
fn fixture_mjs_serves_https_with_tls_and_logs_https_urls() {
    if needs::missing("node", needs::node()) {
        return;
    }
    let have_openssl = Command::new("openssl")
        .arg("version")
        .output()
        .is_ok_and(|o| o.status.success());
    if needs::missing("openssl", have_openssl) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (key, cert) = (dir.path().join("key.pem"), dir.path().join("cert.pem"));
    let made = Command::new("openssl")
        .args([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj",
        ])
        .arg("/CN=seven.sliccy.ai")
        .arg("-keyout")
        .arg(&key)
        .arg("-out")
        .arg(&cert)
        .output()
        .expect("openssl runs");
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let (_node, origin) = node_fixture(&[
        "--tls-key",
        key.to_str().unwrap(),
        "--tls-cert",
        cert.to_str().unwrap(),
    ]);
    assert!(origin.starts_with("https://127.0.0.1:"), "{origin}");
    let script = format!(
        "process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';\n\
         const https = await import('node:https');\n\
         const get = (path) => new Promise((resolve, reject) => https.get({{ host: '127.0.0.1', port: {port}, path, headers: {{ host: 'seven.sliccy.ai' }}, rejectUnauthorized: false }}, (r) => {{ let b = ''; r.on('data', (d) => b += d); r.on('end', () => resolve({{ status: r.statusCode, location: r.headers.location, body: b }})); }}).on('error', reject));\n\
         const hop = await get('/hop?code=302&to=' + encodeURIComponent('https://vault.sliccy.ai/doc?n=t9'));\n\
         const doc = await get('/doc?n=t9');\n\
         const log = JSON.parse((await get('/log?n=t9')).body);\n\
         console.log(JSON.stringify({{ hop, doc: doc.body, urls: log.hits.map((h) => h.url) }}));",
        port = port_of(&origin)
    );
    let out = needs::succeeded(
        "node",
        Command::new("node")
            .args(["--input-type=module", "-e", &script])
            .output(),
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["hop"]["status"], 302);
    assert_eq!(v["hop"]["location"], "https://vault.sliccy.ai/doc?n=t9");
    assert!(
        v["doc"]
            .as_str()
            .unwrap()
            .contains("<img src=\"/live?n=t9\""),
        "the document's heartbeat is on its own (https) origin: {}",
        v["doc"]
    );
    let urls: Vec<&str> = v["urls"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(
        urls,
        [
            "https://seven.sliccy.ai/hop?code=302&to=https%3A%2F%2Fvault.sliccy.ai%2Fdoc%3Fn%3Dt9",
            "https://seven.sliccy.ai/doc?n=t9",
        ]
    );
}
