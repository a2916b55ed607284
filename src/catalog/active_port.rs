//! The `DevToolsActivePort` file (`discovery.activePortFile`) a Chromium browser writes into
//! its user-data dir when it serves CDP.

/// A parsed DevToolsActivePort: line 1 the port (1 to 65535), line 2 the browser's websocket
/// path, which starts with `/`.
///
/// ```
/// use slicc_browsers::catalog::ActivePort;
/// let file = ActivePort::parse("41235\n/devtools/browser/0b5c\n").unwrap();
/// assert_eq!((file.port, file.path.as_str()), (41235, "/devtools/browser/0b5c"));
/// assert!(ActivePort::parse("0\n/devtools/browser/x").is_none());
/// assert!(ActivePort::parse("41235\n").is_none());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ActivePort {
    /// The port CDP is served on, on `127.0.0.1`.
    pub port: u16,
    /// The browser target's websocket path, such as `/devtools/browser/<id>`.
    pub path: String,
}

impl ActivePort {
    /// Parses the file's text; `None` for a file without both a port and a path (a file being
    /// written, or not Chromium's). Lines may end in `\r\n`; surrounding spaces are ignored.
    pub fn parse(text: &str) -> Option<ActivePort> {
        let mut lines = text.lines().map(str::trim);
        let port = lines.next()?;
        if port.is_empty() || !port.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let port: u16 = port.parse().ok().filter(|p| *p != 0)?;
        let path = lines.next()?;
        if !path.starts_with('/') {
            return None;
        }
        Some(ActivePort {
            port,
            path: path.to_string(),
        })
    }

    /// The browser's websocket URL on loopback: `ws://127.0.0.1:<port><path>`.
    pub fn websocket_url(&self) -> String {
        format!("ws://127.0.0.1:{}{}", self.port, self.path)
    }
}
