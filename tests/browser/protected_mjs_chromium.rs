//! The npm package's matcher in a browser: `protected.mjs` runs every vector of
//! `protected.json` inside headless Chromium, where `new URL()` is Blink's (Chromium's own URL
//! canonicalizer and its ICU, with the UTS 46 table of the Unicode version Chromium ships), beside
//! the Node run of `tests/node_go/npm_package.rs`.
//!
//! The test serves `catalog.json`, `protected.json` and `protected.mjs` (the crate's own files,
//! as the package ships them) and a page that imports the module from a small HTTP server of its
//! own on `127.0.0.1`, which Chromium reaches under a name of its own through
//! `--host-resolver-rules`. The page posts every answer back, with Blink's reading of each input
//! (`URL.href`, or `null` when it throws). The browser is headless, in a temporary profile, with
//! `--remote-debugging-port=0`, in its own process group, which is killed when the test ends,
//! passed or failed. The first test fails on any vector whose answer differs from the file's,
//! and prints each. The second reads every non-ASCII character of the vectors in a host, in
//! Chromium and in Node (tables of different Unicode versions), and fails on one both read as
//! different text: a vector holding it would have an answer that depends on the reader's
//! Unicode version (`docs/protected-amendments.md`). Without `/usr/bin/chromium` (or `node`,
//! for the second) they print why and pass (fail when `CI` is set).
#![cfg(all(target_os = "linux", feature = "serde"))]

use crate::needs;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{channel, Sender};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::Value;

const CHROMIUM: &str = "/usr/bin/chromium";

/// The name the page is served under; `--host-resolver-rules` maps it to the test's server.
const HOST: &str = "protected-mjs.test";

/// The page's module: imports `protected.mjs`, runs every vector of `protected.json`, posts the
/// answers (or the error) to `/result`.
const RUN_MJS: &str = r#"
const send = (body) => fetch('/result', { method: 'POST', body: JSON.stringify(body) });
try {
  const { protectedOrigins } = await import('./protected.mjs');
  const [catalog, vectors] = await Promise.all(
    ['catalog.json', 'protected.json'].map((f) => fetch(f).then((r) => r.json())));
  const m = protectedOrigins(catalog.protectedOrigins, vectors.origins);
  const blink = (text) => { try { return new URL(text).href; } catch { return null; } };
  const codePoints = await fetch('code-points.json').then((r) => r.json());
  const host = (text) => { try { return new URL(text).hostname; } catch { return null; } };
  await send({
    userAgent: navigator.userAgent,
    hosts: codePoints.map((c) => host('http://a' + String.fromCodePoint(c) + 'a/')),
    urls: vectors.urls.map((v) => [m.url(v.url), blink(v.url)]),
    targets: vectors.targets.map((v) => [m.target(v), blink(v.url)]),
    cookieDomains: vectors.cookieDomains.map((v) =>
      [m.cookieDomain(v.domain), blink('http://' + v.domain.replace(/^\./, ''))]),
    storageKeys: vectors.storageKeys.map((v) => [m.storageKey(v.key), blink(v.key.split('^')[0])]),
  });
} catch (e) {
  await send({ error: String((e && e.stack) || e) });
}
"#;

const PAGE: &str =
    "<!doctype html><meta charset=\"utf-8\"><title>protected.mjs</title><script type=\"module\" src=\"run.mjs\"></script>";

/// `protected.mjs` from the crate's directory (it is the npm package's file, not in the crate's
/// package, so it is read at run time), or `None` when it is not there.
fn protected_mjs() -> Option<&'static str> {
    static TEXT: OnceLock<Option<String>> = OnceLock::new();
    TEXT.get_or_init(|| {
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/protected.mjs")).ok()
    })
    .as_deref()
}

/// One file the server serves: its path, content type and body.
fn file(path: &str) -> Option<(&'static str, &'static str)> {
    Some(match path {
        "/" => ("text/html; charset=utf-8", PAGE),
        "/run.mjs" => ("text/javascript; charset=utf-8", RUN_MJS),
        "/protected.mjs" => ("text/javascript; charset=utf-8", protected_mjs()?),
        "/protected.json" => (
            "application/json; charset=utf-8",
            include_str!("../../protected.json"),
        ),
        "/catalog.json" => (
            "application/json; charset=utf-8",
            include_str!("../../catalog.json"),
        ),
        "/code-points.json" => ("application/json", code_points_json()),
        _ => return None,
    })
}

/// Serves one HTTP/1.1 request on `stream`: a file, or the posted result (sent on `results`).
fn serve(stream: TcpStream, results: Sender<Vec<u8>>) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
    let mut reader = BufReader::new(match stream.try_clone() {
        Ok(s) => s,
        Err(_) => return,
    });
    let mut request = String::new();
    if reader.read_line(&mut request).is_err() {
        return;
    }
    let mut length = 0usize;
    loop {
        let mut line = String::new();
        match reader.read_line(&mut line) {
            Ok(0) | Err(_) => return,
            Ok(_) if line.trim_end().is_empty() => break,
            Ok(_) => {
                if let Some((name, value)) = line.split_once(':') {
                    if name.eq_ignore_ascii_case("content-length") {
                        length = value.trim().parse().unwrap_or(0);
                    }
                }
            }
        }
    }
    let mut parts = request.split_whitespace();
    let (method, path) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let mut stream = stream;
    if method == "POST" && path == "/result" {
        let mut body = vec![0u8; length];
        if reader.read_exact(&mut body).is_ok() {
            let _ = results.send(body);
        }
        let _ = stream.write_all(
            b"HTTP/1.1 204 No Content\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
        );
        return;
    }
    let (status, kind, body) = match file(path) {
        Some((kind, body)) => ("200 OK", kind, body),
        None => ("404 Not Found", "text/plain", "not found"),
    };
    let _ = write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
}

/// The headless Chromium of this test; its whole process group is killed when it drops.
struct Browser {
    child: Child,
    _dir: tempfile::TempDir,
}

impl Drop for Browser {
    fn drop(&mut self) {
        let group = format!("-{}", self.child.id());
        let _ = Command::new("kill").args(["-KILL", "--", &group]).status();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(port: u16) -> Browser {
    use std::os::unix::process::CommandExt;
    let dir = tempfile::tempdir().expect("a temp dir");
    let child = Command::new(CHROMIUM)
        .args([
            "--headless=new",
            "--remote-debugging-port=0",
            &format!("--user-data-dir={}", dir.path().join("profile").display()),
            &format!("--host-resolver-rules=MAP {HOST} 127.0.0.1:{port}"),
            "--no-proxy-server",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            &format!("http://{HOST}/"),
        ])
        .env("HOME", dir.path())
        // Chromium makes its singleton socket's folder in TMPDIR; a killed one leaves it.
        .env("TMPDIR", dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .expect("chromium starts");
    Browser { child, _dir: dir }
}

/// The file's vectors.
fn vectors() -> Value {
    serde_json::from_str(include_str!("../../protected.json")).expect("protected.json parses")
}

/// Every input text of the file, with its kind: URLs, target URLs, cookie domains, storage keys.
fn inputs(vectors: &Value) -> Vec<(&'static str, Value, String)> {
    let mut out = Vec::new();
    for (kind, member) in [
        ("urls", "url"),
        ("targets", "url"),
        ("cookieDomains", "domain"),
        ("storageKeys", "key"),
    ] {
        for v in vectors[kind].as_array().expect("a vector array") {
            let text = v[member].as_str().expect("a string input").to_string();
            out.push((kind, v.clone(), text));
        }
    }
    out
}

/// `text` with its `%XX` escapes decoded (as UTF-8, invalid sequences as U+FFFD).
fn percent_decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The code points outside ASCII that the file's inputs hold, as written or percent-escaped.
fn code_points(vectors: &Value) -> Vec<u32> {
    let mut set = std::collections::BTreeSet::new();
    for (_, _, text) in inputs(vectors) {
        for c in text.chars().chain(percent_decoded(&text).chars()) {
            if !c.is_ascii() && c != '\u{fffd}' {
                set.insert(u32::from(c));
            }
        }
    }
    set.into_iter().collect()
}

fn code_points_json() -> &'static str {
    static JSON: OnceLock<String> = OnceLock::new();
    JSON.get_or_init(|| serde_json::to_string(&code_points(&vectors())).unwrap())
}

/// The page's answers, what it posted to `/result`: run once, shared by the tests.
fn answers() -> &'static Value {
    static ANSWERS: OnceLock<Value> = OnceLock::new();
    ANSWERS.get_or_init(run_in_chromium)
}

/// Runs the page in a headless Chromium of its own and returns what it posted.
fn run_in_chromium() -> Value {
    let server = TcpListener::bind("127.0.0.1:0").expect("a port for the page's server");
    let port = server.local_addr().unwrap().port();
    let (tx, results) = channel();
    std::thread::spawn(move || {
        for stream in server.incoming().flatten() {
            let tx = tx.clone();
            std::thread::spawn(move || serve(stream, tx));
        }
    });
    let mut browser = start(port);
    let deadline = Instant::now() + Duration::from_secs(180);
    let body = loop {
        if let Ok(body) = results.recv_timeout(Duration::from_millis(200)) {
            break body;
        }
        if let Ok(Some(status)) = browser.child.try_wait() {
            panic!("chromium exited ({status}) before the page posted its answers");
        }
        assert!(
            Instant::now() < deadline,
            "the page posted no answers within 180 s"
        );
    };
    drop(browser);
    let answer: Value = serde_json::from_slice(&body).expect("the page posts JSON");
    if let Some(error) = answer.get("error") {
        panic!("the page failed: {}", error.as_str().unwrap_or_default());
    }
    answer
}

/// `text` quoted, with every character outside printable ASCII written as `\u{..}`.
fn visible(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        if c == ' ' || c.is_ascii_graphic() {
            out.push(c);
        } else {
            out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        }
    }
    out.push('"');
    out
}

#[test]
fn protected_mjs_in_chromium_passes_every_vector() {
    if needs::missing(CHROMIUM, needs::chromium())
        || needs::missing("protected.mjs", protected_mjs().is_some())
    {
        return;
    }
    let vectors = vectors();
    let answer = answers();
    let inputs = inputs(&vectors);
    let mut got = Vec::new();
    for kind in ["urls", "targets", "cookieDomains", "storageKeys"] {
        got.extend(answer[kind].as_array().expect("the page's answers").iter());
    }
    assert_eq!(got.len(), inputs.len(), "the page answered every vector");
    let mut disagreements = Vec::new();
    for ((kind, vector, text), got) in inputs.iter().zip(got) {
        let want = vector["protected"].as_bool().expect("protected: a boolean");
        let said = got[0]
            .as_bool()
            .unwrap_or_else(|| panic!("{kind} {vector}: no boolean answer: {got}"));
        if said != want {
            let blink = got[1].as_str().map_or("throws".to_string(), visible);
            disagreements.push(format!(
                "{kind} {}: expected {want}, protected.mjs in Chromium says {said} \
                 (Blink's URL reads {blink})",
                visible(text)
            ));
        }
    }
    println!(
        "{CHROMIUM} ({}): protected.mjs ran the {} vectors of protected.json: {} agree, {} disagree",
        answer["userAgent"].as_str().unwrap_or("?"),
        inputs.len(),
        inputs.len() - disagreements.len(),
        disagreements.len()
    );
    for d in &disagreements {
        println!("  disagreement: {d}");
    }
    assert!(
        disagreements.is_empty(),
        "{} of {} vectors disagree in Chromium:\n{}",
        disagreements.len(),
        inputs.len(),
        disagreements.join("\n")
    );
}

/// Node's `URL` (Node 20: ada, with its own older IDNA tables) reading `http://a<c>a/` for each
/// code point: its hostname, or `None` when it throws.
fn node_hosts(code_points: &[u32]) -> Vec<Option<String>> {
    let program = "const cps = JSON.parse(process.argv[1]); console.log(JSON.stringify(cps.map((c) => { \
        try { return new URL('http://a' + String.fromCodePoint(c) + 'a/').hostname; } catch { return null; } })));";
    let out = Command::new("node")
        .args(["-e", program])
        .arg(serde_json::to_string(code_points).unwrap())
        .output()
        .expect("node runs");
    assert!(out.status.success(), "node failed: {out:?}");
    serde_json::from_slice(&out.stdout).expect("node writes JSON")
}

/// No vector's answer may depend on the Unicode version of its reader's UTS 46 table. Each code
/// point outside ASCII in the file's inputs (as written or percent-escaped) is read in a host
/// (`http://a<c>a/`) by Chromium and by Node, whose tables are of different Unicode versions.
/// A code point one of them rejects is one the amendments read as any text (A1), so a reader
/// that does not know it fails closed (the whole-file runs, the test above and
/// `tests/node_go/npm_package.rs`, check that the answers hold); a code point both read, but as
/// different text (after unescaping: Chromium escapes some ASCII Node keeps), makes the answer
/// depend on the reader, and fails the test, with the vectors that hold it.
#[test]
fn no_vector_depends_on_the_readers_unicode_version() {
    if needs::missing(CHROMIUM, needs::chromium())
        || needs::missing("node", needs::node())
        || needs::missing("protected.mjs", protected_mjs().is_some())
    {
        return;
    }
    let vectors = vectors();
    let code_points = code_points(&vectors);
    let blink: Vec<Option<String>> =
        serde_json::from_value(answers()["hosts"].clone()).expect("the page's hosts");
    let node = node_hosts(&code_points);
    assert_eq!(
        blink.len(),
        code_points.len(),
        "Chromium read every code point"
    );
    assert_eq!(node.len(), code_points.len(), "Node read every code point");
    let (mut same, mut one_rejects, mut differ) = (0usize, Vec::new(), Vec::new());
    for ((&c, blink), node) in code_points.iter().zip(&blink).zip(&node) {
        let c = char::from_u32(c).expect("a code point");
        match (blink, node) {
            (Some(b), Some(n)) if percent_decoded(b) == percent_decoded(n) => same += 1,
            (None, None) => same += 1,
            (Some(_), None) | (None, Some(_)) => one_rejects.push((c, blink, node)),
            (Some(_), Some(_)) => differ.push((c, blink, node)),
        }
    }
    println!(
        "{} code points outside ASCII in protected.json's inputs: {same} read alike by \
         Chromium and Node, {} rejected by one of them (read as any text by A1), {} read as \
         different text",
        code_points.len(),
        one_rejects.len(),
        differ.len()
    );
    for (c, blink, node) in &one_rejects {
        println!(
            "  rejected by one: U+{:04X}: Chromium {blink:?}, Node {node:?}",
            u32::from(*c)
        );
    }
    let mut failures = Vec::new();
    for (c, blink, node) in &differ {
        let holders: Vec<String> = inputs(&vectors)
            .into_iter()
            .filter(|(_, _, text)| text.contains(*c) || percent_decoded(text).contains(*c))
            .map(|(kind, vector, text)| {
                format!(
                    "{kind} {} (protected: {})",
                    visible(&text),
                    vector["protected"]
                )
            })
            .collect();
        failures.push(format!(
            "U+{:04X}: Chromium reads http://a{c}a/ as {blink:?}, Node as {node:?}; in {}",
            u32::from(*c),
            holders.join(", ")
        ));
    }
    for f in &failures {
        println!("  depends on the Unicode version: {f}");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
