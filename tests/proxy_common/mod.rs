//! Helpers the `guard proxy` tests share (tests/browser/guard_proxy.rs, tests/browser/guard_proxy_robust.rs,
//! tests/offline/guard_proxy_hostile.rs, tests/browser/guard_clients.rs): raw HTTP on a socket, a bare
//! synchronous CDP call over tungstenite, waiting for a condition, the process's thread and
//! descriptor counts, and a log sink.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tungstenite::Message;

/// The endpoint `slicc-browsers guard proxy` prints as its first line on `stdout`
/// (`cdp <url>`); the rest of its stdout is read on (a closed stdout ends the command at its
/// next line).
pub fn proxy_endpoint(stdout: std::process::ChildStdout) -> String {
    use std::io::BufRead;
    let mut out = std::io::BufReader::new(stdout);
    let mut first = String::new();
    out.read_line(&mut first)
        .expect("the proxy prints its endpoint");
    std::thread::spawn(move || {
        let mut rest = String::new();
        let _ = out.read_to_string(&mut rest);
    });
    first
        .trim()
        .strip_prefix("cdp ")
        .unwrap_or_else(|| panic!("not an endpoint line: {first:?}"))
        .to_string()
}

/// Debian's Chromium, which the tests that need a browser launch.
pub const CHROMIUM: &str = "/usr/bin/chromium";

/// The switch that gives a test's Chromium the browser UI a user's has (the omnibox popup's
/// WebUI pages, `browser_ui` targets in every context), which the harness's launch leaves out
/// (`BROWSER_UI_FEATURES`): for the tests where real clients meet the browser as it is.
pub fn with_browser_ui() -> String {
    format!(
        "--enable-features={}",
        slicc_browsers::harness::selftest::BROWSER_UI_FEATURES.join(",")
    )
}

/// The start of the policy's refusal of a target on seven's origin.
pub const REFUSAL: &str = "slicc: refused: target is on seven's origin";

/// Sends `bytes` on a new connection to `addr` and reads the answer to its end: (status,
/// body); status 0 when no connection or no HTTP answer came.
pub fn raw_http(addr: &str, bytes: &[u8]) -> (u16, String) {
    let Ok(mut s) = TcpStream::connect(addr) else {
        return (0, String::new());
    };
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let _ = s.write_all(bytes);
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    let text = String::from_utf8_lossy(&raw);
    let status = text
        .strip_prefix("HTTP/1.1 ")
        .and_then(|t| t.get(..3))
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = text
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default();
    (status, body)
}

/// An HTTP GET on `addr`: (status, body); status 0 when no answer came.
pub fn http_get(addr: &str, path: &str) -> (u16, String) {
    raw_http(
        addr,
        format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").as_bytes(),
    )
}

/// Waits until `f` holds, up to `within`.
pub fn eventually(within: Duration, mut f: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + within;
    loop {
        if f() {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// (threads, open descriptors) of this process. The whole process's: a test that compares
/// them runs [`alone`], since the other tests of its binary start threads and open files.
pub fn counts() -> (usize, usize) {
    let n = |dir: &str| std::fs::read_dir(dir).map(|d| d.count()).unwrap_or(0);
    (n("/proc/self/task"), n("/proc/self/fd"))
}

/// A plain client WebSocket, as `tungstenite::connect` opens it.
pub type Ws = tungstenite::WebSocket<tungstenite::stream::MaybeTlsStream<TcpStream>>;

/// Sends a command and reads until its answer (events skipped); panics when the connection
/// closes first.
pub fn call(ws: &mut Ws, id: i64, method: &str, params: Value, session: Option<&str>) -> Value {
    let mut msg = json!({"id": id, "method": method, "params": params});
    if let Some(s) = session {
        msg["sessionId"] = json!(s);
    }
    ws.send(Message::text(msg.to_string())).expect("sent");
    loop {
        match ws.read().expect("an answer") {
            Message::Text(t) => {
                let v: Value = serde_json::from_str(t.as_str()).unwrap();
                if v["id"] == json!(id) {
                    return v;
                }
            }
            Message::Close(c) => panic!("closed while waiting for {method}: {c:?}"),
            _ => {}
        }
    }
}

/// Whether the connection is closed (a close frame or a failed read) within five reads.
pub fn closes(ws: &mut Ws) -> bool {
    for _ in 0..5 {
        match ws.read() {
            Ok(Message::Close(_)) | Err(_) => return true,
            Ok(_) => {}
        }
    }
    false
}

/// Opens a WebSocket to `ws_url` by hand, its handshake and the masked text frame `frame`
/// in one write (the frame arrives with the head), and reads until the answer text contains
/// `until` (within 20 s): everything read, as text.
pub fn handshake_with_frame(ws_url: &str, frame: &[u8], until: &str) -> String {
    let rest = ws_url.strip_prefix("ws://").expect("a ws:// URL");
    let (addr, path) = rest.split_at(rest.find('/').expect("a path"));
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_millis(500)))
        .unwrap();
    let mut bytes = format!(
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    .into_bytes();
    let mask = [0x12u8, 0x34, 0x56, 0x78];
    assert!(frame.len() < 126, "a short frame");
    bytes.extend_from_slice(&[0x81, 0x80 | frame.len() as u8]);
    bytes.extend_from_slice(&mask);
    bytes.extend(frame.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
    s.write_all(&bytes).unwrap();
    let mut got = Vec::new();
    let mut chunk = [0u8; 4096];
    eventually(Duration::from_secs(20), || {
        if let Ok(n) = s.read(&mut chunk) {
            got.extend_from_slice(&chunk[..n]);
        }
        String::from_utf8_lossy(&got).contains(until)
    });
    String::from_utf8_lossy(&got).to_string()
}

/// A `guard proxy --log` sink the test can read.
#[derive(Clone, Default)]
pub struct Sink(Arc<Mutex<Vec<u8>>>);

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Sink {
    /// Everything written so far, as text.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap_or_else(|e| e.into_inner())).to_string()
    }

    /// The lines written so far that are JSON.
    pub fn lines(&self) -> Vec<Value> {
        self.text()
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }
}

/// Takes a WebSocket handshake on `stream` as Chromium's DevTools endpoint does without
/// `--remote-allow-origins`: a request with an `Origin` (a web page's) is turned away with a
/// 403, which is how the proxy tells a browser that lets pages in from one that does not.
// The callback's `Result<Response, ErrorResponse>` is tungstenite's to choose.
#[allow(clippy::result_large_err)]
pub fn accept_like_chromium(stream: TcpStream) -> Option<tungstenite::WebSocket<TcpStream>> {
    use tungstenite::handshake::server::{ErrorResponse, Request, Response};
    let refuse_pages = |request: &Request, response: Response| {
        if request.headers().contains_key("origin") {
            let mut refused =
                ErrorResponse::new(Some("Rejected an incoming WebSocket connection".into()));
            *refused.status_mut() = tungstenite::http::StatusCode::FORBIDDEN;
            return Err(refused);
        }
        Ok(response)
    };
    tungstenite::accept_hdr(stream, refuse_pages).ok()
}

/// The environment variable that names the test a process runs [`alone`].
const ALONE: &str = "SLICC_TEST_ALONE";

/// Runs the test `path` (its `module_path!()` and name) in a process of its own, the test binary
/// started again with that test alone, and says whether this process is that one (`true`: run
/// the test's body). In the process that started it, it waits for that run, passes its output
/// on, panics when it did not pass exactly that one test, and answers `false`.
pub fn alone(path: &str) -> bool {
    // The harness names a test without the crate: "guard_proxy_hostile::hostile_clients_…".
    let name = path.split_once("::").map_or(path, |(_, rest)| rest);
    if std::env::var(ALONE).is_ok_and(|v| v == name) {
        return true;
    }
    let exe = std::env::current_exe().expect("the test binary's path");
    let out = std::process::Command::new(exe)
        .args([name, "--exact", "--test-threads=1", "--nocapture"])
        .env(ALONE, name)
        .output()
        .unwrap_or_else(|e| panic!("the test binary does not start again for {name}: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    print!("{stdout}");
    assert!(
        out.status.success() && stdout.contains("test result: ok. 1 passed"),
        "{name}, alone in a process of its own, did not pass ({}): {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    false
}
