//! The guard runner (feature `guard-runner`): runs guard vectors against a guard and an
//! unguarded observer, and judges them.
//!
//! The judging half (placeholders, legs, checks on a [`Record`], rows and the summary) does
//! no I/O and builds for `wasm32-wasip1`; the driver that runs steps over CDP does I/O and is
//! left out there.

#[cfg(not(target_os = "wasi"))]
pub mod drive;
pub mod expand;
pub mod js;
pub mod judge;
mod logurl;
pub mod plan;
pub mod predicate;
pub mod record;
pub mod summary;
pub mod transport;

pub use expand::{Leg, LegStep, Origins, Phase, Vars};
pub use judge::{judge_row, precheck, CapabilitySet, Environment, LegRun, RowSpec};
pub use record::{LogEntry, NavigationError, Read, Record, Recorded, SessionRecord};
pub use summary::{summarize, Row, RowKey, Status, Summary, SummaryInput};
pub use transport::{
    CallError, Closed, ConnectFault, Event, Transport, TransportError, VersionFault,
};
