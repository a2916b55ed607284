//! The check evaluator: every check kind on a leg run ([`Ctx`]), with how a holding check holds
//! for liveness (§4.6: a logged URL or heartbeat on the target's origin, a `pre` heartbeat paired
//! with an exact-URL block, a matched refusal).

use serde_json::Value;

use super::ctx::{CallRead, Ctx};
use super::error::{CheckError, EvalError};
use super::log::{loaded_url, pre_url, same_url, served_matches};
use super::values::{at_path, has_cookie, has_url_with_prefix, outcome_at};
use super::Truth;
use crate::harness::runner::expand::{chain_urls, origin_of};
use crate::harness::runner::plan::{leaf_requirement, prefer_origin, requirement};
use crate::harness::runner::predicate;
use crate::vectors::{Check, Observer, UrlRef};

/// How a holding leaf holds, for liveness.
pub(super) enum Proof {
    /// Nothing §4.6 accepts.
    None,
    /// Logged URLs (a proof when one is on the target's origin).
    Logged(Vec<String>),
    /// A `/live` heartbeat from this origin.
    Heartbeat(String),
    /// The pre-action heartbeat for these URLs.
    Pre(Vec<String>),
    /// An exact-URL block of these URLs.
    Block(Vec<String>),
    /// A matched refusal.
    Refusal,
    /// The unguarded observer's read of the canary state (`state`).
    State,
    /// A call refused or filtered (`refused` that is no matched refusal, `filtered`).
    Call,
}

/// A judged check node, with what liveness needs to know.
pub(super) struct Node {
    pub(super) truth: Truth,
    pub(super) proves: bool,
    pub(super) pre: Vec<String>,
    pub(super) block: Vec<String>,
    /// A `state` read holds in it.
    pub(super) state: bool,
    /// A `refused` or `filtered` call holds in it.
    pub(super) call: bool,
    pub(super) kinds: Vec<&'static str>,
}

impl Ctx<'_> {
    /// Expands and evaluates a check; `Err` when it does not expand.
    pub(super) fn evaluate(&self, check: &Check) -> Result<Truth, EvalError> {
        let expanded = self.vars.expand_check(check)?;
        Ok(self.node(&expanded).truth)
    }

    pub(super) fn node(&self, check: &Check) -> Node {
        let mut node = Node {
            truth: Truth::False,
            proves: false,
            pre: Vec::new(),
            block: Vec::new(),
            state: false,
            call: false,
            kinds: Vec::new(),
        };
        match check {
            Check::All(_) => {
                let mut all_true = true;
                for c in check.operands() {
                    let n = self.node(c);
                    match n.truth {
                        Truth::Skip(r) => {
                            node.truth = Truth::Skip(r);
                            return node;
                        }
                        Truth::False => all_true = false,
                        Truth::True => {
                            node.proves |= n.proves;
                            node.pre.extend(n.pre);
                            node.block.extend(n.block);
                            node.state |= n.state;
                            node.call |= n.call;
                            node.kinds.extend(n.kinds);
                        }
                    }
                }
                node.truth = Truth::from_bool(all_true);
                if all_true {
                    let paired = node.pre.iter().any(|p| node.block.contains(p));
                    // The canary read outside the guard with a refused or filtered call: the
                    // cookie and storage rows' proof (issue 29, reading 3).
                    node.proves |= paired || (node.state && node.call);
                    if !node.proves && !node.pre.is_empty() && !node.block.is_empty() {
                        node.kinds
                            .push("a pre heartbeat and a block for different URLs");
                    }
                } else {
                    node.proves = false;
                }
            }
            Check::Any(_) => {
                let mut reasons = Vec::new();
                let mut available = false;
                for c in check.operands() {
                    if let Some(r) = requirement(c, self.vars, self.observer) {
                        reasons.push(r);
                        continue;
                    }
                    available = true;
                    let n = self.node(c);
                    if n.truth == Truth::True {
                        node.truth = Truth::True;
                        node.proves |= n.proves;
                        node.pre.extend(n.pre);
                        node.block.extend(n.block);
                        node.state |= n.state;
                        node.call |= n.call;
                        node.kinds.extend(n.kinds);
                    }
                }
                if !available {
                    node.truth = Truth::Skip(prefer_origin(reasons).unwrap_or_default());
                }
            }
            Check::Not(c) => {
                let n = self.node(&c.not);
                node.truth = match n.truth {
                    Truth::True => Truth::False,
                    Truth::False => Truth::True,
                    skip => skip,
                };
                node.kinds.push("not");
            }
            leaf => {
                if let Some(r) = leaf_requirement(leaf, self.vars, self.observer) {
                    node.truth = Truth::Skip(r);
                    return node;
                }
                let (holds, proof) = self.leaf(leaf);
                node.truth = Truth::from_bool(holds);
                if holds {
                    let target = self.vars.get("target");
                    let on_target = |u: &str| target.is_some() && origin_of(u) == target;
                    match proof {
                        Proof::None => node.kinds.push(leaf.kind().as_str()),
                        Proof::Logged(urls) => {
                            if urls.iter().any(|u| on_target(u)) {
                                node.proves = true;
                            } else {
                                node.kinds.push("a request logged off the target's origin");
                            }
                        }
                        Proof::Heartbeat(origin) => {
                            if Some(origin.as_str()) == target {
                                node.proves = true;
                            } else {
                                node.kinds.push("a heartbeat off the target's origin");
                            }
                        }
                        Proof::Pre(urls) => {
                            node.pre = urls;
                            node.kinds.push("pre");
                        }
                        Proof::Block(urls) => {
                            node.block = urls;
                            node.kinds.push(leaf.kind().as_str());
                        }
                        Proof::Refusal => node.proves = true,
                        Proof::State => {
                            node.state = true;
                            node.kinds.push("state");
                        }
                        Proof::Call => {
                            node.call = true;
                            node.kinds.push(leaf.kind().as_str());
                        }
                    }
                }
            }
        }
        node
    }

    pub(super) fn leaf(&self, check: &Check) -> (bool, Proof) {
        match check {
            Check::Beacon(c) => (self.beacon(&c.beacon), Proof::None),
            // A bare path with no `origin` is that path on any origin (issue 21, reading 3).
            Check::Served(c) if c.origin.is_none() && c.served.starts_with('/') => {
                let matched: Vec<String> = self
                    .log
                    .iter()
                    .filter(|e| served_matches(&e.url[e.origin.len()..], &c.served))
                    .map(|e| e.url.to_string())
                    .collect();
                (!matched.is_empty(), Proof::Logged(matched))
            }
            Check::Served(c) => {
                let url = match &c.origin {
                    Some(o) if c.served.starts_with('/') => format!("{o}{}", c.served),
                    _ => c.served.clone(),
                };
                let holds = self.log.iter().any(|e| served_matches(e.url, &url));
                (holds, Proof::Logged(vec![url]))
            }
            Check::Header(c) => {
                let name = c.header.to_ascii_lowercase();
                let holds = self.log.iter().any(|e| {
                    same_url(e.url, &c.on)
                        && e.raw.headers.iter().any(|(k, v)| {
                            k.eq_ignore_ascii_case(&name)
                                && c.value.as_ref().is_none_or(|want| {
                                    v == want || v.split(',').any(|p| p.trim() == want)
                                })
                        })
                });
                (holds, Proof::Logged(vec![c.on.clone()]))
            }
            // Each exact nested redirect URL, not the destination `to`: that is judged by its
            // own observation (issue 29, reading 1).
            Check::Hops(c) => {
                let mut urls = chain_urls(&c.hops, &c.to);
                urls.truncate(c.hops.len());
                let holds = !urls.is_empty() && urls.iter().all(|u| self.logged(u));
                (holds, Proof::Logged(urls))
            }
            Check::Pre(c) => {
                let url = pre_url(&c.pre);
                (
                    self.pre(url.as_deref()),
                    Proof::Pre(url.into_iter().collect()),
                )
            }
            Check::Loaded(c) => {
                let Some(url) = loaded_url(&c.loaded) else {
                    self.error(CheckError::NoChainUrl);
                    return (false, Proof::None);
                };
                if self.logged(&url) {
                    return (true, Proof::Logged(vec![url]));
                }
                match self.heartbeat(&url) {
                    Some(origin) => (true, Proof::Heartbeat(origin)),
                    None => (false, Proof::None),
                }
            }
            Check::Event(c) => (self.event(&c.event, c.r#where.as_ref()), Proof::None),
            Check::Result(c) => {
                if let Err(e) = predicate::validate(&c.equals) {
                    self.error(CheckError::ResultEquals {
                        name: c.result.clone(),
                        error: e,
                    });
                    return (false, Proof::None);
                }
                let holds = self.outcome(&c.result).is_some_and(|v| {
                    let at = outcome_at(v, c.path.as_deref());
                    self.predicate(&c.equals, at)
                });
                (holds, Proof::None)
            }
            Check::Cookie(c) => {
                let holds = self
                    .outcome(&c.from)
                    .is_some_and(|v| has_cookie(v, &c.cookie, c.on.as_deref()));
                (holds, Proof::None)
            }
            Check::Compare(c) => {
                let holds = match c.compare.as_slice() {
                    [a, b] => match (self.outcome(a), self.outcome(b)) {
                        (Some(x), Some(y)) => {
                            let (x, y) = (at_path(x, Some(&c.path)), at_path(y, Some(&c.path)));
                            x.is_some() && x == y
                        }
                        _ => false,
                    },
                    _ => {
                        self.error(CheckError::CompareNames);
                        false
                    }
                };
                (holds, Proof::None)
            }
            // Every name read by its outcome, refusable or not, a `guess` by its attempts
            // (issue 29, reading 2); only names the driver recorded refused by their refusable
            // step's own `refusal.match` are the refusal §4.6 accepts alone.
            Check::Refused(c) => {
                let names = self.names(&c.refused, true);
                let pattern = c.refusal.as_ref().map(|r| r.pattern.as_str());
                let holds = !names.is_empty()
                    && names
                        .iter()
                        .all(|n| self.call_reads(n, pattern) == CallRead::Refused);
                let matched = holds && names.iter().all(|n| self.record.refused.contains(n));
                let proof = if matched { Proof::Refusal } else { Proof::Call };
                (holds, proof)
            }
            // The call got an answer that is not a refusal: a browser error (`ok: false` with
            // an error no refusal matches) is still reached (issue 21, reading 10); a refusal
            // is read as for `refused` (issue 29, reading 2).
            Check::Reached(c) => {
                let names = self.names(&c.reached, false);
                let holds = !names.is_empty()
                    && names
                        .iter()
                        .all(|n| self.call_reads(n, None) == CallRead::Reached);
                (holds, Proof::None)
            }
            Check::Registration(c) => {
                if c.registration != "any" {
                    self.error(CheckError::Registration(c.registration.clone()));
                    return (false, Proof::None);
                }
                let names = self.refusal_names();
                let holds = names.iter().any(|n| self.record.refused.contains(n));
                (holds, if holds { Proof::Refusal } else { Proof::None })
            }
            Check::Filtered(c) => {
                let names = self.names(&c.filtered.from, false);
                let holds = !names.is_empty()
                    && names.iter().all(|n| {
                        self.outcome(n).is_some_and(|v| {
                            v.get("ok") == Some(&Value::Bool(true))
                                && !has_cookie(v, &c.filtered.cookie, c.filtered.on.as_deref())
                        })
                    });
                (holds, Proof::Call)
            }
            Check::Attached(c) => (
                self.attached(&c.attached, c.session.as_deref()),
                Proof::None,
            ),
            Check::Delivered(c) => {
                let holds = self.events().iter().any(|e| {
                    e.get("params")
                        .is_some_and(|p| has_url_with_prefix(p, &c.delivered))
                });
                (holds, Proof::None)
            }
            Check::Detached(c) => (self.record.detached.contains(&c.detached), Proof::None),
            Check::Executed(c) => (self.record.executed.contains(&c.executed), Proof::None),
            Check::Live(_) => (self.observer, Proof::None),
            Check::Blocked(c) => {
                let urls = self.block_urls(&c.blocked);
                let holds = match c.observer {
                    Observer::Unguarded => self.unguarded_blocked(check, &urls, false),
                    _ => self.client_blocked(&c.blocked, &urls),
                };
                (holds, Proof::Block(urls))
            }
            Check::FrameBlocked(c) => {
                let urls = self.block_urls(&c.frame_blocked);
                (
                    self.unguarded_blocked(check, &urls, true),
                    Proof::Block(urls),
                )
            }
            Check::History(c) => {
                let urls = self.block_urls(&c.history);
                let refs: Vec<&UrlRef> = c
                    .history
                    .url
                    .iter()
                    .chain(c.history.any_of.iter().flatten())
                    .collect();
                let pre = refs.iter().any(|r| self.pre(pre_url(r).as_deref()));
                let history: Vec<String> = match self.read(check) {
                    Some(Value::Array(items)) => items
                        .iter()
                        .filter_map(|i| match i {
                            Value::String(s) => Some(s.clone()),
                            other => other.get("url").and_then(Value::as_str).map(str::to_string),
                        })
                        .collect(),
                    _ => Vec::new(),
                };
                let holds = pre
                    && urls
                        .iter()
                        .any(|u| history.iter().any(|h| same_url(h, u)) && !self.logged(u));
                (holds, Proof::Block(urls))
            }
            Check::Title(c) => {
                let holds = matches!(self.read(check), Some(Value::String(t)) if t == c.title);
                (holds, Proof::None)
            }
            Check::Expression(c) => {
                if let Err(e) = predicate::validate(&c.equals) {
                    self.error(CheckError::ExpressionEquals(e));
                    return (false, Proof::None);
                }
                let holds = self
                    .read(check)
                    .is_some_and(|v| self.predicate(&c.equals, Some(&v)));
                (holds, Proof::None)
            }
            Check::State(c) => {
                let holds = match self.read(check) {
                    Some(Value::String(s)) => s == c.state.value,
                    Some(Value::Null) => c.state.value.is_empty(),
                    _ => false,
                };
                (holds, Proof::State)
            }
            Check::All(_) | Check::Any(_) | Check::Not(_) => {
                (self.node(check).truth == Truth::True, Proof::None)
            }
        }
    }
}
