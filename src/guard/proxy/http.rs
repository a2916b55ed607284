//! The proxy's HTTP side: a client's request head read and answered (`/json/version`,
//! `/json/protocol`, the filtered `/json/list`, refusals with their status), and the browser's
//! own `/json/*` endpoints read.

use crate::guard::policy::Policy;
use crate::http::head::{self};
use crate::protected::Opener;
use crate::sys::lock;
use crate::ws::{self, Received, Writer};
use serde_json::Value;
use std::collections::HashSet;
use std::net::TcpStream;
use std::time::{Duration, Instant};
use tungstenite::Message;

use super::answer::{answered, read_head, refuse, respond, Refusal};
use super::relay::relay;
use super::upstream::connect_upstream;
use super::upstream::get_json;
use super::{BrowserError, Context, Slot};

pub(super) fn serve(mut stream: TcpStream, slot: &Slot) {
    let context = &*slot.context;
    let _ = stream.set_nodelay(true);
    let (head, rest) = match read_head(&mut stream) {
        Ok(h) => h,
        Err(refusal) => {
            if !matches!(refusal, Refusal::Read(None)) {
                refuse(&stream, &refusal);
            }
            return slot.ended(answered(&refusal));
        }
    };
    let path = head
        .target
        .split('?')
        .next()
        .unwrap_or_default()
        .to_string();
    let upgrade =
        head::header(&head.headers, "upgrade").is_some_and(|u| u.eq_ignore_ascii_case("websocket"));
    if let Err(refusal) = page_check(&head.headers, upgrade, context) {
        refuse(&stream, &refusal);
        return slot.ended(answered(&refusal));
    }
    if upgrade && path.starts_with("/devtools/browser/") {
        return relay(stream, &head, rest, slot);
    }
    if head.method != "GET" {
        refuse(&stream, &Refusal::Method);
        return slot.ended(answered(&Refusal::Method));
    }
    let answer = match path.trim_end_matches('/') {
        "/json/version" => json_version(context),
        "/json" | "/json/list" => json_list(context),
        // The protocol's schema (chrome-remote-interface reads it): no target, no origin.
        "/json/protocol" => get_json(
            &context.upstream_host,
            context.upstream_port,
            "/json/protocol",
        )
        .map_err(Refusal::from),
        _ => Err(Refusal::NotServed(path)),
    };
    match answer {
        Ok(v) => {
            let _ = respond(
                &stream,
                200,
                "application/json; charset=UTF-8",
                serde_json::to_string_pretty(&v)
                    .unwrap_or_default()
                    .as_bytes(),
            );
            slot.ended("answered 200".into());
        }
        Err(refusal) => {
            refuse(&stream, &refusal);
            slot.ended(answered(&refusal));
        }
    }
}

/// What Chromium's DevTools server checks before it serves a request (measured on Chromium
/// 156), so that the proxy does not open what the browser closes: every `Host` must be an IP
/// address or a localhost name (a page on another site whose DNS name now points at the
/// proxy, DNS rebinding, would read the endpoints), and a WebSocket upgrade carrying an
/// `Origin` (a page's: any site may open `ws://127.0.0.1:<port>`) must come from the proxy's
/// own origin or one of [`ProxyOptions::allow_origins`](super::ProxyOptions::allow_origins).
/// Clients that are not pages (Playwright, Puppeteer, chrome-remote-interface over Node's
/// WebSocket) send no `Origin`.
fn page_check(
    headers: &[(String, String)],
    upgrade: bool,
    context: &Context,
) -> Result<(), Refusal> {
    let named = |name: &'static str| {
        headers
            .iter()
            .filter(move |(n, _)| n == name)
            .map(|(_, v)| v.trim())
    };
    // An empty `Host` names nothing (Chromium reads it as none, as it does an empty `Origin`).
    if named("host").any(|h| !h.is_empty() && !host_allowed(h)) {
        return Err(Refusal::Host);
    }
    if upgrade {
        let own = format!("http://{}", context.authority);
        // An empty `Origin` is no page's (Chromium reads it as none).
        if let Some(origin) = named("origin")
            .find(|o| !o.is_empty() && !origin_allowed(o, &own, &context.options.allow_origins))
        {
            return Err(Refusal::Origin(origin.to_string()));
        }
    }
    Ok(())
}

/// Whether a `Host` header names an IP address or a localhost name (`localhost`, a name under
/// it, with or without the final dot), with any port, as Chromium's DevTools server reads it.
fn host_allowed(host: &str) -> bool {
    // Only a host and a port: no user info, path or other URL parts to read it by.
    if host.is_empty()
        || host
            .bytes()
            .any(|b| matches!(b, b'/' | b'\\' | b'@' | b'?' | b'#') || b.is_ascii_whitespace())
    {
        return false;
    }
    let Ok(url) = url::Url::parse(&format!("http://{host}/")) else {
        return false;
    };
    match url.host() {
        Some(url::Host::Ipv4(_) | url::Host::Ipv6(_)) => true,
        Some(url::Host::Domain(d)) => {
            let d = d.strip_suffix('.').unwrap_or(d);
            d == "localhost" || d.ends_with(".localhost")
        }
        None => false,
    }
}

/// Whether a WebSocket upgrade's `Origin` may open the browser WebSocket: the proxy's own
/// origin (`own`), one of `allowed` (compared as origins: case, default ports and IPv4
/// spellings do not matter), or any when `allowed` holds `*`.
fn origin_allowed(origin: &str, own: &str, allowed: &[String]) -> bool {
    fn norm(s: &str) -> String {
        match url::Url::parse(s) {
            Ok(u) => u.origin().ascii_serialization(),
            Err(_) => s.to_string(),
        }
    }
    if allowed.iter().any(|a| a.trim() == "*") {
        return true;
    }
    let o = norm(origin);
    // An opaque origin (`null`, a `file:` page) is never the proxy's own.
    (o != "null" && o == norm(own))
        || allowed
            .iter()
            .any(|a| a.trim() == origin || norm(a.trim()) == o)
}

pub(super) fn json_version(context: &Context) -> Result<Value, Refusal> {
    let path = "/json/version";
    let mut v = get_json(&context.upstream_host, context.upstream_port, path)?;
    let why = |what| {
        Refusal::Browser(BrowserError::Shape {
            addr: crate::http::authority(&context.upstream_host, context.upstream_port),
            path,
            what,
        })
    };
    let Some(obj) = v.as_object_mut() else {
        return Err(why("is not a JSON object"));
    };
    let Some(ws) = obj.get("webSocketDebuggerUrl").and_then(Value::as_str) else {
        return Err(why("has no webSocketDebuggerUrl"));
    };
    // The browser may have restarted: the next WebSocket connection uses its new URL.
    if ws.to_ascii_lowercase().starts_with("ws://") && context.options.upstream.starts_with("http")
    {
        *lock(&context.upstream_ws) = ws.to_string();
    }
    let path = ws
        .find("/devtools/browser/")
        .map_or("/devtools/browser/guard".to_string(), |i| {
            ws[i..].to_string()
        });
    obj.insert(
        "webSocketDebuggerUrl".into(),
        Value::String(format!("ws://{}{path}", context.authority)),
    );
    Ok(v)
}

pub(super) fn json_list(context: &Context) -> Result<Value, Refusal> {
    let path = "/json/list";
    let list = get_json(&context.upstream_host, context.upstream_port, path)?;
    let Value::Array(items) = list else {
        return Err(Refusal::Browser(BrowserError::Shape {
            addr: crate::http::authority(&context.upstream_host, context.upstream_port),
            path,
            what: "is not a JSON array",
        }));
    };
    // /json/list has no openers: the targets are judged by a policy of their own over CDP,
    // whose Target.getTargets carries them (an about:blank popup of a protected page stays
    // protected), and a target that policy does not show is left out.
    let judged = shown_targets(context)?;
    let shown: Vec<Value> = items
        .into_iter()
        .filter(Value::is_object)
        .filter(|t| {
            let url = t.get("url").and_then(Value::as_str).unwrap_or_default();
            let id = t.get("id").and_then(Value::as_str).unwrap_or_default();
            judged.contains(id) && !context.matcher.target(url, false, Opener::None)
        })
        .map(|mut t| {
            if let Some(obj) = t.as_object_mut() {
                // Front-end links would talk to the browser directly, around the guard.
                obj.remove("devtoolsFrontendUrl");
                obj.remove("devtoolsFrontendUrlCompat");
                // Page endpoints are not relayed: clients use the browser WebSocket.
                obj.remove("webSocketDebuggerUrl");
            }
            t
        })
        .collect();
    Ok(Value::Array(shown))
}

/// The ids of the targets a client may see: a [`Policy`] of their own, with the proxy's own
/// settings (its DevTools endpoint, its protected paths: what a client's policy hides, this
/// one hides too), runs its discovery and a `Target.getTargets` over a connection of the
/// proxy's, within 5 s.
pub(super) fn shown_targets(context: &Context) -> Result<HashSet<String>, BrowserError> {
    let (mut ws, socket) = connect_upstream(context)?;
    let _ = ws
        .get_ref()
        .stream
        .set_read_timeout(Some(Duration::from_millis(200)));
    let writer = Writer::new(socket, true);
    let started = Instant::now();
    let ms = || u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    let mut policy = Policy::with_config(context.matcher.clone(), context.policy.clone());
    let mut out = policy.start(0);
    out.to_browser.extend(
        policy
            .from_client(r#"{"id":1,"method":"Target.getTargets"}"#, 0)
            .to_browser,
    );
    let failed = BrowserError::Socket;
    let result = loop {
        for f in &out.to_browser {
            writer.text(f.clone()).map_err(failed)?;
        }
        if let Some(list) = out.to_client.iter().find_map(|f| {
            let v: Value = serde_json::from_str(f).ok()?;
            (v["id"] == 1).then(|| v["result"]["targetInfos"].clone())
        }) {
            break Ok(list);
        }
        if started.elapsed() > Duration::from_secs(5) {
            break Err(BrowserError::Listing(
                "the browser did not list its targets in time",
            ));
        }
        let (read, replied) = ws::read(&mut ws, &writer);
        replied.map_err(failed)?;
        out = match read {
            Received::Message(Message::Text(text)) => policy.from_browser(text.as_str(), ms()),
            Received::Message(Message::Close(_)) | Received::Failed(_) => {
                break Err(BrowserError::Listing("the browser closed the connection"))
            }
            Received::Message(_) | Received::Idle => policy.tick(ms()),
        };
    };
    writer.close(None, false);
    let list = result?;
    Ok(list
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|i| i["targetId"].as_str().map(str::to_string))
        .collect())
}

#[cfg(test)]
mod page_tests {
    use super::{host_allowed, origin_allowed};

    /// Chromium 156's DevTools server on these `Host` headers (measured with raw requests:
    /// 200 or 101 where allowed, 500 otherwise).
    #[test]
    fn hosts_as_chromium_reads_them() {
        for ok in [
            "127.0.0.1:41251",
            "127.0.0.1",
            "localhost:41251",
            "LOCALHOST:41251",
            "localhost.:41251",
            "foo.localhost:41251",
            "foo.localhost.:41251",
            "[::1]:41251",
            "127.1:41251",
            "0x7f000001:41251",
        ] {
            assert!(host_allowed(ok), "{ok}");
        }
        for bad in [
            "evil.test",
            "evil.test:41251",
            "localhost.evil.test",
            "evil.test@127.0.0.1",
            "127.0.0.1/evil",
            "",
            "local host",
            "[::1",
        ] {
            assert!(!host_allowed(bad), "{bad}");
        }
    }

    /// Chromium 156 on these `Origin` headers of a WebSocket upgrade (no
    /// `--remote-allow-origins`): only its own address's origin opens it.
    #[test]
    fn origins_as_chromium_reads_them() {
        let own = "http://127.0.0.1:41251";
        for ok in [
            "http://127.0.0.1:41251",
            "HTTP://127.0.0.1:41251",
            "http://127.1:41251",
        ] {
            assert!(origin_allowed(ok, own, &[]), "{ok}");
        }
        for bad in [
            "http://evil.test",
            "https://127.0.0.1:41251",
            "http://localhost:41251",
            "http://127.0.0.1",
            "null",
            "chrome-extension://abc",
            "*",
            "",
        ] {
            assert!(!origin_allowed(bad, own, &[]), "{bad}");
        }
        let listed = vec!["http://Evil.test:80".to_string(), "null".to_string()];
        assert!(origin_allowed("http://evil.test", own, &listed));
        assert!(origin_allowed("null", own, &listed));
        assert!(!origin_allowed("http://evil.test:81", own, &listed));
        assert!(origin_allowed(
            "http://anything.test",
            own,
            &["*".to_string()]
        ));
    }
}
