//! A consumer of the typed catalog alone (feature `serde`), as slicc-cdp reads it at every
//! start: `catalog()`, then `browser` and `priority`. `scripts/wasm-size.sh` builds it for
//! `wasm32-wasip1` with the `wasm-size` profile (a consumer's release build: `opt-level = "s"`,
//! LTO, one codegen unit, strip, `panic = "abort"`) and prints its size.
//!
//! Arguments are browser ids (`chrome` by default); it prints each one's name and priority.

fn main() {
    let cat = slicc_browsers::catalog();
    let mut ids: Vec<String> = std::env::args().skip(1).collect();
    if ids.is_empty() {
        ids.push("chrome".into());
    }
    for id in &ids {
        let name = cat.browser(id).map_or("(not in the catalog)", |b| &b.name);
        println!("{id}\t{name}\tpriority {}", cat.priority(id));
    }
}
