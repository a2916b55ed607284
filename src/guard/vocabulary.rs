//! The vocabulary's machinery: the observers, and the one-key rule every step and check obeys.
//!
//! The kinds themselves are declared once each, in one table per union: the check table in
//! `check.rs` (each check's key, struct, members and observers) and the step table in
//! `step.rs`. [`kind_enum!`] turns a table's rows into the kind enum with its `ALL`, `as_str`
//! and `from_key`; the tables derive the union enum, its deserializer, `kind()` and (checks)
//! `observer()` and `observers()` from the same rows. The runner, the judge and `validate` all
//! read those, so adding a kind is one row.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

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
