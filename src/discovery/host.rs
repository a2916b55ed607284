//! The [`Host`] trait: everything discovery needs from the machine, so that the same engine
//! runs on the real machine ([`SystemHost`](super::SystemHost)) and on a corpus case
//! ([`FakeHost`](super::FakeHost)).

use crate::http::{Http, Request};

/// What a directory listing says about one entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirEntry {
    /// The entry's name, spelled as on disk.
    pub name: String,
    /// Whether it is a directory (following symlinks).
    pub is_dir: bool,
}

/// What a path names, following symlinks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// A regular file.
    File,
    /// A directory.
    Dir,
}

/// Everything discovery reads from a machine.
///
/// Paths are strings in the form of the OS under test (which need not be the OS this runs on:
/// a corpus case for Windows runs anywhere). Every method is infallible: what cannot be read
/// is absent, as discovery treats it.
pub trait Host {
    /// The home dir, or `None` when there is none.
    fn home(&self) -> Option<String>;

    /// An environment variable; `None` when unset.
    fn env(&self, name: &str) -> Option<String>;

    /// A regular file's bytes; `None` when it is missing, unreadable, not a file, or longer
    /// than `limit` bytes.
    fn read_file(&self, path: &str, limit: usize) -> Option<Vec<u8>>;

    /// The entries of a directory, sorted by name; empty when it cannot be listed.
    fn list_dir(&self, path: &str) -> Vec<DirEntry>;

    /// What `path` names, following symlinks; `None` when nothing (or a broken link).
    fn kind(&self, path: &str) -> Option<FileKind>;

    /// The path with every symlink resolved, or `None` when it cannot be resolved (for
    /// example because it does not exist).
    fn resolve(&self, path: &str) -> Option<String>;

    /// The scanning process's own pid, skipped in the process list.
    fn self_pid(&self) -> Option<u32>;

    /// The output of the process-list command `command` (the catalog's
    /// `discovery.process.unix` or `.windows`), or `None` when it cannot be run.
    fn process_list(&self, command: &[String]) -> Option<String>;

    /// The standard output of another command (`dpkg-query`, `reg query`), or `None` when it
    /// cannot be run or fails. Used by installed-browser discovery only.
    fn run(&self, argv: &[String]) -> Option<String> {
        let _ = argv;
        None
    }

    /// One HTTP GET, within the host's timeouts.
    fn http_get(&self, request: &Request) -> Http;

    /// Several HTTP GETs, answered in the same order. A host may run them concurrently.
    fn http_get_all(&self, requests: &[Request]) -> Vec<Http> {
        requests.iter().map(|r| self.http_get(r)).collect()
    }

    /// Whether a TCP connection to `host:port` succeeds, within the host's timeouts.
    fn connect(&self, host: &str, port: u16) -> bool;

    /// Several TCP connection checks, answered in the same order. A host may run them
    /// concurrently.
    fn connect_all(&self, targets: &[(String, u16)]) -> Vec<bool> {
        targets.iter().map(|(h, p)| self.connect(h, *p)).collect()
    }
}
