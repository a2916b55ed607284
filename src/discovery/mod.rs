//! The reference discovery and ranking engine (feature `discovery`).
//!
//! [`discover`] follows the discovery rules of output schema 1 step by step: it collects
//! candidate endpoints from every source (browsers' default user-data dirs, seven profile
//! roots, SLICC six's profile dirs, `--cdp` URLs, the process list and the port probe), checks
//! each over HTTP, merges them by host and port, describes each endpoint, filters out old
//! Chromium, adds the installed browsers, and ranks everything into an [`Output`].
//!
//! Everything it reads comes through a [`Host`]: [`SystemHost`] is the real machine,
//! [`FakeHost`] a fake one (a corpus case, with the `corpus` feature), so the same engine runs
//! on both, and on `wasm32-wasip1` with a fake.
//!
//! ```
//! use slicc_browsers::catalog::Os;
//! use slicc_browsers::discovery::{discover, FakeHost, Options};
//!
//! let mut host = FakeHost::new(Os::Linux, "/home/me");
//! host.add_file("/home/me/.config/google-chrome/DevToolsActivePort", "5100\n/devtools/browser/abc\n");
//! host.add_server("127.0.0.1:5100", Some(r#"{"Browser":"Chrome/154.0.1.2","webSocketDebuggerUrl":"ws://127.0.0.1:5100/devtools/browser/abc"}"#), None);
//! let out = discover(&host, &Options::new(Os::Linux));
//! assert_eq!(out.entries[0].id, "cdp:127.0.0.1:5100");
//! assert_eq!(out.entries[0].name, "Google Chrome");
//! assert_eq!(out.entries[0].version.as_deref(), Some("154.0.1.2"));
//! ```

mod active_port;
mod candidate;
mod fake;
mod flag;
mod host;
pub mod installed;
mod merge;
mod output;
mod probe;
mod process;
mod rank;
mod seven_profiles;
mod six;
mod user_data;

#[cfg(not(target_os = "wasi"))]
mod system;

pub use active_port::parse_active_port;
pub use fake::FakeHost;
pub use flag::{parse_cdp, CdpTarget};
pub use host::{DirEntry, FileKind, Host};
// The HTTP request and outcome types live in the crate's low-level HTTP client (`crate::http`),
// which guard and launch use too; `discovery::{Http, Request}` stay their public paths.
pub use crate::http::{Http, Request};
pub use output::{Endpoint, Entry, Installed, Kind, Output, SevenTab, Source};
pub use process::{parse_cim, parse_command, parse_ps, Process, ProcessFlags};
pub use rank::{installed_passes, installed_tier, rank};
#[cfg(not(target_os = "wasi"))]
pub use system::SystemHost;

use std::collections::BTreeMap;

use crate::catalog::{Catalog, Env, Os};

use candidate::Answer;

/// The largest `/json/list` body read; a longer one counts as no targets.
const LIST_LIMIT: usize = 8 * 1024 * 1024;

/// The corpus's `needs` values this engine supports: all of them.
pub const SUPPORTED_NEEDS: &[&str] = &[
    "user-data-dirs",
    "seven-profiles",
    "flag",
    "process",
    "probe",
    "origins",
    "installed",
    "six",
];

/// Which sources discovery uses. A corpus case's `needs` map onto it with
/// [`Sources::from_needs`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sources {
    /// DevToolsActivePort in browsers' default user-data dirs (§2.3).
    pub user_data_dirs: bool,
    /// DevToolsActivePort in the seven profile roots (§2.4).
    pub seven_profiles: bool,
    /// Six's profile dirs, and marking six's endpoints (§2.5, §2.9).
    pub six: bool,
    /// `--cdp` URLs (§2.6).
    pub flag: bool,
    /// The process list (§2.7).
    pub process: bool,
    /// The port probe (§2.8).
    pub probe: bool,
}

impl Sources {
    /// Every source.
    pub const ALL: Sources = Sources {
        user_data_dirs: true,
        seven_profiles: true,
        six: true,
        flag: true,
        process: true,
        probe: true,
    };

    /// No source: only installed records are ranked.
    pub const NONE: Sources = Sources {
        user_data_dirs: false,
        seven_profiles: false,
        six: false,
        flag: false,
        process: false,
        probe: false,
    };

    /// Exactly the sources a corpus case's `needs` name (`origins` and `installed` are inputs,
    /// not sources, so they change nothing here).
    pub fn from_needs<S: AsRef<str>>(needs: &[S]) -> Sources {
        let has = |n: &str| needs.iter().any(|x| x.as_ref() == n);
        Sources {
            user_data_dirs: has("user-data-dirs"),
            seven_profiles: has("seven-profiles"),
            six: has("six"),
            flag: has("flag"),
            process: has("process"),
            probe: has("probe"),
        }
    }
}

/// What to discover: the OS, the caller's inputs, and which sources to use.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// The OS whose layout and process list discovery reads.
    pub os: Os,
    /// `--cdp` URLs, in the order given.
    pub cdp: Vec<String>,
    /// Extra seven origins, each read by [`Origin::parse_extra`](crate::catalog::Origin::parse_extra)
    /// (as the protected-origin matcher reads them); one it refuses marks no tab.
    pub origins: Vec<String>,
    /// Ports probed on 127.0.0.1 (the catalog's `discovery.probePorts` by default).
    pub probe_ports: Vec<u16>,
    /// Which sources to use (all by default).
    pub sources: Sources,
    /// Installed browsers, ranked with the endpoints.
    pub installed: Vec<Installed>,
    /// The scanning process's pid; `None` asks the host.
    pub self_pid: Option<u32>,
}

impl Options {
    /// Every source, the catalog's probe ports, no `--cdp` URL, origin or installed record.
    pub fn new(os: Os) -> Options {
        Options {
            os,
            cdp: Vec::new(),
            origins: Vec::new(),
            probe_ports: crate::catalog::shared_catalog()
                .discovery
                .probe_ports
                .clone(),
            sources: Sources::ALL,
            installed: Vec::new(),
            self_pid: None,
        }
    }
}

/// The host's environment as an owned closure.
type EnvFn<'a> = Box<dyn Fn(&str) -> Option<String> + 'a>;

/// What every source reads: the catalog, the host, and the OS layout.
pub(crate) struct Context<'a> {
    pub catalog: &'a Catalog,
    pub host: &'a dyn Host,
    pub os: Os,
    pub home: Option<String>,
    pub self_pid: Option<u32>,
    env: EnvFn<'a>,
}

impl<'a> Context<'a> {
    fn new(catalog: &'a Catalog, host: &'a dyn Host, options: &Options) -> Context<'a> {
        Context {
            catalog,
            host,
            os: options.os,
            home: host.home().filter(|h| !h.is_empty()),
            self_pid: options.self_pid.or_else(|| host.self_pid()),
            env: Box::new(move |name| host.env(name)),
        }
    }

    /// The host's environment as the catalog's path functions take it.
    pub(crate) fn env(&self) -> Env<'_> {
        &*self.env
    }

    /// `discovery.activePortFile`.
    pub(crate) fn active_port_file(&self) -> &str {
        &self.catalog.discovery.active_port_file
    }

    /// Six's profile root on this OS.
    pub(crate) fn six_root(&self) -> Option<String> {
        self.catalog
            .six_root(self.os, self.home.as_deref()?, self.env())
    }
}

/// Discovers and ranks with the embedded catalog. See [`discover_with`].
pub fn discover(host: &dyn Host, options: &Options) -> Output {
    discover_with(crate::catalog::shared_catalog(), host, options)
}

/// Discovers the endpoints `host` offers, ranks them with `options.installed`, and returns
/// output schema 1, following the discovery rules of `catalog`.
pub fn discover_with(catalog: &Catalog, host: &dyn Host, options: &Options) -> Output {
    let cx = Context::new(catalog, host, options);
    let sources = options.sources;

    // 1. Collect, in the "first found" order: §2.3, §2.4, §2.5, §2.6, §2.7, §2.8.
    let mut candidates = Vec::new();
    if sources.user_data_dirs {
        user_data::collect(&cx, &mut candidates);
    }
    if sources.seven_profiles {
        seven_profiles::collect(&cx, &mut candidates);
    }
    let six_dirs = sources.six.then(|| six::SixDirs::new(&cx));
    if sources.six {
        six::collect(&cx, &mut candidates);
    }
    if sources.flag {
        flag::collect(&options.cdp, &mut candidates);
    }
    if sources.process {
        process::collect(&cx, six_dirs.as_ref(), &mut candidates);
    }
    if sources.probe {
        probe::collect(&cx, &options.probe_ports, &mut candidates);
    }

    // 2. Check: one GET of /json/version per host and port, as one batch.
    let mut targets: Vec<Request> = Vec::new();
    for c in &candidates {
        let request = c.check.request();
        if !targets.contains(&request) {
            targets.push(request);
        }
    }
    let answers: BTreeMap<(String, u16), Answer> = targets
        .iter()
        .zip(host.http_get_all(&targets))
        .map(|(r, http)| ((r.host.clone(), r.port), Answer::from_http(&http)))
        .collect();
    let found: Vec<candidate::Found> = candidates
        .into_iter()
        .filter_map(|c| {
            let (h, p) = c.check.target();
            let answer = answers.get(&(h.to_string(), p)).unwrap_or(&Answer::Refused);
            candidate::check(c, answer)
        })
        .collect();

    // 3. Merge by host and port.
    let merged = merge::merge(found, &catalog.discovery.source_rank);

    // 4. Describe, with one batch of /json/list for the endpoints that have /json/version.
    let lists: Vec<Request> = merged
        .iter()
        .filter(|m| !m.winner.ws_only())
        .map(|m| Request {
            host: m.winner.host.clone(),
            port: m.winner.port,
            path: "/json/list".into(),
            limit: LIST_LIMIT,
        })
        .collect();
    // The extra origins as the matcher reads them (`Origin::parse_extra`: the URL Standard's
    // host, so `http://0x7f.1:5710` is `http://127.0.0.1:5710`); one it refuses marks nothing.
    let extra_origins: Vec<String> = options
        .origins
        .iter()
        .filter_map(|o| crate::catalog::Origin::parse_extra(o).ok())
        .map(|o| o.to_string())
        .collect();
    let mut list_answers = host.http_get_all(&lists).into_iter();
    let endpoints = merged
        .iter()
        .map(|m| {
            let tabs = if m.winner.ws_only() {
                Vec::new()
            } else {
                let list = list_answers.next().unwrap_or(Http::Refused);
                merge::seven_tabs(catalog, &list, &extra_origins)
            };
            merge::describe(catalog, m, tabs)
        })
        .collect();

    // 5 and 6. Filter, add the installed records, tier and sort.
    rank::rank(catalog, endpoints, &options.installed)
}
