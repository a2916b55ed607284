//! Why a check cannot be judged ([`CheckError`]: an invalid predicate or spec met while
//! evaluating it) and why [`evaluate`](super::evaluate) gives no truth ([`EvalError`]). A leg's
//! verdict keeps them as text (its `errors`), so their `Display` is the row's wording.

use std::fmt;

use crate::harness::runner::predicate::{PredicateError, RegexError};

/// A check that is invalid as written, found while it was evaluated: the leg fails with it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CheckError {
    /// A predicate (an `equals` read through an outcome's path) is invalid.
    Predicate(PredicateError),
    /// An `event` check's `where` is an invalid predicate.
    EventWhere {
        /// The event's method.
        method: String,
        /// Why.
        error: PredicateError,
    },
    /// A `result` check's `equals` is an invalid predicate.
    ResultEquals {
        /// The outcome's name.
        name: String,
        /// Why.
        error: PredicateError,
    },
    /// An `expression` check's `equals` is an invalid predicate.
    ExpressionEquals(PredicateError),
    /// A `refused` check's `refusal.match` does not compile.
    Refusal(RegexError),
    /// A `loaded` check names a chain index with no URL.
    NoChainUrl,
    /// A `compare` check does not name exactly two outcomes.
    CompareNames,
    /// A `registration` check with another value than `"any"`.
    Registration(String),
    /// A block spec (`blocked`, `frameBlocked`, `history`) with no URL.
    BlockSpec,
}

impl fmt::Display for CheckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CheckError::Predicate(e) => e.fmt(f),
            CheckError::EventWhere { method, error } => write!(f, "event {method}: {error}"),
            CheckError::ResultEquals { name, error } => write!(f, "result {name}: {error}"),
            CheckError::ExpressionEquals(e) => write!(f, "expression: {e}"),
            CheckError::Refusal(e) => write!(f, "refused: {e}"),
            CheckError::NoChainUrl => f.write_str("loaded: the chain has no URL at that index"),
            CheckError::CompareNames => f.write_str("compare needs exactly two names"),
            CheckError::Registration(value) => {
                write!(f, "registration takes \"any\", not {value:?}")
            }
            CheckError::BlockSpec => f.write_str("a block spec needs url or anyOf (with a URL)"),
        }
    }
}

impl std::error::Error for CheckError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CheckError::Predicate(e)
            | CheckError::EventWhere { error: e, .. }
            | CheckError::ResultEquals { error: e, .. }
            | CheckError::ExpressionEquals(e) => Some(e),
            CheckError::Refusal(e) => Some(e),
            _ => None,
        }
    }
}

/// Why [`evaluate`](super::evaluate) judged no truth.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum EvalError {
    /// The check does not expand with the run's variables.
    Expand(crate::error::Error),
    /// The check is invalid: the first error its evaluation met.
    Check(CheckError),
}

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EvalError::Expand(e) => e.fmt(f),
            EvalError::Check(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for EvalError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            EvalError::Expand(e) => Some(e),
            EvalError::Check(e) => Some(e),
        }
    }
}

impl From<crate::error::Error> for EvalError {
    fn from(e: crate::error::Error) -> EvalError {
        EvalError::Expand(e)
    }
}

impl From<CheckError> for EvalError {
    fn from(e: CheckError) -> EvalError {
        EvalError::Check(e)
    }
}
