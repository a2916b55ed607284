//! The stand-in fixture: every route's response, Host-based logging, latency, reset, the log's
//! windows, and hostile clients (bounded, no panic, nothing logged for garbage).
//!
//! Timeouts here are hang guards only: no assertion depends on how fast anything is.
#![cfg(all(feature = "guard-runner", not(target_os = "wasi")))]

use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;
use slicc_browsers::harness::fixture::{Fixture, FixtureOptions, Limits, PNG_1X1};
use slicc_browsers::harness::runner::LogEntry;
use slicc_browsers::harness::standin;

/// The longest any test waits for anything before it fails instead of hanging.
const HANG_GUARD: Duration = Duration::from_secs(30);

fn start() -> Fixture {
    Fixture::start(FixtureOptions::default()).expect("the fixture starts")
}

#[derive(Debug)]
struct Resp {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Resp {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// A client connection reading responses one at a time.
struct Client {
    stream: TcpStream,
    buf: Vec<u8>,
}

impl Client {
    fn connect(addr: SocketAddr) -> Client {
        let stream = TcpStream::connect(addr).expect("connect to the fixture");
        stream.set_read_timeout(Some(HANG_GUARD)).unwrap();
        stream.set_write_timeout(Some(HANG_GUARD)).unwrap();
        Client {
            stream,
            buf: Vec::new(),
        }
    }

    fn send(&mut self, raw: &[u8]) {
        self.stream.write_all(raw).expect("write the request");
    }

    /// Reads more bytes; false on EOF.
    fn fill(&mut self) -> bool {
        let mut chunk = [0u8; 8192];
        match self.stream.read(&mut chunk) {
            Ok(0) => false,
            Ok(n) => {
                self.buf.extend_from_slice(&chunk[..n]);
                true
            }
            Err(e) if e.kind() == ErrorKind::ConnectionReset => false,
            Err(e) => panic!("reading a response: {e} (hang guard)"),
        }
    }

    /// Reads one response; `head_only` for answers to HEAD.
    fn response(&mut self, head_only: bool) -> Resp {
        let end = loop {
            if let Some(i) = self.buf.windows(4).position(|w| w == b"\r\n\r\n") {
                break i + 4;
            }
            assert!(
                self.fill(),
                "connection closed before a response head: {:?}",
                self.buf
            );
        };
        let head = String::from_utf8(self.buf.drain(..end).collect()).unwrap();
        let mut lines = head.split("\r\n");
        let status_line = lines.next().unwrap();
        assert!(status_line.starts_with("HTTP/1.1 "), "{status_line}");
        let status = status_line[9..12].parse().unwrap();
        let headers: Vec<(String, String)> = lines
            .filter(|l| !l.is_empty())
            .map(|l| {
                let (n, v) = l.split_once(": ").unwrap();
                (n.to_string(), v.to_string())
            })
            .collect();
        let length: usize = headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case("content-length"))
            .map(|(_, v)| v.parse().unwrap())
            .expect("every response has a Content-Length");
        let length = if head_only { 0 } else { length };
        while self.buf.len() < length {
            assert!(self.fill(), "connection closed inside a body");
        }
        let body = self.buf.drain(..length).collect();
        Resp {
            status,
            headers,
            body,
        }
    }

    /// Whether the server closed the connection (reads until EOF, discarding).
    fn closed(&mut self) -> bool {
        while self.fill() {}
        true
    }
}

/// One request on its own connection.
fn request(fixture: &Fixture, raw: &str) -> Resp {
    let mut c = Client::connect(fixture.addr());
    c.send(raw.as_bytes());
    c.response(raw.starts_with("HEAD "))
}

fn get(fixture: &Fixture, host: &str, target: &str) -> Resp {
    request(
        fixture,
        &format!("GET {target} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"),
    )
}

fn get_with(fixture: &Fixture, target: &str, extra: &str) -> Resp {
    request(
        fixture,
        &format!("GET {target} HTTP/1.1\r\nHost: h.test\r\n{extra}Connection: close\r\n\r\n"),
    )
}

/// The fixture's log, waiting (hang guard) until it holds at least `n` entries.
fn log_with(fixture: &Fixture, n: usize) -> Vec<LogEntry> {
    let deadline = Instant::now() + HANG_GUARD;
    while fixture.len() < n {
        assert!(
            Instant::now() < deadline,
            "the log never reached {n} entries"
        );
        fixture.wait_log(fixture.len(), Duration::from_millis(200));
    }
    fixture.log()
}

fn title(html: &str) -> &str {
    let start = html.find("<title>").expect("a title") + 7;
    let end = html[start..].find("</title>").unwrap() + start;
    &html[start..end]
}

// ---- routes -------------------------------------------------------------------------------

#[test]
fn doc_is_a_marked_page_with_a_heartbeat_on_its_own_origin() {
    let f = start();
    let r = get(&f, "seven.sliccy.ai", "/doc?n=dest-t1");
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("text/html; charset=utf-8"));
    assert_eq!(r.header("cache-control"), Some("no-store"));
    assert_eq!(r.header("content-security-policy"), None);
    let body = r.text();
    assert_eq!(title(&body), "doc dest-t1");
    assert!(body.contains("data-canary=\"dest-t1\""), "{body}");
    assert!(body.contains("<img src=\"/live?n=dest-t1\""), "{body}");
    assert!(!body.contains("<script"), "{body}");

    // Any method: a form POST gets the same document.
    let r = request(
        &f,
        "POST /doc?n=p1 HTTP/1.1\r\nHost: h\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 3\r\nConnection: close\r\n\r\na=b",
    );
    assert_eq!(r.status, 200);
    assert_eq!(title(&r.text()), "doc p1");
}

#[test]
fn doc_with_csp_blocks_scripts_and_carries_the_inline_beacon() {
    let f = start();
    let r = get(&f, "vault.sliccy.ai", "/doc?n=start-t2&csp=1");
    assert_eq!(r.status, 200);
    assert_eq!(
        r.header("content-security-policy"),
        Some("script-src 'none'")
    );
    let body = r.text();
    assert_eq!(title(&body), "doc start-t2");
    let script = &body[body.find("<script>").expect("an inline script")..];
    assert!(script.contains("\"inline-start-t2\""), "{script}");
    assert!(script.contains("\"/beacon?tag=\""), "{script}");
    assert!(
        script.contains("encodeURIComponent(location.origin)"),
        "{script}"
    );
    assert!(script.contains("navigator.sendBeacon"), "{script}");
    assert!(script.contains("keepalive:true"), "{script}");
    // Issue 21, reading 8: the inline script also titles the page `inline`, the observable
    // proof that CSP was bypassed.
    assert!(script.contains("document.title=\"inline\""), "{script}");
}

#[test]
fn doc_escapes_what_it_echoes() {
    let f = start();
    let r = get(&f, "h", "/doc?n=%3C%2Ftitle%3E%3Cscript%3Ex%22&csp=1");
    let body = r.text();
    assert!(!body.contains("</title><script>x"), "{body}");
    assert!(
        body.contains("&lt;/title&gt;&lt;script&gt;x&quot;"),
        "{body}"
    );
    // In the script, the tag is a string literal that cannot end the element.
    assert!(
        body.contains("inline-\\u003c/title\\u003e\\u003cscript\\u003ex\\u0022"),
        "{body}"
    );
    assert!(
        body.contains("/live?n=%3C%2Ftitle%3E%3Cscript%3Ex%22"),
        "{body}"
    );
}

#[test]
fn hop_redirects_with_its_code_and_refuses_others() {
    let f = start();
    for code in [300, 301, 302, 303, 307, 308, 399] {
        let r = get(
            &f,
            "h",
            &format!("/hop?code={code}&to=http%3A%2F%2Fvault.sliccy.ai%2Fdoc%3Fn%3Ddest-t3"),
        );
        assert_eq!(r.status, code);
        assert_eq!(
            r.header("location"),
            Some("http://vault.sliccy.ai/doc?n=dest-t3")
        );
    }
    // Nested hops: the decoded `to` is itself a hop URL, redirected to unchanged.
    let inner = "http://b.test/hop?code=302&to=http%3A%2F%2Fc.test%2Fdoc%3Fn%3D1";
    let outer = format!(
        "/hop?code=301&to={}",
        inner
            .replace('%', "%25")
            .replace(':', "%3A")
            .replace('/', "%2F")
            .replace('?', "%3F")
            .replace('&', "%26")
            .replace('=', "%3D")
    );
    let r = get(&f, "a.test", &outer);
    assert_eq!(r.status, 301);
    assert_eq!(r.header("location"), Some(inner));

    for bad in [
        "/hop?code=200&to=http%3A%2F%2Fx%2F",
        "/hop?code=400&to=http%3A%2F%2Fx%2F",
        "/hop?code=abc&to=http%3A%2F%2Fx%2F",
        "/hop?to=http%3A%2F%2Fx%2F",
        "/hop?code=302",
        "/hop?code=302&to=",
        "/hop?code=302&to=http%3A%2F%2Fx%2F%0D%0ASet-Cookie%3A%20a%3Db",
    ] {
        let r = get(&f, "h", bad);
        assert_eq!(r.status, 400, "{bad}");
        assert_eq!(r.header("location"), None, "{bad}");
        assert_eq!(r.header("set-cookie"), None, "{bad}");
    }
}

#[test]
fn framed_frames_its_src() {
    let f = start();
    let r = get(
        &f,
        "ordinary.test",
        "/framed?src=http%3A%2F%2Fvault.sliccy.ai%2Fdoc%3Fn%3Ddest-t4%26csp%3D1",
    );
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("text/html; charset=utf-8"));
    let body = r.text();
    assert!(
        body.contains("<iframe src=\"http://vault.sliccy.ai/doc?n=dest-t4&amp;csp=1\""),
        "{body}"
    );
    let r = get(&f, "h", "/framed?src=%22%3E%3Cscript%3E");
    assert!(!r.text().contains("\"><script>"));
    assert_eq!(get(&f, "h", "/framed").status, 400);
}

#[test]
fn data_is_real_n_with_credentialed_cors() {
    let f = start();
    let r = get_with(&f, "/data?n=a-t5", "Origin: http://ordinary.test:8080\r\n");
    assert_eq!(r.status, 200);
    assert_eq!(r.text(), "real-a-t5");
    assert_eq!(r.header("content-type"), Some("text/plain; charset=utf-8"));
    assert_eq!(
        r.header("access-control-allow-origin"),
        Some("http://ordinary.test:8080")
    );
    assert_eq!(r.header("access-control-allow-credentials"), Some("true"));
    assert_eq!(r.header("vary"), Some("Origin"));

    // No Origin, no CORS headers.
    let r = get(&f, "h", "/data?n=x");
    assert_eq!(r.text(), "real-x");
    assert_eq!(r.header("access-control-allow-origin"), None);

    // A preflight.
    let r = request(
        &f,
        "OPTIONS /data?n=p HTTP/1.1\r\nHost: vault.sliccy.ai\r\nOrigin: http://o.test\r\n\
         Access-Control-Request-Method: PUT\r\nAccess-Control-Request-Headers: x-guard-tag, content-type\r\n\
         Access-Control-Request-Private-Network: true\r\nConnection: close\r\n\r\n",
    );
    assert_eq!(r.status, 204);
    assert_eq!(
        r.header("access-control-allow-origin"),
        Some("http://o.test")
    );
    assert_eq!(r.header("access-control-allow-credentials"), Some("true"));
    assert_eq!(r.header("access-control-allow-methods"), Some("PUT"));
    assert_eq!(
        r.header("access-control-allow-headers"),
        Some("x-guard-tag, content-type")
    );
    assert_eq!(
        r.header("access-control-allow-private-network"),
        Some("true")
    );
    assert!(r.body.is_empty());
    let log = log_with(&f, 3);
    assert_eq!(log[2].method, "OPTIONS");
    assert_eq!(log[2].url, "http://vault.sliccy.ai/data?n=p");
}

/// The CRC-32 of PNG chunks (ISO 3309), bit by bit.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = 0xFFFF_FFFFu32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// Checks a PNG's structure: signature, chunks with good CRCs, IHDR first, IEND last.
/// Returns (width, height).
fn png_size(png: &[u8]) -> (u32, u32) {
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let mut at = 8;
    let mut chunks = Vec::new();
    let mut size = (0, 0);
    while at < png.len() {
        let len = u32::from_be_bytes(png[at..at + 4].try_into().unwrap()) as usize;
        let kind = &png[at + 4..at + 8];
        let data = &png[at + 8..at + 8 + len];
        let crc = u32::from_be_bytes(png[at + 8 + len..at + 12 + len].try_into().unwrap());
        assert_eq!(crc32(&png[at + 4..at + 8 + len]), crc, "CRC of {kind:?}");
        if kind == b"IHDR" {
            size = (
                u32::from_be_bytes(data[..4].try_into().unwrap()),
                u32::from_be_bytes(data[4..8].try_into().unwrap()),
            );
        }
        chunks.push(kind.to_vec());
        at += 12 + len;
    }
    assert_eq!(at, png.len());
    assert_eq!(chunks.first().unwrap(), b"IHDR");
    assert_eq!(chunks.last().unwrap(), b"IEND");
    assert!(chunks.iter().any(|c| c == b"IDAT"));
    size
}

#[test]
fn img_and_live_are_a_valid_1x1_png() {
    let f = start();
    for target in ["/img", "/img?n=live-t6", "/live?n=dest-t6"] {
        let r = get(&f, "seven.sliccy.ai", target);
        assert_eq!(r.status, 200, "{target}");
        assert_eq!(r.header("content-type"), Some("image/png"), "{target}");
        assert_eq!(r.body, PNG_1X1, "{target}");
        assert_eq!(png_size(&r.body), (1, 1), "{target}");
    }
}

#[test]
fn auth_wants_basic_u_p() {
    let f = start();
    let r = get(&f, "vault.sliccy.ai", "/auth?n=t7");
    assert_eq!(r.status, 401);
    assert_eq!(
        r.header("www-authenticate"),
        Some("Basic realm=\"stand-in\"")
    );
    assert_ne!(r.text(), "authed");
    for wrong in ["Basic dTpx", "Basic dTpw!", "Bearer dTpw", "Basic"] {
        let r = get_with(&f, "/auth", &format!("Authorization: {wrong}\r\n"));
        assert_eq!(r.status, 401, "{wrong}");
    }
    for right in ["Basic dTpw", "basic dTpw", "Basic dTpw="] {
        let r = get_with(
            &f,
            "/auth?n=t7",
            &format!("Authorization: {right}\r\nOrigin: http://o.test\r\n"),
        );
        assert_eq!(r.status, 200, "{right}");
        assert_eq!(r.text(), "authed");
        assert_eq!(
            r.header("access-control-allow-origin"),
            Some("http://o.test")
        );
        assert_eq!(r.header("access-control-allow-credentials"), Some("true"));
    }
    let log = f.log();
    assert_eq!(
        log.iter()
            .filter(|e| e.headers.get("authorization").map(String::as_str) == Some("Basic dTpw"))
            .count(),
        1
    );
}

/// Issue 21, reading 8: `/auth` serves any path under it (`/auth/<tag>?n=`, which defeats
/// Chromium's per-path auth cache across legs) with the same challenge, answer and CORS.
#[test]
fn auth_serves_every_path_under_it() {
    let f = start();
    for target in ["/auth/t8?n=t8", "/auth/a/b", "/auth/"] {
        let r = get(&f, "vault.sliccy.ai", target);
        assert_eq!(r.status, 401, "{target}");
        assert_eq!(
            r.header("www-authenticate"),
            Some("Basic realm=\"stand-in\""),
            "{target}"
        );
        let r = get_with(
            &f,
            target,
            "Authorization: Basic dTpw\r\nOrigin: http://o.test\r\n",
        );
        assert_eq!(r.status, 200, "{target}");
        assert_eq!(r.text(), "authed");
        assert_eq!(
            r.header("access-control-allow-origin"),
            Some("http://o.test"),
            "{target}"
        );
    }
    // Not a path under it.
    assert_eq!(get(&f, "h", "/authx").status, 404);
}

#[test]
fn rewritten_is_titled_rewritten() {
    let f = start();
    let r = get(&f, "h", "/rewritten?n=t8");
    assert_eq!(r.status, 200);
    assert_eq!(title(&r.text()), "rewritten");
}

#[test]
fn plant_sets_the_canary_cookie_and_stores_the_storage_canaries() {
    let f = start();
    let r = get(&f, "vault.sliccy.ai", "/plant?n=t9");
    assert_eq!(r.status, 200);
    let cookie = standin::canary_cookie("t9");
    assert_eq!(cookie, "canary-t9");
    assert_eq!(
        r.header("set-cookie"),
        Some(format!("{cookie}=t9; Path=/; SameSite=Lax").as_str())
    );
    let body = r.text();
    assert_eq!(title(&body), "plant t9");
    assert!(body.contains("localStorage.setItem(name,value)"), "{body}");
    assert!(
        body.contains("var name=\"canary-t9\",value=\"t9\""),
        "{body}"
    );
    assert!(body.contains(&format!("indexedDB.open(\"{}\",1)", standin::CANARY_DB)));
    assert!(body.contains(&format!("createObjectStore(\"{}\")", standin::CANARY_STORE)));
    assert!(body.contains(&format!("\"{}\"", standin::PLANTED_TITLE_PREFIX)));

    let r = get(&f, "h", "/plant?tag=t10&name=c10&value=v10");
    assert_eq!(
        r.header("set-cookie"),
        Some("c10=v10; Path=/; SameSite=Lax")
    );
    assert!(r.text().contains("var name=\"c10\",value=\"v10\""));

    for bad in [
        "/plant",
        "/plant?n=",
        "/plant?n=t&name=a%3Bb",
        "/plant?n=t&name=a%20b",
        "/plant?n=t&value=a%3Bpath%3D%2F",
        "/plant?n=t&value=a%0D%0Ab",
        "/plant?n=a%22b",
    ] {
        let r = get(&f, "h", bad);
        assert_eq!(r.status, 400, "{bad}");
        assert_eq!(r.header("set-cookie"), None, "{bad}");
    }
}

#[test]
fn beacon_takes_get_and_post_with_cors() {
    let f = start();
    let q = "/beacon?tag=t11&origin=http%3A%2F%2Fseven.sliccy.ai&href=http%3A%2F%2Fseven.sliccy.ai%2Fdoc%3Fn%3Dt11";
    let r = get_with(&f, q, "Origin: http://seven.sliccy.ai\r\n");
    assert_eq!(r.status, 204);
    assert!(r.body.is_empty());
    assert_eq!(
        r.header("access-control-allow-origin"),
        Some("http://seven.sliccy.ai")
    );
    let r = request(
        &f,
        &format!(
            "POST {q} HTTP/1.1\r\nHost: log.test\r\nContent-Type: text/plain;charset=UTF-8\r\n\
             Content-Length: 5\r\nConnection: close\r\n\r\nhello"
        ),
    );
    assert_eq!(r.status, 204);
    let log = log_with(&f, 2);
    assert_eq!(log[1].method, "POST");
    assert_eq!(log[1].url, format!("http://log.test{q}"));
    assert_eq!(
        log[1].headers.get("content-length").map(String::as_str),
        Some("5")
    );
}

#[test]
fn log_route_returns_hits_and_beacons_for_n() {
    let f = start();
    get(&f, "seven.sliccy.ai", "/doc?n=dest-t12");
    get(&f, "seven.sliccy.ai", "/doc?n=dest-other");
    get(
        &f,
        "log.test",
        "/beacon?tag=t12&origin=http%3A%2F%2Fseven.sliccy.ai&href=http%3A%2F%2Fseven.sliccy.ai%2Fdoc%3Fn%3Ddest-t12",
    );
    get(&f, "log.test", "/log?n=t12");
    let r = get_with(&f, "/log?n=t12", "Origin: http://o.test\r\n");
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(
        r.header("access-control-allow-origin"),
        Some("http://o.test")
    );
    let v: Value = serde_json::from_slice(&r.body).unwrap();
    let hits: Vec<LogEntry> = serde_json::from_value(v["hits"].clone()).unwrap();
    let urls: Vec<&str> = hits.iter().map(|h| h.url.as_str()).collect();
    assert_eq!(
        urls,
        [
            "http://seven.sliccy.ai/doc?n=dest-t12",
            "http://log.test/beacon?tag=t12&origin=http%3A%2F%2Fseven.sliccy.ai&href=http%3A%2F%2Fseven.sliccy.ai%2Fdoc%3Fn%3Ddest-t12",
        ]
    );
    let beacons = v["beacons"].as_array().unwrap();
    assert_eq!(beacons.len(), 1);
    assert_eq!(beacons[0]["tag"], "t12");
    assert_eq!(beacons[0]["origin"], "http://seven.sliccy.ai");
    assert_eq!(beacons[0]["href"], "http://seven.sliccy.ai/doc?n=dest-t12");
    assert_eq!(beacons[0]["method"], "GET");
}

#[test]
fn unknown_paths_are_404_and_logged() {
    let f = start();
    for target in ["/", "/favicon.ico", "/docs?n=1", "/doc/x"] {
        assert_eq!(get(&f, "h", target).status, 404, "{target}");
    }
    assert_eq!(log_with(&f, 4).len(), 4);
}

// ---- the log -------------------------------------------------------------------------------

#[test]
fn logs_the_host_the_browser_asked_for() {
    let f = start();
    let before = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    request(
        &f,
        "GET /doc?n=dest-t13 HTTP/1.1\r\nHost: vault-x.test:8443\r\nX-Twice: a\r\nUser-Agent: UA\r\n\
         x-twice: b\r\nConnection: close\r\n\r\n",
    );
    get(&f, "seven.sliccy.ai", "/live?n=dest-t13");
    let log = log_with(&f, 2);
    let after = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    assert_eq!(log[0].url, "http://vault-x.test:8443/doc?n=dest-t13");
    assert_eq!(log[0].method, "GET");
    assert_eq!(
        log[0].headers.get("x-twice").map(String::as_str),
        Some("a, b")
    );
    assert_eq!(
        log[0].headers.get("user-agent").map(String::as_str),
        Some("UA")
    );
    assert_eq!(
        log[0].headers.get("host").map(String::as_str),
        Some("vault-x.test:8443")
    );
    assert!(log[0].headers.keys().all(|k| k == &k.to_ascii_lowercase()));
    assert!(before <= log[0].time && log[0].time <= after);
    assert!(log[0].time <= log[1].time);
    assert_eq!(log[1].url, "http://seven.sliccy.ai/live?n=dest-t13");

    // The entry is JSON the record reads back.
    let json = serde_json::to_string(&log[0]).unwrap();
    let back: LogEntry = serde_json::from_str(&json).unwrap();
    assert_eq!(back, log[0]);
}

#[test]
fn origin_port_and_the_absolute_and_1_0_forms() {
    let f = start();
    assert_eq!(f.origin(), format!("http://127.0.0.1:{}", f.port()));
    assert_eq!(f.addr().port(), f.port());
    assert!(f.is_empty());
    // HTTP/1.0 without Host: the fixture's own authority.
    let mut c = Client::connect(f.addr());
    c.send(b"GET /data?n=old HTTP/1.0\r\n\r\n");
    let r = c.response(false);
    assert_eq!(r.text(), "real-old");
    assert_eq!(r.header("connection"), Some("close"));
    assert!(c.closed());
    // An absolute-form target is logged as sent.
    let r = request(
        &f,
        "GET http://apex.test/data?n=abs HTTP/1.1\r\nHost: ignored.test\r\nConnection: close\r\n\r\n",
    );
    assert_eq!(r.text(), "real-abs");
    let log = log_with(&f, 2);
    assert_eq!(log[0].url, format!("{}/data?n=old", f.origin()));
    assert_eq!(log[1].url, "http://apex.test/data?n=abs");
}

#[test]
fn reset_drops_entries_and_indices_keep_counting() {
    let f = start();
    get(&f, "h", "/doc?n=1");
    get(&f, "h", "/doc?n=2");
    assert_eq!(log_with(&f, 2).len(), 2);
    assert_eq!(f.len(), 2);
    f.reset();
    assert!(f.log().is_empty());
    assert_eq!(f.len(), 2, "indices never go back");
    assert!(!f.is_empty());
    let mark = f.len();
    get(&f, "h", "/doc?n=3");
    get(&f, "h", "/doc?n=4");
    log_with(&f, 4);
    let window = f.log_since(mark);
    let urls: Vec<&str> = window.iter().map(|e| e.url.as_str()).collect();
    assert_eq!(urls, ["http://h/doc?n=3", "http://h/doc?n=4"]);
    assert_eq!(f.log_since(mark + 1).len(), 1);
    assert!(f.log_since(mark + 2).is_empty());
    assert!(
        f.log_since(0).len() == 2,
        "entries dropped by reset stay dropped"
    );
}

#[test]
fn the_log_keeps_the_newest_entries_within_its_bound() {
    let f = Fixture::start(FixtureOptions {
        max_log_entries: 3,
        ..FixtureOptions::default()
    })
    .unwrap();
    for i in 0..5 {
        get(&f, "h", &format!("/data?n={i}"));
    }
    let log = log_with(&f, 5);
    let urls: Vec<&str> = log.iter().map(|e| e.url.as_str()).collect();
    assert_eq!(
        urls,
        [
            "http://h/data?n=2",
            "http://h/data?n=3",
            "http://h/data?n=4"
        ]
    );
    assert_eq!(f.len(), 5);
    let (first, entries) = f.wait_log(0, Duration::ZERO);
    assert_eq!(first, 2, "the first retained index");
    assert_eq!(entries.len(), 3);
    let (first, entries) = f.wait_log(4, Duration::ZERO);
    assert_eq!((first, entries.len()), (4, 1));
}

#[test]
fn the_log_keeps_within_its_byte_bound() {
    let f = Fixture::start(FixtureOptions {
        max_log_bytes: 4096,
        ..FixtureOptions::default()
    })
    .unwrap();
    let pad = "p".repeat(1000);
    for i in 0..10 {
        get_with(&f, &format!("/data?n={i}"), &format!("X-Pad: {pad}\r\n"));
    }
    log_with(&f, 10);
    let log = f.log();
    assert!(
        (2..=4).contains(&log.len()),
        "about 1 KiB an entry in 4 KiB: {}",
        log.len()
    );
    assert_eq!(log.last().unwrap().url, "http://h.test/data?n=9");
    assert_eq!(f.len(), 10);
    // An entry larger than the whole budget is still kept, alone.
    get_with(
        &f,
        "/data?n=big",
        &format!("X-Big: {}\r\n", "b".repeat(8000)),
    );
    log_with(&f, 11);
    let log = f.log();
    assert_eq!(log.len(), 1);
    assert_eq!(log[0].url, "http://h.test/data?n=big");
}

#[test]
fn wait_log_returns_the_new_entry() {
    let f = start();
    let mark = f.len();
    let addr = f.addr();
    let sender = thread::spawn(move || {
        let mut c = Client::connect(addr);
        c.send(b"GET /beacon?tag=w1 HTTP/1.1\r\nHost: w.test\r\nConnection: close\r\n\r\n");
        c.response(false).status
    });
    let deadline = Instant::now() + HANG_GUARD;
    let entries = loop {
        let (first, entries) = f.wait_log(mark, Duration::from_millis(500));
        if !entries.is_empty() {
            assert_eq!(first, mark);
            break entries;
        }
        assert!(Instant::now() < deadline, "no entry arrived");
    };
    assert_eq!(entries[0].url, "http://w.test/beacon?tag=w1");
    assert_eq!(sender.join().unwrap(), 204);
    // Nothing new: a timeout gives nothing.
    let (_, none) = f.wait_log(f.len(), Duration::from_millis(10));
    assert!(none.is_empty());
}

#[test]
fn latency_holds_the_chosen_urls() {
    let asked = Arc::new(Mutex::new(Vec::<String>::new()));
    let seen = Arc::clone(&asked);
    let f = Fixture::start(FixtureOptions {
        latency: Some(Arc::new(move |url: &str| {
            seen.lock().unwrap().push(url.to_string());
            if url.contains("hold") {
                Some(Duration::from_secs(3600))
            } else if url.contains("short") {
                Some(Duration::from_millis(20))
            } else {
                None
            }
        })),
        ..FixtureOptions::default()
    })
    .unwrap();
    let r = get(&f, "a.test", "/data?n=short");
    assert_eq!(r.text(), "real-short");

    // A held response: logged at once, answered only when the hold ends (here: on close).
    let mut held = Client::connect(f.addr());
    held.send(b"GET /data?n=hold HTTP/1.1\r\nHost: b.test\r\n\r\n");
    let log = log_with(&f, 2);
    assert_eq!(log[1].url, "http://b.test/data?n=hold");
    held.stream
        .set_read_timeout(Some(Duration::from_millis(300)))
        .unwrap();
    let mut byte = [0u8; 1];
    match held.stream.read(&mut byte) {
        Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
        other => panic!("the held response arrived early: {other:?}"),
    }
    // Other requests are not held meanwhile.
    assert_eq!(get(&f, "c.test", "/data?n=free").text(), "real-free");
    assert_eq!(
        *asked.lock().unwrap(),
        [
            "http://a.test/data?n=short",
            "http://b.test/data?n=hold",
            "http://c.test/data?n=free"
        ]
    );
    held.stream.set_read_timeout(Some(HANG_GUARD)).unwrap();
    f.close();
    assert!(held.closed(), "closing the fixture ends the hold");
}

#[test]
fn a_panicking_latency_callback_costs_one_connection_only() {
    let f = Fixture::start(FixtureOptions {
        latency: Some(Arc::new(|url: &str| {
            if url.contains("boom") {
                panic!("latency callback panics on purpose");
            }
            None
        })),
        limits: Limits {
            max_connections: 2,
            ..Limits::default()
        },
        ..FixtureOptions::default()
    })
    .unwrap();
    for _ in 0..4 {
        let mut c = Client::connect(f.addr());
        c.send(b"GET /data?n=boom HTTP/1.1\r\nHost: h\r\n\r\n");
        assert!(c.closed());
        assert!(c.buf.is_empty(), "no answer from a panicked connection");
    }
    // The slots came back (eventually: the threads unwind on their own).
    let deadline = Instant::now() + HANG_GUARD;
    loop {
        let r = get(&f, "h", "/data?n=fine");
        if r.status == 200 {
            assert_eq!(r.text(), "real-fine");
            break;
        }
        assert!(Instant::now() < deadline, "the slots never came back");
        thread::sleep(Duration::from_millis(20));
    }
}

// ---- connections ---------------------------------------------------------------------------

#[test]
fn keep_alive_and_pipelining() {
    let f = start();
    let mut c = Client::connect(f.addr());
    c.send(b"GET /data?n=k1 HTTP/1.1\r\nHost: k.test\r\n\r\n");
    let r = c.response(false);
    assert_eq!(r.text(), "real-k1");
    assert_eq!(r.header("connection"), Some("keep-alive"));
    // Two pipelined requests, the second with a body, then a HEAD.
    c.send(
        b"GET /data?n=k2 HTTP/1.1\r\nHost: k.test\r\n\r\n\
          POST /beacon?tag=k3 HTTP/1.1\r\nHost: k.test\r\nContent-Length: 4\r\n\r\nbody\
          HEAD /doc?n=k4 HTTP/1.1\r\nHost: k.test\r\n\r\n",
    );
    assert_eq!(c.response(false).text(), "real-k2");
    assert_eq!(c.response(false).status, 204);
    let head = c.response(true);
    assert_eq!(head.status, 200);
    assert!(
        head.header("content-length")
            .unwrap()
            .parse::<usize>()
            .unwrap()
            > 0
    );
    // A chunked body.
    c.send(
        b"POST /beacon?tag=k5 HTTP/1.1\r\nHost: k.test\r\nTransfer-Encoding: chunked\r\n\r\n\
          4\r\nwiki\r\n5;ext=1\r\npedia\r\n0\r\nTrailer: x\r\n\r\n\
          GET /data?n=k6 HTTP/1.1\r\nHost: k.test\r\nConnection: close\r\n\r\n",
    );
    assert_eq!(c.response(false).status, 204);
    let last = c.response(false);
    assert_eq!(last.text(), "real-k6");
    assert_eq!(last.header("connection"), Some("close"));
    assert!(c.closed());
    let log = log_with(&f, 6);
    let methods: Vec<&str> = log.iter().map(|e| e.method.as_str()).collect();
    assert_eq!(methods, ["GET", "GET", "POST", "HEAD", "POST", "GET"]);
}

#[test]
fn many_concurrent_connections_are_all_served() {
    let f = start();
    let addr = f.addr();
    let threads: Vec<_> = (0..40)
        .map(|t| {
            thread::spawn(move || {
                let mut c = Client::connect(addr);
                for i in 0..5 {
                    c.send(
                        format!("GET /data?n={t}-{i} HTTP/1.1\r\nHost: c{t}.test\r\n\r\n")
                            .as_bytes(),
                    );
                    assert_eq!(c.response(false).text(), format!("real-{t}-{i}"));
                }
            })
        })
        .collect();
    for t in threads {
        t.join().expect("a client thread");
    }
    let log = log_with(&f, 200);
    assert_eq!(log.len(), 200);
    for t in 0..40 {
        for i in 0..5 {
            let url = format!("http://c{t}.test/data?n={t}-{i}");
            assert_eq!(log.iter().filter(|e| e.url == url).count(), 1, "{url}");
        }
    }
}

#[test]
fn past_max_connections_a_new_one_gets_503() {
    let f = Fixture::start(FixtureOptions {
        limits: Limits {
            max_connections: 3,
            ..Limits::default()
        },
        ..FixtureOptions::default()
    })
    .unwrap();
    // Three connections held open (each proven accepted by a response).
    let mut open: Vec<Client> = (0..3)
        .map(|i| {
            let mut c = Client::connect(f.addr());
            c.send(format!("GET /data?n=o{i} HTTP/1.1\r\nHost: h\r\n\r\n").as_bytes());
            assert_eq!(c.response(false).status, 200);
            c
        })
        .collect();
    let r = get(&f, "h", "/data?n=over");
    assert_eq!(r.status, 503);
    // Closing one frees a slot (eventually: the server notices the close).
    drop(open.pop());
    let deadline = Instant::now() + HANG_GUARD;
    loop {
        let r = get(&f, "h", "/data?n=again");
        if r.status == 200 {
            assert_eq!(r.text(), "real-again");
            break;
        }
        assert_eq!(r.status, 503);
        assert!(Instant::now() < deadline, "the slot never came back");
        thread::sleep(Duration::from_millis(20));
    }
    assert!(f.log().iter().all(|e| !e.url.contains("over")));
}

// ---- hostile clients -----------------------------------------------------------------------

/// Sends `bytes` (ignoring a write the server cut short), then reads everything the server
/// answers until it closes.
fn hostile(fixture: &Fixture, bytes: &[u8]) -> Vec<u8> {
    let mut c = Client::connect(fixture.addr());
    let _ = c.stream.write_all(bytes);
    c.closed();
    c.buf
}

fn status_of(answer: &[u8]) -> u16 {
    let text = String::from_utf8_lossy(answer);
    assert!(text.starts_with("HTTP/1.1 "), "{text:?}");
    text[9..12].parse().unwrap()
}

/// A TLS 1.2/1.3 ClientHello's first bytes, as Chromium's HTTPS upgrade sends them.
const CLIENT_HELLO: &[u8] = &[
    0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03, 0x5a, 0x1b, 0x2c, 0x3d, 0x4e,
    0x5f, 0x60, 0x71, 0x82, 0x93, 0xa4, 0xb5, 0xc6, 0xd7, 0xe8, 0xf9, 0x00, 0x11, 0x22, 0x33, 0x44,
    0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x20, 0x13, 0x01, 0x13, 0x02,
    0x13, 0x03, 0x00, 0x00, 0x00, 0x14, 0x00, 0x12, 0x00, 0x00, 0x0f, b's', b'e', b'v', b'e', b'n',
    b'.', b's', b'l', b'i', b'c', b'c', b'y', b'.', b'a', b'i',
];

#[test]
fn a_tls_client_hello_gets_400_and_is_never_logged() {
    let f = start();
    // The hello alone, the connection left open: answered without waiting for more.
    let mut c = Client::connect(f.addr());
    c.send(CLIENT_HELLO);
    c.closed();
    assert_eq!(status_of(&c.buf), 400);
    // Then the plain request, as Chromium falls back.
    get(&f, "seven.sliccy.ai", "/doc?n=after-tls");
    let log = log_with(&f, 1);
    assert_eq!(log.len(), 1);
    assert_eq!(log[0].url, "http://seven.sliccy.ai/doc?n=after-tls");
}

#[test]
fn garbage_gets_400_and_is_never_logged() {
    let f = start();
    let cases: &[&[u8]] = &[
        b"\x00\x01\x02\x03",
        b"\xff\xfe\r\n\r\n",
        b"hello there\r\n\r\n",
        b"GET\r\n\r\n",
        b"GET /doc?n=1\r\n\r\n",
        b"GET /doc?n=1 HTTP/1.1 extra\r\nHost: h\r\n\r\n",
        b"GET /doc?n=1 FTP/1.1\r\nHost: h\r\n\r\n",
        b"GET /doc?n=\x01 HTTP/1.1\r\nHost: h\r\n\r\n",
        b"GET /doc?n=1 HTTP/1.1\r\n\r\n",
        b"GET /doc?n=1 HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
        b"GET /doc?n=1 HTTP/1.1\r\nHost: a/b@c\r\n\r\n",
        b"GET /doc?n=1 HTTP/1.1\r\nHost: h\r\nNo colon here\r\n\r\n",
        b"GET /doc?n=1 HTTP/1.1\r\nHost: h\r\nBad Name: x\r\n\r\n",
        b"GET /doc?n=1 HTTP/1.1\r\nHost: h\r\nX: a\r\n folded\r\n\r\n",
        b"GET /doc?n=1 HTTP/1.1\r\nHost: h\r\nContent-Length: -1\r\n\r\n",
        b"GET /doc?n=1 HTTP/1.1\r\nHost: h\r\nContent-Length: 1, 2\r\n\r\nab",
        b"POST /doc?n=1 HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        b"POST /doc?n=1 HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        b"POST /doc?n=1 HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n0\r\n\r\n",
        b"OPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n",
        b"CONNECT seven.sliccy.ai:443 HTTP/1.1\r\nHost: seven.sliccy.ai:443\r\n\r\n",
    ];
    for case in cases {
        let answer = hostile(&f, case);
        assert_eq!(
            status_of(&answer),
            400,
            "{:?}",
            String::from_utf8_lossy(case)
        );
    }
    assert_eq!(
        status_of(&hostile(&f, b"GET / HTTP/2.0\r\nHost: h\r\n\r\n")),
        505
    );
    assert_eq!(
        status_of(&hostile(
            &f,
            b"POST /doc HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip\r\n\r\n"
        )),
        501
    );
    // Nothing above was logged, and the server still serves.
    assert_eq!(get(&f, "h", "/data?n=alive").text(), "real-alive");
    let log = log_with(&f, 1);
    assert_eq!(log.len(), 1, "{log:?}");
}

#[test]
fn a_huge_request_line_gets_414() {
    let f = start();
    let mut line = b"GET /doc?n=".to_vec();
    line.extend(std::iter::repeat_n(b'a', 200 * 1024));
    let answer = hostile(&f, &line);
    assert_eq!(status_of(&answer), 414);
    // Even when it does end.
    line.extend_from_slice(b" HTTP/1.1\r\nHost: h\r\n\r\n");
    assert_eq!(status_of(&hostile(&f, &line)), 414);
    assert_eq!(f.len(), 0);
}

#[test]
fn endless_headers_get_431() {
    let f = start();
    // Headers sent until the server answers: never an unbounded buffer.
    let mut c = Client::connect(f.addr());
    c.send(b"GET /doc?n=1 HTTP/1.1\r\nHost: h\r\n");
    let header = format!("X-Pad: {}\r\n", "p".repeat(1000));
    let mut sent = 0usize;
    while c.stream.write_all(header.as_bytes()).is_ok() {
        sent += header.len();
        if sent > 16 * 1024 * 1024 {
            panic!("the server took 16 MiB of headers");
        }
    }
    c.closed();
    assert_eq!(status_of(&c.buf), 431);

    // Too many small headers.
    let mut many = b"GET /doc?n=1 HTTP/1.1\r\nHost: h\r\n".to_vec();
    for i in 0..101 {
        many.extend_from_slice(format!("X-{i}: v\r\n").as_bytes());
    }
    many.extend_from_slice(b"\r\n");
    assert_eq!(status_of(&hostile(&f, &many)), 431);
    assert_eq!(f.len(), 0);
}

#[test]
fn a_body_past_the_limit_gets_413() {
    let f = Fixture::start(FixtureOptions {
        limits: Limits {
            max_body: 1024,
            ..Limits::default()
        },
        ..FixtureOptions::default()
    })
    .unwrap();
    let answer = hostile(
        &f,
        b"POST /beacon HTTP/1.1\r\nHost: h\r\nContent-Length: 1025\r\n\r\n",
    );
    assert_eq!(status_of(&answer), 413);
    let mut chunked =
        b"POST /beacon HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n".to_vec();
    for _ in 0..3 {
        chunked.extend_from_slice(b"200\r\n");
        chunked.extend(std::iter::repeat_n(b'x', 0x200));
        chunked.extend_from_slice(b"\r\n");
    }
    assert_eq!(status_of(&hostile(&f, &chunked)), 413);
    assert_eq!(f.len(), 0);
}

fn quick_limits() -> FixtureOptions {
    FixtureOptions {
        limits: Limits {
            read_timeout: Duration::from_millis(300),
            request_timeout: Duration::from_millis(800),
            idle_timeout: Duration::from_millis(300),
            ..Limits::default()
        },
        ..FixtureOptions::default()
    }
}

#[test]
fn a_client_that_never_finishes_gets_408_and_is_not_logged() {
    let f = Fixture::start(quick_limits()).unwrap();
    for partial in [
        &b"GET /doc?n=1 HTTP/1.1\r\nHost: h\r\n"[..],
        b"GET /doc?n=1 HTT",
        b"POST /beacon HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\nabc",
        b"POST /beacon HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab",
    ] {
        let mut c = Client::connect(f.addr());
        c.send(partial);
        c.closed();
        assert_eq!(
            status_of(&c.buf),
            408,
            "{:?}",
            String::from_utf8_lossy(partial)
        );
    }
    // A slow client that keeps trickling bytes is cut off by the whole-request deadline.
    let mut c = Client::connect(f.addr());
    c.send(b"GET /doc?n=1 HTTP/1.1\r\n");
    let deadline = Instant::now() + HANG_GUARD;
    loop {
        if c.stream.write_all(b"X").is_err() {
            break;
        }
        thread::sleep(Duration::from_millis(50));
        // Once the server has answered and closed, a read sees it.
        c.stream
            .set_read_timeout(Some(Duration::from_millis(1)))
            .unwrap();
        let mut chunk = [0u8; 256];
        match c.stream.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => c.buf.extend_from_slice(&chunk[..n]),
            Err(_) => {}
        }
        assert!(
            Instant::now() < deadline,
            "the trickling client was never cut off"
        );
    }
    c.stream.set_read_timeout(Some(HANG_GUARD)).unwrap();
    c.closed();
    assert_eq!(status_of(&c.buf), 408);
    // A silent connection is closed without an answer.
    let mut silent = Client::connect(f.addr());
    assert!(silent.closed());
    assert!(silent.buf.is_empty());
    assert_eq!(f.len(), 0);
}

#[test]
fn an_idle_keep_alive_connection_is_closed() {
    let f = Fixture::start(quick_limits()).unwrap();
    let mut c = Client::connect(f.addr());
    c.send(b"GET /data?n=i HTTP/1.1\r\nHost: h\r\n\r\n");
    assert_eq!(c.response(false).text(), "real-i");
    assert!(c.closed());
    assert!(c.buf.is_empty());
}

#[test]
fn reserved_ports_are_refused() {
    for n in 2..=9u16 {
        let port = 9220 + n;
        let err = Fixture::start(FixtureOptions {
            port,
            ..FixtureOptions::default()
        })
        .expect_err("a reserved port");
        assert_eq!(err.kind(), ErrorKind::InvalidInput);
        let text = err.to_string();
        assert!(text.contains(&port.to_string()), "{text}");
        assert!(
            text.contains(&format!("{}-{}", 9220 + 2, 9220 + 9)),
            "{text}"
        );
    }
}

#[test]
fn a_given_port_is_used_and_close_stops_serving() {
    // Find a free port, then ask for it.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let f = Fixture::start(FixtureOptions {
        port,
        ..FixtureOptions::default()
    })
    .unwrap();
    assert_eq!(f.port(), port);
    assert_eq!(get(&f, "h", "/data?n=p").text(), "real-p");
    // An open keep-alive connection is closed by close().
    let mut c = Client::connect(f.addr());
    c.send(b"GET /data?n=q HTTP/1.1\r\nHost: h\r\n\r\n");
    assert_eq!(c.response(false).text(), "real-q");
    f.close();
    f.close(); // idempotent
    assert!(c.closed());
    match TcpStream::connect(f.addr()) {
        Err(_) => {}
        Ok(mut s) => {
            // Something may have taken the port meanwhile; it must not be the fixture.
            s.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
            let _ = s.write_all(b"GET /data?n=z HTTP/1.1\r\nHost: h\r\n\r\n");
            let mut buf = [0u8; 64];
            let got = s.read(&mut buf).unwrap_or(0);
            assert!(!String::from_utf8_lossy(&buf[..got]).contains("200"));
        }
    }
    drop(f);
}

#[cfg(feature = "cli-full")]
#[test]
fn cli_prints_the_origin_then_json_lines() {
    use std::io::BufRead;
    use std::process::{Command, Stdio};

    let mut child = Command::new(env!("CARGO_BIN_EXE_slicc-browsers"))
        .args(["guard", "fixture"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    struct Kill(std::process::Child);
    impl Drop for Kill {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let child = Kill(child);
    let mut origin = String::new();
    stdout.read_line(&mut origin).unwrap();
    let origin = origin.trim().to_string();
    assert!(origin.starts_with("http://127.0.0.1:"), "{origin:?}");
    let addr: SocketAddr = origin["http://".len()..].parse().unwrap();
    let mut c = Client::connect(addr);
    c.send(b"GET /doc?n=cli HTTP/1.1\r\nHost: seven.sliccy.ai\r\nConnection: close\r\n\r\n");
    assert_eq!(c.response(false).status, 200);
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    let entry: LogEntry = serde_json::from_str(&line).unwrap();
    assert_eq!(entry.url, "http://seven.sliccy.ai/doc?n=cli");
    assert_eq!(entry.method, "GET");
    drop(child);

    // A reserved port is refused with a clear message.
    let out = Command::new(env!("CARGO_BIN_EXE_slicc-browsers"))
        .args(["guard", "fixture", "--port", &(9220 + 2).to_string()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("reserved"));
    let out = Command::new(env!("CARGO_BIN_EXE_slicc-browsers"))
        .args(["guard", "nope"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown guard subcommand"));
}

#[test]
fn no_limit_durations_do_not_panic() {
    // `Duration::MAX` as "no limit": `Instant::now() + d` overflowed ("overflow when adding
    // duration to instant", a panic) in `Fixture::wait_log` and in each connection's request
    // and idle deadlines. Now such a deadline is a century away.
    let f = Fixture::start(FixtureOptions {
        limits: Limits {
            request_timeout: Duration::MAX,
            idle_timeout: Duration::MAX,
            ..Limits::default()
        },
        ..FixtureOptions::default()
    })
    .expect("the fixture starts");
    let addr = f.addr();
    let from = f.len();
    let client = thread::spawn(move || {
        thread::sleep(Duration::from_millis(100));
        let mut c = Client::connect(addr);
        c.send(b"GET /no-limit HTTP/1.1\r\nHost: h.test\r\nConnection: close\r\n\r\n");
        c.response(false).status
    });
    let (first, entries) = f.wait_log(from, Duration::MAX);
    assert_eq!(first, from);
    assert!(entries[0].url.ends_with("/no-limit"), "{entries:?}");
    assert_eq!(client.join().unwrap(), 404);
}
