//! The guard's adversarial suite (issue 19): attacks that are not guard vectors, each run twice
//! in headless Chromium with the suite's own protected app ([`attacks::app`]): straight to
//! the browser, where it must work (judged from the app's log, the secret it holds, or an
//! unguarded observer; an attack that does not work unguarded proves nothing and fails the
//! test), and through [`slicc_browsers::guard::proxy::Proxy`], where it must not.
//!
//! Each leg (direct, guarded) runs every attack with a fresh client, closing what the attack
//! opened; a browser and its app run attacks one after the other. The direct leg has
//! [`DIRECT_BROWSERS`] browsers, the guarded leg [`GUARDED_BROWSERS`] (each with its own proxy),
//! all at the same time.
//!
//! [`OPEN`] lists the attacks known to get through the proxy today, each with its issue-19
//! class: they are reported, not failed, while the policy is being fixed; one that is stopped
//! now fails the test until it leaves the list, so the list only shrinks honestly. The test
//! ends with `attacks: <n>, <w> work unguarded, <g> got through`.
//!
//! `ATTACKS_SITE=bank.example` re-targets every attack from the catalog's `sliccy.ai` at a site
//! the catalog does not name, which the guarded leg's proxy protects with `--protect` (see
//! `attacks::site`).
//!
//! Skipped (with the reason printed) without /usr/bin/chromium, unless `CI` is set.
#![cfg(all(feature = "guard-proxy", feature = "guard-runner", unix))]

#[path = "../attacks/mod.rs"]
mod attacks;
#[path = "../needs/mod.rs"]
mod needs;

use std::time::{Duration, Instant};

use attacks::{list, Attack, Leg, Res, Stop, CHROMIUM, CLASSES};

/// The attacks that get through the proxy today, with their issue-19 class (1-6; 7 for the
/// suite's own; 8 for issue 36's). How each works: its doc in tests/attacks/.
const OPEN: &[(&str, u8)] = &[];

/// Attacks that get through by the policy's documented choice (its module docs' *Limits*):
/// client headers reach a protected WebSocket handshake (`Fetch` cannot pause one); the other
/// class-6 attacks are stopped since the policy keeps client headers off protected requests. Reported, not failed; one that
/// is stopped now fails the test until it leaves the list, as on [`OPEN`].
const LIMITS: &[(&str, u8)] = &[
    ("c6.extra-headers-websocket", 6),
    // A same-site frame's navigation under way at the attach commits in the page's process,
    // and a prefetched document is served behind a flood: the policy can only react (*Limits*).
    ("c2.inflight-same-site-frame", 2),
    // Cookies do not keep to a port: a page on another port of the extra origin's host reads
    // them (*Limits*).
    ("c7.cookie-other-port", 7),
];

/// Attacks seen to get through in some runs and stopped in others (a race the attacker wins
/// now and then, even with its retries): reported, failed neither way.
const RACY: &[(&str, u8)] = &[
    // A documented limit (the flood tilts the subframe cut): got through 2 of 2 runs before
    // blocked loads were shown to the client as failed navigations, stopped 2 of 2 after
    // (load ~20); a race either way, not a fix to count on.
    ("c2.inflight-same-site-frame-hop-flood", 2),
    // Documented limits behind a flood as well (a prefetch-served navigation): got through at
    // load ~20, stopped 1 of 1 in a clean-clone run at load ~10. A race either way.
    ("c2.prefetch-navigation-flood", 2),
    ("c2.prefetch-same-site-flood", 2),
];

/// How one leg went for one attack.
struct LegResult {
    res: Res,
    took: Duration,
}

/// How many browsers run the guarded leg (its stopped attacks wait out their evidence: about
/// 4 s an attack, against 1.6 s for one that works).
const GUARDED_BROWSERS: usize = 3;

/// How many browsers run the direct leg: with one, it took as long as the guarded leg's three
/// (370 s of attacks one after the other, against 306 s on each guarded browser), so it was
/// the suite's wall time.
const DIRECT_BROWSERS: usize = 2;

/// Runs every `workers`-th attack from `first` on a leg of its own; (index, result) pairs.
fn run_leg(
    guarded: bool,
    attacks: &[Attack],
    first: usize,
    workers: usize,
) -> Result<Vec<(usize, LegResult)>, String> {
    let mut leg = Leg::start(guarded)?;
    let only = std::env::var("ATTACKS_ONLY").unwrap_or_default();
    let mut out = Vec::new();
    for (i, a) in attacks.iter().enumerate().skip(first).step_by(workers) {
        if !only.is_empty() && !only.split(',').any(|o| a.id.contains(o)) {
            let res = Err(Stop::Setup("skipped by ATTACKS_ONLY".into()));
            out.push((
                i,
                LegResult {
                    res,
                    took: Duration::ZERO,
                },
            ));
            continue;
        }
        // Unguarded, every attack gets a second try (a slow machine is no reason to call
        // it useless); through the proxy, one on OPEN gets three (so a slow run does not
        // look like a fix), the others their own.
        let open = OPEN.iter().chain(LIMITS).any(|(id, _)| *id == a.id);
        let tries = match (guarded, open) {
            (false, _) => a.tries.max(2),
            (true, true) => a.tries.max(3),
            (true, false) => a.tries,
        };
        let (mut res, mut took) = leg.run(a, tries);
        if leg.observer.is_closed() {
            // The browser died (under the attack, or on its own): say so, start a fresh
            // one, and run the attack again there.
            println!(
                "note: the {} browser died during {} ({}); restarted",
                leg.name,
                a.id,
                describe(&res)
            );
            leg = Leg::start(guarded)?;
            (res, took) = leg.run(a, tries);
            if leg.observer.is_closed() {
                // An attack that closes the browser (and worked again): the next attack
                // gets a fresh one.
                leg = Leg::start(guarded)?;
            }
        }
        out.push((i, LegResult { res, took }));
    }
    Ok(out)
}

/// Runs a leg on `workers` browsers at once: one result per attack, in order.
fn run_legs(guarded: bool, attacks: &[Attack], workers: usize) -> Vec<LegResult> {
    let mut all: Vec<(usize, LegResult)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|k| scope.spawn(move || run_leg(guarded, attacks, k, workers)))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| {
                h.join()
                    .expect("a leg panicked")
                    .expect("a leg's browser starts")
            })
            .collect()
    });
    all.sort_by_key(|(i, _)| *i);
    all.into_iter().map(|(_, r)| r).collect()
}

fn describe(r: &Res) -> String {
    match r {
        Ok(e) => format!("worked: {e}"),
        Err(Stop::Failed(w)) => format!("stopped: {w}"),
        Err(Stop::Setup(w)) => format!("setup failed: {w}"),
    }
}

#[test]
fn attacks_work_unguarded_and_not_through_the_proxy() {
    if needs::missing(CHROMIUM, needs::chromium()) {
        return;
    }
    let started = Instant::now();
    let attacks = list::all();
    let mut ids = std::collections::HashSet::new();
    for a in &attacks {
        assert!(ids.insert(a.id), "{} twice", a.id);
        assert!((1..=8).contains(&a.class), "{}: class {}", a.id, a.class);
        assert!(a.id.starts_with(&format!("c{}.", a.class)), "{}", a.id);
    }
    for (id, class) in OPEN.iter().chain(LIMITS).chain(RACY) {
        let a = attacks.iter().find(|a| a.id == *id);
        assert!(a.is_some(), "OPEN names {id}, which is not an attack");
        assert_eq!(a.map(|a| a.class), Some(*class), "OPEN's class of {id}");
    }
    let (direct, guarded) = std::thread::scope(|scope| {
        let d = scope.spawn(|| run_legs(false, &attacks, DIRECT_BROWSERS));
        let g = scope.spawn(|| run_legs(true, &attacks, GUARDED_BROWSERS));
        (
            d.join().expect("the direct leg panicked"),
            g.join().expect("the guarded leg panicked"),
        )
    });
    assert_eq!(direct.len(), attacks.len());
    assert_eq!(guarded.len(), attacks.len());

    let only = std::env::var("ATTACKS_ONLY").unwrap_or_default();
    let mut problems = Vec::new();
    let (mut n, mut works, mut through) = (0, 0, 0);
    for ((a, d), g) in attacks.iter().zip(&direct).zip(&guarded) {
        if !only.is_empty() && !only.split(',').any(|o| a.id.contains(o)) {
            continue;
        }
        n += 1;
        let open = OPEN.iter().chain(LIMITS).any(|(id, _)| *id == a.id);
        let racy = RACY.iter().any(|(id, _)| *id == a.id);
        println!(
            "{} [class {}: {}] {}\n  direct  ({:.1}s): {}\n  guarded ({:.1}s): {}",
            a.id,
            a.class,
            CLASSES[usize::from(a.class) - 1],
            a.what,
            d.took.as_secs_f64(),
            describe(&d.res),
            g.took.as_secs_f64(),
            describe(&g.res),
        );
        // A baseline probe works unguarded when Chromium shows the right behaviour.
        let unguarded_ok = if a.baseline {
            matches!(d.res, Err(Stop::Failed(_)))
        } else {
            d.res.is_ok()
        };
        if unguarded_ok {
            works += 1;
        } else if a.baseline {
            problems.push(format!(
                "{}: the probe does not see Chromium's own behaviour unguarded, so it proves nothing ({})",
                a.id,
                describe(&d.res)
            ));
        } else {
            problems.push(format!(
                "{}: does not work unguarded, so it proves nothing ({})",
                a.id,
                describe(&d.res)
            ));
        }
        match &g.res {
            Ok(e) => {
                through += 1;
                if !open && !racy {
                    problems.push(format!("{}: got through the proxy: {e}", a.id));
                }
            }
            Err(Stop::Setup(w)) => {
                problems.push(format!("{}: the guarded leg's setup failed: {w}", a.id))
            }
            Err(Stop::Failed(_)) if open => problems.push(format!(
                "{}: is on OPEN (or LIMITS) but the proxy stops it now: take it off the list",
                a.id
            )),
            Err(Stop::Failed(_)) => {}
        }
    }
    println!("open (known to get through, issue-19 class):");
    for (id, class) in OPEN {
        println!("  {id} (class {class})");
    }
    println!("documented limits (got through by the policy's choice):");
    for (id, class) in LIMITS {
        println!("  {id} (class {class})");
    }
    println!("racy (got through in some runs):");
    for (id, class) in RACY {
        println!("  {id} (class {class})");
    }
    println!("took {:.1}s", started.elapsed().as_secs_f64());
    println!(
        "attacks: {n}, {works} work unguarded, {through} got through (protected site {}{})",
        attacks::site(),
        if attacks::site() == "sliccy.ai" {
            ", the catalog's"
        } else {
            ", given with --protect"
        }
    );
    assert!(
        problems.is_empty(),
        "{} problem(s):\n{}",
        problems.len(),
        problems.join("\n")
    );
}
