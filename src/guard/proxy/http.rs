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

/// The ids of the targets a client may see: a [`Policy`] of their own runs its discovery and
/// a `Target.getTargets` over a connection of the proxy's, within 5 s.
pub(super) fn shown_targets(context: &Context) -> Result<HashSet<String>, BrowserError> {
    let (mut ws, socket) = connect_upstream(context)?;
    let _ = ws
        .get_ref()
        .stream
        .set_read_timeout(Some(Duration::from_millis(200)));
    let writer = Writer::new(socket, true);
    let started = Instant::now();
    let ms = || u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    let mut policy = Policy::new(context.matcher.clone());
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
