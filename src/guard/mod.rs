//! The guard: what keeps browser control off the protected origins.
//!
//! - [`policy`] (feature `guard`): the reference guard, a sans-I/O CDP state machine on the
//!   protected-origin matcher. It takes the client's and the browser's messages and says what to
//!   forward, answer or hold; it builds for `wasm32-wasip1`, so slicc-cdp embeds it as it is.
//! - [`proxy`] (feature `guard-proxy`, not on `wasm32-wasip1`): a CDP relay around the policy,
//!   behind `slicc-browsers guard proxy`.
//!
//! This is the second of the crate's three guard homes. The vector file's types live in
//! [`vectors`](crate::vectors) and are re-exported here under their 1.x paths (`guard::Vectors`,
//! `guard::Step`, `guard::KIND_CDP`, ...); the test harness that runs a vector file against a
//! guard lives in `harness` (feature `guard-runner`). The policy imports nothing from either.
//!
//! ```
//! # #[cfg(feature = "corpus")] {
//! // The 1.x paths of the vector types still work.
//! use slicc_browsers::guard::{self, KIND_CDP};
//! let set = guard::vectors();
//! assert!(set.vectors.iter().any(|v| v.kind == KIND_CDP));
//! # }
//! ```

#[cfg(feature = "guard")]
pub mod policy;
#[cfg(all(feature = "guard-proxy", not(target_os = "wasi")))]
pub mod proxy;

// The 1.x paths: the vector types were `guard::*` before they had a home of their own.
#[cfg(any(feature = "corpus", feature = "guard"))]
pub use crate::vectors::*;
