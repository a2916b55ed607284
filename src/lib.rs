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
//! | `corpus` | `CORPUS`, `PROTECTED`, `GUARD_VECTORS` and the corpus, vector and guard modules |
//! | `guard` | `guard::policy`: the sans-I/O CDP guard policy on the protected-origin matcher |
//! | `discovery` | `discovery::discover` and the output schema 1 types |
//! | `launch` | seven's profiles, launch arguments and prefs |
//! | `cli` | the `slicc-browsers` command line and `validate` |
#![cfg_attr(docsrs, feature(doc_auto_cfg))]
#![deny(missing_docs)]
#![forbid(unsafe_code)]

/// The schema version of every file this crate ships (`"schema": 1`).
pub const SCHEMA: u32 = 1;

/// `catalog.json`: the browsers, Electron apps, ranking, discovery rules, seven's flags and prefs,
/// protected origins, profiles, launch arguments and platform locations.
pub const CATALOG: &str = include_str!("../catalog.json");

/// `schema/catalog.schema.json`: the JSON Schema (2020-12) of [`CATALOG`].
pub const CATALOG_SCHEMA: &str = include_str!("../schema/catalog.schema.json");

/// `schema/browsers.schema.json`: the JSON Schema of output schema 1, what `slicc browsers --json`
/// and `playwright-cli list --json` print.
pub const BROWSERS_SCHEMA: &str = include_str!("../schema/browsers.schema.json");

/// `schema/corpus.schema.json`: the JSON Schema (2020-12) of `corpus.json`, the discovery
/// conformance corpus; its `expected` documents refer to [`BROWSERS_SCHEMA`].
pub const CORPUS_SCHEMA: &str = include_str!("../schema/corpus.schema.json");

/// `corpus.json`: every discovery conformance case, generated from `corpus/` (see
/// [`corpus::build`]).
#[cfg(feature = "corpus")]
pub const CORPUS: &str = include_str!("../corpus.json");

/// `schema/guard-vectors.schema.json`: the JSON Schema (2020-12) of `guard-vectors.json`.
pub const GUARD_VECTORS_SCHEMA: &str = include_str!("../schema/guard-vectors.schema.json");

/// `guard-vectors.json`: the attacks every CDP guard runs, each with its control on an ordinary
/// origin ([`guard`] types it).
#[cfg(feature = "corpus")]
pub const GUARD_VECTORS: &str = include_str!("../guard-vectors.json");

/// `schema/protected.schema.json`: the JSON Schema (2020-12) of `protected.json`.
pub const PROTECTED_SCHEMA: &str = include_str!("../schema/protected.schema.json");

/// `protected.json`: the protected-origin vectors every matcher runs (see [`protected`]).
#[cfg(feature = "corpus")]
pub const PROTECTED: &str = include_str!("../protected.json");

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
pub mod guard;

#[cfg(any(feature = "protected", feature = "corpus"))]
pub mod protected;

#[cfg(feature = "cli")]
pub mod validate;

// The README's examples run as doctests, so they can't go stale.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
