//! The guard vectors (feature `corpus` for the embedded set, `serde` for the types):
//! [`GUARD_VECTORS`](crate::files::GUARD_VECTORS) typed, one struct per JSON shape of
//! `guard-vectors.json`.
//!
//! Every CDP guard (bios, slicc-cdp, slicc-extension, slicc-cli) runs these vectors: the
//! attacks that would get browser control onto a protected origin, each with a control that
//! must still work on an ordinary origin. The types mirror `guard-vectors.json` one to one
//! and keep every member, known or not, in file order: parsing a file and writing it again
//! gives back the same JSON.
//!
//! This is the first of the crate's three guard homes: the vector *file* (here), the *guard*
//! itself ([`guard`](crate::guard): the sans-I/O policy and the proxy around it) and the *test
//! harness* that runs a file against a guard (`harness`, feature `guard-runner`). Everything here is
//! also reachable under `guard::` (the 1.x paths: `guard::Vectors`, `guard::KIND_CDP`, ...).
//!
//! The types below need only `serde`; [`vectors()`] and the embedded set need `corpus`.
//!
//! ```
//! # #[cfg(feature = "corpus")] {
//! use slicc_browsers::vectors::{self, Step, KIND_CDP, TARGET_SEVEN};
//! let set = vectors::vectors();
//! assert_eq!(set.schema_version, 1);
//! let v = set.vector("C1.script-nav").expect("C1.script-nav is a vector");
//! assert_eq!(v.kind, KIND_CDP);
//! assert!(v.targets.iter().any(|t| t == TARGET_SEVEN));
//! assert!(v.all_steps().iter().any(|s| matches!(s, Step::Page(p) if p.page == "href")));
//! # }
//! ```

mod check;
mod map;
mod shapes;
mod step;
mod vocabulary;

pub use check::{
    AllCheck, AnyCheck, AttachedCheck, BeaconCheck, BlockedCheck, Check, CheckKind, CompareCheck,
    CookieCheck, DeliveredCheck, DetachedCheck, EventCheck, ExecutedCheck, ExpressionCheck,
    FilteredCheck, FrameBlockedCheck, HeaderCheck, HistoryCheck, HopsCheck, LiveCheck, LoadedCheck,
    NotCheck, PreCheck, ReachedCheck, RefusedCheck, RegistrationCheck, ResultCheck, ServedCheck,
    StateCheck, TitleCheck,
};
pub use map::NamedMap;
pub use shapes::{BlockSpec, CallNames, CanaryState, Chain, Filtered, UrlRef};
#[cfg(any(feature = "validate", feature = "guard-runner"))]
pub(crate) use step::flatten;
pub use step::{
    capabilities_needed, Answer, AnswerStep, CdpStep, ChildrenStep, Guess, GuessStep, Hop,
    PageStep, Refusal, Settle, SettleStep, Step, StepKind, TextStep, WaitStep, Where,
};
#[cfg(feature = "validate")]
pub(crate) use step::{Flat, Legs};
pub use vocabulary::*;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::error::Error;

/// The refusal name of a refusable step (§3.2): its `as`, else `refused.<index>` with `index`
/// its place in [`Vector::all_steps`].
pub fn refusal_name(name: Option<&str>, index: usize) -> String {
    name.map_or_else(|| format!("refused.{index}"), str::to_string)
}

/// Parses the embedded [`GUARD_VECTORS`](crate::files::GUARD_VECTORS) (feature `corpus`).
///
/// # Panics
///
/// Never in a released crate: the tests prove the embedded file parses.
#[cfg(feature = "corpus")]
pub fn vectors() -> Vectors {
    Vectors::parse(crate::files::GUARD_VECTORS)
        .expect("the embedded guard-vectors.json parses (checked by the tests)")
}

/// `guard-vectors.json`: the whole set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Vectors {
    /// The format version; [`Vectors::parse`] accepts only 1.
    pub schema_version: u32,
    /// The package version the set was released with (`0.0.0` in git).
    pub set_version: String,
    /// Where the vectors come from.
    pub sources: Vec<Source>,
    /// The names a runner maps to origins: the protected targets and the ordinary origins.
    pub targets: NamedMap<Target>,
    /// Detach variants: name to the delay in ms before the client's `Target.detachFromTarget`.
    pub variants: NamedMap<u64>,
    /// What a transport may lack, each with a description.
    pub capabilities: Capabilities,
    /// Every `{name}` the vectors use, with what it stands for.
    pub placeholders: NamedMap<String>,
    /// The vectors.
    pub vectors: Vec<Vector>,
    /// Members this version of the format does not name, kept as they are.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Vectors {
    /// Parses a vector file, rejecting a `schemaVersion` other than 1.
    ///
    /// ```
    /// use slicc_browsers::{guard::Vectors, Error};
    /// let err = Vectors::parse(r#"{"schemaVersion": 2}"#).unwrap_err();
    /// assert!(matches!(err, Error::Schema { .. }));
    /// ```
    pub fn parse(text: &str) -> Result<Vectors, Error> {
        crate::json::parse_versioned("guard-vectors.json", text, "schemaVersion")
    }

    /// The vector with this id.
    pub fn vector(&self, id: &str) -> Option<&Vector> {
        self.vectors.iter().find(|v| v.id == id)
    }
}

/// Where some of the vectors come from (free text: not every source is a git repository).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Source {
    /// The repository or other origin.
    pub repo: String,
    /// The commit, tag or version.
    #[serde(rename = "ref")]
    pub reference: String,
    /// The file.
    pub path: String,
    /// Members this version of the format does not name, kept as they are.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A name a runner maps to an origin.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Target {
    /// The default host, for the protected targets only; never a URL a runner must use.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// What the name stands for.
    pub description: String,
    /// Members this version of the format does not name, kept as they are.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The capabilities a transport may lack, each with its description.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Capabilities {
    /// `Target.setAutoAttach`, `children` steps and child sessions.
    pub auto_attach: String,
    /// Calls on the browser session.
    pub browser_session: String,
    /// `Target.createBrowserContext` and `Target.disposeBrowserContext`.
    pub browser_contexts: String,
    /// Members this version of the format does not name, kept as they are.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One vector: an attack with its control.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Vector {
    /// `C…`, `E…` or `B…`, such as `C1.script-nav`.
    pub id: String,
    /// `C`, `E` or `B`: the id's first letter.
    pub family: String,
    /// [`KIND_CDP`] or [`KIND_TEXT`].
    pub kind: String,
    /// [`SCOPE_ANY`], or the one guard the vector is for.
    pub scope: String,
    /// The steps before the attack.
    pub setup: Vec<Step>,
    /// The attack.
    pub trigger: Vec<Step>,
    /// The protected targets the vector runs against.
    pub targets: Vec<String>,
    /// The capabilities the vector needs: the union of its steps' and observations'.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requires: Option<Vec<String>>,
    /// Each observed name and how it is checked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observe: Option<NamedMap<Observation>>,
    /// The liveness condition, in prose.
    pub live: String,
    /// The liveness check, judged on the guarded leg (required for runnable vectors).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub live_check: Option<Check>,
    /// The control on the ordinary origin.
    pub control: Control,
    /// What the guarded leg must show.
    pub expected: Expected,
    /// A target the vector does not apply to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skip: Option<Skip>,
    /// Observation names that may expect `"either"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub design_dependent: Option<Vec<String>>,
    /// Whether the guard host's own origin can show this vector.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observable: Option<Observable>,
    /// The triggers the vector runs with (`href`, `iframe`, `popup`, `redirect`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub applies_to: Option<Vec<String>>,
    /// Members this version of the format does not name, kept as they are.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Vector {
    /// Whether the vector is for a guard of `scope`: its `scope` is `any` ([`SCOPE_ANY`]), or
    /// exactly that scope.
    ///
    /// ```
    /// # #[cfg(feature = "corpus")] {
    /// let set = slicc_browsers::vectors::vectors();
    /// let v = set.vector("C1.script-nav").unwrap();
    /// assert!(v.is_for(None) == (v.scope == "any"));
    /// assert!(v.is_for(Some(v.scope.as_str())));
    /// # }
    /// ```
    pub fn is_for(&self, scope: Option<&str>) -> bool {
        self.scope == SCOPE_ANY || Some(self.scope.as_str()) == scope
    }

    /// Whether the vector is runnable (`kind: "cdp"`).
    pub fn is_runnable(&self) -> bool {
        self.kind == KIND_CDP
    }

    /// Every step, flattened in refusal-name order: `setup`, then `trigger`, each `children`
    /// step followed at once by its own steps, depth-first.
    pub fn all_steps(&self) -> Vec<&Step> {
        step::flatten(&self.setup, &self.trigger)
            .into_iter()
            .map(|f| f.step)
            .collect()
    }

    /// The refusal name of each refusable step, in step order: its `as`, or `refused.<i>`
    /// with `i` its index in [`Vector::all_steps`].
    pub fn refusal_names(&self) -> Vec<String> {
        self.all_steps()
            .iter()
            .enumerate()
            .filter(|(_, s)| s.is_refusable())
            .map(|(i, s)| refusal_name(s.name(), i))
            .collect()
    }

    /// The observation named `name`.
    pub fn observation(&self, name: &str) -> Option<&Observation> {
        self.observe.as_ref().and_then(|o| o.get(name))
    }
}

/// The control: the same setup and trigger against an unprotected origin, which must succeed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Control {
    /// Always [`ORDINARY`].
    pub origin: String,
    /// [`VIA_GUARD`] or [`VIA_UNGUARDED`].
    pub via: String,
    /// What the control leg must show.
    pub expected: Expected,
    /// Members this version of the format does not name, kept as they are.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A target a vector is not run against, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Skip {
    /// One of the vector's targets.
    pub target: String,
    /// `code: text`, such as `not-applicable: …`.
    pub reason: String,
    /// Members this version of the format does not name, kept as they are.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Whether the guard host's own origin can show a vector.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Observable {
    /// `false`: the `own` target can't show it (headers, auth, redirects).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub own: Option<bool>,
    /// Members this version of the format does not name, kept as they are.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// What a leg must show: observation names to outcomes, or words (text rows).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Expected {
    /// Each observation name and the outcome it must have.
    Checks(NamedMap<Outcome>),
    /// A text row's expectation, in words.
    Text(String),
}

impl<'de> Deserialize<'de> for Expected {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match Value::deserialize(deserializer)? {
            Value::String(s) => Ok(Expected::Text(s)),
            v @ Value::Object(_) => serde_json::from_value(v)
                .map(Expected::Checks)
                .map_err(D::Error::custom),
            other => Err(D::Error::custom(format!(
                "expected is an object of observation names or a text, not {other}"
            ))),
        }
    }
}

/// The outcome an observation must have on a leg.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// `true` or `false`.
    Is(bool),
    /// `"either"`: both match (only for design-dependent names).
    Either,
}

impl Outcome {
    /// Whether an observed boolean matches this outcome.
    pub fn matches(self, observed: bool) -> bool {
        match self {
            Outcome::Is(b) => b == observed,
            Outcome::Either => true,
        }
    }
}

impl Serialize for Outcome {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Outcome::Is(b) => serializer.serialize_bool(*b),
            Outcome::Either => serializer.serialize_str("either"),
        }
    }
}

impl<'de> Deserialize<'de> for Outcome {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match Value::deserialize(deserializer)? {
            Value::Bool(b) => Ok(Outcome::Is(b)),
            Value::String(s) if s == "either" => Ok(Outcome::Either),
            other => Err(D::Error::custom(format!(
                "an expected outcome is true, false or \"either\", not {other}"
            ))),
        }
    }
}

/// An observed name: what it means and how it is checked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Observation {
    /// What the observation means, in prose.
    pub means: String,
    /// How it is judged.
    pub check: Check,
    /// Refusal names: on a leg where any was recorded, the observation is skipped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depends_on: Option<Vec<String>>,
    /// The capabilities the observation needs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requires: Option<Vec<String>>,
    /// When this holds on the guarded leg, the expectation there becomes `"either"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub either_when: Option<Check>,
    /// Members this version of the format does not name, kept as they are.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
