//! The conformance files run through the crate's implementations: the layer above
//! [`crate::corpus`], [`crate::discovery`] and [`crate::protected`] that ties them together, so
//! none of them imports another to run its vectors.
//!
//! - The discovery corpus (features `corpus` and `discovery`):
//!   [`FakeHost::from_case`](crate::discovery::FakeHost::from_case) lays a case out as a fake
//!   machine, and [`run`](crate::conformance::run) takes each case on each OS it is for, on a
//!   [`FakeHost`](crate::discovery::FakeHost), compared with its `expected.json` as parsed JSON.
//!   The command line's `conformance corpus`, the tests, the benchmark and the `wasm32-wasip1`
//!   example all use this.
//! - The protected-origin vectors (features `corpus` and `protected`):
//!   [`run_protected`](crate::conformance::run_protected) asks a
//!   [`Matcher`](crate::protected::Matcher) every vector of a `protected.json` and says, per
//!   vector, what was asked, the expected and the given answer, and why. The command line's
//!   `conformance protected`, `validate` (rule `vectors-pass`) and the tests all use this one
//!   loop.

use std::fmt;

use serde_json::Value;

#[cfg(feature = "discovery")]
use crate::catalog::Catalog;
use crate::catalog::Os;
#[cfg(feature = "discovery")]
use crate::corpus::{Case, Corpus, Layout};
#[cfg(feature = "discovery")]
use crate::discovery::{discover_with, FakeHost, Installed, Options, Sources, SUPPORTED_NEEDS};
#[cfg(feature = "protected")]
use crate::protected::{Matcher, Opener, Vectors};

/// The fake home dir a case is laid out under on each OS.
pub fn home(os: Os) -> &'static str {
    match os {
        Os::Macos => "/Users/me",
        Os::Linux => "/home/me",
        Os::Windows => r"C:\Users\me",
    }
}

#[cfg(feature = "discovery")]
/// The discovery options of a case: its OS, `--cdp` URLs, origins, probe ports and installed
/// records, with every source on. An error names an installed record that is not output
/// schema 1's installed shape.
pub fn options(case: &Case, layout: &Layout<'_>) -> Result<Options, String> {
    let os = layout
        .os()
        .ok_or_else(|| format!("unknown OS {:?}", layout.os))?;
    let installed = case
        .input
        .installed
        .iter()
        .enumerate()
        .map(|(i, v)| {
            serde_json::from_value::<Installed>(v.clone())
                .map_err(|e| format!("installed[{i}] is not an installed record: {e}"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Options {
        os,
        cdp: case.cdp(layout),
        origins: case.input.origins.clone(),
        probe_ports: case.input.probe_ports.clone(),
        sources: Sources::ALL,
        installed,
        self_pid: None,
    })
}

/// One case that did not produce its expected list on one OS.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The case's name.
    pub case: String,
    /// The OS it ran as.
    pub os: Os,
    /// What differs, one line each (JSON pointer, expected, got).
    pub differences: Vec<String>,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "FAIL {} ({})", self.case, self.os)?;
        for d in &self.differences {
            writeln!(f, "  {d}")?;
        }
        Ok(())
    }
}

/// The outcome of a corpus run: one count per case and OS.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// Runs that produced the expected list.
    pub passed: usize,
    /// Runs that did not.
    pub failures: Vec<Failure>,
}

impl Report {
    /// `N passed, M failed`.
    pub fn summary(&self) -> String {
        format!("{} passed, {} failed", self.passed, self.failures.len())
    }
}

#[cfg(feature = "discovery")]
/// Runs one case as `os` with `sources`; `None` when the case is not for that OS.
pub fn run_case(
    catalog: &Catalog,
    case: &Case,
    os: Os,
    sources: Sources,
) -> Option<Result<(), Vec<String>>> {
    if !case.runs(os.corpus_name(), SUPPORTED_NEEDS) {
        return None;
    }
    let env = |k: &str| case.input.env.get(k).cloned();
    let layout = Layout {
        os: os.corpus_name(),
        home: home(os),
        env: &env,
        catalog,
    };
    let mut options = match options(case, &layout) {
        Ok(o) => o,
        Err(e) => return Some(Err(vec![e])),
    };
    options.sources = sources;
    let host = FakeHost::from_case(case, &layout);
    let actual = discover_with(catalog, &host, &options).to_value();
    let expected = case.expected(&layout);
    let mut diffs = differences(&expected, &actual);
    if let Some(auto) = &case.input.auto {
        let got = first_non_six(&actual);
        if auto.as_deref() != got.as_deref() {
            diffs.push(format!("auto: expected {auto:?}, got {got:?}"));
        }
    }
    Some(if diffs.is_empty() { Ok(()) } else { Err(diffs) })
}

#[cfg(feature = "discovery")]
/// The id of the first entry of an output document that is not six's.
fn first_non_six(output: &Value) -> Option<String> {
    output["entries"]
        .as_array()?
        .iter()
        .find(|e| e["endpoint"]["six"] != Value::Bool(true))
        .and_then(|e| e["id"].as_str().map(str::to_string))
}

#[cfg(feature = "discovery")]
/// Runs every case of `corpus` on each of `oses` it is for, with every source on.
pub fn run(catalog: &Catalog, corpus: &Corpus, oses: &[Os]) -> Report {
    let mut report = Report::default();
    for case in &corpus.cases {
        for &os in oses {
            match run_case(catalog, case, os, Sources::ALL) {
                None => {}
                Some(Ok(())) => report.passed += 1,
                Some(Err(differences)) => report.failures.push(Failure {
                    case: case.name.clone(),
                    os,
                    differences,
                }),
            }
        }
    }
    report
}

/// The differences between two JSON values, one readable line each: the JSON pointer, the
/// expected value and the one found. For the top-level `entries`, a first line compares
/// the ids in order.
///
/// ```
/// use serde_json::json;
/// use slicc_browsers::conformance::differences;
/// let d = differences(&json!({"a": [1, 2], "b": "x"}), &json!({"a": [1, 3], "c": true}));
/// assert_eq!(d, vec![
///     "/a/1: expected 2, got 3",
///     "/b: expected \"x\", missing",
///     "/c: unexpected true",
/// ]);
/// // Keys are escaped as JSON pointers say (`~` as `~0`, `/` as `~1`).
/// let d = differences(&json!({"a/b": {"~": 1}}), &json!({"a/b": {"~": 2, "~/": 3}}));
/// assert_eq!(d, vec!["/a~1b/~0: expected 1, got 2", "/a~1b/~0~1: unexpected 3"]);
/// ```
pub fn differences(expected: &Value, actual: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let ids = |v: &Value| -> Option<Vec<String>> {
        Some(
            v.get("entries")?
                .as_array()?
                .iter()
                .map(|e| e["id"].as_str().unwrap_or("?").to_string())
                .collect(),
        )
    };
    if let (Some(want), Some(got)) = (ids(expected), ids(actual)) {
        if want != got {
            out.push(format!("entries: expected ids {want:?}, got {got:?}"));
        }
    }
    diff_into(expected, actual, "", &mut out);
    out
}

/// Adds the differences under `path` (a JSON pointer, escaped by [`crate::json::child`]).
/// It walks two trees at once, which [`crate::json::walk`] (one tree) does not.
fn diff_into(expected: &Value, actual: &Value, path: &str, out: &mut Vec<String>) {
    use crate::json::child;
    match (expected, actual) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, va) in a {
                let here = child(path, k);
                match b.get(k) {
                    Some(vb) => diff_into(va, vb, &here, out),
                    None => out.push(format!("{here}: expected {va}, missing")),
                }
            }
            for (k, vb) in b {
                if !a.contains_key(k) {
                    out.push(format!("{}: unexpected {vb}", child(path, k)));
                }
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            for (i, va) in a.iter().enumerate() {
                let here = child(path, &i.to_string());
                match b.get(i) {
                    Some(vb) => diff_into(va, vb, &here, out),
                    None => out.push(format!("{here}: expected {va}, missing")),
                }
            }
            for (i, vb) in b.iter().enumerate().skip(a.len()) {
                out.push(format!("{}: unexpected {vb}", child(path, &i.to_string())));
            }
        }
        (a, b) if a == b => {}
        (a, b) => out.push(format!(
            "{}: expected {a}, got {b}",
            if path.is_empty() { "/" } else { path }
        )),
    }
}

#[cfg(feature = "discovery")]
impl FakeHost {
    /// A corpus case's machine, laid out on `layout` as the spec's harness does: the case's
    /// files under the layout's home, only the case's environment, its process list (`ps`
    /// lines, or the CIM JSON on Windows, with [`FakeHost::SELF_PID`] for the `self` row)
    /// and its HTTP servers; every other port refuses connections.
    ///
    /// ```
    /// use slicc_browsers::corpus::{corpus, Layout};
    /// use slicc_browsers::discovery::{discover, FakeHost};
    /// let cat = slicc_browsers::catalog();
    /// let case = corpus().case("flag-bare-port").cloned().expect("the case is shipped");
    /// let env = |k: &str| case.input.env.get(k).cloned();
    /// let layout = Layout { os: "linux", home: "/home/me", env: &env, catalog: &cat };
    /// let host = FakeHost::from_case(&case, &layout);
    /// let options = slicc_browsers::conformance::options(&case, &layout).unwrap();
    /// assert_eq!(discover(&host, &options).to_value(), case.expected(&layout));
    /// ```
    pub fn from_case(case: &Case, layout: &Layout<'_>) -> FakeHost {
        let os = layout.os().unwrap_or(Os::Linux);
        let mut host = FakeHost::new(os, layout.home);
        for (name, value) in case.env(layout) {
            host.set_env(&name, &value);
        }
        for (path, contents) in case.files(layout) {
            host.add_file(&path, contents);
        }
        let list = if os == Os::Windows {
            case.cim_output(layout, host.self_pid)
        } else {
            case.ps_output(layout, host.self_pid)
        };
        host.set_processes(&list);
        for host_port in case.input.http.keys() {
            for path in ["/json/version", "/json/list", "/json"] {
                if let Some((status, body)) = case.http_get(host_port, path) {
                    host.add_route(host_port, path, status, body);
                }
            }
        }
        host
    }
}

/// The four kinds of vector of `protected.json`, in the file's order.
#[cfg(feature = "protected")]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum VectorKind {
    /// `urls[]`: [`Matcher::url`].
    Url,
    /// `targets[]`: [`Matcher::target`].
    Target,
    /// `cookieDomains[]`: [`Matcher::cookie_domain`].
    CookieDomain,
    /// `storageKeys[]`: [`Matcher::storage_key`].
    StorageKey,
}

#[cfg(feature = "protected")]
impl VectorKind {
    /// The member of `protected.json` that holds the kind: `urls`, `targets`, `cookieDomains`
    /// or `storageKeys`.
    pub fn member(self) -> &'static str {
        match self {
            VectorKind::Url => "urls",
            VectorKind::Target => "targets",
            VectorKind::CookieDomain => "cookieDomains",
            VectorKind::StorageKey => "storageKeys",
        }
    }
}

/// What a protected vector asks the matcher.
#[cfg(feature = "protected")]
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Asked {
    /// Whether a URL is protected.
    Url(String),
    /// Whether a CDP target is protected.
    Target {
        /// `TargetInfo.url`.
        url: String,
        /// Whether it was protected before it went to `url`.
        previous: bool,
        /// The vector's `opener` as written: `None` for no opener.
        opener: Option<String>,
    },
    /// Whether a cookie domain is protected.
    CookieDomain(String),
    /// Whether a storage key is protected.
    StorageKey(String),
}

#[cfg(feature = "protected")]
impl Asked {
    /// The kind of vector that asks this.
    pub fn kind(&self) -> VectorKind {
        match self {
            Asked::Url(_) => VectorKind::Url,
            Asked::Target { .. } => VectorKind::Target,
            Asked::CookieDomain(_) => VectorKind::CookieDomain,
            Asked::StorageKey(_) => VectorKind::StorageKey,
        }
    }

    /// The text the matcher reads: the URL, domain or key.
    pub fn input(&self) -> &str {
        match self {
            Asked::Url(s) | Asked::CookieDomain(s) | Asked::StorageKey(s) => s,
            Asked::Target { url, .. } => url,
        }
    }
}

#[cfg(feature = "protected")]
impl fmt::Display for Asked {
    /// `url "…"`, `target "…" (previous false, opener unknown)`, `cookie domain "…"` or
    /// `storage key "…"`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Asked::Url(u) => write!(f, "url {u:?}"),
            Asked::Target {
                url,
                previous,
                opener,
            } => match opener {
                Some(o) => write!(f, "target {url:?} (previous {previous}, opener {o})"),
                None => write!(f, "target {url:?} (previous {previous}, no opener)"),
            },
            Asked::CookieDomain(d) => write!(f, "cookie domain {d:?}"),
            Asked::StorageKey(k) => write!(f, "storage key {k:?}"),
        }
    }
}

/// One protected vector through a matcher.
#[cfg(feature = "protected")]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VectorOutcome {
    /// Its index in its member's array (`urls`, `targets`, ...).
    pub index: usize,
    /// What it asks.
    pub asked: Asked,
    /// The vector's `protected`.
    pub expected: bool,
    /// The matcher's answer; `None` when the vector cannot be asked: a target whose `opener`
    /// is none of `protected`, `unprotected` and `unknown` (protected-format §3: the member
    /// takes only those, and is left out for no opener).
    pub got: Option<bool>,
    /// Why: the rule that protects a URL ([`Matcher::explain`]), how a target that inherits
    /// its origin was judged, or why the vector cannot be asked; `None` otherwise.
    pub reason: Option<String>,
}

#[cfg(feature = "protected")]
impl VectorOutcome {
    /// Whether the matcher gave the vector's answer.
    pub fn passed(&self) -> bool {
        self.got == Some(self.expected)
    }

    /// The JSON pointer of the member at fault: the vector's `protected` for a wrong answer
    /// (`/urls/0/protected`), its `opener` for a target that cannot be asked.
    pub fn pointer(&self) -> String {
        let member = if self.got.is_none() {
            "opener"
        } else {
            "protected"
        };
        crate::json::pointer([self.asked.kind().member(), &self.index.to_string(), member])
    }
}

#[cfg(feature = "protected")]
impl fmt::Display for VectorOutcome {
    /// `url "…": expected protected, got allowed (why)`, or `target "…" (…): why` for one
    /// that cannot be asked.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let word = |b: bool| if b { "protected" } else { "allowed" };
        write!(f, "{}: ", self.asked)?;
        match self.got {
            Some(got) => write!(f, "expected {}, got {}", word(self.expected), word(got))?,
            None => write!(f, "cannot be asked")?,
        }
        match &self.reason {
            Some(why) => write!(f, " ({why})"),
            None => Ok(()),
        }
    }
}

/// Every vector of a `protected.json` through a matcher, in file order.
#[cfg(feature = "protected")]
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProtectedReport {
    /// One outcome per vector: `urls`, then `targets`, `cookieDomains` and `storageKeys`.
    pub outcomes: Vec<VectorOutcome>,
}

#[cfg(feature = "protected")]
impl ProtectedReport {
    /// The vectors whose answer was not the matcher's (or that cannot be asked).
    pub fn failures(&self) -> impl Iterator<Item = &VectorOutcome> {
        self.outcomes.iter().filter(|o| !o.passed())
    }

    /// How many vectors passed.
    pub fn passed(&self) -> usize {
        self.outcomes.iter().filter(|o| o.passed()).count()
    }

    /// `N passed, M failed`.
    pub fn summary(&self) -> String {
        let passed = self.passed();
        format!("{passed} passed, {} failed", self.outcomes.len() - passed)
    }
}

/// Asks `matcher` every vector of `vectors`: the one runner of `protected.json` that the
/// command line's `conformance protected`, `validate` and the tests share.
///
/// The matcher is the caller's, usually built from the catalog's `protectedOrigins` and the
/// file's `origins` (`validate` leaves out an origin it reports as malformed). A target whose
/// `opener` is not one of the three names the format allows is not asked at all: it fails
/// with `got: None`, whatever it expects, as the file is not a valid `protected.json`.
///
/// ```
/// use slicc_browsers::conformance::run_protected;
/// use slicc_browsers::protected::{vectors, Matcher};
/// let v = vectors();
/// let m = Matcher::new(&slicc_browsers::shared_catalog().protected_origins, &v.origins).unwrap();
/// let report = run_protected(&m, &v);
/// assert_eq!(report.failures().count(), 0, "{}", report.summary());
/// assert_eq!(report.outcomes.len(), v.urls.len() + v.targets.len() + v.cookie_domains.len() + v.storage_keys.len());
/// ```
#[cfg(feature = "protected")]
pub fn run_protected(matcher: &Matcher, vectors: &Vectors) -> ProtectedReport {
    let mut outcomes = Vec::new();
    for (index, v) in vectors.urls.iter().enumerate() {
        let got = matcher.url(&v.url);
        outcomes.push(VectorOutcome {
            index,
            asked: Asked::Url(v.url.clone()),
            expected: v.protected,
            got: Some(got),
            reason: matcher.explain(&v.url).map(|r| r.to_string()),
        });
    }
    for (index, v) in vectors.targets.iter().enumerate() {
        let asked = Asked::Target {
            url: v.url.clone(),
            previous: v.previous,
            opener: v.opener.clone(),
        };
        let (got, reason) = match Opener::from_name(v.opener.as_deref()) {
            None => (
                None,
                Some(format!(
                    "opener {:?} is none of \"protected\", \"unprotected\" and \"unknown\" \
                     (leave it out for no opener)",
                    v.opener.as_deref().unwrap_or_default()
                )),
            ),
            Some(opener) => {
                let got = matcher.target(&v.url, v.previous, opener);
                let inherits = matcher.inherits(&v.url);
                let reason = match matcher.explain(&v.url) {
                    Some(why) => Some(why.to_string()),
                    None if inherits && v.previous => {
                        Some("inherits the protected origin it had before".to_string())
                    }
                    None if inherits && opener.passes_on_protection() => Some(format!(
                        "inherits the origin of its {} opener",
                        opener.name().unwrap_or_default()
                    )),
                    None if inherits => Some(
                        "inherits its origin, from neither a protected previous document \
                         nor a protected or unknown opener"
                            .to_string(),
                    ),
                    None => None,
                };
                (Some(got), reason)
            }
        };
        outcomes.push(VectorOutcome {
            index,
            asked,
            expected: v.protected,
            got,
            reason,
        });
    }
    for (index, v) in vectors.cookie_domains.iter().enumerate() {
        outcomes.push(VectorOutcome {
            index,
            asked: Asked::CookieDomain(v.domain.clone()),
            expected: v.protected,
            got: Some(matcher.cookie_domain(&v.domain)),
            reason: None,
        });
    }
    for (index, v) in vectors.storage_keys.iter().enumerate() {
        outcomes.push(VectorOutcome {
            index,
            asked: Asked::StorageKey(v.key.clone()),
            expected: v.protected,
            got: Some(matcher.storage_key(&v.key)),
            reason: None,
        });
    }
    ProtectedReport { outcomes }
}
