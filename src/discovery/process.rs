//! Source §2.7: the process list.

use serde_json::Value;

use crate::catalog::{Os, ProcessScan};

use super::active_port;
use super::candidate::{Candidate, Check};
use super::output::Source;
use super::six::SixDirs;
use super::Context;

/// One row of the process list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Process {
    /// The process id.
    pub pid: u64,
    /// The full command line.
    pub command: String,
}

/// Parses `ps -ax -o pid= -o command=` output: per line the pid (right-aligned), whitespace
/// and the command. Lines without a leading pid are skipped.
///
/// ```
/// use slicc_browsers::discovery::parse_ps;
/// let rows = parse_ps("   12 /usr/bin/chromium --remote-debugging-port=0\ngarbage\n");
/// assert_eq!(rows.len(), 1);
/// assert_eq!(rows[0].pid, 12);
/// ```
pub fn parse_ps(text: &str) -> Vec<Process> {
    text.lines()
        .filter_map(|line| {
            let line = line.trim_start();
            let end = line
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(line.len());
            if end == 0 || !line[end..].starts_with(char::is_whitespace) && end < line.len() {
                return None;
            }
            let pid = line[..end].parse().ok()?;
            Some(Process {
                pid,
                command: line[end..].trim().to_string(),
            })
        })
        .collect()
}

/// Parses the Windows CIM query's JSON: an array of `{ProcessId, CommandLine}` objects, or a
/// single one. Rows with a null or empty command line, or without a pid, are skipped; text
/// that is not such JSON gives no rows.
///
/// ```
/// use slicc_browsers::discovery::parse_cim;
/// let rows = parse_cim(r#"[{"ProcessId":4,"CommandLine":null},{"ProcessId":8,"CommandLine":"chrome.exe --x"}]"#);
/// assert_eq!(rows.len(), 1);
/// assert_eq!(rows[0].pid, 8);
/// ```
pub fn parse_cim(text: &str) -> Vec<Process> {
    let text = text.trim_start_matches('\u{feff}').trim();
    let rows = match serde_json::from_str::<Value>(text) {
        Ok(Value::Array(rows)) => rows,
        Ok(row @ Value::Object(_)) => vec![row],
        _ => return Vec::new(),
    };
    rows.iter()
        .filter_map(|row| {
            let pid = match row.get("ProcessId")? {
                Value::Number(n) => n.as_u64()?,
                Value::String(s) => s.trim().parse().ok()?,
                _ => return None,
            };
            let command = row.get("CommandLine")?.as_str()?;
            (!command.trim().is_empty()).then(|| Process {
                pid,
                command: command.to_string(),
            })
        })
        .collect()
}

/// The first token of a command: the quoted text when it starts with a quote, otherwise up
/// to the first whitespace.
fn first_token<'a>(command: &'a str, quotes: &[String]) -> &'a str {
    for q in quotes {
        if let Some(rest) = command.strip_prefix(q.as_str()) {
            return rest.find(q.as_str()).map_or(rest, |end| &rest[..end]);
        }
    }
    command
        .find(char::is_whitespace)
        .map_or(command, |end| &command[..end])
}

/// Whether a first token is a wrapper: its base name, without one wrapper suffix, is one of
/// the wrappers, without regard to case.
fn is_wrapper(token: &str, scan: &ProcessScan) -> bool {
    let base = token.rsplit(['/', '\\']).next().unwrap_or(token);
    let mut stem = base;
    for suffix in &scan.wrapper_suffixes {
        let cut = base.len().wrapping_sub(suffix.len());
        if base.len() >= suffix.len()
            && base.is_char_boundary(cut)
            && base[cut..].eq_ignore_ascii_case(suffix)
        {
            stem = &base[..cut];
            break;
        }
    }
    scan.wrappers.iter().any(|w| w.eq_ignore_ascii_case(stem))
}

/// The digits after the first `<flag>` followed by `=` or whitespace and then digits.
fn find_port<'a>(command: &'a str, flag: &str) -> Option<&'a str> {
    let mut from = 0;
    while let Some(i) = command[from..].find(flag) {
        let at = from + i + flag.len();
        from = at;
        let rest = &command[at..];
        let after = if let Some(r) = rest.strip_prefix('=') {
            r
        } else if rest.starts_with(char::is_whitespace) {
            rest.trim_start()
        } else {
            continue;
        };
        let end = after
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(after.len());
        if end > 0 {
            return Some(&after[..end]);
        }
    }
    None
}

/// The value of the first `<flag>` at the start of a token followed by `=` or whitespace:
/// quoted, empty when it starts with the value stop, or up to whitespace followed by the
/// value stop, without trailing whitespace. `None` when absent or empty.
fn find_dir<'a>(command: &'a str, scan: &ProcessScan) -> Option<&'a str> {
    let flag = scan.user_data_dir_flag.as_str();
    let mut from = 0;
    while let Some(i) = command[from..].find(flag) {
        let start = from + i;
        let at = start + flag.len();
        from = at;
        if start > 0 && !command[..start].ends_with(char::is_whitespace) {
            continue;
        }
        let rest = &command[at..];
        let value = if let Some(r) = rest.strip_prefix('=') {
            r
        } else if rest.starts_with(char::is_whitespace) {
            rest.trim_start()
        } else {
            continue;
        };
        return read_value(value, scan).filter(|v| !v.is_empty());
    }
    None
}

fn read_value<'a>(value: &'a str, scan: &ProcessScan) -> Option<&'a str> {
    for q in &scan.value_quotes {
        if let Some(rest) = value.strip_prefix(q.as_str()) {
            return Some(rest.find(q.as_str()).map_or(rest, |end| &rest[..end]));
        }
    }
    let stop = scan.value_stop.as_str();
    if !stop.is_empty() && value.starts_with(stop) {
        return None;
    }
    let mut end = value.len();
    if !stop.is_empty() {
        for (j, c) in value.char_indices() {
            if c.is_whitespace() && value[j + c.len_utf8()..].starts_with(stop) {
                end = j;
                break;
            }
        }
    }
    Some(value[..end].trim_end())
}

/// Whether a path lies under the legacy root: its segments hold `profiles.legacyRoot` in a
/// row, without regard to case.
fn under_legacy_root(path: &str, legacy: &[String]) -> bool {
    if legacy.is_empty() {
        return false;
    }
    let segments: Vec<&str> = path.split(['/', '\\']).filter(|s| !s.is_empty()).collect();
    segments
        .windows(legacy.len())
        .any(|w| w.iter().zip(legacy).all(|(a, b)| a.eq_ignore_ascii_case(b)))
}

/// What the process scan reads from one command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcessFlags {
    /// The debugging port; 0 means "in the dir's DevToolsActivePort".
    pub port: u16,
    /// `--user-data-dir`, verbatim.
    pub user_data_dir: Option<String>,
}

/// Reads a command line as §2.7 steps 2–4 do: `None` when the process is skipped (no
/// executable, a wrapper, no port, a port above 65535).
///
/// ```
/// use slicc_browsers::discovery::parse_command;
/// let scan = &slicc_browsers::shared_catalog().discovery.process;
/// let f = parse_command("/opt/chrome --remote-debugging-port 0 --user-data-dir=/tmp/a b --x", scan).unwrap();
/// assert_eq!((f.port, f.user_data_dir.as_deref()), (0, Some("/tmp/a b")));
/// assert!(parse_command("node server.js --remote-debugging-port=5000", scan).is_none());
/// ```
pub fn parse_command(command: &str, scan: &ProcessScan) -> Option<ProcessFlags> {
    let command = command.trim_start();
    let token = first_token(command, &scan.value_quotes);
    if token.is_empty() || token.starts_with('-') || is_wrapper(token, scan) {
        return None;
    }
    let digits = find_port(command, &scan.port_flag)?;
    let digits = digits.trim_start_matches('0');
    let port = if digits.is_empty() {
        0
    } else if digits.len() > 5 {
        return None;
    } else {
        u16::try_from(digits.parse::<u32>().ok()?).ok()?
    };
    Some(ProcessFlags {
        port,
        user_data_dir: find_dir(command, scan).map(str::to_string),
    })
}

/// The process list of the host, parsed for its OS.
pub(crate) fn list(cx: &Context<'_>) -> Vec<Process> {
    let scan = &cx.catalog.discovery.process;
    let (command, windows) = match cx.os {
        Os::Windows => (&scan.windows, true),
        _ => (&scan.unix, false),
    };
    let Some(text) = cx.host.process_list(command) else {
        return Vec::new();
    };
    if windows {
        parse_cim(&text)
    } else {
        parse_ps(&text)
    }
}

/// Each process that qualifies, in list order (§2.7).
pub(crate) fn collect(cx: &Context<'_>, six: Option<&SixDirs>, out: &mut Vec<Candidate>) {
    let scan = &cx.catalog.discovery.process;
    let self_pid = cx.self_pid.map(u64::from);
    for process in list(cx) {
        if process.pid == 0 || Some(process.pid) == self_pid {
            continue;
        }
        let Some(flags) = parse_command(&process.command, scan) else {
            continue;
        };
        let is_six = |dir: &str| six.is_some_and(|s| s.contains(cx, dir));
        let candidate = if flags.port == 0 {
            let Some(dir) = flags.user_data_dir.as_deref() else {
                continue;
            };
            let six = is_six(dir);
            if !six && under_legacy_root(dir, &cx.catalog.profiles.legacy_root) {
                continue;
            }
            let Some(mut c) = active_port::candidate(cx.host, cx.os, cx.active_port_file(), dir)
            else {
                continue;
            };
            c.source = Source::Process;
            c.six = six;
            c
        } else {
            let mut c = Candidate::new(Source::Process, Check::Answered { port: flags.port });
            c.six = flags.user_data_dir.as_deref().is_some_and(is_six);
            c.user_data_dir = flags.user_data_dir;
            c
        };
        out.push(candidate);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan() -> ProcessScan {
        crate::catalog().discovery.process
    }

    #[test]
    fn wrappers_are_matched_on_the_base_name_without_suffix() {
        let s = scan();
        assert!(is_wrapper(r"C:\Windows\System32\cmd.exe", &s));
        assert!(is_wrapper("PowerShell.EXE", &s));
        assert!(is_wrapper("/usr/bin/env", &s));
        assert!(!is_wrapper("/Applications/Google", &s));
        assert!(!is_wrapper("chrome.exe", &s));
    }

    #[test]
    fn ports_and_dirs_are_read_as_the_rules_say() {
        let s = scan();
        let f = parse_command(r#""C:\Program Files\Chrome\chrome.exe" --remote-debugging-port=5000 --user-data-dir="C:\a b""#, &s).unwrap();
        assert_eq!(
            (f.port, f.user_data_dir.as_deref()),
            (5000, Some(r"C:\a b"))
        );
        let f = parse_command(
            "chrome --remote-debugging-port=notaport --remote-debugging-port=5001",
            &s,
        )
        .unwrap();
        assert_eq!(f.port, 5001);
        assert!(parse_command("chrome --remote-debugging-port=notaport", &s).is_none());
        assert!(parse_command("chrome --remote-debugging-pipe", &s).is_none());
        assert!(parse_command("chrome --remote-debugging-port=70000", &s).is_none());
        assert!(parse_command("--type=renderer --remote-debugging-port=5000", &s).is_none());
        let f = parse_command("chrome --user-data-dir=--x --remote-debugging-port=1", &s).unwrap();
        assert_eq!(f.user_data_dir, None);
        let f = parse_command("chrome --x-user-data-dir=/a --remote-debugging-port=1", &s).unwrap();
        assert_eq!(f.user_data_dir, None);
        let f = parse_command(
            "chrome --remote-debugging-port=1 --user-data-dir '/q d' --y",
            &s,
        )
        .unwrap();
        assert_eq!(f.user_data_dir.as_deref(), Some("/q d"));
    }

    #[test]
    fn ps_lines_parse_leniently() {
        let rows =
            parse_ps("  PID COMMAND\n     1 /sbin/init\n1234567 x  y\n\u{0}\u{1}\n-5 neg\n 77\n");
        let pids: Vec<u64> = rows.iter().map(|r| r.pid).collect();
        assert_eq!(pids, vec![1, 1234567, 77]);
        assert_eq!(rows[1].command, "x  y");
        assert_eq!(rows[2].command, "");
    }

    #[test]
    fn legacy_root_is_a_pair_of_segments() {
        let legacy = vec!["slicc".to_string(), "profiles".to_string()];
        assert!(under_legacy_root(
            "/home/x/.config/SLICC/Profiles/a",
            &legacy
        ));
        assert!(under_legacy_root(r"C:\x\slicc\profiles", &legacy));
        assert!(!under_legacy_root(
            "/home/x/slicc/seven-profiles/profiles",
            &legacy
        ));
    }
}
