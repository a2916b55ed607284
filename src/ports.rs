//! The reserved ports 9222 to 9229, where a developer's own Chrome listens: no shipped file,
//! fixture or test may use them, and `validate` refuses them.
//!
//! One reading of "a port written in text" serves every file: a run of ASCII digits whose
//! value is 9222 to 9229, leading zeros included (`:09222` is port 9222 to a WHATWG URL
//! parser, as to Go's and Node's), with ASCII tab, LF and CR inside the run skipped (a WHATWG
//! parser removes them before it reads the URL). What differs between the files is only where
//! the spec looks:
//!
//! - guard vectors, "no URL uses a port from 9222 to 9229", and protected vectors, "no vector
//!   uses a port from 9222 to 9229": [`port_after_colon`], the run right after a `:`;
//! - the corpus, refused "anywhere in the corpus": [`port_anywhere`], any run (command lines
//!   write `--remote-debugging-port=9222`, DevToolsActivePort files a bare `9222`).
//!
//! ```
//! use slicc_browsers::ports;
//! let banned = 9220 + 2;
//! assert_eq!(ports::port_after_colon(&format!("http://a:0{banned}/")), Some(banned));
//! assert_eq!(ports::port_after_colon(&format!("n={banned}")), None);
//! assert_eq!(ports::port_anywhere(&format!("--remote-debugging-port={banned}")), Some(banned));
//! ```

use std::ops::RangeInclusive;

/// The reserved ports: a developer's own Chrome listens there.
pub const RESERVED: RangeInclusive<u16> = 9222..=9229;

/// Whether `port` is one of [`RESERVED`].
pub fn is_reserved(port: u64) -> bool {
    port >= u64::from(*RESERVED.start()) && port <= u64::from(*RESERVED.end())
}

/// The first reserved port written right after a `:` in `text`, as a URL's or a
/// `host:port`'s port is.
pub fn port_after_colon(text: &str) -> Option<u16> {
    scan(text, true)
}

/// The first reserved port written anywhere in `text`: any run of digits not inside a longer
/// run.
pub fn port_anywhere(text: &str) -> Option<u16> {
    scan(text, false)
}

/// Whether `b` is skipped inside a run of digits, as a WHATWG URL parser removes it.
fn skipped(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\r')
}

fn scan(text: &str, after_colon: bool) -> Option<u16> {
    let bytes = text.as_bytes();
    let mut i = 0;
    // The last byte before `i` that was not skipped.
    let mut previous: Option<u8> = None;
    while i < bytes.len() {
        let b = bytes[i];
        let starts = b.is_ascii_digit()
            && if after_colon {
                previous == Some(b':')
            } else {
                !previous.is_some_and(|p| p.is_ascii_digit())
            };
        if !starts {
            if !skipped(b) {
                previous = Some(b);
            }
            i += 1;
            continue;
        }
        // Read the run: digits, with tab, LF and CR skipped; saturate past any port.
        let mut value: u64 = 0;
        while i < bytes.len() && (bytes[i].is_ascii_digit() || skipped(bytes[i])) {
            if bytes[i].is_ascii_digit() {
                value = (value * 10 + u64::from(bytes[i] - b'0')).min(u64::from(u32::MAX));
                previous = Some(bytes[i]);
            }
            i += 1;
        }
        if is_reserved(value) {
            return u16::try_from(value).ok();
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reserved port computed, never written (the project's rule).
    fn banned(n: u16) -> u16 {
        9220 + n
    }

    #[test]
    fn the_range_is_9222_to_9229() {
        assert!(!is_reserved(u64::from(banned(1))));
        for n in 2..=9 {
            assert!(is_reserved(u64::from(banned(n))));
        }
        assert!(!is_reserved(u64::from(banned(10))));
    }

    #[test]
    fn after_colon_reads_ports_as_url_parsers_do() {
        let p = banned(2);
        for (text, want) in [
            (format!("http://a:{p}/"), Some(p)),
            (format!("http://a:0{p}/"), Some(p)),
            (format!("http://a:000{p}"), Some(p)),
            (format!("127.0.0.1:{p}"), Some(p)),
            (format!("http://[::1]:{p}/x"), Some(p)),
            // WHATWG removes tab and newlines before parsing.
            (format!("http://a:{}\t{}/", p / 100, p % 100), Some(p)),
            (format!("http://a:{}\n{}/", p / 100, p % 100), Some(p)),
            (format!("http://a:{p}0/"), None),
            (format!("http://a:1{p}/"), None),
            (format!("n={p}"), None),
            (format!("/{p}/"), None),
            ("http://a:99999999999999999999999/".to_string(), None),
            (String::new(), None),
        ] {
            assert_eq!(port_after_colon(&text), want, "{text:?}");
        }
    }

    #[test]
    fn anywhere_reads_every_run_of_digits() {
        let p = banned(9);
        for (text, want) in [
            (format!("--remote-debugging-port={p}"), Some(p)),
            (format!("{p}\n/devtools/browser/x"), Some(p)),
            (format!("n=0{p}"), Some(p)),
            (format!("http://a:{p}/"), Some(p)),
            (format!("v{p}x"), Some(p)),
            (format!("1{p}"), None),
            (format!("{p}1"), None),
            ("no digits".to_string(), None),
        ] {
            assert_eq!(port_anywhere(&text), want, "{text:?}");
        }
    }

    #[test]
    fn the_old_copies_disagreed_here() {
        // validate/guard read `:922x` not followed by a digit (missed the leading zero and the
        // tab); validate/corpus_case read 922x between non-digits (missed the leading zero);
        // validate/protected read `:` then digits by value, plus the URL's parsed port.
        let p = banned(2);
        assert_eq!(port_after_colon(&format!("http://a:0{p}/")), Some(p));
        assert_eq!(port_anywhere(&format!("port=0{p}")), Some(p));
        assert_eq!(
            port_after_colon(&format!("http://a:{}\t{}/", p / 10, p % 10)),
            Some(p)
        );
    }
}
