//! The npm package: `npm pack`, installed offline into a temp dir, imported by its name
//! (`@ai-ecoverse/slicc-browsers`), and every vector of its `protected.json` run through its
//! `protected.mjs` (scripts/npm-package.mjs). Without `node` and `npm` the test prints why and
//! passes, or fails when `CI` is set.

use crate::needs;

use std::process::Command;

fn runs(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn the_packed_package_passes_its_protected_vectors() {
    if needs::missing("node", runs("node")) || needs::missing("npm", runs("npm")) {
        return;
    }
    let out = Command::new("node")
        .args(["scripts/npm-package.mjs", "test"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{stdout}");
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let last = stdout.lines().last().unwrap_or_default();
    let passed: usize = last
        .split(" passed")
        .next()
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(0);
    // Every vector of protected.json ran (plus the package's other checks).
    let v: serde_json::Value = serde_json::from_str(slicc_browsers_protected()).unwrap();
    let vectors: usize = ["urls", "targets", "cookieDomains", "storageKeys"]
        .iter()
        .map(|k| v[k].as_array().map_or(0, Vec::len))
        .sum();
    assert!(
        passed > vectors,
        "{last}: fewer checks than the {vectors} vectors"
    );
    assert!(last.ends_with(" 0 failed"), "{last}");
}

fn slicc_browsers_protected() -> &'static str {
    include_str!("../../protected.json")
}

/// `protected.mjs` accepts exactly the extra origins the crate accepts (`Matcher::new`, which
/// reads each with `Origin::parse_extra`): the same list makes both refuse to start, or neither.
/// Before, `protected.mjs` took `http://a?` and `http://a#` (an empty query or fragment, which
/// `URL.search` and `URL.hash` show as "") and trimmed a byte-order mark the crate keeps.
#[cfg(feature = "protected")]
#[test]
fn protected_mjs_accepts_the_extra_origins_the_crate_accepts() {
    use std::io::Write;
    if needs::missing("node", runs("node")) {
        return;
    }
    let cases = [
        "http://127.0.0.1:5710",
        " http://a ",
        "HTTP://A.",
        "http://a:0",
        "http://[::1]",
        "http://[::1]:5710/",
        "chrome-extension://abc",
        "http://a/%2e",
        "http://a/.",
        "http://:@a",
        "http://a\\",
        "http:a",
        "http:/a",
        "ws://a",
        "foo://a",
        "http://%41",
        "http://a\t",
        "http://a/\n",
        "http://a?",
        "http://a#",
        "http://a/?#",
        "http://a?x",
        "http://a#x",
        "\u{feff}http://a",
        "http://a\u{feff}",
        "\u{85}http://a",
        "http://a\u{3000}",
        "\u{a0}http://a",
        "http://user@a",
        "http://a:@b",
        "file:///x",
        "blob:http://a",
        "http://a:65536",
        "http://a//",
        "foo://",
        "data:x",
        "localhost:5710",
        "",
    ];
    let catalog = slicc_browsers::shared_catalog();
    let crate_accepts: Vec<bool> = cases
        .iter()
        .map(|c| slicc_browsers::protected::Matcher::new(&catalog.protected_origins, &[c]).is_ok())
        .collect();
    let script = r#"
import { readFileSync } from 'node:fs';
import { protectedOrigins } from './protected.mjs';
const catalog = JSON.parse(readFileSync('catalog.json', 'utf8'));
const cases = JSON.parse(readFileSync(0, 'utf8'));
console.log(JSON.stringify(cases.map((c) => {
  try { protectedOrigins(catalog.protectedOrigins, [c]); return true; }
  catch (e) { if (e instanceof TypeError) return false; throw e; }
})));
"#;
    let mut child = Command::new("node")
        .args(["--input-type=module", "-e", script])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("node runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(serde_json::to_string(&cases[..]).unwrap().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mjs_accepts: Vec<bool> = serde_json::from_slice(&out.stdout).unwrap();
    let differ: Vec<String> = cases
        .iter()
        .zip(crate_accepts.iter().zip(&mjs_accepts))
        .filter(|(_, (a, b))| a != b)
        .map(|(c, (a, b))| format!("{c:?}: crate {a}, protected.mjs {b}"))
        .collect();
    assert!(differ.is_empty(), "{differ:#?}");
    // Both accept and refuse something (the list is not vacuous).
    assert!(crate_accepts.contains(&true) && crate_accepts.contains(&false));
}

/// `protected.mjs` throws a TypeError for an argument of the wrong shape instead of answering
/// for it: `target('https://…')` (a string where an object belongs) used to return `false`,
/// `url(undefined)` judged the text "undefined".
#[test]
fn protected_mjs_throws_a_type_error_for_arguments_of_the_wrong_shape() {
    if needs::missing("node", runs("node")) {
        return;
    }
    let script = r#"
import { readFileSync } from 'node:fs';
import { protectedOrigins } from './protected.mjs';
const po = JSON.parse(readFileSync('catalog.json', 'utf8')).protectedOrigins;
const m = protectedOrigins(po, ['http://127.0.0.1:5710']);
const calls = {
  'target(string)': () => m.target('https://seven.sliccy.ai/'),
  'target(null)': () => m.target(null),
  'target(array)': () => m.target(['https://seven.sliccy.ai/']),
  'target(url: number)': () => m.target({ url: 1 }),
  'target(previous: string)': () => m.target({ url: 'about:blank', previous: 'yes' }),
  'target(opener: unknown word)': () => m.target({ url: 'about:blank', opener: 'parent' }),
  'url(undefined)': () => m.url(undefined),
  'url(object)': () => m.url({ href: 'https://seven.sliccy.ai/' }),
  'cookieDomain(null)': () => m.cookieDomain(null),
  'storageKey(number)': () => m.storageKey(5),
  'protectedOrigins(no catalog)': () => protectedOrigins(undefined),
  'protectedOrigins(extra origins as a string)': () => protectedOrigins(po, 'http://127.0.0.1:5710'),
};
const out = {};
for (const [name, call] of Object.entries(calls)) {
  try { out[name] = `returned ${call()}`; }
  catch (e) { out[name] = e instanceof TypeError ? `TypeError: ${e.message}` : `threw ${e}`; }
}
// The right shapes still answer.
out.ok = [
  m.url('https://seven.sliccy.ai/'), m.url(new URL('https://seven.sliccy.ai/')),
  m.target({ url: 'https://seven.sliccy.ai/' }), m.target({ url: 'about:blank', previous: true }),
  m.target({ url: 'about:blank', opener: 'unprotected' }), m.target({}),
  m.cookieDomain('.sliccy.ai'), m.storageKey('https://example.test^0https://seven.sliccy.ai'),
];
console.log(JSON.stringify(out));
"#;
    let out = needs::succeeded(
        "node",
        Command::new("node")
            .args(["--input-type=module", "-e", script])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output(),
    );
    let answers: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let map = answers.as_object().unwrap();
    for (name, answer) in map.iter().filter(|(k, _)| *k != "ok") {
        let answer = answer.as_str().unwrap();
        assert!(answer.starts_with("TypeError: "), "{name}: {answer}");
        assert!(
            answer.contains("expected"),
            "{name}: says what it expected: {answer}"
        );
    }
    assert_eq!(map.len(), 13);
    assert_eq!(
        answers["ok"],
        serde_json::json!([true, true, true, true, false, false, true, true])
    );
}
