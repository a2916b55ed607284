//! [`FakeHost`]: a machine made of data, for corpus cases and tests.

use std::collections::BTreeMap;

use crate::catalog::Os;

use super::flag::normalise_host;
use super::host::{DirEntry, FileKind, Host};
use crate::http::authority;
use crate::http::{Http, Request};

/// A fake machine: a file tree, an environment, a process list and HTTP servers, all in
/// memory. It never touches the real machine, so it runs anywhere, `wasm32-wasip1` included.
///
/// Paths are in the form of its OS. On Windows `/` and `\` are the same separator, and on
/// Windows and macOS names compare without regard to case, as on those file systems; a
/// listing gives names as they were added.
///
/// ```
/// use slicc_browsers::catalog::Os;
/// use slicc_browsers::discovery::{FakeHost, Host};
/// let mut host = FakeHost::new(Os::Windows, r"C:\Users\me");
/// host.add_file(r"C:\Users\me\AppData\Local\Slicc\profiles\Browser-Coding-Agent-Chrome\DevToolsActivePort", "5000\n/x");
/// assert_eq!(host.list_dir("c:/users/me/appdata/local/slicc/profiles")[0].name, "Browser-Coding-Agent-Chrome");
/// ```
#[derive(Debug, Clone, Default)]
pub struct FakeHost {
    os: Option<Os>,
    home: String,
    env: BTreeMap<String, String>,
    files: BTreeMap<String, Vec<u8>>,
    /// Normalised dir → normalised child → child name as added.
    dirs: BTreeMap<String, BTreeMap<String, String>>,
    processes: Option<String>,
    /// `host:port` → path → (status, body).
    servers: BTreeMap<String, BTreeMap<String, (u16, Vec<u8>)>>,
    commands: BTreeMap<Vec<String>, String>,
    pub(crate) self_pid: u32,
}

impl FakeHost {
    /// The pid a fake host reports as its own, unless [`FakeHost::set_self_pid`] changes it.
    pub const SELF_PID: u32 = 2_000_000_011;

    /// An empty machine of `os` with this home dir.
    pub fn new(os: Os, home: &str) -> FakeHost {
        let mut host = FakeHost {
            os: Some(os),
            home: home.to_string(),
            self_pid: Self::SELF_PID,
            ..FakeHost::default()
        };
        host.add_dir(home);
        host
    }

    fn os(&self) -> Os {
        self.os.unwrap_or(Os::Linux)
    }

    /// A path as this host compares it: separators unified and collapsed, no trailing one,
    /// and lower case where the OS's file system ignores case.
    fn key(&self, path: &str) -> String {
        let os = self.os();
        let mut out = String::with_capacity(path.len());
        for c in path.chars() {
            let c = if os == Os::Windows && c == '\\' {
                '/'
            } else {
                c
            };
            if c == '/' && out.ends_with('/') {
                continue;
            }
            if os == Os::Linux {
                out.push(c);
            } else {
                out.extend(c.to_lowercase());
            }
        }
        if out.len() > 1 && out.ends_with('/') {
            out.pop();
        }
        out
    }

    /// Records every ancestor of `path` (as written) as a dir holding the next segment.
    fn add_ancestors(&mut self, path: &str) {
        let os = self.os();
        let is_sep = |c: char| c == '/' || (os == Os::Windows && c == '\\');
        let mut start = 0;
        let ends = path
            .char_indices()
            .chain(std::iter::once((path.len(), '/')));
        for (i, c) in ends {
            if !is_sep(c) {
                continue;
            }
            let name = &path[start..i];
            let parent = path[..start].trim_end_matches(is_sep);
            let parent = if parent.is_empty() && start > 0 {
                &path[..1]
            } else {
                parent
            };
            if !name.is_empty() && !parent.is_empty() {
                let (parent_key, child_key) = (self.key(parent), self.key(&path[..i]));
                self.dirs
                    .entry(parent_key)
                    .or_default()
                    .entry(child_key)
                    .or_insert_with(|| name.to_string());
            }
            start = i + c.len_utf8();
        }
    }

    /// Adds a directory (and its ancestors).
    pub fn add_dir(&mut self, path: &str) {
        self.add_ancestors(path);
        let key = self.key(path);
        self.dirs.entry(key).or_default();
    }

    /// Adds a file with these contents (and its dirs).
    pub fn add_file(&mut self, path: &str, contents: impl Into<Vec<u8>>) {
        self.add_ancestors(path);
        let key = self.key(path);
        self.files.insert(key, contents.into());
    }

    /// Sets an environment variable.
    pub fn set_env(&mut self, name: &str, value: &str) {
        self.env.insert(name.to_string(), value.to_string());
    }

    /// Sets the process-list output: `ps` lines, or the CIM query's JSON on Windows.
    pub fn set_processes(&mut self, output: &str) {
        self.processes = Some(output.to_string());
    }

    /// Sets the pid the host reports as its own.
    pub fn set_self_pid(&mut self, pid: u32) {
        self.self_pid = pid;
    }

    /// Sets the output of a command run through [`Host::run`].
    pub fn set_command(&mut self, argv: &[&str], output: &str) {
        self.commands.insert(
            argv.iter().map(|s| s.to_string()).collect(),
            output.to_string(),
        );
    }

    /// Adds a server at `host:port` that accepts connections; `version` is served at
    /// `/json/version` and `list` at `/json/list` and `/json`, each with status 200. Every
    /// other path, and a missing body, answers 404.
    pub fn add_server(&mut self, host_port: &str, version: Option<&str>, list: Option<&str>) {
        let key = Self::server_key(host_port);
        let routes = self.servers.entry(key).or_default();
        if let Some(v) = version {
            routes.insert("/json/version".into(), (200, v.as_bytes().to_vec()));
        }
        if let Some(l) = list {
            routes.insert("/json/list".into(), (200, l.as_bytes().to_vec()));
            routes.insert("/json".into(), (200, l.as_bytes().to_vec()));
        }
    }

    /// Adds one answer of a server at `host:port` (which then accepts connections).
    pub fn add_route(
        &mut self,
        host_port: &str,
        path: &str,
        status: u16,
        body: impl Into<Vec<u8>>,
    ) {
        let key = Self::server_key(host_port);
        self.servers
            .entry(key)
            .or_default()
            .insert(path.to_string(), (status, body.into()));
    }

    /// `host:port` with the host normalised, so `localhost` and `[::1]` are `127.0.0.1`.
    fn server_key(host_port: &str) -> String {
        match super::flag::parse_cdp(host_port) {
            Some(t) => authority(&t.host, t.port),
            None => host_port.to_ascii_lowercase(),
        }
    }
}

impl Host for FakeHost {
    fn home(&self) -> Option<String> {
        Some(self.home.clone())
    }

    fn env(&self, name: &str) -> Option<String> {
        self.env.get(name).cloned()
    }

    fn read_file(&self, path: &str, limit: usize) -> Option<Vec<u8>> {
        self.files
            .get(&self.key(path))
            .filter(|b| b.len() <= limit)
            .cloned()
    }

    fn list_dir(&self, path: &str) -> Vec<DirEntry> {
        let Some(children) = self.dirs.get(&self.key(path)) else {
            return Vec::new();
        };
        let mut entries: Vec<DirEntry> = children
            .iter()
            .map(|(key, name)| DirEntry {
                name: name.clone(),
                is_dir: self.dirs.contains_key(key),
            })
            .collect();
        entries.sort_by(|a, b| a.name.cmp(&b.name));
        entries
    }

    fn kind(&self, path: &str) -> Option<FileKind> {
        let key = self.key(path);
        if self.files.contains_key(&key) {
            Some(FileKind::File)
        } else if self.dirs.contains_key(&key) {
            Some(FileKind::Dir)
        } else {
            None
        }
    }

    fn resolve(&self, _path: &str) -> Option<String> {
        None
    }

    fn self_pid(&self) -> Option<u32> {
        Some(self.self_pid)
    }

    fn process_list(&self, _command: &[String]) -> Option<String> {
        self.processes.clone()
    }

    fn run(&self, argv: &[String]) -> Option<String> {
        self.commands.get(argv).cloned()
    }

    fn http_get(&self, request: &Request) -> Http {
        let key = authority(&normalise_host(&request.host), request.port);
        let Some(routes) = self.servers.get(&key) else {
            return Http::Refused;
        };
        match routes.get(&request.path) {
            Some((_, body)) if body.len() > request.limit => Http::NoAnswer,
            Some((status, body)) => Http::Response {
                status: *status,
                body: body.clone(),
            },
            None => Http::Response {
                status: 404,
                body: Vec::new(),
            },
        }
    }

    fn connect(&self, host: &str, port: u16) -> bool {
        self.servers
            .contains_key(&authority(&normalise_host(host), port))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dirs_come_from_file_paths() {
        let mut h = FakeHost::new(Os::Linux, "/home/me");
        h.add_file("/home/me/a/B/file", "x");
        h.add_file("/home/me/a/c", "y");
        let names: Vec<(String, bool)> = h
            .list_dir("/home/me/a/")
            .into_iter()
            .map(|e| (e.name, e.is_dir))
            .collect();
        assert_eq!(
            names,
            vec![("B".to_string(), true), ("c".to_string(), false)]
        );
        assert_eq!(h.kind("/home/me/a/b"), None);
        assert_eq!(h.list_dir("/")[0].name, "home");
        assert_eq!(h.read_file("/home/me/a/B/file", 1), Some(b"x".to_vec()));
        assert_eq!(h.read_file("/home/me/a/B/file", 0), None);
    }

    #[test]
    fn windows_paths_ignore_case_and_mix_separators() {
        let mut h = FakeHost::new(Os::Windows, r"C:\Users\me");
        h.add_file(
            r"C:\Users\me\Library\Application Support/ms-playwright/mcp-chrome\DevToolsActivePort",
            "1",
        );
        assert!(h.read_file(r"c:\users\ME\library\application support\ms-playwright\mcp-chrome/DevToolsActivePort", 10).is_some());
        assert_eq!(
            h.list_dir(r"C:\Users\me\Library")[0].name,
            "Application Support"
        );
    }

    #[test]
    fn servers_answer_by_normalised_host() {
        let mut h = FakeHost::new(Os::Linux, "/h");
        h.add_server("127.0.0.1:5000", Some("{}"), None);
        let get = |host: &str, path: &str| {
            h.http_get(&Request {
                host: host.into(),
                port: 5000,
                path: path.into(),
                limit: 100,
            })
        };
        assert!(matches!(
            get("localhost", "/json/version"),
            Http::Response { status: 200, .. }
        ));
        assert!(matches!(
            get("::1", "/json/list"),
            Http::Response { status: 404, .. }
        ));
        assert_eq!(get("10.0.0.5", "/json/version"), Http::Refused);
        assert!(h.connect("127.0.0.1", 5000));
        assert!(!h.connect("127.0.0.1", 5001));
    }
}
