//! What a harness asks of a [`Case`]: whether it runs, and its fakes laid out on a [`Layout`].

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::{Case, Layout, Server};

impl Case {
    /// Whether a program on `os` (`darwin`, `linux`, `windows`) that supports the needs in
    /// `supported` runs this case: the case is for that OS (or every OS) and needs nothing else.
    pub fn runs(&self, os: &str, supported: &[&str]) -> bool {
        let os = if os == "macos" { "darwin" } else { os };
        (self.input.os.is_empty() || self.input.os.iter().any(|o| o == os))
            && self
                .input
                .needs
                .iter()
                .all(|need| supported.contains(&need.as_str()))
    }

    /// The environment discovery sees, values token-expanded.
    pub fn env(&self, l: &Layout) -> BTreeMap<String, String> {
        self.input
            .env
            .iter()
            .map(|(k, v)| (k.clone(), l.expand(v)))
            .collect()
    }

    /// The files to write: (path on the OS under test, contents). Paths are expanded;
    /// contents are not.
    pub fn files(&self, l: &Layout) -> Vec<(String, String)> {
        self.input
            .files
            .iter()
            .map(|(path, contents)| (l.expand(path), contents.clone()))
            .collect()
    }

    /// The `--cdp` URLs, in order, token-expanded.
    pub fn cdp(&self, l: &Layout) -> Vec<String> {
        self.input.cdp.iter().map(|u| l.expand(u)).collect()
    }

    /// The process list as (pid, command) rows, in order: `self` rows take `self_pid`, and
    /// commands are token-expanded.
    pub fn commands(&self, l: &Layout, self_pid: u32) -> Vec<(u32, String)> {
        self.input
            .processes
            .iter()
            .map(|p| {
                let pid = if p.self_ {
                    self_pid
                } else {
                    p.pid.unwrap_or(0)
                };
                (pid, l.expand(&p.command))
            })
            .collect()
    }

    /// The Unix process list as `ps -ax -o pid= -o command=` prints it: one `%6d <command>`
    /// line per row.
    pub fn ps_output(&self, l: &Layout, self_pid: u32) -> String {
        self.commands(l, self_pid)
            .into_iter()
            .map(|(pid, command)| format!("{pid:>6} {command}\n"))
            .collect()
    }

    /// The Windows process list as the catalog's CIM query prints it: a JSON array of
    /// `{ProcessId, CommandLine}`, starting with the `{ProcessId: 4, CommandLine: null}` row
    /// the real `Get-CimInstance` output has (the System process).
    pub fn cim_output(&self, l: &Layout, self_pid: u32) -> String {
        let rows: Vec<Value> = std::iter::once(json!({"ProcessId": 4, "CommandLine": null}))
            .chain(
                self.commands(l, self_pid)
                    .into_iter()
                    .map(|(pid, command)| json!({"ProcessId": pid, "CommandLine": command})),
            )
            .collect();
        Value::Array(rows).to_string()
    }

    /// The fake server at `host_port`, if any: TCP connections to it succeed, and to every
    /// other `host:port` they are refused. `localhost` and `[::1]` (or `::1`) mean
    /// `127.0.0.1`, and the host is compared in lower case.
    pub fn server(&self, host_port: &str) -> Option<&Server> {
        let (host, port) = host_port.rsplit_once(':')?;
        let host = host
            .strip_prefix('[')
            .and_then(|h| h.strip_suffix(']'))
            .unwrap_or(host)
            .to_ascii_lowercase();
        let host = match host.as_str() {
            "localhost" | "::1" => "127.0.0.1",
            other => other,
        };
        self.input.http.get(&format!("{host}:{port}"))
    }

    /// The answer to `GET http://<host_port><path>`: `None` when the connection is refused;
    /// otherwise the status and body. `/json/version` serves `version`, `/json/list` and
    /// `/json` serve `list`, with status 200; a missing body and every other path get 404.
    pub fn http_get(&self, host_port: &str, path: &str) -> Option<(u16, String)> {
        let server = self.server(host_port)?;
        let body = match path {
            "/json/version" => server.version.as_ref().map(Value::to_string),
            "/json/list" | "/json" => server
                .list
                .as_ref()
                .map(|list| Value::Array(list.clone()).to_string()),
            _ => None,
        };
        Some(match body {
            Some(body) => (200, body),
            None => (404, String::new()),
        })
    }

    /// `expected.json` with every string value token-expanded (object keys are not), to be
    /// compared with discovery's output as parsed JSON.
    pub fn expected(&self, l: &Layout) -> Value {
        expand_strings(&self.expected, l)
    }
}

fn expand_strings(value: &Value, l: &Layout) -> Value {
    match value {
        Value::String(s) => Value::String(l.expand(s)),
        Value::Array(items) => Value::Array(items.iter().map(|v| expand_strings(v, l)).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), expand_strings(v, l)))
                .collect(),
        ),
        other => other.clone(),
    }
}
