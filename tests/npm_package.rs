//! The npm package: `npm pack`, installed offline into a temp dir, imported by its name
//! (`@ai-ecoverse/slicc-browsers`), and every vector of its `protected.json` run through its
//! `protected.mjs` (scripts/npm-package.mjs). Without `node` and `npm` the test prints why and
//! passes, or fails when `CI` is set.

mod needs;

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
    include_str!("../protected.json")
}
