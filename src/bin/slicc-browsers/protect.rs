//! `--protect PATTERN` and `--protect-file FILE`: the user's own protected sites, read once for
//! `check` and `guard proxy`.

use slicc_browsers::protected::ProtectPattern;

use crate::args::Args;

/// The usage text of the two options, shared by `check` and `guard proxy`.
pub const USAGE: &str = "\
--protect PATTERN (repeatable): protect a site of yours besides seven's origins:
  bank.example (the host and every host under it, any port), *.corp.example (every host
  under corp.example, not corp.example itself) or an origin https://host:port (that one);
  every spelling a browser reads as such a host (case, IDNA, escapes, full-width letters,
  trailing dots, user info, inner schemes) is protected too; an IP address is given as an
  origin. A bad pattern is exit 2, naming it.
  --protect-file FILE (repeatable): one pattern a line; blank lines and lines starting
  with # are skipped.";

/// Takes every `--protect` and `--protect-file` from `args` and reads them: a bad pattern is a
/// usage error naming it (and its file and line), an unreadable file an error naming the file.
pub fn take(args: &mut Args) -> Result<Vec<ProtectPattern>, String> {
    let texts = args.values("--protect")?;
    let files = args.values("--protect-file")?;
    let mut patterns = Vec::with_capacity(texts.len());
    for text in &texts {
        match ProtectPattern::parse(text) {
            Ok(p) => patterns.push(p),
            Err(e) => return crate::args::usage(format!("--protect: {e}")),
        }
    }
    for file in &files {
        let text = std::fs::read_to_string(file)
            .map_err(|e| format!("--protect-file {file}: cannot read it: {e}"))?;
        match ProtectPattern::parse_lines(&text) {
            Ok(list) => patterns.extend(list),
            Err((line, e)) => {
                return crate::args::usage(format!("--protect-file {file}, line {line}: {e}"))
            }
        }
    }
    Ok(patterns)
}
