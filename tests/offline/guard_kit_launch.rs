//! The JavaScript kit's Chromium (`scripts/guard-kit/chromium.mjs`, which `npm run test:guard`
//! and the JavaScript tests launch) runs without the same features as the crate's harness
//! (`slicc_browsers::harness::selftest::Chromium`): the same stand-in hosts work in both, and neither
//! starts the browser UI a headless run never shows.
#![cfg(all(feature = "guard-runner", not(target_os = "wasi")))]

use slicc_browsers::harness::selftest::{BROWSER_UI_FEATURES, DISABLED_FEATURES};

/// The quoted names of the array `const <name> = [...]` in `text`, `...OTHER` spread in.
fn array<'a>(text: &'a str, name: &str) -> Vec<&'a str> {
    let start = text
        .find(&format!("const {name} = ["))
        .unwrap_or_else(|| panic!("chromium.mjs declares {name}"));
    let body = &text[start..];
    let body = &body[body.find('[').unwrap() + 1..body.find("];").expect("the array ends")];
    let mut names = Vec::new();
    for item in body.split(',').map(str::trim).filter(|i| !i.is_empty()) {
        if let Some(other) = item.strip_prefix("...") {
            names.extend(array(text, other));
        } else {
            names.push(item.trim_matches('\''));
        }
    }
    names
}

#[test]
fn the_js_kit_and_the_harness_disable_the_same_features() {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/guard-kit/chromium.mjs"),
    )
    .expect("the kit's launcher");
    let mut js = array(&text, "DISABLED");
    let mut rust: Vec<&str> = DISABLED_FEATURES
        .into_iter()
        .chain(BROWSER_UI_FEATURES)
        .collect();
    js.sort_unstable();
    rust.sort_unstable();
    assert_eq!(js, rust);
    assert_eq!(array(&text, "BROWSER_UI"), BROWSER_UI_FEATURES);
}
