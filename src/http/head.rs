//! The crate's one HTTP/1.x head parser, on [`httparse`]: request heads (the stand-in fixture's
//! server and `guard proxy`) and response heads (the GET client in [`super`]), bounded in size,
//! every failure a [`HeadError`] that says what was wrong and which status a server answers it
//! with. No input makes it panic; the unit tests below feed it malformed heads.
//!
//! What it accepts is httparse's reading of RFC 9112: `HTTP/1.0` and `HTTP/1.1`, CRLF or bare
//! LF line ends, empty lines before a request line skipped, header names as tokens, values
//! without control characters (obs-text allowed), no obsolete line folding. On top of it:
//! a method at most [`MAX_METHOD`] bytes, the request line at most [`HeadLimits::max_line`]
//! bytes, the whole head at most [`HeadLimits::max_head`] bytes, at most
//! [`HeadLimits::max_headers`] fields. Header names come out in lower case, values trimmed of
//! spaces and tabs, in order, repeated names kept (callers decide how to join them).
//!
//! What a caller does with the head (Host rules, keep-alive, the body's framing) stays with
//! the caller; [`content_length`] is here because both the client and the fixture read it.

// The request side serves the fixture (`guard-runner`) and the proxy (`guard-proxy`); a build
// with discovery's client alone uses only the response side.
#![cfg_attr(
    not(all(feature = "guard-runner", feature = "guard-proxy")),
    allow(dead_code)
)]

use std::fmt;

/// The longest method token read: nothing past it is HTTP (a server answers at once).
pub(crate) const MAX_METHOD: usize = 32;

/// The bounds a head is read under.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct HeadLimits {
    /// The largest head, request or status line and fields and the blank line, in bytes.
    pub(crate) max_head: usize,
    /// The longest request or status line, in bytes (without its line end).
    pub(crate) max_line: usize,
    /// The most header fields.
    pub(crate) max_headers: usize,
}

impl HeadLimits {
    /// The field slots handed to httparse: the limit, but never more than a head of
    /// `max_head` bytes can hold (a field takes at least 3 bytes, `a:\n`), so a huge
    /// `max_headers` does not allocate a huge array.
    fn slots(&self) -> usize {
        self.max_headers.min(self.max_head / 3 + 1)
    }
}

/// Why a head is not one the crate reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HeadError {
    /// It does not start like an HTTP request (no method token followed by a space: a TLS
    /// ClientHello, binary, a bare word).
    NotHttp,
    /// The method token is longer than [`MAX_METHOD`] bytes.
    MethodTooLong,
    /// The request or status line is longer than the limit.
    LineTooLong,
    /// The head is larger than the limit.
    TooLarge,
    /// More header fields than the limit.
    TooManyHeaders,
    /// The request line is not `method SP target SP version`.
    BadRequestLine,
    /// The request target has a byte a target may not have.
    BadTarget,
    /// The version is not `HTTP/<digit>.<digit>`.
    BadVersion,
    /// An HTTP version other than 1.0 and 1.1.
    UnsupportedVersion,
    /// The status line is not `HTTP/1.x <3 digits> reason`.
    BadStatusLine,
    /// A header name is not a token, or a field line has no colon.
    BadHeaderName,
    /// A header line starts with a space or tab (obsolete line folding).
    Folded,
    /// A header value has a control character.
    BadHeaderValue,
    /// A line end that is neither CRLF nor LF.
    BadLineEnd,
}

impl HeadError {
    /// The status a server answers the request with: 414 for a long line, 431 for a large
    /// head or too many fields, 505 for another HTTP version, 400 otherwise.
    pub(crate) fn status(self) -> u16 {
        match self {
            HeadError::LineTooLong => 414,
            HeadError::TooLarge | HeadError::TooManyHeaders => 431,
            HeadError::UnsupportedVersion => 505,
            _ => 400,
        }
    }

    /// What was wrong, in a few words.
    pub(crate) fn why(self) -> &'static str {
        match self {
            HeadError::NotHttp => "not an HTTP request",
            HeadError::MethodTooLong => "not an HTTP request (method too long)",
            HeadError::LineTooLong => "request line too long",
            HeadError::TooLarge => "head too large",
            HeadError::TooManyHeaders => "too many header fields",
            HeadError::BadRequestLine => "bad request line",
            HeadError::BadTarget => "bad request target",
            HeadError::BadVersion => "bad HTTP version",
            HeadError::UnsupportedVersion => "HTTP version not supported",
            HeadError::BadStatusLine => "bad status line",
            HeadError::BadHeaderName => "bad header name or a line without a colon",
            HeadError::Folded => "obsolete header line folding",
            HeadError::BadHeaderValue => "bad header value",
            HeadError::BadLineEnd => "bad line end",
        }
    }
}

impl fmt::Display for HeadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.why())
    }
}

impl std::error::Error for HeadError {}

/// A complete request head.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RequestHead {
    /// The method, as sent (case matters).
    pub(crate) method: String,
    /// The request target, as sent.
    pub(crate) target: String,
    /// The `x` of `HTTP/1.x`.
    pub(crate) minor: u8,
    /// The fields: names in lower case, values trimmed, in order.
    pub(crate) headers: Vec<(String, String)>,
    /// The head's length in bytes, the blank line included: the body starts there.
    pub(crate) len: usize,
}

/// A complete response head.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ResponseHead {
    /// The status code.
    pub(crate) status: u16,
    /// The fields: names in lower case, values trimmed, in order.
    pub(crate) headers: Vec<(String, String)>,
    /// The head's length in bytes, the blank line included: the body starts there.
    pub(crate) len: usize,
}

/// The first value of the field `name` (lower case) in `headers`.
pub(crate) fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.as_str())
}

/// Reads a request head from the start of `buf`: `Ok(None)` while it is incomplete and within
/// the limits. Judged as the bytes come, so garbage is refused at its first bytes.
pub(crate) fn request(buf: &[u8], limits: &HeadLimits) -> Result<Option<RequestHead>, HeadError> {
    // httparse skips empty lines before the request line; so does the line check.
    let start = buf
        .iter()
        .position(|b| *b != b'\r' && *b != b'\n')
        .unwrap_or(buf.len());
    let line = &buf[start..];
    let method = line.iter().take_while(|b| is_tchar(**b)).count();
    if method > MAX_METHOD {
        return Err(HeadError::MethodTooLong);
    }
    if !line.is_empty() && (method == 0 || (method < line.len() && line[method] != b' ')) {
        return Err(HeadError::NotHttp);
    }
    check_line(line, limits)?;
    let mut fields = vec![httparse::EMPTY_HEADER; limits.slots()];
    let mut parsed = httparse::Request::new(&mut fields);
    match parsed.parse(buf) {
        Ok(httparse::Status::Complete(len)) => {
            if len > limits.max_head {
                return Err(HeadError::TooLarge);
            }
            Ok(Some(RequestHead {
                method: parsed.method.unwrap_or_default().to_string(),
                target: parsed.path.unwrap_or_default().to_string(),
                minor: parsed.version.unwrap_or_default(),
                headers: fields_of(parsed.headers),
                len,
            }))
        }
        Ok(httparse::Status::Partial) if buf.len() > limits.max_head => Err(HeadError::TooLarge),
        Ok(httparse::Status::Partial) => Ok(None),
        Err(e) => Err(request_error(e, line)),
    }
}

/// Reads a response head from the start of `buf`: `Ok(None)` while it is incomplete and within
/// the limits.
pub(crate) fn response(buf: &[u8], limits: &HeadLimits) -> Result<Option<ResponseHead>, HeadError> {
    check_line(buf, limits)?;
    let mut fields = vec![httparse::EMPTY_HEADER; limits.slots()];
    let mut parsed = httparse::Response::new(&mut fields);
    match parsed.parse(buf) {
        Ok(httparse::Status::Complete(len)) => {
            if len > limits.max_head {
                return Err(HeadError::TooLarge);
            }
            Ok(Some(ResponseHead {
                status: parsed.code.unwrap_or_default(),
                headers: fields_of(parsed.headers),
                len,
            }))
        }
        Ok(httparse::Status::Partial) if buf.len() > limits.max_head => Err(HeadError::TooLarge),
        Ok(httparse::Status::Partial) => Ok(None),
        Err(httparse::Error::Version) => Err(HeadError::BadVersion),
        Err(httparse::Error::Status | httparse::Error::Token) => Err(HeadError::BadStatusLine),
        Err(e) => Err(field_error(e, buf)),
    }
}

/// A `Content-Length` value: digits, repeated identical values allowed (`5, 5`,
/// RFC 9110 §8.6); `Err` for anything else, different values included.
pub(crate) fn content_length(value: &str) -> Result<usize, LengthError> {
    let mut found: Option<usize> = None;
    for part in value.split(',') {
        let part = part.trim();
        if part.is_empty() || part.len() > 19 || !part.bytes().all(|b| b.is_ascii_digit()) {
            return Err(LengthError::Bad);
        }
        let n: usize = part.parse().map_err(|_| LengthError::Bad)?;
        if found.is_some_and(|f| f != n) {
            return Err(LengthError::Conflicting);
        }
        found = Some(n);
    }
    found.ok_or(LengthError::Bad)
}

/// Why a `Content-Length` value is not one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LengthError {
    /// Not a decimal number (or too large for one).
    Bad,
    /// Two different numbers.
    Conflicting,
}

impl LengthError {
    /// What was wrong, in a few words.
    pub(crate) fn why(self) -> &'static str {
        match self {
            LengthError::Bad => "bad Content-Length",
            LengthError::Conflicting => "conflicting Content-Length",
        }
    }
}

/// A token character (RFC 9110 §5.6.2).
pub(crate) fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// The first line within `max_line`, complete or not.
fn check_line(line: &[u8], limits: &HeadLimits) -> Result<(), HeadError> {
    let len = line
        .iter()
        .position(|b| *b == b'\n')
        .map_or(line.len(), |i| {
            i - usize::from(i > 0 && line[i - 1] == b'\r')
        });
    if len > limits.max_line {
        return Err(HeadError::LineTooLong);
    }
    Ok(())
}

/// The fields httparse found, as the crate keeps them.
fn fields_of(fields: &[httparse::Header<'_>]) -> Vec<(String, String)> {
    fields
        .iter()
        .map(|h| {
            let value = String::from_utf8_lossy(h.value);
            (
                h.name.to_ascii_lowercase(),
                value.trim_matches([' ', '\t']).to_string(),
            )
        })
        .collect()
}

/// httparse's error on a request, told apart by the request line (`line`, from its start).
fn request_error(e: httparse::Error, line: &[u8]) -> HeadError {
    let first_end = line.iter().position(|b| *b == b'\n');
    let in_first_line = match e {
        httparse::Error::Token | httparse::Error::Version => true,
        httparse::Error::NewLine => {
            // A bad line end in the request line, or in the fields?
            let first = &line[..first_end.unwrap_or(line.len())];
            first.split(|b| *b == b' ').count() != 3 || first_end.is_none()
        }
        _ => false,
    };
    if !in_first_line {
        return field_error(e, line);
    }
    let first = &line[..first_end.unwrap_or(line.len())];
    let first = first.strip_suffix(b"\r").unwrap_or(first);
    let parts: Vec<&[u8]> = first.split(|b| *b == b' ').collect();
    match (parts.as_slice(), e) {
        ([_, target, ..], httparse::Error::Token)
            if target.is_empty() || !target.iter().all(u8::is_ascii_graphic) =>
        {
            if parts.len() >= 3 || first_end.is_none() {
                HeadError::BadTarget
            } else {
                HeadError::BadRequestLine
            }
        }
        ([_, _, version], _) => {
            let v = version;
            let numbered = v.len() == 8
                && v.starts_with(b"HTTP/")
                && v[5].is_ascii_digit()
                && v[6] == b'.'
                && v[7].is_ascii_digit();
            if numbered {
                HeadError::UnsupportedVersion
            } else {
                HeadError::BadVersion
            }
        }
        _ => HeadError::BadRequestLine,
    }
}

/// httparse's error in the fields.
fn field_error(e: httparse::Error, buf: &[u8]) -> HeadError {
    match e {
        httparse::Error::TooManyHeaders => HeadError::TooManyHeaders,
        httparse::Error::HeaderValue => HeadError::BadHeaderValue,
        httparse::Error::HeaderName => {
            // A field line starting with a space or tab: folding, said as such.
            let folded = buf
                .windows(2)
                .any(|w| w[0] == b'\n' && (w[1] == b' ' || w[1] == b'\t'));
            if folded {
                HeadError::Folded
            } else {
                HeadError::BadHeaderName
            }
        }
        httparse::Error::NewLine => HeadError::BadLineEnd,
        httparse::Error::Version => HeadError::BadVersion,
        httparse::Error::Status => HeadError::BadStatusLine,
        httparse::Error::Token => HeadError::BadHeaderName,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: HeadLimits = HeadLimits {
        max_head: 1024,
        max_line: 256,
        max_headers: 8,
    };

    fn req(buf: &[u8]) -> Result<Option<RequestHead>, HeadError> {
        request(buf, &LIMITS)
    }

    #[test]
    fn a_request_head_parses() {
        let head = req(b"GET /doc?n=1 HTTP/1.1\r\nHost: h\r\nX-A:  a \r\nx-a: b\r\n\r\nbody")
            .unwrap()
            .unwrap();
        assert_eq!(head.method, "GET");
        assert_eq!(head.target, "/doc?n=1");
        assert_eq!(head.minor, 1);
        assert_eq!(
            head.headers,
            vec![
                ("host".to_string(), "h".to_string()),
                ("x-a".to_string(), "a".to_string()),
                ("x-a".to_string(), "b".to_string())
            ]
        );
        assert_eq!(head.len, 52);
        assert_eq!(header(&head.headers, "x-a"), Some("a"));
        assert_eq!(header(&head.headers, "y"), None);
        // Bare LF line ends, empty lines before the request line, HTTP/1.0.
        let head = req(b"\r\n\nPOST / HTTP/1.0\nA: 1\n\n").unwrap().unwrap();
        assert_eq!((head.method.as_str(), head.minor), ("POST", 0));
        assert_eq!(head.len, 25);
    }

    #[test]
    fn an_incomplete_request_head_waits() {
        for part in [
            &b""[..],
            b"G",
            b"GET",
            b"GET ",
            b"GET /x",
            b"GET /x HTTP/1.",
            b"GET /x HTTP/1.1\r\n",
            b"GET /x HTTP/1.1\r\nHost: h\r\n",
            b"GET /x HTTP/1.1\r\nHost: h\r\n\r",
        ] {
            assert_eq!(req(part), Ok(None), "{:?}", String::from_utf8_lossy(part));
        }
    }

    #[test]
    fn malformed_request_heads_say_why() {
        let cases: &[(&[u8], HeadError)] = &[
            (b"\x16\x03\x01\x02\x00", HeadError::NotHttp),
            (b"\x00\x01\x02\x03", HeadError::NotHttp),
            (b"\xff\xfe\r\n\r\n", HeadError::NotHttp),
            (b"hello there\r\n\r\n", HeadError::BadRequestLine),
            (b"GET\r\n\r\n", HeadError::NotHttp),
            (b"GET /doc?n=1\r\n\r\n", HeadError::BadRequestLine),
            (
                b"GET /doc HTTP/1.1 extra\r\nHost: h\r\n\r\n",
                HeadError::BadRequestLine,
            ),
            (
                b"GET /doc FTP/1.1\r\nHost: h\r\n\r\n",
                HeadError::BadVersion,
            ),
            (
                b"GET / HTTP/2.0\r\nHost: h\r\n\r\n",
                HeadError::UnsupportedVersion,
            ),
            (b"GET /doc?n=\x01 HTTP/1.1\r\n\r\n", HeadError::BadTarget),
            (b"GET  / HTTP/1.1\r\n\r\n", HeadError::BadTarget),
            (
                b"GET / HTTP/1.1\r\nHost: h\r\nNo colon here\r\n\r\n",
                HeadError::BadHeaderName,
            ),
            (
                b"GET / HTTP/1.1\r\nBad Name: x\r\n\r\n",
                HeadError::BadHeaderName,
            ),
            (
                b"GET / HTTP/1.1\r\nX: a\r\n folded\r\n\r\n",
                HeadError::Folded,
            ),
            (
                b"GET / HTTP/1.1\r\nX: a\x00b\r\n\r\n",
                HeadError::BadHeaderValue,
            ),
            (
                b"GET / HTTP/1.1\r\nX: a\rb\r\n\r\n",
                HeadError::BadHeaderValue,
            ),
            (b"GET / HTTP/1.1\rX\r\n\r\n", HeadError::BadLineEnd),
        ];
        for (buf, want) in cases {
            assert_eq!(req(buf), Err(*want), "{:?}", String::from_utf8_lossy(buf));
        }
        assert_eq!(HeadError::UnsupportedVersion.status(), 505);
        assert_eq!(HeadError::Folded.status(), 400);
    }

    #[test]
    fn request_heads_are_bounded() {
        let long_method = [b'A'; MAX_METHOD + 1];
        assert_eq!(req(&long_method), Err(HeadError::MethodTooLong));
        let mut line = b"GET /".to_vec();
        line.extend([b'a'; 300]);
        assert_eq!(req(&line), Err(HeadError::LineTooLong));
        line.extend_from_slice(b" HTTP/1.1\r\n\r\n");
        assert_eq!(req(&line), Err(HeadError::LineTooLong));
        assert_eq!(HeadError::LineTooLong.status(), 414);
        // Fields that never end: refused once past the size limit.
        let mut big = b"GET / HTTP/1.1\r\nX-Pad: ".to_vec();
        big.extend([b'p'; 1000]);
        assert_eq!(req(&big), Ok(None));
        big.extend([b'p'; 100]);
        assert_eq!(req(&big), Err(HeadError::TooLarge));
        let mut many = b"GET / HTTP/1.1\r\n".to_vec();
        for i in 0..9 {
            many.extend_from_slice(format!("X-{i}: v\r\n").as_bytes());
        }
        assert_eq!(req(&many), Err(HeadError::TooManyHeaders));
        assert_eq!(HeadError::TooManyHeaders.status(), 431);
        // A complete head over the size limit.
        let mut complete = b"GET / HTTP/1.1\r\nA: ".to_vec();
        complete.extend([b'v'; 1100]);
        complete.extend_from_slice(b"\r\n\r\n");
        assert_eq!(req(&complete), Err(HeadError::TooLarge));
        // A huge field limit does not allocate a huge array.
        let wide = HeadLimits {
            max_head: 64,
            max_line: 64,
            max_headers: usize::MAX,
        };
        assert!(wide.slots() <= 22);
        assert!(request(b"GET / HTTP/1.1\r\nA: 1\r\n\r\n", &wide)
            .unwrap()
            .is_some());
    }

    #[test]
    fn response_heads_parse_and_fail_clearly() {
        let head = response(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}", &LIMITS)
            .unwrap()
            .unwrap();
        assert_eq!(head.status, 200);
        assert_eq!(header(&head.headers, "content-length"), Some("2"));
        assert_eq!(head.len, 38);
        let bare = response(b"HTTP/1.0 404\r\n\r\n", &LIMITS).unwrap().unwrap();
        assert_eq!(bare.status, 404);
        assert_eq!(response(b"HTTP/1.1 200 OK\r\n", &LIMITS), Ok(None));
        assert_eq!(
            response(b"SSH-2.0-OpenSSH\r\n\r\n", &LIMITS),
            Err(HeadError::BadVersion)
        );
        assert_eq!(
            response(b"HTTP/1.1 2x0 OK\r\n\r\n", &LIMITS),
            Err(HeadError::BadStatusLine)
        );
        assert_eq!(
            response(b"HTTP/1.1 200 OK\r\nA b: c\r\n\r\n", &LIMITS),
            Err(HeadError::BadHeaderName)
        );
        let mut big = b"HTTP/1.1 200 OK\r\n".to_vec();
        big.extend([b'X'; 2000]);
        assert_eq!(response(&big, &LIMITS), Err(HeadError::TooLarge));
    }

    #[test]
    fn no_input_panics() {
        // Every prefix and every one-byte change of a good head.
        let good = b"GET /a?b=c HTTP/1.1\r\nHost: h:1\r\nContent-Length: 0\r\n\r\n";
        for end in 0..=good.len() {
            let _ = req(&good[..end]);
            let _ = response(&good[..end], &LIMITS);
        }
        for i in 0..good.len() {
            for b in [0u8, b' ', b'\r', b'\n', b':', 0x7f, 0x80, 0xff] {
                let mut bad = good.to_vec();
                bad[i] = b;
                let _ = req(&bad);
                let _ = response(&bad, &LIMITS);
            }
        }
    }

    #[test]
    fn content_lengths() {
        assert_eq!(content_length("5"), Ok(5));
        assert_eq!(content_length(" 5 , 5"), Ok(5));
        assert_eq!(content_length("5, 6"), Err(LengthError::Conflicting));
        assert_eq!(content_length("-1"), Err(LengthError::Bad));
        assert_eq!(content_length(""), Err(LengthError::Bad));
        assert_eq!(
            content_length("99999999999999999999999"),
            Err(LengthError::Bad)
        );
    }
}
