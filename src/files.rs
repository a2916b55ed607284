//! The shipped files as `&str` constants (no features needed), and [`SCHEMA`], the schema version
//! they all carry. The crate root re-exports every item, so `slicc_browsers::CATALOG` is the path
//! users write; modules of the crate name them here, never through the root.

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
/// [`corpus::build`](crate::corpus::build)).
#[cfg(feature = "corpus")]
pub const CORPUS: &str = include_str!("../corpus.json");

/// `schema/guard-vectors.schema.json`: the JSON Schema (2020-12) of `guard-vectors.json`.
pub const GUARD_VECTORS_SCHEMA: &str = include_str!("../schema/guard-vectors.schema.json");

/// `guard-vectors.json`: the attacks every CDP guard runs, each with its control on an ordinary
/// origin ([`vectors`](crate::vectors) types it).
#[cfg(feature = "corpus")]
pub const GUARD_VECTORS: &str = include_str!("../guard-vectors.json");

/// `schema/protected.schema.json`: the JSON Schema (2020-12) of `protected.json`.
pub const PROTECTED_SCHEMA: &str = include_str!("../schema/protected.schema.json");

/// `protected.json`: the protected-origin vectors every matcher runs (see [`protected`](crate::protected)).
#[cfg(feature = "corpus")]
pub const PROTECTED: &str = include_str!("../protected.json");
