//! The discovery corpus run through the discovery engine (features `corpus` and `discovery`):
//! the layer above [`crate::corpus`] and [`crate::discovery`] that ties them together, so
//! neither imports the other. [`FakeHost::from_case`](crate::discovery::FakeHost::from_case)
//! lays a case out as a fake machine, and the runner takes each case on each OS it is for, on
//! a [`FakeHost`](crate::discovery::FakeHost), compared with its `expected.json` as parsed
//! JSON. The command line's `conformance corpus`, the tests, the benchmark and the
//! `wasm32-wasip1` example all use this.

use std::fmt;

use serde_json::Value;

use crate::catalog::{Catalog, Os};
use crate::corpus::{Case, Corpus, Layout};

use crate::discovery::{discover_with, FakeHost, Installed, Options, Sources, SUPPORTED_NEEDS};

/// The fake home dir a case is laid out under on each OS.
pub fn home(os: Os) -> &'static str {
    match os {
        Os::Macos => "/Users/me",
        Os::Linux => "/home/me",
        Os::Windows => r"C:\Users\me",
    }
}

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

/// The id of the first entry of an output document that is not six's.
fn first_non_six(output: &Value) -> Option<String> {
    output["entries"]
        .as_array()?
        .iter()
        .find(|e| e["endpoint"]["six"] != Value::Bool(true))
        .and_then(|e| e["id"].as_str().map(str::to_string))
}

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
    diff_into(expected, actual, &mut String::new(), &mut out);
    out
}

fn diff_into(expected: &Value, actual: &Value, path: &mut String, out: &mut Vec<String>) {
    let len = path.len();
    match (expected, actual) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, va) in a {
                path.push('/');
                path.push_str(&k.replace('~', "~0").replace('/', "~1"));
                match b.get(k) {
                    Some(vb) => diff_into(va, vb, path, out),
                    None => out.push(format!("{path}: expected {va}, missing")),
                }
                path.truncate(len);
            }
            for (k, vb) in b {
                if !a.contains_key(k) {
                    out.push(format!(
                        "{path}/{}: unexpected {vb}",
                        k.replace('~', "~0").replace('/', "~1")
                    ));
                }
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            for (i, va) in a.iter().enumerate() {
                path.push_str(&format!("/{i}"));
                match b.get(i) {
                    Some(vb) => diff_into(va, vb, path, out),
                    None => out.push(format!("{path}: expected {va}, missing")),
                }
                path.truncate(len);
            }
            for (i, vb) in b.iter().enumerate().skip(a.len()) {
                out.push(format!("{path}/{i}: unexpected {vb}"));
            }
        }
        (a, b) if a == b => {}
        (a, b) => out.push(format!(
            "{}: expected {a}, got {b}",
            if path.is_empty() { "/" } else { path }
        )),
    }
}

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
