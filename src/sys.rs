//! Small process-level helpers shared by discovery's HTTP client, launch, the guard's proxy and
//! the guard harness, written once: whether this process runs as root, a mutex lock that
//! survives poisoning, and a deadline that does not overflow.
//!
//! Not every feature set uses every helper, hence the `dead_code` allowances.

use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// Whether this process runs as root on Linux (effective uid 0, read from `/proc/self/status`),
/// where Chromium refuses to start without `--no-sandbox`. `false` elsewhere and when the file
/// can't be read.
#[allow(dead_code)]
pub(crate) fn running_as_root() -> bool {
    std::env::consts::OS == "linux"
        && std::fs::read_to_string("/proc/self/status")
            .is_ok_and(|status| effective_uid_is_root(&status))
}

/// Whether a `/proc/<pid>/status` text's `Uid:` line (real, effective, saved, fs) has effective
/// uid 0.
fn effective_uid_is_root(status: &str) -> bool {
    status
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))
        .and_then(|ids| ids.split_whitespace().nth(1))
        == Some("0")
}

/// Locks `m`, taking the data of a poisoned mutex as it is: a thread that panicked while holding
/// it has already failed its own work, and the state the lock guards stays usable (every writer
/// leaves it consistent between statements).
#[allow(dead_code)]
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The instant `after` from now. `Instant::now() + after` panics ("overflow when adding
/// duration to instant") for an `after` an `Instant` cannot hold, such as the `Duration::MAX` a
/// caller passes for "no limit" (`SystemHost::with_timeouts`, `Fixture::wait_log`, a vector's
/// settle `ms`); such a deadline is a century away instead.
#[allow(dead_code)]
pub(crate) fn deadline(after: Duration) -> Instant {
    const CENTURY: Duration = Duration::from_secs(100 * 365 * 24 * 60 * 60);
    let now = Instant::now();
    now.checked_add(after)
        .or_else(|| now.checked_add(CENTURY))
        .unwrap_or(now)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_deadline_too_far_for_an_instant_is_a_century_away() {
        let now = Instant::now();
        let far = deadline(Duration::MAX);
        assert!(far > now + Duration::from_secs(99 * 365 * 24 * 60 * 60));
        let near = deadline(Duration::from_millis(5));
        assert!(near >= now + Duration::from_millis(5) && near < far);
    }

    #[test]
    fn reads_the_effective_uid() {
        assert!(effective_uid_is_root("Name:\tx\nUid:\t1000\t0\t0\t0\n"));
        assert!(!effective_uid_is_root("Uid:\t0\t1000\t1000\t1000\n"));
        assert!(!effective_uid_is_root("Name:\tx\n"));
    }

    #[test]
    fn a_poisoned_lock_still_locks() {
        let m = std::sync::Arc::new(Mutex::new(1));
        let m2 = std::sync::Arc::clone(&m);
        let _ = std::thread::spawn(move || {
            let _g = m2.lock().unwrap();
            panic!("poison");
        })
        .join();
        assert!(m.is_poisoned());
        *lock(&m) += 1;
        assert_eq!(*lock(&m), 2);
    }
}
