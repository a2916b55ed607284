//! The WebSocket plumbing the guard's CDP client ([`cdp`](super::cdp)) and its proxy
//! ([`proxy`](super::proxy)) share (features `guard-runner` or `guard-proxy`, not on
//! `wasm32-wasip1`): reading their `http://` and `ws://` endpoint URLs, the client handshake,
//! a read side whose own replies (pongs, the close reply) are sent whole under the socket's
//! write lock, whole-frame writing (masked when this end is the client, RFC 6455 §5.3), and
//! the reads' outcomes with the idle ones (a read timeout) told apart.
//!
//! What differs between the two on purpose is a parameter: the proxy's client side is a server
//! and does not mask ([`Writer::new`]); each gives its own size limit and timeouts
//! ([`connect`]); each decides what a close or a failed read means for it.

use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::sync::Mutex;
use std::time::Duration;

use tungstenite::protocol::frame::CloseFrame;
use tungstenite::protocol::{Role, WebSocket, WebSocketConfig, WebSocketContext};
use tungstenite::Message;

/// `(host, port)` of `scheme://host[:port][/path]`: the scheme compared without case, no user
/// info, the host without IPv6 brackets (split by the crate's one host:port splitter,
/// [`split_host_port`](crate::catalog::split_host_port)), `default_port` when none is given.
pub(super) fn split_url(url: &str, scheme: &str, default_port: u16) -> Option<(String, u16)> {
    let (s, rest) = url.split_once("://")?;
    if !s.eq_ignore_ascii_case(scheme) {
        return None;
    }
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..end];
    if authority.contains('@') {
        return None;
    }
    let (host, port) = crate::catalog::split_host_port(authority)?;
    let port = match port {
        Some(p) => p.parse().ok()?,
        None => default_port,
    };
    if host.is_empty() {
        return None;
    }
    Some((host.to_string(), port))
}

/// A socket as a reading [`WebSocket`] sees it: reads come from the socket; writes (pongs, the
/// close reply) are kept in `out` for the owner to send whole with [`Writer::bytes`], so they
/// never interleave with another thread's frame. During the handshake (`direct`) writes go
/// straight out.
pub(super) struct ReadHalf {
    /// The socket read from.
    pub(super) stream: TcpStream,
    out: Vec<u8>,
    direct: bool,
}

impl ReadHalf {
    /// A read side that keeps its writes for [`read`] to send.
    #[cfg(feature = "guard-proxy")] // The proxy's server side.
    pub(super) fn new(stream: TcpStream) -> ReadHalf {
        ReadHalf {
            stream,
            out: Vec::new(),
            direct: false,
        }
    }
}

impl Read for ReadHalf {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.stream.read(buf)
    }
}

impl Write for ReadHalf {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.direct {
            self.stream.write(buf)
        } else {
            self.out.extend_from_slice(buf);
            Ok(buf.len())
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.direct {
            self.stream.flush()
        } else {
            Ok(())
        }
    }
}

use crate::sys::lock;

/// The write side of a WebSocket connection: tungstenite's own framing
/// ([`WebSocketContext`]), one message at a time under one lock, masked with tungstenite's
/// random mask (`rand`) when this end is the client (RFC 6455 §5.3).
pub(super) struct Writer {
    socket: TcpStream,
    context: Mutex<WebSocketContext>,
}

/// A tungstenite error as an I/O error (the callers end the connection on either).
fn io_error(e: tungstenite::Error) -> io::Error {
    match e {
        tungstenite::Error::Io(e) => e,
        other => io::Error::other(other.to_string()),
    }
}

impl Writer {
    /// Writes on `socket`; `masked` when this end is the client (a server must not mask).
    pub(super) fn new(socket: TcpStream, masked: bool) -> Writer {
        let role = if masked { Role::Client } else { Role::Server };
        // Each message goes out at once (no buffering across messages).
        let config = WebSocketConfig::default().write_buffer_size(0);
        Writer {
            socket,
            context: Mutex::new(WebSocketContext::new(role, Some(config))),
        }
    }

    /// Shuts the socket down both ways (a blocked read or write returns).
    pub(super) fn shutdown(&self) {
        let _ = self.socket.shutdown(Shutdown::Both);
    }

    /// Writes bytes that form whole frames (a read side's pongs and close reply), under the
    /// write lock.
    pub(super) fn bytes(&self, bytes: &[u8]) -> io::Result<()> {
        let _guard = lock(&self.context);
        (&self.socket).write_all(bytes)?;
        (&self.socket).flush()
    }

    /// Sends one message as a single frame, under the write lock.
    pub(super) fn send(&self, message: Message) -> io::Result<()> {
        let mut context = lock(&self.context);
        let mut socket = &self.socket;
        context.write(&mut socket, message).map_err(io_error)?;
        context.flush(&mut socket).map_err(io_error)
    }

    /// Sends one text message (no copy of `text`).
    #[cfg(feature = "guard-proxy")] // The relay (the CDP client sends its own messages).
    pub(super) fn text(&self, text: String) -> io::Result<()> {
        self.send(Message::Text(text.into()))
    }

    /// Sends a close frame (best effort), then shuts the socket down. With `wait` false the
    /// frame is skipped when another thread is writing, so closing never waits for a writer
    /// stuck on a full socket.
    pub(super) fn close(&self, frame: Option<CloseFrame>, wait: bool) {
        if wait {
            let _ = self.send(Message::Close(frame));
        } else if let Ok(mut context) = self.context.try_lock() {
            let mut socket = &self.socket;
            if context.write(&mut socket, Message::Close(frame)).is_ok() {
                let _ = context.flush(&mut socket);
            }
        }
        self.shutdown();
    }
}

/// Why [`connect`] failed; each caller words it for its own messages.
pub(super) enum ConnectError {
    /// The URL is not `ws://host[:port]/…`.
    NotWs,
    /// No TCP connection to `host:port`.
    Unreachable(String, u16),
    /// Setting the socket's options failed.
    Setup(io::Error),
    /// The WebSocket handshake failed: why.
    Handshake(String),
}

/// Opens a client WebSocket to `url` (`ws://` only): the TCP connection and the handshake within
/// `timeout` (and `handshake_write_timeout` on writes, if any), messages and frames up to `max`
/// bytes. Returns the reading side (its socket blocks without a timeout from now on) and the
/// socket to write on.
pub(super) fn connect(
    url: &str,
    timeout: Duration,
    handshake_write_timeout: Option<Duration>,
    max: usize,
) -> Result<(WebSocket<ReadHalf>, TcpStream), ConnectError> {
    connect_as(url, None, timeout, handshake_write_timeout, max)
}

/// [`connect`], the handshake sending `Origin: <origin>` when given (as a web page's
/// WebSocket would: the proxy asks whether the browser lets pages in).
pub(super) fn connect_as(
    url: &str,
    origin: Option<&str>,
    timeout: Duration,
    handshake_write_timeout: Option<Duration>,
    max: usize,
) -> Result<(WebSocket<ReadHalf>, TcpStream), ConnectError> {
    use tungstenite::client::IntoClientRequest;
    let handshake = |e: &dyn std::fmt::Display| ConnectError::Handshake(e.to_string());
    let mut request = url.into_client_request().map_err(|e| handshake(&e))?;
    if let Some(origin) = origin {
        let value = tungstenite::http::HeaderValue::from_str(origin).map_err(|e| handshake(&e))?;
        request.headers_mut().insert("Origin", value);
    }
    let (host, port) = split_url(url, "ws", 80).ok_or(ConnectError::NotWs)?;
    let stream = crate::http::connect(&host, port, timeout)
        .ok_or_else(|| ConnectError::Unreachable(host.clone(), port))?;
    stream.set_nodelay(true).map_err(ConnectError::Setup)?;
    stream
        .set_read_timeout(Some(timeout))
        .map_err(ConnectError::Setup)?;
    stream
        .set_write_timeout(handshake_write_timeout)
        .map_err(ConnectError::Setup)?;
    let half = ReadHalf {
        stream: stream.try_clone().map_err(ConnectError::Setup)?,
        out: Vec::new(),
        direct: true,
    };
    let max = max.max(1);
    let config = WebSocketConfig::default()
        .read_buffer_size(64 * 1024)
        .max_message_size(Some(max))
        .max_frame_size(Some(max));
    let (mut ws, _response) = tungstenite::client::client_with_config(request, half, Some(config))
        .map_err(|e| handshake(&e))?;
    ws.get_mut().direct = false;
    stream.set_read_timeout(None).map_err(ConnectError::Setup)?;
    Ok((ws, stream))
}

/// What one [`read`] gave.
pub(super) enum Received {
    /// A message (text, binary, close, ping or pong).
    Message(Message),
    /// The read timed out or was interrupted: nothing came, the connection is still up.
    Idle,
    /// The connection failed or ended (no more messages).
    Failed(tungstenite::Error),
}

/// Reads the next message from `ws`, then sends on `writer` the replies the read produced
/// (pongs, the close reply), whole. Returns what was read and whether the replies went out.
pub(super) fn read(ws: &mut WebSocket<ReadHalf>, writer: &Writer) -> (Received, io::Result<()>) {
    let received = match ws.read() {
        Ok(message) => Received::Message(message),
        Err(tungstenite::Error::Io(e))
            if matches!(
                e.kind(),
                io::ErrorKind::Interrupted | io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
            ) =>
        {
            Received::Idle
        }
        Err(e) => Received::Failed(e),
    };
    let out = std::mem::take(&mut ws.get_mut().out);
    let replied = if out.is_empty() {
        Ok(())
    } else {
        writer.bytes(&out)
    };
    (received, replied)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_split() {
        assert_eq!(
            split_url("ws://127.0.0.1:9333/devtools/browser/x", "ws", 80),
            Some(("127.0.0.1".into(), 9333))
        );
        assert_eq!(
            split_url("WS://[::1]:1234", "ws", 80),
            Some(("::1".into(), 1234))
        );
        assert_eq!(
            split_url("http://[::1]:5/", "http", 80),
            Some(("::1".into(), 5))
        );
        assert_eq!(
            split_url("http://localhost", "http", 80),
            Some(("localhost".into(), 80))
        );
        assert_eq!(split_url("http://h:99999/", "http", 80), None);
        assert_eq!(split_url("http://u@h:1/", "http", 80), None);
        assert_eq!(split_url("ws://:1/", "ws", 80), None);
        assert_eq!(split_url("ws:///x", "ws", 80), None);
        assert_eq!(split_url("ftp://h/", "ws", 80), None);
        // Text after an IPv6 literal's bracket other than `:port` is not a URL.
        assert_eq!(split_url("ws://[::1]x/", "ws", 80), None);
        assert_eq!(split_url("ws://::1:5/", "ws", 80), None);
    }

    #[test]
    fn only_a_client_masks_and_its_masks_are_random() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let socket = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (mut peer, _) = listener.accept().unwrap();
        let client = Writer::new(socket.try_clone().unwrap(), true);
        let server = Writer::new(socket, false);
        let text = || Message::Text("{}".into());
        client.send(text()).unwrap();
        client.send(text()).unwrap();
        server.send(text()).unwrap();
        // Two masked frames (2 + 4 + 2 bytes each), then one plain one (2 + 2).
        let mut bytes = [0u8; 20];
        peer.read_exact(&mut bytes).unwrap();
        let (first, rest) = bytes.split_at(8);
        let (second, plain) = rest.split_at(8);
        for masked in [first, second] {
            assert_eq!(masked[0], 0x81, "a final text frame");
            assert_eq!(masked[1], 0x80 | 2, "the mask bit and the length");
            let key = &masked[2..6];
            let payload: Vec<u8> = masked[6..]
                .iter()
                .zip(key.iter().cycle())
                .map(|(b, k)| b ^ k)
                .collect();
            assert_eq!(payload, b"{}");
        }
        // tungstenite's random mask: two frames' keys differ (a 2^-32 chance they match).
        assert_ne!(first[2..6], second[2..6]);
        assert_eq!(plain, [0x81, 2, b'{', b'}']);
    }
}
