//! A consumer of the catalog and the protected-origin matcher (feature `protected`):
//! `catalog()`, a `Matcher` with one extra origin, and `Matcher::url`. `scripts/wasm-size.sh`
//! builds it for `wasm32-wasip1` with the `wasm-size` profile and prints its size; with
//! `--time` it also times one run from process start to exit, natively and under Node's WASI.
//!
//! Arguments are URLs (`https://seven.sliccy.ai/` by default); it prints each with `protected`
//! or `allowed`.

use slicc_browsers::protected::Matcher;

fn main() {
    let cat = slicc_browsers::catalog();
    let matcher = match Matcher::new(&cat.protected_origins, &["http://127.0.0.1:5710"]) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("wasm_size_matcher: {e}");
            std::process::exit(2);
        }
    };
    let mut urls: Vec<String> = std::env::args().skip(1).collect();
    if urls.is_empty() {
        urls.push("https://seven.sliccy.ai/".into());
    }
    for url in &urls {
        let verdict = if matcher.url(url) {
            "protected"
        } else {
            "allowed"
        };
        println!("{verdict}\t{url}");
    }
}
