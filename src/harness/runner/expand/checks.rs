//! The checks judged on a leg ([`LegChecks`]), their expansion once per leg run, and the reads
//! they need from the unguarded observer.

use std::collections::BTreeSet;

use super::leg::Leg;
use super::vars::Vars;
use crate::error::Error;
use crate::harness::runner::record::Read;
use crate::vectors::{BlockSpec, Check, Observation, Vector, SESSION_PAGE};

/// The names of the observations judged on a leg: the keys of `control.expected` on the
/// control leg, of `expected` on the guarded leg (none for text rows).
pub fn judged_names(vector: &Vector, leg: Leg) -> Vec<&str> {
    let expected = match leg {
        Leg::Control => &vector.control.expected,
        Leg::Guarded => &vector.expected,
    };
    match expected {
        crate::vectors::Expected::Checks(map) => map.keys().collect(),
        crate::vectors::Expected::Text(_) => Vec::new(),
    }
}

/// The checks judged on a leg, unexpanded: each judged observation's check (and, on the guarded
/// leg, its `eitherWhen`), then on the guarded leg the `liveCheck`.
pub fn leg_checks(vector: &Vector, leg: Leg) -> Vec<&Check> {
    LegChecks::new(vector, leg).all()
}

/// The checks judged on one leg of a vector, unexpanded, by role: each judged observation
/// (`control.expected`'s names on the control leg, `expected`'s on the guarded leg) with its
/// check and, on the guarded leg, its `eitherWhen`; on the guarded leg the `liveCheck`.
#[derive(Debug, Clone)]
pub struct LegChecks<'v> {
    observations: Vec<(&'v str, &'v Check, Option<&'v Check>)>,
    live: Option<&'v Check>,
}

impl<'v> LegChecks<'v> {
    /// The checks judged on `leg` of `vector`.
    pub fn new(vector: &'v Vector, leg: Leg) -> LegChecks<'v> {
        let guarded = leg == Leg::Guarded;
        let observations = judged_names(vector, leg)
            .into_iter()
            .filter_map(|name| {
                let Observation {
                    check, either_when, ..
                } = vector.observation(name)?;
                let when = either_when.as_ref().filter(|_| guarded);
                Some((name, check, when))
            })
            .collect();
        LegChecks {
            observations,
            live: vector.live_check.as_ref().filter(|_| guarded),
        }
    }

    /// Every check, in order: each observation's check and `eitherWhen`, then the `liveCheck`.
    pub fn all(&self) -> Vec<&'v Check> {
        let mut out = Vec::new();
        for (_, check, when) in &self.observations {
            out.push(*check);
            out.extend(*when);
        }
        out.extend(self.live);
        out
    }

    /// The checks expanded with a leg's (final) variables, once, for the observer's reads and
    /// the judge.
    pub fn expand(&self, vars: &Vars) -> ExpandedChecks<'v> {
        let expand = |c: &Check| vars.expand_check(c);
        ExpandedChecks {
            observations: self
                .observations
                .iter()
                .map(|(name, check, when)| ExpandedObservation {
                    name,
                    raw: check,
                    check: expand(check),
                    raw_when: *when,
                    either_when: when.map(expand),
                })
                .collect(),
            live: self.live.map(|c| (c, expand(c))),
        }
    }
}

/// One judged observation's checks, expanded.
#[derive(Debug, Clone)]
struct ExpandedObservation<'v> {
    name: &'v str,
    raw: &'v Check,
    check: Result<Check, Error>,
    raw_when: Option<&'v Check>,
    either_when: Option<Result<Check, Error>>,
}

/// A leg's checks ([`LegChecks`]) expanded with its final variables: each one `Err` with why
/// when it does not expand.
#[derive(Debug, Clone)]
pub struct ExpandedChecks<'v> {
    observations: Vec<ExpandedObservation<'v>>,
    live: Option<(&'v Check, Result<Check, Error>)>,
}

impl ExpandedChecks<'_> {
    /// The expanded check of the judged observation `name` and, on the guarded leg, its
    /// `eitherWhen`; `None` when `name` is not judged on the leg.
    #[allow(clippy::type_complexity)]
    pub fn observation(
        &self,
        name: &str,
    ) -> Option<(&Result<Check, Error>, Option<&Result<Check, Error>>)> {
        self.observations
            .iter()
            .find(|o| o.name == name)
            .map(|o| (&o.check, o.either_when.as_ref()))
    }

    /// The expanded `liveCheck` (the guarded leg's only).
    pub fn live(&self) -> Option<&Result<Check, Error>> {
        self.live.as_ref().map(|(_, c)| c)
    }

    /// Every read the checks need from the unguarded observer, sorted and without duplicates,
    /// as [`leg_reads`] gives them for the same variables.
    pub fn reads(&self, vars: &Vars) -> Vec<Read> {
        let mut reads = BTreeSet::new();
        let mut add = |raw: &Check, expanded: &Result<Check, Error>| match expanded {
            Ok(c) => collect_reads(c, vars, false, &mut reads),
            // a check that does not expand as a whole: its leaves that do still read
            Err(_) => collect_reads(raw, vars, true, &mut reads),
        };
        for o in &self.observations {
            add(o.raw, &o.check);
            if let (Some(raw), Some(when)) = (o.raw_when, &o.either_when) {
                add(raw, when);
            }
        }
        if let Some((raw, live)) = &self.live {
            add(raw, live);
        }
        reads.into_iter().collect()
    }
}

/// The read an unguarded check needs from the observer (the check expanded), or `None` for
/// every other check. `blocked`'s unguarded form and `frameBlocked` read the error frames
/// (`frameBlocked` always with the out-of-process iframes), `history` the navigation history;
/// a missing `session` is `page`.
pub fn read_for(check: &Check) -> Option<Read> {
    use crate::vectors::Observer;
    let session = |s: &Option<String>| s.clone().unwrap_or_else(|| SESSION_PAGE.to_string());
    let block_session = |b: &BlockSpec| session(&b.session);
    match check {
        Check::Title(c) => Some(Read::Title {
            session: session(&c.session),
        }),
        Check::Expression(c) => Some(Read::Expression {
            expression: c.expression.clone(),
            session: session(&c.session),
        }),
        Check::Blocked(c) if c.observer == Observer::Unguarded => Some(Read::Errors {
            session: block_session(&c.blocked),
            frame: c.blocked.frame == Some(true),
        }),
        Check::FrameBlocked(c) => Some(Read::Errors {
            session: block_session(&c.frame_blocked),
            frame: true,
        }),
        Check::History(c) => Some(Read::History {
            session: block_session(&c.history),
        }),
        Check::State(c) => Some(Read::State {
            origin: c.state.origin.clone(),
            cookie: c.state.cookie.clone(),
            storage: c.state.storage == Some(true),
        }),
        _ => None,
    }
}

/// Every read the leg's checks need from the unguarded observer, sorted and without
/// duplicates: checks expanded with `vars`, alternatives of an `any` that need a null origin
/// left out. Checks that do not expand are left out too (the judge reports them).
pub fn leg_reads(vector: &Vector, leg: Leg, vars: &Vars) -> Vec<Read> {
    let checks = LegChecks::new(vector, leg);
    checks.expand(vars).reads(vars)
}

/// The reads of a check's leaves into `out`; `expand`: each leaf is expanded with `vars` first
/// (when it does not expand it reads nothing), else the check is expanded already.
fn collect_reads(check: &Check, vars: &Vars, expand: bool, out: &mut BTreeSet<Read>) {
    match check {
        Check::All(_) | Check::Any(_) | Check::Not(_) => {
            for operand in check.operands() {
                if matches!(check, Check::Any(_)) && vars.null_reason_in_check(operand).is_some() {
                    continue;
                }
                collect_reads(operand, vars, expand, out);
            }
        }
        _ => {
            if vars.null_reason_in_check(check).is_some() {
                return;
            }
            let read = if expand {
                vars.expand_check(check).ok().as_ref().and_then(read_for)
            } else {
                read_for(check)
            };
            out.extend(read);
        }
    }
}
