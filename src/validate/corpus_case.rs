//! One corpus case's rules a schema can't say: the catalog's minimum, known tokens (and none
//! where they are not expanded), entries that copy their nested object, `sevenOpen`, six and
//! tiers consistent with each entry, tier order and the order within each tier, `auto`,
//! needs that cover what the case uses, and no port from 9222 to 9229 anywhere.

use std::cmp::Ordering;

use serde_json::Value;

use super::Problem;
use crate::catalog::Catalog;
use crate::corpus::{is_token, token_names, Layout};
use crate::json::Node;

/// One case to check: its name, its two documents, and where each was read from.
pub(super) struct CaseDoc {
    /// The case name (its dir).
    pub name: String,
    /// The case object.
    pub case: Value,
    /// The expected output schema 1 document.
    pub expected: Value,
    /// The file and the JSON pointer prefix of the case object.
    pub case_at: (String, String),
    /// The file and the JSON pointer prefix of the expected document.
    pub expected_at: (String, String),
}

/// Every rule of one case; `cat` is the typed catalog when it parses.
pub(super) fn case_rules(doc: &CaseDoc, catalog: &Value, cat: Option<&Catalog>) -> Vec<Problem> {
    let mut r = Rules {
        doc,
        out: Vec::new(),
    };
    r.min_chromium(catalog);
    if let Some(cat) = cat {
        r.tokens(cat);
        r.entries(cat);
    }
    r.auto();
    r.needs();
    r.ports();
    r.out
}

struct Rules<'a> {
    doc: &'a CaseDoc,
    out: Vec<Problem>,
}

/// An entry's place in the ranked order, as the discovery rules sort it (§4.2, `docs/rules.md`).
#[derive(PartialEq, Eq, PartialOrd, Ord, Debug)]
enum SortKey {
    Endpoint(String, u64),
    Installed(usize, String, String, String),
}

impl Rules<'_> {
    fn case(&mut self, path: &str, rule: &str, message: String) {
        let (file, prefix) = &self.doc.case_at;
        self.out
            .push(Problem::new(file, format!("{prefix}{path}"), rule, message));
    }

    fn expected(&mut self, path: &str, rule: &str, message: String) {
        let (file, prefix) = &self.doc.expected_at;
        self.out
            .push(Problem::new(file, format!("{prefix}{path}"), rule, message));
    }

    fn needs_list(&self) -> Vec<&str> {
        self.doc.case["needs"]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default()
    }

    fn entries_list(&self) -> &[Value] {
        self.doc.expected["entries"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }

    /// `minChromium` is the catalog's `minChromiumMajor`.
    fn min_chromium(&mut self, catalog: &Value) {
        let want = &catalog["minChromiumMajor"];
        let got = &self.doc.expected["minChromium"];
        // A catalog value that is not a number is the catalog's fault, reported once by its
        // schema, not once per case.
        if want.is_u64() && got != want {
            self.expected(
                "/minChromium",
                "min-chromium",
                format!("minChromium is {got}, the catalog's minChromiumMajor is {want}"),
            );
        }
    }

    /// Every `{token}` where tokens are expanded is a known token, resolvable on each OS the
    /// case runs on; nothing token-like where tokens are not expanded.
    fn tokens(&mut self, cat: &Catalog) {
        let case = &self.doc.case;
        let oses: Vec<String> = match case["os"].as_array() {
            Some(list) => list
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect(),
            None => vec!["darwin".into(), "linux".into(), "windows".into()],
        };
        let env = |k: &str| case["env"][k].as_str().map(str::to_string);
        let mut expanded: Vec<(String, String)> = Vec::new();
        let mut case_strings = |path: String, text: &str| expanded.push((path, text.to_string()));
        if let Some(map) = case["env"].as_object() {
            for (k, v) in map {
                case_strings(
                    crate::json::child("/env", k),
                    v.as_str().unwrap_or_default(),
                );
            }
        }
        if let Some(map) = case["files"].as_object() {
            for k in map.keys() {
                case_strings(crate::json::child("/files", k), k);
            }
        }
        for (i, url) in case["cdp"].as_array().into_iter().flatten().enumerate() {
            case_strings(format!("/cdp/{i}"), url.as_str().unwrap_or_default());
        }
        for (i, p) in case["processes"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
        {
            case_strings(
                format!("/processes/{i}/command"),
                p["command"].as_str().unwrap_or_default(),
            );
        }
        let mut expected_strings = Vec::new();
        walk_strings(&self.doc.expected, String::new(), &mut |path, s, _| {
            expected_strings.push((path, s.to_string()))
        });

        let check = |text: &str| -> Vec<String> {
            let mut bad = Vec::new();
            for (_, name) in token_names(text) {
                if !is_token(name) {
                    bad.push(format!("{{{name}}} is not a token (home, config, sevenProfiles, sixProfiles, userData:<id>)"));
                    continue;
                }
                for os in &oses {
                    let home = if os == "windows" {
                        r"C:\Users\validate"
                    } else {
                        "/home/validate"
                    };
                    let layout = Layout {
                        os,
                        home,
                        env: &env,
                        catalog: cat,
                    };
                    if layout.token(name).is_none() {
                        bad.push(format!("{{{name}}} has no value on {os}: no such browser id, or no default user-data dir there"));
                    }
                }
            }
            bad
        };
        for (path, text) in expanded {
            for message in check(&text) {
                self.case(&path, "known-tokens", message);
            }
        }
        for (path, text) in expected_strings {
            for message in check(&text) {
                self.expected(&path, "known-tokens", message);
            }
        }

        // Tokens are not expanded in origins, http keys and bodies, installed records and file
        // contents: something token-like there is a mistake.
        let mut unexpanded = Vec::new();
        for member in ["origins", "http", "installed", "files"] {
            let value = &case[member];
            let files = member == "files";
            walk_strings(value, format!("/{member}"), &mut |path, s, is_key| {
                if files && is_key {
                    return;
                }
                for (_, name) in token_names(s) {
                    if is_token(name) {
                        unexpanded.push((path.clone(), name.to_string()));
                    }
                }
            });
        }
        for (path, name) in unexpanded {
            self.case(
                &path,
                "unexpanded-tokens",
                format!("{{{name}}} is not expanded here; write the value literally"),
            );
        }
    }

    /// Each entry: fields copied from its nested object, sevenOpen, six and tier consistent,
    /// and the list in rank order.
    fn entries(&mut self, cat: &Catalog) {
        let needs_six = self.needs_list().contains(&"six");
        let entries = self.entries_list().to_vec();
        let mut previous: Option<(u64, SortKey, usize)> = None;
        for (i, e) in entries.iter().enumerate() {
            let at = |field: &str| format!("/entries/{i}{field}");
            let Some(tier) = e["tier"].as_u64() else {
                continue;
            };
            let (key, want_tier) = match e["kind"].as_str() {
                Some("endpoint") => {
                    let ep = &e["endpoint"];
                    let tabs = ep["sevenTabs"].as_array().map_or(0, Vec::len);
                    let open = ep["sevenOpen"].as_bool().unwrap_or(false);
                    if open != (tabs > 0) {
                        self.expected(
                            &at("/endpoint/sevenOpen"),
                            "seven-open",
                            format!("sevenOpen is {open} with {tabs} seven tab(s)"),
                        );
                    }
                    let six = ep["six"] == Value::Bool(true);
                    if six && !needs_six {
                        self.expected(
                            &at("/endpoint/six"),
                            "six",
                            "a six endpoint in a case that does not need six".into(),
                        );
                    }
                    if six != (tier == u64::from(cat.rank.tiers.six)) {
                        self.expected(&at("/tier"), "six", format!("six is {six} but the tier is {tier}: six is present exactly at tier {}", cat.rank.tiers.six));
                    }
                    let want = if six {
                        cat.rank.tiers.six
                    } else if open {
                        cat.rank.tiers.seven_open
                    } else {
                        cat.rank.tiers.endpoint
                    };
                    let cdp = ep["cdp"].as_str().unwrap_or_default();
                    let authority = cdp.split_once("://").map_or(cdp, |(_, a)| a);
                    if e["id"].as_str() != Some(&format!("cdp:{authority}")) {
                        self.expected(
                            &at("/id"),
                            "entry-fields",
                            format!(
                                "an endpoint's id is cdp:<host:port of its cdp>, cdp:{authority}"
                            ),
                        );
                    }
                    // The host as written (brackets and all) and the port, as discovery sorts.
                    let (host, port) = match crate::catalog::split_host_port(authority) {
                        Some((_, Some(port))) => {
                            (&authority[..authority.len() - port.len() - 1], port)
                        }
                        _ => (authority, ""),
                    };
                    (
                        SortKey::Endpoint(host.to_string(), port.parse().unwrap_or(0)),
                        want,
                    )
                }
                Some("installed") => {
                    let rec = &e["installed"];
                    let id = rec["id"].as_str().unwrap_or_default();
                    let name = rec["name"].as_str().unwrap_or_default().to_lowercase();
                    let path = rec["path"].as_str().unwrap_or_default().to_string();
                    if e["id"].as_str() != Some(id) {
                        self.expected(
                            &at("/id"),
                            "entry-fields",
                            format!("an installed entry's id is its record's id, {id:?}"),
                        );
                    }
                    let t = &cat.rank.tiers;
                    let (want, priority) = if id == cat.rank.chrome_id {
                        (t.chrome, 0)
                    } else if rec["engine"] == "electron" {
                        (t.electron, 0)
                    } else {
                        (t.chromium, cat.priority(id))
                    };
                    (
                        SortKey::Installed(priority, name, id.to_string(), path),
                        want,
                    )
                }
                _ => continue,
            };
            if tier != u64::from(want_tier) {
                self.expected(&at("/tier"), "tiers", format!("tier {tier}, but this entry belongs in tier {want_tier} (discovery rules §4.1, docs/rules.md)"));
            }
            let nested = if e["kind"] == "endpoint" {
                &e["endpoint"]
            } else {
                &e["installed"]
            };
            if e["name"] != nested["name"] {
                self.expected(
                    &at("/name"),
                    "entry-fields",
                    format!(
                        "name {} is not the nested name {}",
                        e["name"], nested["name"]
                    ),
                );
            }
            if e.get("version") != nested.get("version") {
                self.expected(
                    &at("/version"),
                    "entry-fields",
                    "version must be present exactly when the nested object has one, and equal it"
                        .into(),
                );
            }
            if let Some((prev_tier, prev_key, prev_i)) = &previous {
                let order = prev_tier.cmp(&tier).then_with(|| prev_key.cmp(&key));
                let strict = matches!(key, SortKey::Endpoint(..));
                if order == Ordering::Greater || (strict && order == Ordering::Equal) {
                    self.expected(
                        &at(""),
                        "tier-order",
                        format!("entry {i} is out of order after entry {prev_i}: entries sort by tier, then within the tier as discovery rules §4.2 (docs/rules.md) says"),
                    );
                }
            }
            previous = Some((tier, key, i));
        }
    }

    /// `auto` is present exactly when the case needs six, and names the first non-six entry.
    fn auto(&mut self) {
        let needs_six = self.needs_list().contains(&"six");
        let auto = self.doc.case.get("auto");
        match (needs_six, auto) {
            (false, Some(_)) => self.case(
                "/auto",
                "auto",
                "auto is present only in the cases that need six".into(),
            ),
            (true, None) => self.case(
                "",
                "auto",
                "a case that needs six must give auto (the first non-six entry's id, or null)"
                    .into(),
            ),
            (true, Some(auto)) => {
                let want = self
                    .entries_list()
                    .iter()
                    .find(|e| e["endpoint"]["six"] != Value::Bool(true))
                    .map_or(Value::Null, |e| e["id"].clone());
                if *auto != want {
                    self.case(
                        "/auto",
                        "auto",
                        format!("auto is {auto}, but the first entry that is not six's is {want}"),
                    );
                }
            }
            (false, None) => {}
        }
    }

    /// The needs cover every source the case feeds and every kind of entry it expects.
    fn needs(&mut self) {
        let needs = self.needs_list();
        let mut missing: Vec<(String, &str, String)> = Vec::new();
        for (member, need) in [
            ("cdp", "flag"),
            ("processes", "process"),
            ("probePorts", "probe"),
            ("origins", "origins"),
            ("installed", "installed"),
        ] {
            let used = self.doc.case[member]
                .as_array()
                .is_some_and(|a| !a.is_empty());
            if used && !needs.contains(&need) {
                missing.push((
                    format!("case:/{member}"),
                    need,
                    format!("the case gives {member}"),
                ));
            }
        }
        for (i, e) in self.entries_list().iter().enumerate() {
            let ep = &e["endpoint"];
            let need = match (e["kind"].as_str(), ep["source"].as_str()) {
                (Some("installed"), _) => Some("installed"),
                (_, Some("flag")) => Some("flag"),
                (_, Some("process")) => Some("process"),
                (_, Some("probe")) => Some("probe"),
                (_, Some("devtools-active-port")) if ep.get("browser").is_some() => {
                    Some("user-data-dirs")
                }
                (_, Some("devtools-active-port")) if ep.get("profile").is_some() => {
                    Some("seven-profiles")
                }
                (_, Some("devtools-active-port")) => Some("six"),
                _ => None,
            };
            if let Some(need) = need {
                if !needs.contains(&need) {
                    missing.push((
                        format!("expected:/entries/{i}"),
                        need,
                        "an expected entry comes from it".into(),
                    ));
                }
            }
        }
        for (path, need, why) in missing {
            if let Some(path) = path.strip_prefix("case:") {
                self.case(path, "needs", format!("needs lacks {need:?}: {why}"));
            } else if let Some(path) = path.strip_prefix("expected:") {
                self.expected(
                    path,
                    "needs",
                    format!("the case's needs lack {need:?}: {why}"),
                );
            }
        }
    }

    /// No port from 9222 to 9229 anywhere: not in a number, a string or a key (the spec:
    /// "npm run validate refuses them anywhere in the corpus"), read as [`crate::ports`] reads
    /// a port.
    fn ports(&mut self) {
        for (which, value) in [("case", &self.doc.case), ("expected", &self.doc.expected)] {
            let mut found = Vec::new();
            crate::json::walk(value, &mut |path, node| {
                let text = match node {
                    Node::Key(k) => k.to_string(),
                    Node::Value(Value::String(s)) => s.clone(),
                    Node::Value(Value::Number(n)) => n.to_string(),
                    Node::Value(_) => return,
                };
                if let Some(port) = crate::ports::port_anywhere(&text) {
                    found.push((path.to_string(), text, port));
                }
            });
            for (path, text, port) in found {
                let message = format!(
                    "{text:?} holds port {port}, one of 9222 to 9229, where a developer's own Chrome listens"
                );
                if which == "case" {
                    self.case(&path, "ports", message);
                } else {
                    self.expected(&path, "ports", message);
                }
            }
        }
    }
}

/// Calls `f(path, text, is_key)` for every string value and every object key under `value`,
/// `path` the pointer under `prefix`.
fn walk_strings(value: &Value, prefix: String, f: &mut dyn FnMut(String, &str, bool)) {
    crate::json::walk(value, &mut |path, node| match node {
        Node::Key(k) => f(format!("{prefix}{path}"), k, true),
        Node::Value(Value::String(s)) => f(format!("{prefix}{path}"), s, false),
        Node::Value(_) => {}
    });
}
