//! Reading the crate's versioned JSON documents.

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::Error;

/// Parses `text` (the document `what`) as `T` after checking that its `key` member (`schema`,
/// or `schemaVersion` for the guard vectors) is [`SCHEMA`](crate::SCHEMA).
///
/// The version is checked first, so a schema 2 file is reported as such and not as whatever
/// shape difference schema 2 brings; the shape is then read from the text, not the parsed
/// value, so its errors keep their line and column.
pub(crate) fn parse_versioned<T: DeserializeOwned>(
    what: &'static str,
    text: &str,
    key: &str,
) -> Result<T, Error> {
    let value: Value = serde_json::from_str(text).map_err(|e| Error::json(what, &e))?;
    let Some(object) = value.as_object() else {
        return Err(Error::invalid("/", format!("{what} must be a JSON object")));
    };
    match object.get(key) {
        Some(Value::Number(n)) if n.as_u64() == Some(u64::from(crate::SCHEMA)) => {}
        Some(other) => {
            return Err(Error::Schema {
                what,
                found: other.to_string(),
            })
        }
        None => {
            return Err(Error::Schema {
                what,
                found: "missing".into(),
            })
        }
    }
    serde_json::from_str(text).map_err(|e| Error::json(what, &e))
}
