//! The test harness (feature `guard-runner`): runs a guard-vector file against a guard and says
//! which rows held.
//!
//! This is the third of the crate's three guard homes, beside the vector file's types
//! ([`vectors`](crate::vectors)) and the guard itself ([`guard`](crate::guard)). A row flows in
//! one direction: [`runner`] expands and drives it and judges what was recorded (the judge is
//! I/O-free and builds for `wasm32-wasip1`); [`standin`] is the stand-in server's protocol and
//! [`fixture`] serves it; [`cdp`] is the CDP client the driver and the observer use;
//! [`selftest`] runs the file with no guard in headless Chromium, and `certify` runs it through the
//! crate's own proxy. Only `certify` names the guard.

#[cfg(not(target_os = "wasi"))]
pub mod cdp;
#[cfg(all(feature = "guard-proxy", not(target_os = "wasi")))]
pub mod certify;
#[cfg(not(target_os = "wasi"))]
mod chromium;
#[cfg(not(target_os = "wasi"))]
pub mod fixture;
pub mod runner;
#[cfg(not(target_os = "wasi"))]
pub mod selftest;
pub mod standin;
