//! The shapes checks share: call names, URL references and block specs, the canary and the
//! cookie filter.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use super::step::Hop;

/// The canary a `state` check reads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CanaryState {
    /// The origin holding the canary.
    pub origin: String,
    /// The canary cookie's name.
    pub cookie: String,
    /// The value expected.
    pub value: String,
    /// `true`: read the storage canary too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storage: Option<bool>,
    /// Members this version of the format does not name, kept as they are.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The calls and cookie of a `filtered` check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Filtered {
    /// The calls whose responses are read.
    pub from: CallNames,
    /// The cookie that must be left out.
    pub cookie: String,
    /// The origin the cookie is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on: Option<String>,
    /// Members this version of the format does not name, kept as they are.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Named steps: `"all"`, or a list of `as` names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallNames {
    /// `"all"`: every refusable step (or every call).
    All,
    /// The named steps.
    Names(Vec<String>),
}

impl Serialize for CallNames {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            CallNames::All => serializer.serialize_str("all"),
            CallNames::Names(names) => names.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for CallNames {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match Value::deserialize(deserializer)? {
            Value::String(s) if s == "all" => Ok(CallNames::All),
            Value::Array(items) => items
                .into_iter()
                .map(|v| match v {
                    Value::String(s) => Ok(s),
                    other => Err(D::Error::custom(format!(
                        "a call name must be a string, not {other}"
                    ))),
                })
                .collect::<Result<Vec<_>, _>>()
                .map(CallNames::Names),
            other => Err(D::Error::custom(format!(
                "call names are \"all\" or a list of names, not {other}"
            ))),
        }
    }
}

/// An exact URL, or a redirect chain.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum UrlRef {
    /// An exact URL.
    Url(String),
    /// A redirect chain, optionally one position in it.
    Chain(Chain),
}

/// A redirect chain: `to` routed through `hops`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Chain {
    /// The hops.
    pub hops: Vec<Hop>,
    /// The final destination.
    pub to: String,
    /// One position in the chain.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<u64>,
    /// Members this version of the format does not name, kept as they are.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The URL(s) a block is judged for: exactly one of `url` and `any_of`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BlockSpec {
    /// One exact URL or chain.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<UrlRef>,
    /// Any of these URLs or chains.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub any_of: Option<Vec<UrlRef>>,
    /// `page` or `child`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// `true`: also look at the page's out-of-process iframe targets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame: Option<bool>,
    /// Members this version of the format does not name, kept as they are.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
