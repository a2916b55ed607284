//! The policy's CDP message traces (tests/data/guard_policy/*.jsonl), as the tests that replay
//! them (tests/offline/guard_policy.rs) and the tests that garble them (tests/offline/guard_policy_hostile.rs)
//! read them: a file's text, every file in order, and a step's frame.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use serde_json::Value;

/// The folder of the traces.
pub fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/guard_policy")
}

/// The text of the trace `name` (a file name in [`dir`]).
pub fn read(name: &str) -> String {
    let path = dir().join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every trace file, sorted by name.
pub fn files() -> Vec<PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(dir())
        .expect("the traces' folder")
        .map(|e| e.expect("a trace file").path())
        .collect();
    files.sort();
    files
}

/// A step's frame as the policy reads it: a string as it is (a trace may hold a frame that is
/// not JSON, or JSON written a particular way), anything else as its JSON text.
pub fn frame_text(f: &Value) -> String {
    match f.as_str() {
        Some(s) => s.to_string(),
        None => f.to_string(),
    }
}
