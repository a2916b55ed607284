//! Helpers for the discovery tests: a host whose files are real (in a temporary home) while
//! its process list and network can be faked, so a test never sees the machine's browsers.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::Path;

use slicc_browsers::discovery::{DirEntry, FakeHost, FileKind, Host, Http, Request, SystemHost};

/// Real files under a temporary home; process list, HTTP and TCP from `net` unless
/// `real_net` is set, in which case HTTP and TCP are real too.
pub struct MixedHost {
    pub files: SystemHost,
    pub net: FakeHost,
    pub real_net: bool,
}

impl MixedHost {
    /// Files under `home`, with only `env` as the environment; a fake, empty network.
    pub fn new(home: &Path, env: &[(&str, &str)], net: FakeHost) -> MixedHost {
        let env: BTreeMap<String, String> = env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        MixedHost {
            files: SystemHost::isolated(path_str(home), env),
            net,
            real_net: false,
        }
    }
}

/// A path as a string (the temp dirs these tests make are UTF-8).
pub fn path_str(path: &Path) -> String {
    path.to_str().expect("a UTF-8 temporary path").to_string()
}

impl Host for MixedHost {
    fn home(&self) -> Option<String> {
        self.files.home()
    }
    fn env(&self, name: &str) -> Option<String> {
        self.files.env(name)
    }
    fn read_file(&self, path: &str, limit: usize) -> Option<Vec<u8>> {
        self.files.read_file(path, limit)
    }
    fn list_dir(&self, path: &str) -> Vec<DirEntry> {
        self.files.list_dir(path)
    }
    fn kind(&self, path: &str) -> Option<FileKind> {
        self.files.kind(path)
    }
    fn resolve(&self, path: &str) -> Option<String> {
        self.files.resolve(path)
    }
    fn self_pid(&self) -> Option<u32> {
        self.net.self_pid()
    }
    fn process_list(&self, command: &[String]) -> Option<String> {
        self.net.process_list(command)
    }
    fn http_get(&self, request: &Request) -> Http {
        if self.real_net {
            self.files.http_get(request)
        } else {
            self.net.http_get(request)
        }
    }
    fn http_get_all(&self, requests: &[Request]) -> Vec<Http> {
        if self.real_net {
            self.files.http_get_all(requests)
        } else {
            self.net.http_get_all(requests)
        }
    }
    fn connect(&self, host: &str, port: u16) -> bool {
        if self.real_net {
            self.files.connect(host, port)
        } else {
            self.net.connect(host, port)
        }
    }
}

/// A `/json/version` body for a browser on `port` with this websocket path.
pub fn version_body(port: u16, path: &str) -> String {
    format!(
        r#"{{"Browser":"Chrome/150.0.7800.12","User-Agent":"Mozilla/5.0 Chrome/150.0.7800.12 Safari/537.36","webSocketDebuggerUrl":"ws://127.0.0.1:{port}{path}"}}"#
    )
}
