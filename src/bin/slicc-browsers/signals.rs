//! Interrupts during `guard selftest` and `guard certify`: each headless Chromium they start
//! leads its own process group (so that it can be killed whole), so the terminal's Ctrl-C does
//! not reach it, and no destructor runs when a signal ends the program. This stops them first.

/// On SIGINT, SIGTERM or SIGHUP: kill every browser the run started (their process groups),
/// remove their profiles, and exit with 130.
#[cfg(unix)]
pub fn stop_browsers_on_signal() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::Duration;

    static CAUGHT: AtomicBool = AtomicBool::new(false);

    extern "C" fn on_signal(_: libc::c_int) {
        // Only an atomic store: async-signal-safe. The thread below does the work.
        CAUGHT.store(true, Ordering::SeqCst);
    }

    let handler = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
    for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: `on_signal` is an `extern "C"` function that only stores to a static atomic,
        // which is async-signal-safe; `signal` has no other precondition.
        unsafe {
            libc::signal(signal, handler);
        }
    }
    std::thread::spawn(|| loop {
        std::thread::sleep(Duration::from_millis(50));
        if CAUGHT.load(Ordering::SeqCst) {
            let stopped = slicc_browsers::harness::selftest::kill_launched();
            eprintln!("\ninterrupted: stopped {stopped} browser(s)");
            std::process::exit(130);
        }
    });
}

/// Elsewhere the browsers share the program's fate as the platform decides.
#[cfg(not(unix))]
pub fn stop_browsers_on_signal() {}
