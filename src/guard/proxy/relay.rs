//! The WebSocket relay: one upstream connection per client, every frame either way through
//! the client's [`Policy`], written in order from per-side queues outside the policy's lock.

use crate::guard::policy::budget::FrameHead;
use crate::guard::policy::{Output, Policy, Refused, Verdict};
use crate::http::head::{self, RequestHead};
use crate::sys::lock;
use crate::ws::{self, ReadHalf, Received, Writer};
use serde_json::{json, Value};
use std::collections::VecDeque;
use std::io::{self, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Duration;
use tungstenite::protocol::frame::coding::CloseCode;
use tungstenite::protocol::frame::CloseFrame;
use tungstenite::protocol::{Role, WebSocket, WebSocketConfig};
use tungstenite::Message;

use super::answer::{refuse, Refusal};
use super::log::clip;
use super::upstream::connect_upstream;
use super::{Context, Slot};

/// Closes one side of a relay with `code` and `reason`, after what is queued for it.
pub(super) fn close(side: &Side, code: CloseCode, reason: &str) {
    let _ = side.flush();
    side.writer.close(
        Some(CloseFrame {
            code,
            reason: reason.to_string().into(),
        }),
        true,
    );
}

/// One side of a relay: its writer and what the policy returned for it, in order, not yet
/// written. Frames are queued under the policy's lock and written after it is released.
pub(super) struct Side {
    writer: Writer,
    queue: Mutex<Queue>,
    /// Held by the thread writing the queue out.
    flushing: Mutex<()>,
    /// The most bytes queued before the connection counts as stuck.
    cap: usize,
    /// Who reads this side, for the log (`client`, `browser`).
    peer: &'static str,
}

#[derive(Default)]
pub(super) struct Queue {
    frames: VecDeque<String>,
    bytes: usize,
}

impl Side {
    fn new(writer: Writer, cap: usize, peer: &'static str) -> Side {
        Side {
            writer,
            queue: Mutex::new(Queue::default()),
            flushing: Mutex::new(()),
            cap,
            peer,
        }
    }

    /// Queues `frames` (call with the policy's lock held, so that the order is the policy's).
    fn push(&self, frames: Vec<String>) -> io::Result<()> {
        if frames.is_empty() {
            return Ok(());
        }
        let mut q = lock(&self.queue);
        for f in frames {
            q.bytes += f.len();
            q.frames.push_back(f);
        }
        if q.bytes > self.cap {
            return Err(io::Error::other(format!(
                "the {} does not read: {} bytes waiting to be written (limit {})",
                self.peer, q.bytes, self.cap
            )));
        }
        Ok(())
    }

    /// Writes what is queued, in order. One thread writes at a time; another that finds it
    /// busy leaves its frames to it (the writer looks at the queue again after it lets go).
    fn flush(&self) -> io::Result<()> {
        loop {
            let Ok(guard) = self.flushing.try_lock() else {
                return Ok(());
            };
            loop {
                let batch = {
                    let mut q = lock(&self.queue);
                    q.bytes = 0;
                    std::mem::take(&mut q.frames)
                };
                if batch.is_empty() {
                    break;
                }
                for f in batch {
                    self.writer.text(f).map_err(|e| {
                        io::Error::new(e.kind(), format!("writing to the {}: {e}", self.peer))
                    })?;
                }
            }
            drop(guard);
            if lock(&self.queue).frames.is_empty() {
                return Ok(());
            }
        }
    }
}

/// The relay of one client connection.
pub(super) struct Relay<'a> {
    policy: Mutex<Policy>,
    /// The client's side: the proxy is its server and does not mask.
    client: Side,
    /// The browser's side: the proxy is its client and masks.
    browser: Side,
    context: &'a Context,
    slot: &'a Slot,
    conn: u64,
    done: AtomicBool,
    /// With a log: the methods of client commands the policy held, by (sessionId, id), so
    /// that a refusal it answers later is logged with its method (the oldest forgotten past
    /// [`HELD_REMEMBERED`]).
    held: Mutex<VecDeque<(String, i64, String)>>,
}

/// How many held commands' methods a relay remembers for the log.
const HELD_REMEMBERED: usize = 1024;

impl Relay<'_> {
    fn now(&self) -> u64 {
        u64::try_from(self.context.started.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// Runs the policy (`run`) under its lock and queues what it returns, in its order; then,
    /// with the lock released, logs and writes it.
    fn step(
        &self,
        run: impl FnOnce(&mut Policy, u64) -> Output,
        from: Option<(&str, bool)>,
    ) -> io::Result<()> {
        let logging = self.context.options.log.is_some();
        let (out, queued, refusals) = {
            let mut policy = lock(&self.policy);
            let mut out = run(&mut policy, self.now());
            // The policy's refusals, as it recorded them (not read back from the frames).
            let refusals: Vec<Refused> = if logging {
                std::mem::take(&mut out.refused)
            } else {
                Vec::new()
            };
            let queued = self
                .browser
                .push(std::mem::take(&mut out.to_browser))
                .and_then(|()| self.client.push(std::mem::take(&mut out.to_client)));
            (out, queued, refusals)
        };
        let mut own: Option<(String, i64)> = None;
        if let Some((frame, from_client)) = from {
            own = self.log(frame, from_client, out.verdict, out.why, &refusals);
        }
        // Refusals and errors of commands the policy held and answered now (a command that
        // came before it was ready, or one waiting for its checks), named by the method they
        // had.
        for Refused {
            session,
            id,
            message,
            verdict,
        } in refusals
        {
            if own.as_ref() == Some(&(session.clone(), id)) {
                continue;
            }
            let method = {
                let mut held = lock(&self.held);
                let at = held.iter().position(|(s, i, _)| *s == session && *i == id);
                at.and_then(|at| held.remove(at)).map(|(_, _, m)| m)
            };
            self.context.log(json!({
                "event": if verdict == Verdict::Invalid { "invalid" } else { "refused" },
                "conn": self.conn,
                "from": "client",
                "method": method,
                "id": id,
                "sessionId": if session.is_empty() { Value::Null } else { clip(Some(&Value::String(session))) },
                "why": message,
                "held": true,
            }));
        }
        for session in &out.detached {
            self.context.log(json!({"event": "detached", "conn": self.conn, "sessionId": session, "why": out.why}));
        }
        queued?;
        self.browser.flush()?;
        self.client.flush()
    }

    /// Runs one frame through the policy and sends what it returns.
    fn pass(&self, frame: &str, from_client: bool) -> io::Result<()> {
        self.step(
            |policy, now| {
                if from_client {
                    policy.from_client(frame, now)
                } else {
                    policy.from_browser(frame, now)
                }
            },
            Some((frame, from_client)),
        )
    }

    fn tick(&self) -> io::Result<()> {
        self.step(|policy, now| policy.tick(now), None)
    }

    /// A refused or invalid message, to the log; a held client command remembered (see
    /// [`Relay::held`]). Returns the (sessionId, id) of a client command it logged as refused or invalid.
    fn log(
        &self,
        frame: &str,
        from_client: bool,
        verdict: Verdict,
        why: &str,
        refusals: &[Refused],
    ) -> Option<(String, i64)> {
        let event = match verdict {
            Verdict::Refuse => "refused",
            Verdict::Invalid => "invalid",
            Verdict::Hold if from_client => "held",
            _ => return None,
        };
        self.context.options.log.as_ref()?;
        // Its top level only: the rest of a large message is not parsed again.
        let head = FrameHead::of(frame);
        let key = || Some((head.session.clone().unwrap_or_default(), head.int_id()?));
        if event == "held" {
            if let (Some((session, id)), Some(method)) = (key(), head.method.as_deref()) {
                let mut held = lock(&self.held);
                if held.len() >= HELD_REMEMBERED {
                    held.pop_front();
                }
                let method = clip(Some(&Value::from(method)));
                held.push_back((session, id, method.as_str().unwrap_or_default().to_string()));
            }
            return None;
        }
        let message = key().and_then(|(session, id)| {
            refusals
                .iter()
                .find(|r| r.session == session && r.id == id)
                .map(|r| r.message.clone())
        });
        self.context.log(json!({
            "event": event,
            "conn": self.conn,
            "from": if from_client { "client" } else { "browser" },
            "method": clip(head.method.clone().map(Value::String).as_ref()),
            "id": clip(head.id.as_ref()),
            "sessionId": clip(head.session.clone().map(Value::String).as_ref()),
            "why": why,
            "message": message,
        }));
        if from_client {
            key()
        } else {
            None
        }
    }

    fn end(&self) {
        if !self.done.swap(true, Ordering::SeqCst) {
            self.client.writer.shutdown();
            self.browser.writer.shutdown();
        }
    }
}

pub(super) fn relay(mut stream: TcpStream, head: &RequestHead, rest: Vec<u8>, slot: &Slot) {
    let context = &*slot.context;
    let Some(key) = head::header(&head.headers, "sec-websocket-key") else {
        refuse(&stream, &Refusal::NoKey);
        return slot.ended(super::answer::answered(&Refusal::NoKey));
    };
    // The browser first: a client must not be told it is connected when nothing is behind.
    let upstream = match connect_upstream(context) {
        Ok(ws) => ws,
        Err(why) => {
            let refusal = Refusal::Browser(why);
            refuse(&stream, &refusal);
            return slot.ended(super::answer::answered(&refusal));
        }
    };
    let accept = tungstenite::handshake::derive_accept_key(key.as_bytes());
    let reply = format!(
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: {accept}\r\n\r\n"
    );
    if let Err(e) = stream.write_all(reply.as_bytes()) {
        return slot.ended(format!("writing to the client: {e}"));
    }
    let (browser_ws, browser_socket) = upstream;
    let _ = browser_socket.set_write_timeout(Some(context.options.write_timeout));
    let _ = stream.set_write_timeout(Some(context.options.write_timeout));
    let Ok(client_read) = stream.try_clone() else {
        return;
    };
    let max = context.options.max_client_message.max(1);
    let config = WebSocketConfig::default()
        .max_message_size(Some(max))
        .max_frame_size(Some(max));
    // Bytes the client sent after its head (its first frames) are read first.
    let client_ws = WebSocket::from_partially_read(
        ReadHalf::new(client_read),
        rest,
        Role::Server,
        Some(config),
    );
    let cap = context
        .options
        .max_browser_message
        .saturating_add(context.options.max_client_message);
    let relay = Relay {
        policy: Mutex::new(Policy::with_config(
            context.matcher.clone(),
            context.policy.clone(),
        )),
        client: Side::new(Writer::new(stream, false), cap, "client"),
        browser: Side::new(Writer::new(browser_socket, true), cap, "browser"),
        context,
        slot,
        conn: slot.conn,
        done: AtomicBool::new(false),
        held: Mutex::new(VecDeque::new()),
    };
    let start = {
        let mut policy = lock(&relay.policy);
        let out = policy.start(relay.now());
        relay.browser.push(out.to_browser)
    };
    if start.and_then(|()| relay.browser.flush()).is_err() {
        relay.end();
        return;
    }
    // The browser's side is read on a thread of its own, joined before this one ends.
    std::thread::scope(|scope| {
        let upstream_thread = std::thread::Builder::new()
            .name("guard-proxy-up".into())
            .spawn_scoped(scope, || browser_loop(browser_ws, &relay));
        if upstream_thread.is_err() {
            relay.end();
            return;
        }
        client_loop(client_ws, &relay);
        relay.end();
    });
}

pub(super) fn browser_loop(mut ws: WebSocket<ReadHalf>, relay: &Relay) {
    let why = loop {
        let (read, replied) = ws::read(&mut ws, &relay.browser.writer);
        if let Err(e) = replied {
            break format!("writing to the browser: {e}");
        }
        let passed = match read {
            Received::Message(Message::Text(text)) => relay.pass(text.as_str(), false),
            Received::Message(Message::Binary(bytes)) => match std::str::from_utf8(&bytes) {
                Ok(text) => relay.pass(text, false),
                Err(_) => continue,
            },
            Received::Message(Message::Close(_)) => {
                close(
                    &relay.client,
                    CloseCode::Away,
                    "slicc-browsers guard proxy: the browser closed the connection",
                );
                break "the browser closed the connection".into();
            }
            Received::Message(_) | Received::Idle => continue,
            Received::Failed(e) => {
                if !relay.done.load(Ordering::SeqCst) {
                    close(
                        &relay.client,
                        CloseCode::Away,
                        "slicc-browsers guard proxy: the browser connection ended",
                    );
                }
                break format!("the browser connection ended ({e})");
            }
        };
        if let Err(e) = passed {
            break e.to_string();
        }
    };
    relay.slot.ended(why);
    relay.end();
}

pub(super) fn client_loop(mut ws: WebSocket<ReadHalf>, relay: &Relay) {
    // A read timeout lets the policy's clock run (held messages fail closed on time).
    let _ = ws
        .get_ref()
        .stream
        .set_read_timeout(Some(Duration::from_millis(500)));
    let why = loop {
        let (read, replied) = ws::read(&mut ws, &relay.client.writer);
        if let Err(e) = replied {
            break format!("writing to the client: {e}");
        }
        let passed = match read {
            Received::Message(Message::Text(text)) => relay.pass(text.as_str(), true),
            Received::Message(Message::Binary(bytes)) => match std::str::from_utf8(&bytes) {
                Ok(text) => relay.pass(text, true),
                Err(_) => {
                    let why = "a binary frame that is not UTF-8 JSON";
                    close(
                        &relay.client,
                        CloseCode::Unsupported,
                        &format!("slicc-browsers guard proxy: {why}"),
                    );
                    break why.into();
                }
            },
            Received::Message(Message::Close(_)) => {
                break "the client closed the connection".into()
            }
            Received::Message(_) => continue,
            Received::Idle => {
                if relay.done.load(Ordering::SeqCst) {
                    break "the browser side ended".into();
                }
                if let Err(e) = relay.tick() {
                    break e.to_string();
                }
                continue;
            }
            Received::Failed(tungstenite::Error::Capacity(e)) => {
                let why = format!("message too big ({e})");
                close(
                    &relay.client,
                    CloseCode::Size,
                    &format!("slicc-browsers guard proxy: {why}"),
                );
                break why;
            }
            Received::Failed(tungstenite::Error::Protocol(
                tungstenite::error::ProtocolError::ResetWithoutClosingHandshake,
            )) => break "the client went away without closing".into(),
            Received::Failed(tungstenite::Error::Protocol(e)) => {
                let why = format!("WebSocket protocol error ({e})");
                close(
                    &relay.client,
                    CloseCode::Protocol,
                    &format!("slicc-browsers guard proxy: {why}"),
                );
                break why;
            }
            Received::Failed(tungstenite::Error::Utf8(e)) => {
                let why = format!("a text frame that is not UTF-8 ({e})");
                close(
                    &relay.client,
                    CloseCode::Invalid,
                    &format!("slicc-browsers guard proxy: {why}"),
                );
                break why;
            }
            Received::Failed(e) => break format!("the client connection ended ({e})"),
        };
        if let Err(e) = passed {
            break e.to_string();
        }
    };
    relay.slot.ended(why);
    relay.end();
}
