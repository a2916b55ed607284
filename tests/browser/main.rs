//! The integration tests that run a headless Chromium (skipped with a reason when
//! `/usr/bin/chromium` is absent, failed when `CI` is set): discovery and launch of a real
//! browser, the CDP client, the guard proxy and policy in front of one, the self-test and
//! certification, the JavaScript runner, real CDP clients and the agents' MCP servers (these
//! also need Node), and the matcher against Chromium's URL parser. One binary (`cargo test
//! --test browser`).

// Every module below needs a feature that implies `serde`.
#[cfg(feature = "serde")]
#[path = "../needs/mod.rs"]
mod needs;
#[cfg(all(feature = "guard-proxy", unix))]
#[path = "../proxy_common/mod.rs"]
mod proxy_common;
#[cfg(all(feature = "cli-full", unix))]
#[path = "../subset/mod.rs"]
mod subset;

mod chromium;
mod chromium_launch;
mod cli_discovery;
mod cli_guard_proxy;
mod cli_interrupt;
mod cli_launch;
mod guard_cdp;
mod guard_certify;
mod guard_clients;
mod guard_js_agreement;
mod guard_js_runner;
mod guard_mcp;
mod guard_other_style;
mod guard_policy_chromium;
mod guard_protocol;
mod guard_proxy;
mod guard_proxy_pages;
mod guard_proxy_robust;
mod guard_selftest;
mod guard_sweep;
mod guard_third_style;
mod protected_chromium;
mod protected_mjs_chromium;
mod recorded;
