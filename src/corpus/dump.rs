//! [`dump`]: what every corpus helper answers for every case on every OS, as one JSON
//! document. The Go module's cross-language test (`test/integration/crosslang_test.go`)
//! compares its own helpers' answers with it, case by case; `slicc-browsers corpus dump`
//! prints it.

use serde_json::{json, Map, Value};

use super::{token_names, Case, Corpus, Layout};
use crate::catalog::Catalog;

/// The fake home of each OS in a [`dump`]: a space in the macOS one, a drive in the Windows
/// one.
pub const DUMP_HOMES: [(&str, &str); 3] = [
    ("darwin", "/Users/Ada Lovelace"),
    ("linux", "/home/ada"),
    ("windows", r"C:\Users\Ada"),
];

/// The pid a [`dump`] gives the `self` rows of the process lists.
pub const DUMP_SELF_PID: u32 = 4242;

/// The paths every fake server is asked for in a [`dump`]: the three that answer, and some
/// that must not.
const PATHS: [&str; 8] = [
    "/json/version",
    "/json/list",
    "/json",
    "/json/version/",
    "/JSON/VERSION",
    "/json/new",
    "/",
    "",
];

/// What the helpers answer for each case of `corpus` on darwin, linux and windows, each on the
/// home of [`DUMP_HOMES`] with the case's own environment:
///
/// `{"selfPid", "homes", "cases": [{"name", "os", "home", "env", "files", "cdp", "commands",
/// "ps", "cim", "expected", "layout", "tokens", "http", "tcp"}]}`, where `files` is the
/// `[path, contents]` pairs in order, `ps`, `cim` and `expected` are the exact text the
/// helpers give, `layout` holds [`Layout::config`], [`Layout::seven_profiles`],
/// [`Layout::six_profiles`] and [`Layout::user_data_dirs`] of every catalog browser (and an
/// unknown id), `tokens` every token name the case uses plus every form of token (a value, or
/// `null`), `http` the answer ([`Case::http_get`]) to each path of each listed `host:port` in
/// its spellings (`localhost`, `[::1]`, upper case) and to unlisted ports, and `tcp` whether
/// each of those `host:port`s connects ([`Case::server`]).
pub fn dump(corpus: &Corpus, catalog: &Catalog) -> Value {
    let mut cases = Vec::new();
    for case in &corpus.cases {
        for (os, home) in DUMP_HOMES {
            let env = |k: &str| case.input.env.get(k).cloned();
            let l = Layout {
                os,
                home,
                env: &env,
                catalog,
            };
            cases.push(dump_case(case, &l, catalog));
        }
    }
    let homes: Map<String, Value> = DUMP_HOMES
        .iter()
        .map(|(os, home)| (os.to_string(), json!(home)))
        .collect();
    json!({ "selfPid": DUMP_SELF_PID, "homes": homes, "cases": cases })
}

fn dump_case(case: &Case, l: &Layout, catalog: &Catalog) -> Value {
    let mut user_data_dirs = Map::new();
    for id in catalog
        .browsers
        .iter()
        .map(|b| b.id.as_str())
        .chain(["no-such-browser"])
    {
        user_data_dirs.insert(id.to_string(), json!(l.user_data_dirs(id)));
    }
    let mut tokens = Map::new();
    for name in token_probes(case, catalog) {
        tokens.insert(name.clone(), json!(l.token(&name)));
    }
    let mut http = Vec::new();
    let mut tcp = Map::new();
    for (host_port, all_paths) in host_ports(case) {
        tcp.insert(host_port.clone(), json!(case.server(&host_port).is_some()));
        let paths = if all_paths { &PATHS[..] } else { &PATHS[..1] };
        for path in paths {
            http.push(match case.http_get(&host_port, path) {
                Some((status, body)) => {
                    json!({ "hostPort": host_port, "path": path, "status": status, "body": body })
                }
                None => json!({ "hostPort": host_port, "path": path, "refused": true }),
            });
        }
    }
    json!({
        "name": case.name,
        "os": l.os,
        "home": l.home,
        "env": case.env(l),
        "files": case.files(l),
        "cdp": case.cdp(l),
        "commands": case.commands(l, DUMP_SELF_PID),
        "ps": case.ps_output(l, DUMP_SELF_PID),
        "cim": case.cim_output(l, DUMP_SELF_PID),
        "expected": case.expected(l).to_string(),
        "layout": {
            "config": l.config(),
            "sevenProfiles": l.seven_profiles(),
            "sixProfiles": l.six_profiles(),
            "userDataDirs": user_data_dirs,
        },
        "tokens": tokens,
        "http": http,
        "tcp": tcp,
    })
}

/// The token names a dump asks the layout for: every form, every catalog browser's
/// `userData:`, names that are not tokens, and every name the case's texts use.
fn token_probes(case: &Case, catalog: &Catalog) -> Vec<String> {
    let mut names: Vec<String> = [
        "home",
        "config",
        "{config}",
        "sevenProfiles",
        "sixProfiles",
        "userData:no-such-browser",
        "userData:",
        "userData:Chrome",
        "Home",
        "profiles",
        "",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    names.extend(
        catalog
            .browsers
            .iter()
            .map(|b| format!("userData:{}", b.id)),
    );
    let mut texts: Vec<&str> = Vec::new();
    texts.extend(case.input.files.keys().map(String::as_str));
    texts.extend(case.input.env.values().map(String::as_str));
    texts.extend(case.input.cdp.iter().map(String::as_str));
    texts.extend(case.input.processes.iter().map(|p| p.command.as_str()));
    let expected = case.expected.to_string();
    texts.push(&expected);
    for text in texts {
        names.extend(token_names(text).into_iter().map(|(_, n)| n.to_string()));
    }
    let mut seen = std::collections::BTreeSet::new();
    names.retain(|n| seen.insert(n.clone()));
    names
}

/// The `host:port`s a dump asks the fakes about, each with whether every path is asked: every
/// listed one as written (all paths) and as `localhost`, `[::1]`, `::1` and in upper case,
/// the next port up when it is not listed, and port 1.
fn host_ports(case: &Case) -> Vec<(String, bool)> {
    let mut out: Vec<(String, bool)> = Vec::new();
    let mut push = |hp: String, all: bool| {
        if !out.iter().any(|(h, _)| *h == hp) {
            out.push((hp, all));
        }
    };
    for key in case.input.http.keys() {
        push(key.clone(), true);
        let Some((host, port)) = key.rsplit_once(':') else {
            continue;
        };
        push(format!("{}:{port}", host.to_ascii_uppercase()), false);
        if host == "127.0.0.1" {
            for alias in ["localhost", "LocalHost", "[::1]", "::1"] {
                push(format!("{alias}:{port}"), false);
            }
        }
        if let Ok(n) = port.parse::<u32>() {
            let next = n + 1;
            let next_key = format!("{host}:{next}");
            // Never a port from 9222 to 9229, not even one that refuses.
            if !(9222..=9229).contains(&next) && !case.input.http.contains_key(&next_key) {
                push(next_key, true);
            }
        }
    }
    if !case.input.http.contains_key("127.0.0.1:1") {
        push("127.0.0.1:1".into(), true);
    }
    out
}
