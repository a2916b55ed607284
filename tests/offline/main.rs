//! The integration tests that need nothing but the crate: the files, the matcher, discovery on
//! fake and hostile hosts, the guard policy's traces, the proxy against a fake browser, the
//! runner's judge, validation and the command line. One binary, one module per concern, so the
//! crate and its dependencies link once for all of them (`cargo test --test offline`).

// The benchmarks' URL mixes, which `protected` and `protected_fast` judge too.
#[cfg(feature = "cli-full")]
#[path = "../common/mod.rs"]
mod common;
#[cfg(all(unix, feature = "discovery"))]
#[path = "../discovery_support/mod.rs"]
mod discovery_support;
#[cfg(feature = "protected")]
#[path = "../../benches/support/mixes.rs"]
mod mixes;
#[cfg(feature = "guard")]
#[path = "../policy_traces/mod.rs"]
mod policy_traces;
#[cfg(all(feature = "guard-proxy", unix))]
#[path = "../proxy_common/mod.rs"]
mod proxy_common;
mod rng;

mod api_1x;
mod catalog;
mod catalog_data;
mod cli;
mod corpus;
mod discovery_conformance;
mod discovery_hostile;
mod discovery_symlinks;
mod extra_origins;
mod guard;
mod guard_fixture;
mod guard_judge;
mod guard_kit_launch;
mod guard_policy;
mod guard_policy_hostile;
mod guard_proxy_hostile;
mod guard_selftest_rule;
mod guard_types;
mod launch;
mod layout;
mod one_rule;
mod protected;
mod protected_cli;
mod protected_fast;
mod protected_strict;
mod protected_user;
mod rules_doc;
mod validate_catalog;
mod validate_corpus;
mod validate_protected;
