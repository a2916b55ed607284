//! DevToolsActivePort files (§2.2): reading one, and the candidate it gives.

use crate::catalog::{join_path, ActivePort, Os};

use super::candidate::{Candidate, Check};
use super::host::Host;
use super::output::Source;

/// The largest DevToolsActivePort read; a real one is under 100 bytes, a longer file is
/// ignored.
pub(crate) const ACTIVE_PORT_LIMIT: usize = 4096;

/// Parses a DevToolsActivePort file: line 1 a port from 1 to 65535 in decimal digits, line 2
/// a path starting with `/`. Lines split at LF, lose a trailing CR and surrounding whitespace
/// (our choice). `None` for any other content, including text that is not UTF-8.
///
/// ```
/// use slicc_browsers::discovery::parse_active_port;
/// assert_eq!(parse_active_port(b"5000\r\n/devtools/browser/x\r\n"), Some((5000, "/devtools/browser/x".into())));
/// assert_eq!(parse_active_port(b"5000"), None);
/// assert_eq!(parse_active_port(b"0\n/x"), None);
/// assert_eq!(parse_active_port(b"5000\nrelative"), None);
/// ```
pub fn parse_active_port(bytes: &[u8]) -> Option<(u16, String)> {
    let file = ActivePort::parse(std::str::from_utf8(bytes).ok()?)?;
    Some((file.port, file.path))
}

/// The candidate of `<dir>/DevToolsActivePort`, when the file exists and is well formed.
pub(crate) fn candidate(host: &dyn Host, os: Os, file_name: &str, dir: &str) -> Option<Candidate> {
    let bytes = host.read_file(&join_path(os, dir, &[file_name]), ACTIVE_PORT_LIMIT)?;
    let (port, path) = parse_active_port(&bytes)?;
    let mut candidate =
        Candidate::new(Source::DevtoolsActivePort, Check::ActivePort { port, path });
    candidate.user_data_dir = Some(dir.to_string());
    Some(candidate)
}

#[cfg(test)]
mod tests {
    use super::parse_active_port;

    #[test]
    fn malformed_files_are_ignored() {
        for bad in [
            &b""[..],
            b"5000",
            b"5000\n",
            b"5000\n\n",
            b"abc\n/x",
            b"70000\n/x",
            b"65536\n/x",
            b"-1\n/x",
            b"\xff\xfe\n/x",
            b"5000\n/x\xff",
        ] {
            assert_eq!(parse_active_port(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn well_formed_files_parse() {
        assert_eq!(
            parse_active_port(b"65535\n/a\n"),
            Some((65535, "/a".into()))
        );
        assert_eq!(
            parse_active_port(b" 1 \n /a b \n"),
            Some((1, "/a b".into()))
        );
        assert_eq!(parse_active_port(b"0005000\n/a"), Some((5000, "/a".into())));
        assert_eq!(
            parse_active_port(b"5000\n/a\nextra"),
            Some((5000, "/a".into()))
        );
    }
}
