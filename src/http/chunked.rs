//! The one decoder of HTTP/1.1 chunked bodies (RFC 9112 §7.1): the GET client's responses
//! and the stand-in fixture's requests. It reads a buffer from its start and says whether the
//! body is complete there; a chunk's data must be followed by a line end, sizes are hex that
//! fits, and the body, each line and the trailers are bounded.

/// The bounds of one chunked body.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ChunkLimits {
    /// The most the body (the chunks' data) may hold.
    pub body: usize,
    /// The most the trailer section may hold (each line, and all of them).
    pub trailers: usize,
}

/// The longest chunk-size line read (the size and its extensions).
const SIZE_LINE: usize = 1024;

/// Why a chunked body is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ChunkError {
    /// A chunk size that is not hexadecimal digits (or does not fit).
    Size,
    /// The chunks hold more than [`ChunkLimits::body`].
    TooLarge,
    /// A chunk's data is not followed by a line end.
    NoLineEnd,
    /// A size or trailer line longer than its bound.
    LineTooLong,
    /// The trailers hold more than [`ChunkLimits::trailers`].
    TrailersTooLarge,
}

/// One line at the start of `data`, ended by LF or CRLF: `(line without its end, bytes taken)`;
/// `Ok(None)` while incomplete.
fn line(data: &[u8], max: usize) -> Result<Option<(&[u8], usize)>, ChunkError> {
    match data.iter().position(|b| *b == b'\n') {
        Some(i) if i > max => Err(ChunkError::LineTooLong),
        Some(i) => {
            let line = &data[..i];
            Ok(Some((line.strip_suffix(b"\r").unwrap_or(line), i + 1)))
        }
        None if data.len() > max => Err(ChunkError::LineTooLong),
        None => Ok(None),
    }
}

/// The size of a chunk-size line: hex digits before any `;` extension, spaces around them
/// allowed.
fn size_of(line: &[u8]) -> Result<usize, ChunkError> {
    let digits = line.split(|b| *b == b';').next().unwrap_or_default();
    let digits = std::str::from_utf8(digits)
        .map_err(|_| ChunkError::Size)?
        .trim_matches([' ', '\t']);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(ChunkError::Size);
    }
    usize::from_str_radix(digits, 16).map_err(|_| ChunkError::Size)
}

/// Decodes the chunked body at the start of `data`: `Ok(None)` while it is incomplete, else
/// the number of bytes it took (chunks and trailers, through the blank line that ends it).
/// With `body`, the chunks' data is appended to it.
pub(crate) fn decode(
    data: &[u8],
    limits: &ChunkLimits,
    mut body: Option<&mut Vec<u8>>,
) -> Result<Option<usize>, ChunkError> {
    let mut at = 0;
    let mut total = 0usize;
    loop {
        let Some((size_line, taken)) = line(&data[at..], SIZE_LINE)? else {
            return Ok(None);
        };
        let size = size_of(size_line)?;
        at += taken;
        total = total.checked_add(size).ok_or(ChunkError::TooLarge)?;
        if total > limits.body {
            return Err(ChunkError::TooLarge);
        }
        if size == 0 {
            // Trailer fields, up to the blank line.
            let mut trailers = 0usize;
            loop {
                let Some((field, taken)) = line(&data[at..], limits.trailers)? else {
                    return Ok(None);
                };
                at += taken;
                if field.is_empty() {
                    return Ok(Some(at));
                }
                trailers += field.len();
                if trailers > limits.trailers {
                    return Err(ChunkError::TrailersTooLarge);
                }
            }
        }
        let Some(chunk) = data.get(at..at + size) else {
            return Ok(None);
        };
        if let Some(body) = body.as_deref_mut() {
            body.extend_from_slice(chunk);
        }
        at += size;
        match &data[at..] {
            [b'\r', b'\n', ..] => at += 2,
            [b'\n', ..] => at += 1,
            [] | [b'\r'] => return Ok(None),
            _ => return Err(ChunkError::NoLineEnd),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: ChunkLimits = ChunkLimits {
        body: 16,
        trailers: 32,
    };

    fn body(data: &[u8]) -> Result<Option<(Vec<u8>, usize)>, ChunkError> {
        let mut out = Vec::new();
        Ok(decode(data, &LIMITS, Some(&mut out))?.map(|n| (out, n)))
    }

    #[test]
    fn chunked_bodies_decode() {
        let whole = b"3\r\nabc\r\n2;ext=1\r\nde\r\n0\r\nX-T: 1\r\n\r\nNEXT";
        assert_eq!(body(whole), Ok(Some((b"abcde".to_vec(), whole.len() - 4))));
        // Bare LF line ends too.
        assert_eq!(body(b"1\nz\n0\n\n"), Ok(Some((b"z".to_vec(), 7))));
        // Every cut before the end is incomplete, never an error.
        for cut in 0..whole.len() - 4 {
            assert_eq!(body(&whole[..cut]), Ok(None), "cut at {cut}");
        }
    }

    #[test]
    fn malformed_chunked_bodies_say_why() {
        // Data not followed by a line end: the check one of the two old decoders skipped.
        assert_eq!(body(b"2\r\nabcX\r\n0\r\n\r\n"), Err(ChunkError::NoLineEnd));
        assert_eq!(body(b"zz\r\n"), Err(ChunkError::Size));
        assert_eq!(body(b"\r\n"), Err(ChunkError::Size));
        assert_eq!(body(b"-1\r\n"), Err(ChunkError::Size));
        assert_eq!(body(b"fffffffffffffffff\r\n"), Err(ChunkError::Size));
        assert_eq!(body(b"11\r\n"), Err(ChunkError::TooLarge));
        assert_eq!(body(b"8\r\n12345678\r\n9\r\n"), Err(ChunkError::TooLarge));
        assert_eq!(body(&[b'1'; 2000]), Err(ChunkError::LineTooLong));
        let mut trailers = b"0\r\n".to_vec();
        for _ in 0..4 {
            trailers.extend_from_slice(b"X-Trailer: 12345\r\n");
        }
        assert_eq!(body(&trailers), Err(ChunkError::TrailersTooLarge));
    }
}
