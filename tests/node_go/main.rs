//! The integration tests that run Node or Go but no browser (skipped with a reason when absent,
//! failed when `CI` is set): the Go module, the npm package, `protected.mjs`, and the JavaScript
//! guard kit's fixture, predicates and regular expressions. One binary (`cargo test --test
//! node_go`).

#[path = "../needs/mod.rs"]
mod needs;

mod go_module;
mod guard_js_fixture;
mod guard_js_predicates;
mod guard_js_regex;
mod npm_package;
mod protected_node;
