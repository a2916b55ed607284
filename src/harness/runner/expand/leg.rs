//! The two legs of a row and the two phases of a vector's steps.

use serde::{Deserialize, Serialize};

use crate::vectors::{CONTROL, GUARDED};

/// A leg of a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Leg {
    /// The control, on the ordinary origin (`{target}` is `{plain}`), judged by
    /// `control.expected`.
    Control,
    /// The guarded leg, on the protected target, judged by `expected` (and liveness).
    Guarded,
}

impl Leg {
    /// `control` or `guarded`, as a step's `on` names it.
    pub fn as_str(self) -> &'static str {
        match self {
            Leg::Control => CONTROL,
            Leg::Guarded => GUARDED,
        }
    }
}

/// Which phase of a vector a step belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    /// `setup`.
    Setup,
    /// `trigger`.
    Trigger,
}

impl Phase {
    /// `setup` or `trigger`.
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Setup => "setup",
            Phase::Trigger => "trigger",
        }
    }
}
