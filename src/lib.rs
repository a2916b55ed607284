//! # slicc-browsers
//!
//! The single source of truth for how SLICC finds, ranks, launches and fences off web browsers.
//!
//! The data files are the product: [`CATALOG`] (every Chromium browser, Electron apps, ranking,
//! discovery rules, seven's flags and prefs, protected origins, profiles and launch arguments),
//! the JSON Schemas beside it, the discovery conformance corpus, the protected-origin vectors and
//! the guard vectors. The code types them, checks them, and implements the rules they describe,
//! so that slicc-cli (Go), slicc-cdp (Rust, also on `wasm32-wasip1`) and every CDP guard give the
//! same answers.
//!
//! With no features the crate has no dependencies and gives the files as `&str` constants:
//!
//! ```
//! assert!(slicc_browsers::CATALOG.contains("\"browsers\""));
//! assert_eq!(slicc_browsers::SCHEMA, 1);
//! ```
//!
//! | feature | gives |
//! | --- | --- |
//! | (none) | the `&str` constants of every shipped file and schema, [`SCHEMA`] |
//! | `serde` | the typed [`Catalog`], `Catalog::parse`, `catalog()`, locations (no regex engine) |
//! | `patterns` | the catalog's four regular expressions: seven origins, the Chromium major of a user agent, profile names |
//! | `protected` | `protected::Matcher`: URLs, targets, cookie domains, storage keys |
//! | `corpus` | `CORPUS`, `PROTECTED`, `GUARD_VECTORS` and the `corpus` and `vectors` modules (the guard-vector types, also as `guard::*`) |
//! | `guard` | `guard::policy`: the sans-I/O CDP guard policy on the protected-origin matcher |
//! | `guard-proxy` | `guard::proxy`: the CDP relay around the policy |
//! | `guard-runner` | `harness`: the guard vectors run against a guard (runner, stand-in, CDP client, self-test) |
//! | `discovery` | `discovery::discover` and the output schema 1 types |
//! | `launch` | seven's profiles, launch arguments and prefs |
//! | `cli` | the `slicc-browsers` command line and `validate` |
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod files;
pub use files::*;

mod error;
// The HTTP client discovery, launch and the guard's CDP client and proxy share (its types are
// public as `discovery::{Http, Request}`).
#[cfg(any(
    feature = "discovery",
    all(
        not(target_os = "wasi"),
        any(feature = "guard-runner", feature = "guard-proxy")
    )
))]
mod http;
#[cfg(feature = "serde")]
mod json;
pub mod ports;
// Process-level helpers written once: running as root, a poison-tolerant lock, a deadline that
// does not overflow.
#[cfg(any(
    feature = "discovery",
    feature = "launch",
    feature = "guard-runner",
    feature = "guard-proxy"
))]
mod sys;
// Chromium's feature lists, merged: seven's launch and the harness's Chromium.
#[cfg(any(feature = "launch", feature = "guard-runner"))]
mod chromium_features;
// The one percent-decoder: paths and hosts (the matcher), query strings (the guard harness).
#[cfg(any(feature = "protected", feature = "guard-runner"))]
mod percent;
pub use error::Error;

#[cfg(feature = "serde")]
pub mod catalog;
#[cfg(feature = "serde")]
pub use catalog::{catalog, shared_catalog, Catalog};
// The catalog's types at the crate root too, where the published 1.x crate has them ("Feature
// serde: Catalog and the other types"); `catalog::` paths stay.
#[cfg(feature = "serde")]
pub use catalog::{
    ActivePort, Browser, Channel, DiscardException, Discovery, Electron, ElectronApp,
    ElectronLaunch, Engine, Env, Launch, LinuxBrowser, Location, MacosBrowser, Names, Origin, Os,
    Platform, Platforms, Pref, ProcessScan, Profiles, ProtectedOrigins, Rank, Registry, Seven,
    SixProfiles, SixRoot, SixRoots, SourceRank, Tiers, WindowsBrowser, WindowsPlatform,
};

#[cfg(feature = "corpus")]
pub mod corpus;

#[cfg(feature = "discovery")]
pub mod discovery;

/// The conformance files through the crate's implementations: a corpus case's fake machine
/// (`FakeHost::from_case`) and the corpus runner (features `corpus` and `discovery`), and the
/// protected-vector runner (features `corpus` and `protected`).
#[cfg(all(feature = "corpus", any(feature = "discovery", feature = "protected")))]
pub mod conformance;

#[cfg(feature = "launch")]
pub mod launch;

#[cfg(any(feature = "corpus", feature = "guard"))]
pub mod vectors;

#[cfg(any(feature = "corpus", feature = "guard"))]
pub mod guard;

#[cfg(feature = "guard-runner")]
pub mod harness;

// The WebSocket plumbing the harness's CDP client and the guard's proxy share.
#[cfg(all(
    any(feature = "guard-runner", feature = "guard-proxy"),
    not(target_os = "wasi")
))]
mod ws;

#[cfg(any(feature = "protected", feature = "corpus"))]
pub mod protected;

#[cfg(feature = "validate")]
pub mod validate;

// The README's examples run as doctests, so they can't go stale.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
