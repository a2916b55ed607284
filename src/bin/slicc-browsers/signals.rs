//! Interrupts during `guard selftest` and `guard certify`: each headless Chromium they start
//! leads its own process group (so that it can be killed whole), so the terminal's Ctrl-C does
//! not reach it, and no destructor runs when a signal ends the program. This stops them first.

/// On SIGINT, SIGTERM or SIGHUP: kill every browser the run started (their process groups),
/// remove their profiles, and exit with 130. The signals are received by `signal-hook`'s
/// iterator (its handler only writes to a pipe, which is async-signal-safe); a thread of ours
/// waits on it and does the work.
#[cfg(unix)]
pub fn stop_browsers_on_signal() {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    use signal_hook::iterator::Signals;

    let mut signals = match Signals::new([SIGINT, SIGTERM, SIGHUP]) {
        Ok(signals) => signals,
        Err(e) => {
            eprintln!("warning: no signal handler ({e}): Ctrl-C may leave browsers running");
            return;
        }
    };
    std::thread::spawn(move || {
        if signals.forever().next().is_some() {
            let stopped = slicc_browsers::harness::selftest::kill_launched();
            eprintln!("\ninterrupted: stopped {stopped} browser(s)");
            std::process::exit(130);
        }
    });
}

/// Elsewhere the browsers share the program's fate as the platform decides.
#[cfg(not(unix))]
pub fn stop_browsers_on_signal() {}
