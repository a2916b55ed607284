//! Every rule id the crate cites (`§x.y`, `V<n>`, `S<n>`) in `src/`, `docs/` and
//! `corpus/README.md` has an anchor in `docs/rules.md`, the page the package ships.
//!
//! Files under `src/guard/`, `src/vectors/`, `src/harness/`, `src/validate/guard/` and
//! `docs/guard-vectors.md` cite the
//! guard-vector format (anchors `g…`); every other file cites the discovery rules (anchors
//! `d…`). `RFC nnnn §x` is an RFC's own section and is not checked.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The anchors (`id="…"`) in a rules page.
fn anchors(rules: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = rules;
    while let Some(i) = rest.find("id=\"") {
        rest = &rest[i + 4..];
        if let Some(end) = rest.find('"') {
            out.insert(rest[..end].to_string());
            rest = &rest[end..];
        }
    }
    out
}

/// Whether `path` (relative, `/`-separated) cites the guard-vector format's sections.
fn cites_guard_format(path: &str) -> bool {
    path.starts_with("src/guard/")
        || path.starts_with("src/vectors/")
        || path.starts_with("src/harness/")
        || path.starts_with("src/validate/guard/")
        || path == "docs/guard-vectors.md"
}

/// Whether the text before a `§` on its line ends with `RFC <digits> `.
fn after_rfc(before: &str) -> bool {
    let t = before.trim_end();
    let digits = t.len() - t.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    digits > 0 && t[..t.len() - digits].ends_with("RFC ")
}

/// The anchors `text` needs, each with its line number: `d…`/`g…` for `§` ids, `V<n>`/`S<n>`.
fn needed(path: &str, text: &str) -> Vec<(usize, String)> {
    let prefix = if cites_guard_format(path) { "g" } else { "d" };
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let b = line.as_bytes();
        for (i, c) in line.char_indices() {
            if c == '§' {
                let tail = &line[i + c.len_utf8()..];
                let id: String = tail
                    .chars()
                    .take_while(|c| c.is_ascii_digit() || *c == '.')
                    .collect();
                let id = id.trim_end_matches('.');
                if !id.is_empty() && !after_rfc(&line[..i]) {
                    out.push((n + 1, format!("{prefix}{id}")));
                }
            } else if c == 'V' || c == 'S' {
                let word = |x: u8| x.is_ascii_alphanumeric() || x == b'_';
                if i > 0 && (word(b[i - 1]) || b[i - 1] == b':') {
                    continue;
                }
                let digits: String = line[i + 1..]
                    .chars()
                    .take_while(|c| c.is_ascii_digit())
                    .collect();
                let end = i + 1 + digits.len();
                if digits.is_empty() || (end < b.len() && (word(b[end]) || b[end] == b'(')) {
                    continue;
                }
                out.push((n + 1, format!("{c}{digits}")));
            }
        }
    }
    out
}

/// `(file:line, id)` for each cited id of `files` without an anchor in `rules`.
fn missing(rules: &str, files: &[(String, String)]) -> Vec<(String, String)> {
    let have = anchors(rules);
    let mut out = Vec::new();
    for (path, text) in files {
        for (line, id) in needed(path, text) {
            if !have.contains(&id) {
                out.push((format!("{path}:{line}"), id));
            }
        }
    }
    out
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .map(|e| e.expect("dir entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            walk(&p, out);
        } else if matches!(p.extension().and_then(|e| e.to_str()), Some("rs" | "md")) {
            out.push(p);
        }
    }
}

fn package_files() -> Vec<(String, String)> {
    let root = Path::new(ROOT);
    let mut paths = Vec::new();
    walk(&root.join("src"), &mut paths);
    walk(&root.join("docs"), &mut paths);
    paths.push(root.join("corpus/README.md"));
    paths
        .into_iter()
        .map(|p| {
            let rel = p
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            let text = std::fs::read_to_string(&p)
                .unwrap_or_else(|e| panic!("reading {}: {e}", p.display()));
            (rel, text)
        })
        .filter(|(rel, _)| rel != "docs/rules.md")
        .collect()
}

#[test]
fn every_cited_rule_id_has_an_anchor_in_docs_rules_md() {
    let rules = std::fs::read_to_string(Path::new(ROOT).join("docs/rules.md"))
        .expect("docs/rules.md is shipped with the package");
    let files = package_files();
    let cited: usize = files.iter().map(|(p, t)| needed(p, t).len()).sum();
    assert!(
        cited > 100,
        "the scan found only {cited} rule ids; is it reading the sources?"
    );
    let missing = missing(&rules, &files);
    assert!(
        missing.is_empty(),
        "rule ids without an anchor in docs/rules.md:\n{}",
        missing
            .iter()
            .map(|(at, id)| format!("  {at}: {id}"))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn a_missing_anchor_is_reported() {
    let rules = r#"<a id="d2.7"></a> <a id="g3.2"></a> <a id="V1"></a>"#;
    let files = vec![
        (
            "src/discovery/x.rs".to_string(),
            "// §2.7 and §2.8. V1, V2; IpAddr::V4(a)".to_string(),
        ),
        (
            "src/guard/y.rs".to_string(),
            "// §3.2, §2.7; RFC 9110 §8.6".to_string(),
        ),
    ];
    let got = missing(rules, &files);
    let ids: Vec<&str> = got.iter().map(|(_, id)| id.as_str()).collect();
    assert_eq!(ids, ["d2.8", "V2", "g2.7"], "{got:?}");
    assert_eq!(got[0].0, "src/discovery/x.rs:1");
}

#[test]
fn every_anchor_is_unique() {
    let rules = std::fs::read_to_string(Path::new(ROOT).join("docs/rules.md")).unwrap();
    let count = rules.matches("id=\"").count();
    assert_eq!(
        anchors(&rules).len(),
        count,
        "docs/rules.md repeats an anchor"
    );
}
