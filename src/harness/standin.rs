//! The stand-in protocol's names, shared by the fixture (which serves them), the runner's
//! placeholders and its JavaScript (which refer to them). No I/O: builds for `wasm32-wasip1`.
//!
//! The spec fixes the routes (`/doc`, `/hop`, `/framed`, `/data`, `/img`, `/auth`,
//! `/rewritten`, `/plant`, `/beacon`, `/log`, `/live`) but not the canary's names; this module
//! does, so that the fixture and the runner cannot drift apart:
//!
//! - `/plant?n=<n>` (or `tag=<n>`) without `name` plants the cookie [`canary_cookie`]`(<n>)`;
//!   without `value`, its value is `<n>`. A leg whose tag is `T` therefore has `{cookie}` =
//!   `canary-T` when it plants through `/plant?n=T`.
//! - The plant page stores the same name and value in `localStorage` and in the IndexedDB
//!   database [`CANARY_DB`], object store [`CANARY_STORE`] (key: the cookie name), then sets its
//!   title to [`PLANTED_TITLE_PREFIX`]` <n>` (or [`PLANT_FAILED_TITLE_PREFIX`]` <n>`), so a
//!   runner can settle on the title.

/// The prefix of the canary cookie's default name: `canary-<n>`.
pub const CANARY_PREFIX: &str = "canary-";

/// The IndexedDB database the plant page writes the canary to.
pub const CANARY_DB: &str = "canary";

/// The object store, in [`CANARY_DB`], holding the canary (key: the cookie name).
pub const CANARY_STORE: &str = "canary";

/// The plant page's title once the cookie, localStorage and IndexedDB canaries are stored:
/// `planted <n>`.
pub const PLANTED_TITLE_PREFIX: &str = "planted";

/// The plant page's title when storing the storage canaries failed: `plant failed <n>`.
pub const PLANT_FAILED_TITLE_PREFIX: &str = "plant failed";

/// The name of the canary cookie `/plant?n=<n>` sets when no `name` is given: `canary-<n>`.
///
/// ```
/// use slicc_browsers::harness::standin::canary_cookie;
/// assert_eq!(canary_cookie("abc123"), "canary-abc123");
/// ```
pub fn canary_cookie(n: &str) -> String {
    format!("{CANARY_PREFIX}{n}")
}
