//! Launching a browser the way seven needs it (feature `launch`): profiles, arguments,
//! executables and Preferences, all from the catalog's `launch`, `seven`, `profiles` and
//! `platforms` sections.
//!
//! Everything that decides something is a pure function of the catalog, the OS, the home dir
//! and the environment (and, for executables, a "does this path exist" predicate), so every
//! OS's answers can be tested anywhere. Preparing a profile writes one file; starting the
//! browser, free-port checks and HTTP live in the parts not built for WASI.
//!
//! ```
//! use slicc_browsers::catalog::Os;
//! use slicc_browsers::launch::{chromium_args, ChromiumOptions, SevenProfile};
//! let cat = slicc_browsers::shared_catalog();
//! let env = |_: &str| None;
//! let profile = SevenProfile::named(cat, Os::Linux, "/home/me", &env, "demo").unwrap();
//! let argv = chromium_args(cat, profile.dir(), &ChromiumOptions::new().headless(true)).unwrap();
//! assert!(argv.contains(&"--user-data-dir=/home/me/.config/slicc/seven-profiles/demo".to_string()));
//! assert_eq!(argv.iter().filter(|a| a.starts_with("--disable-features=")).count(), 1);
//! ```
//!
//! Six's profile ([`SixProfile`]) is used in place: it has no `prepare`, and a
//! [`SevenProfile`] can never be made for one of six's dirs.

mod args;
mod choose;
mod error;
mod exec;
mod prefs;
mod profiles;
#[cfg(not(target_os = "wasi"))]
mod spawn;

pub use args::{
    chromium_args, electron_args, first_free_port, merge_features, ChromiumOptions, ElectronArgs,
};
pub use choose::choose_executable;
pub use error::Error;
pub use exec::{installed_executables, resolve_executable, Executable, Exists, Via};
pub use prefs::{chrome_time, chrome_time_now, merge_preferences, seven_sites, Prepared};
pub use profiles::{is_six_dir, SevenProfile, SixProfile};
#[cfg(not(target_os = "wasi"))]
pub use spawn::{
    choose_here, electron_args_here, find_executable, find_installed, get_json, launch,
    listed_entry, live_endpoint, path_exists, port_is_free, running_as_root, spawn, spawn_logged,
    system_env, system_home, wait_for_endpoint, LaunchRequest, Launched, LAUNCH_LOG,
};
