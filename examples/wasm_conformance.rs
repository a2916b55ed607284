//! The conformance corpus through the discovery engine on fake hosts, as a program: built for
//! `wasm32-wasip1` it shows the engine runs there, as slicc-cdp's WASI build would call it.
//!
//! ```sh
//! cargo build --target wasm32-wasip1 --features discovery,corpus --example wasm_conformance
//! node scripts/wasm-conformance.mjs target/wasm32-wasip1/debug/examples/wasm_conformance.wasm
//! ```
//!
//! Arguments name the OSes to run (`darwin`, `linux`, `windows`; all by default). It prints
//! each failure and ends with `N passed, M failed`, exiting non-zero on a failure.

use std::process::ExitCode;

use slicc_browsers::catalog::Os;
use slicc_browsers::conformance;
use slicc_browsers::corpus::corpus;

fn main() -> ExitCode {
    let mut oses = Vec::new();
    for arg in std::env::args().skip(1) {
        match arg.parse::<Os>() {
            Ok(os) => oses.push(os),
            Err(e) => {
                eprintln!("wasm_conformance: {e}");
                return ExitCode::from(2);
            }
        }
    }
    if oses.is_empty() {
        oses = Os::ALL.to_vec();
    }
    let report = conformance::run(slicc_browsers::shared_catalog(), &corpus(), &oses);
    for failure in &report.failures {
        print!("{failure}");
    }
    println!("{}", report.summary());
    if report.failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
