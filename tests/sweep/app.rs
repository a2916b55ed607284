//! The sweep's web server, on one loopback port that the browser's host-resolver rules point
//! every host at.
//!
//! | host | route | answer |
//! |---|---|---|
//! | `client.example` | `/protected` | the protected page ([`PROTECTED_HTML`]); sets the cookie `sweep=c1` |
//! | any | `/widget` | the widget the protected page frames (on `ordinary.test`: a cross-site frame) |
//! | any | `/popup` | the page the protected page opens as its popup |
//! | `other.client.example` | `/same` | the ordinary same-site page |
//! | any | `/blank` | an ordinary page (the root session's own ordinary tab) |
//! | any | anything else | 204 |

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

/// The secret in the protected page's DOM.
pub const SECRET: &str = "sweep-secret-7f3a";

/// The protected page: a secret in its DOM, an input, a cross-site widget frame, a sandboxed
/// `srcdoc` frame, a `data:` shared worker, local storage, a counter of input events
/// (`window.__inputs`: keydown, mousedown, pointerdown, focus, wheel, touchstart, each
/// listened to on `window` in the capture phase) and `openPopup()`, which opens
/// `http://ordinary.test/popup` with opener access.
pub const PROTECTED_HTML: &str = r#"<!doctype html><html><head><title>protected</title></head><body>
<div id="secret">sweep-secret-7f3a</div>
<input id="box">
<iframe id="widget" src="http://ordinary.test/widget" width="300" height="150"></iframe>
<iframe id="sandboxed" sandbox="allow-scripts" srcdoc="<p>sandboxed</p><script>window.x = 1;</script>"></iframe>
<script>
window.__inputs = 0;
for (const k of ['keydown', 'mousedown', 'pointerdown', 'focus', 'wheel', 'touchstart']) {
  window.addEventListener(k, () => { window.__inputs++; }, true);
}
localStorage.setItem('sweep', 'v1');
try {
  window.__worker = new SharedWorker('data:text/javascript,onconnect%3De%3D%3Ee.ports%5B0%5D.postMessage(1)');
  window.__worker.port.start();
} catch (e) { window.__workerError = String(e); }
window.openPopup = () => { window.__popup = window.open('http://ordinary.test/popup', 'sweeppop'); return !!window.__popup; };
</script></body></html>"#;

const ORDINARY_HTML: &str = r#"<!doctype html><html><head><title>ordinary</title></head><body><p>ordinary</p><input id="box"><script>window.openBlank = () => { window.__blank = window.open('about:blank', 'sweepblank'); return !!window.__blank; };</script></body></html>"#;

struct Shared {
    stop: AtomicBool,
}

/// The running server; dropping it stops it.
pub struct App {
    shared: Arc<Shared>,
    port: u16,
}

impl App {
    /// Binds a random loopback port and serves.
    pub fn start() -> App {
        let listener = TcpListener::bind("127.0.0.1:0").expect("the app binds a loopback port");
        let port = listener.local_addr().expect("a local address").port();
        let shared = Arc::new(Shared {
            stop: AtomicBool::new(false),
        });
        let s = Arc::clone(&shared);
        thread::spawn(move || {
            for conn in listener.incoming() {
                if s.stop.load(Ordering::SeqCst) {
                    break;
                }
                if let Ok(conn) = conn {
                    thread::spawn(move || serve(conn));
                }
            }
        });
        App { shared, port }
    }

    /// The port every host is mapped to.
    pub fn port(&self) -> u16 {
        self.port
    }
}

impl Drop for App {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

fn serve(conn: TcpStream) {
    let _ = conn.set_read_timeout(Some(Duration::from_secs(10)));
    let mut reader = BufReader::new(match conn.try_clone() {
        Ok(c) => c,
        Err(_) => return,
    });
    let mut line = String::new();
    if reader.read_line(&mut line).is_err() || line.is_empty() {
        return;
    }
    let target = line.split_whitespace().nth(1).unwrap_or("/").to_string();
    let mut host = String::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).is_err() {
            return;
        }
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        if let Some((n, v)) = h.split_once(':') {
            if n.trim().eq_ignore_ascii_case("host") {
                host = v.trim().split(':').next().unwrap_or_default().to_string();
            }
        }
    }
    let path = target.split('?').next().unwrap_or_default();
    let (status, extra, body) = match (host.as_str(), path) {
        ("client.example", "/protected") => (
            "200 OK",
            "Set-Cookie: sweep=c1; Path=/\r\nCache-Control: no-store\r\n",
            PROTECTED_HTML,
        ),
        (_, "/widget" | "/popup" | "/same" | "/blank") => ("200 OK", "", ORDINARY_HTML),
        _ => ("204 No Content", "", ""),
    };
    let mut out = conn;
    let head = format!(
        "HTTP/1.1 {status}\r\nConnection: close\r\nContent-Type: text/html; charset=utf-8\r\n{extra}Content-Length: {}\r\n\r\n",
        body.len()
    );
    let _ = out.write_all(head.as_bytes());
    let _ = out.write_all(body.as_bytes());
    let _ = out.flush();
}
