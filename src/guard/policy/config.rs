//! The policy's limits, timeouts, protected local paths and the user's own protected sites
//! ([`Config`]): every bound the module docs describe is said here once.

use std::sync::Arc;

use crate::protected::ProtectPattern;

/// What the caller's file system says about a local path, for [`LocalPaths::resolve`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolved {
    /// The path with every symbolic link resolved (as far as it exists), and the identities
    /// (device, inode) of what exists of it (none where the platform has no such thing).
    Real {
        /// The resolved path.
        path: String,
        /// `(device, inode)` of the file or folder it names, when that exists.
        id: Option<(u64, u64)>,
        /// `(device, inode)` of every existing folder above it.
        above: Vec<(u64, u64)>,
    },
    /// It goes through a link that names a different file for the browser than for the caller
    /// (`/proc/self/…`, `/dev/fd/…`): refused.
    Indirect,
    /// Not known (nothing there, or no file system to ask): the lexical form alone is judged.
    Unknown,
}

/// How the caller resolves a local path on the browser's machine (the policy does no I/O);
/// `guard proxy` gives one that reads its own file system, the browser's when both run on one
/// machine.
pub trait LocalPaths: std::fmt::Debug + Send + Sync {
    /// What `path` (absolute, as the client gave it: `.` and `..` still in it) is on the
    /// browser's machine.
    fn resolve(&self, path: &str) -> Resolved;

    /// What each of `paths` is, in order: one command's strings, judged at one moment. The
    /// answers must be what [`LocalPaths::resolve`] gives for each; a resolver may share its
    /// look-ups among them (the default resolves each on its own).
    fn resolve_all(&self, paths: &[&str]) -> Vec<Resolved> {
        paths.iter().map(|p| self.resolve(p)).collect()
    }
}

/// How deep a client may nest sessions it attaches from sessions: a `Target.attachToTarget`
/// or `attachToBrowserTarget` on a session this deep is refused (see the module docs).
pub(super) const MAX_NESTING: usize = 64;

/// Limits, timeouts, the protected local paths and the user's own protected sites.
#[derive(Debug, Clone)]
pub struct Config {
    /// How long a held message waits for the policy's checks before it fails closed (ms).
    pub hold_ms: u64,
    /// Client commands in flight at most; more are refused.
    pub max_pending: usize,
    /// Client frames kept while the policy's discovery starts; more are refused.
    pub max_queue: usize,
    /// Bytes of messages kept back at most: client frames kept while the policy's discovery
    /// starts (more are refused), and client-bound frames waiting behind a session's checks
    /// (past it the oldest checks fail closed, see the module docs).
    pub max_held_bytes: usize,
    /// JSON values a message may hold to be judged (a parsed value takes about 80 bytes, so
    /// this bounds what judging one message costs: about 0.6 GiB at the default); a client's
    /// message over it is refused, a browser's answer over it becomes an error for its
    /// command, a browser's event over it is dropped. Messages under 1 MiB are not counted.
    pub max_values: usize,
    /// Request ids, history entries and paused requests remembered per session.
    pub per_session: usize,
    /// Targets remembered after they are destroyed (for openers).
    pub gone: usize,
    /// Local folders no command may name a file in (the browser's user-data dir: its files
    /// hold every site's storage, cookies and history in the clear). A file input, a drop or an
    /// app's file launch naming a file in one, a folder holding one, or a path the policy
    /// cannot place (relative, through `/proc` or `/dev/fd`) is refused, as is a download
    /// folder in one and any other absolute path or `file:` URL in one. Empty by default:
    /// the policy does not know where the profile is (see the module docs' *Limits*).
    pub protected_paths: Vec<String>,
    /// How to resolve local paths on the browser's machine (symbolic links, file identities)
    /// for [`Config::protected_paths`]; the policy does no I/O itself. `None` (the default):
    /// paths are judged lexically only.
    pub local_paths: Option<Arc<dyn LocalPaths>>,
    /// The browser's DevTools HTTP endpoints (`host:port`: the proxy's upstream). A page there
    /// reads every tab's URL and title and, on its own origin, opens the browser WebSocket
    /// with no guard in between, so any URL on such a port whose host reaches it (a loopback
    /// or unspecified address, `localhost` and the names under it, the endpoint's own host)
    /// counts as browser-internal (see the module docs). Empty by default.
    pub devtools_endpoints: Vec<String>,
    /// The user's own protected sites, host patterns and origins (`--protect`), each read once
    /// by [`ProtectPattern::parse`]: the policy's matcher protects them too
    /// ([`Matcher::protecting`](crate::protected::Matcher::protecting)), with every reading it applies to the catalog's origins.
    /// Empty by default.
    ///
    /// ```
    /// use slicc_browsers::guard::policy::{Config, Policy};
    /// use slicc_browsers::protected::{Matcher, ProtectPattern};
    /// let matcher = Matcher::new(&slicc_browsers::shared_catalog().protected_origins, &[] as &[&str]).unwrap();
    /// let config = Config {
    ///     protect: vec![ProtectPattern::parse("bank.example").unwrap()],
    ///     ..Config::default()
    /// };
    /// let policy = Policy::with_config(matcher.strict(), config);
    /// assert!(policy.matcher().url("https://login.BANK.example./"));
    /// ```
    pub protect: Vec<ProtectPattern>,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            hold_ms: 10_000,
            max_pending: 65_536,
            max_queue: 4_096,
            max_held_bytes: 256 << 20,
            max_values: 8_000_000,
            per_session: 8_192,
            gone: 4_096,
            protected_paths: Vec::new(),
            local_paths: None,
            devtools_endpoints: Vec::new(),
            protect: Vec::new(),
        }
    }
}
