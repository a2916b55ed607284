//! The vocabulary: the format's closed words as constants (targets, kinds, vias, legs,
//! capabilities, sessions, variants), the observers, and the one-key rule every step and check
//! obeys.
//!
//! The kinds themselves are declared once each, in one table per union: the check table in
//! `check.rs` (each check's key, struct, members and observers) and the step table in
//! `step.rs`. [`kind_enum!`] turns a table's rows into the kind enum with its `ALL`, `as_str`
//! and `from_key`; the tables derive the union enum, its deserializer, `kind()` and (checks)
//! `observer()` and `observers()` from the same rows. The runner, the judge and `validate` all
//! read those, so adding a kind is one row.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The protected target `seven`: seven's own origin.
pub const TARGET_SEVEN: &str = "seven";
/// The protected target `vault`: vault.sliccy.ai.
pub const TARGET_VAULT: &str = "vault";
/// The protected target `vault-x`: a vault branch preview.
pub const TARGET_VAULT_X: &str = "vault-x";
/// The protected target `apex`: the bare sliccy.ai.
pub const TARGET_APEX: &str = "apex";
/// The protected target `own`: the client page's origin (`{client}`).
pub const TARGET_OWN: &str = "own";
/// Every protected target, the values a vector's `targets` and `skip.target` take.
pub const PROTECTED_TARGETS: [&str; 5] = [
    TARGET_SEVEN,
    TARGET_VAULT,
    TARGET_VAULT_X,
    TARGET_APEX,
    TARGET_OWN,
];
/// The unprotected origin a control runs on (`control.origin`).
pub const ORDINARY: &str = "ordinary";
/// The unprotected origin that is same-site with the target.
pub const ORDINARY_SAME_SITE: &str = "ordinary-same-site";
/// `kind: "cdp"`: a runnable vector.
pub const KIND_CDP: &str = "cdp";
/// `kind: "text"`: a row in words, reported `not-run`, never `pass`.
pub const KIND_TEXT: &str = "text";
/// `control.via: "guard"`: the control runs through the guard.
pub const VIA_GUARD: &str = "guard";
/// `control.via: "unguarded"`: the runner drives the control over its own CDP.
pub const VIA_UNGUARDED: &str = "unguarded";
/// `scope: "any"`: the vector is for every guard.
pub const SCOPE_ANY: &str = "any";
/// The control leg (a step's `on`).
pub const CONTROL: &str = "control";
/// The guarded leg (a step's `on`).
pub const GUARDED: &str = "guarded";
/// The capability `autoAttach`: `Target.setAutoAttach`, `children` steps and child sessions.
pub const CAP_AUTO_ATTACH: &str = "autoAttach";
/// The capability `browserSession`: calls on the browser session.
pub const CAP_BROWSER_SESSION: &str = "browserSession";
/// The capability `browserContexts`: `Target.createBrowserContext` and `disposeBrowserContext`.
pub const CAP_BROWSER_CONTEXTS: &str = "browserContexts";
/// `session: "page"`: the row's page (the default).
pub const SESSION_PAGE: &str = "page";
/// `session: "browser"`: the browser session.
pub const SESSION_BROWSER: &str = "browser";
/// `session: "page-or-browser"`: either (the driver uses the page session).
pub const SESSION_PAGE_OR_BROWSER: &str = "page-or-browser";
/// `session: "child"`: the current auto-attached target.
pub const SESSION_CHILD: &str = "child";

/// Every name top-level `targets` must hold: the protected targets, then the ordinary origins.
pub const TARGET_NAMES: [&str; 7] = [
    TARGET_SEVEN,
    TARGET_VAULT,
    TARGET_VAULT_X,
    TARGET_APEX,
    TARGET_OWN,
    ORDINARY,
    ORDINARY_SAME_SITE,
];
/// The detach variant `prompt` (0 ms).
pub const VARIANT_PROMPT: &str = "prompt";
/// The detach variant `lagging` (8000 ms).
pub const VARIANT_LAGGING: &str = "lagging";
/// Every capability, exactly the keys of top-level `capabilities`.
pub const CAPABILITIES: [&str; 3] = [CAP_AUTO_ATTACH, CAP_BROWSER_SESSION, CAP_BROWSER_CONTEXTS];

/// Who reads the data a check is judged on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Observer {
    /// The stand-in's request log.
    Fixture,
    /// Data the guarded transport already delivered: events and named outcomes.
    Client,
    /// An independent CDP connection outside the guard.
    Unguarded,
}

impl Observer {
    /// Every observer, in the order the format lists them.
    pub const ALL: [Observer; 3] = [Observer::Fixture, Observer::Client, Observer::Unguarded];

    /// The JSON value of `observer`.
    pub fn as_str(self) -> &'static str {
        match self {
            Observer::Fixture => "fixture",
            Observer::Client => "client",
            Observer::Unguarded => "unguarded",
        }
    }

    /// The observer whose JSON value is `name`.
    pub fn from_key(name: &str) -> Option<Observer> {
        Observer::ALL.into_iter().find(|o| o.as_str() == name)
    }
}

/// Declares a kind enum from a table's rows: each variant with its doc and JSON key, and
/// `COUNT`, `ALL`, `as_str`, `from_key` and `kinds_in` derived from them.
macro_rules! kind_enum {
    (
        $(#[$edoc:meta])*
        $kind:ident, $what:literal,
        [$( $(#[$doc:meta])* $variant:ident = $key:literal ),* $(,)?]
    ) => {
        $(#[$edoc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $kind {
            $( #[doc = concat!("`", $key, "`:")] $(#[$doc])* $variant, )*
        }

        impl $kind {
            #[doc = concat!("How many ", $what, " kinds there are.")]
            pub const COUNT: usize = [$($key),*].len();

            #[doc = concat!("Every ", $what, " kind, in the order the format lists them.")]
            pub const ALL: [$kind; $kind::COUNT] = [$($kind::$variant),*];

            /// The JSON key that marks this kind.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($kind::$variant => $key,)*
                }
            }

            /// The kind whose JSON key is `key`.
            pub fn from_key(key: &str) -> Option<$kind> {
                match key {
                    $($key => Some($kind::$variant),)*
                    _ => None,
                }
            }

            #[doc = concat!("The ", $what, " kinds whose keys `object` holds, in table order \
                (exactly one for a well-formed ", $what, ").")]
            pub fn kinds_in(object: &serde_json::Map<String, serde_json::Value>) -> Vec<$kind> {
                $kind::ALL
                    .into_iter()
                    .filter(|k| object.contains_key(k.as_str()))
                    .collect()
            }
        }

        impl std::fmt::Display for $kind {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}
pub(crate) use kind_enum;

/// Why an object is not exactly one kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum NotOneKind<K> {
    /// It holds no kind key; these are its keys.
    None(Vec<String>),
    /// It holds several kind keys.
    Many(Vec<K>),
}

/// The one rule of both unions: an object is exactly one kind, picked by the one kind key it
/// holds. `kinds` is what `K::kinds_in` found.
pub(crate) fn one_kind<K: Copy>(
    kinds: Vec<K>,
    object: &Map<String, Value>,
) -> Result<K, NotOneKind<K>> {
    match kinds.as_slice() {
        [kind] => Ok(*kind),
        [] => Err(NotOneKind::None(object.keys().cloned().collect())),
        _ => Err(NotOneKind::Many(kinds)),
    }
}

/// The message of the deserializers when an object is not one `what` (`check`, `step`).
pub(crate) fn not_one_kind_message<K: Copy + std::fmt::Display>(
    what: &str,
    all: &[K],
    error: &NotOneKind<K>,
) -> String {
    let join = |items: Vec<String>| items.join(", ");
    match error {
        NotOneKind::None(keys) => format!(
            "a {what} needs one kind key ({}), found {}",
            join(all.iter().map(ToString::to_string).collect()),
            if keys.is_empty() {
                "no key".to_string()
            } else {
                join(keys.clone())
            }
        ),
        NotOneKind::Many(kinds) => format!(
            "a {what} has more than one kind: {}",
            join(kinds.iter().map(ToString::to_string).collect())
        ),
    }
}
