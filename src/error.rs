//! The crate's error type.

use std::fmt;

/// What went wrong while reading one of the crate's files or inputs.
///
/// Every variant names the file or value it concerns, and where one is known, the place in it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// The text is not JSON of the expected shape.
    Json {
        /// Which document was being read, such as `catalog.json`.
        what: &'static str,
        /// The 1-based line of the problem (0 when unknown).
        line: usize,
        /// The 1-based column of the problem (0 when unknown).
        column: usize,
        /// The parser's description of the problem.
        message: String,
    },
    /// The document's `schema` is not one this crate reads.
    Schema {
        /// Which document was being read.
        what: &'static str,
        /// The `schema` value found, as JSON text (`missing` when absent).
        found: String,
    },
    /// A value is well formed JSON but not usable.
    Invalid {
        /// A JSON path or a name for the value, such as `/seven/originHostPattern`.
        path: String,
        /// Why the value cannot be used.
        message: String,
    },
}

impl Error {
    /// An [`Error::Invalid`] for the value at `path`.
    pub fn invalid(path: impl Into<String>, message: impl Into<String>) -> Self {
        Error::Invalid {
            path: path.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Json {
                what,
                line,
                column,
                message,
            } => {
                if *line > 0 {
                    write!(f, "{what}: line {line}, column {column}: {message}")
                } else {
                    write!(f, "{what}: {message}")
                }
            }
            Error::Schema { what, found } if found == "missing" => {
                write!(
                    f,
                    "{what}: no schema version (the `schema` member, `schemaVersion` in \
                     guard-vectors.json; this crate reads schema 1)"
                )
            }
            Error::Schema { what, found } => {
                write!(
                    f,
                    "{what}: schema {found} is not supported (this crate reads schema 1)"
                )
            }
            Error::Invalid { path, message } => write!(f, "{path}: {message}"),
        }
    }
}

impl std::error::Error for Error {}

#[cfg(feature = "serde")]
impl Error {
    /// Wraps a `serde_json` error for the document `what`, keeping its line and column.
    pub(crate) fn json(what: &'static str, err: &serde_json::Error) -> Self {
        Error::Json {
            what,
            line: err.line(),
            column: err.column(),
            message: strip_position(&err.to_string(), err.line(), err.column()),
        }
    }
}

/// serde_json appends " at line L column C" to its messages; [`Error::Json`] carries those apart.
#[cfg(feature = "serde")]
fn strip_position(message: &str, line: usize, column: usize) -> String {
    let suffix = format!(" at line {line} column {column}");
    message.strip_suffix(&suffix).unwrap_or(message).to_string()
}
