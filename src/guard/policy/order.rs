//! Chromium's order kept for the client: frames that follow a held one wait behind it.
//!
//! A new session is shown to the client only after the policy's checks on it (see
//! [`Core::check_session`](super::core::Core)), so its `Target.attachedToTarget` is held for a
//! round trip. Clients rely on Chromium's order around that event: Playwright's
//! `context.newPage()` reads the page its auto-attach made when the `Target.createTarget`
//! response arrives, and the response comes after the event in Chromium's order. So every
//! client-bound frame produced after a held session event waits in an outbox behind it, and
//! leaves when the hold settles (released, or failed closed: then nothing takes its place).
//! The outbox is bounded: past [`Config::max_pending`](super::config::Config) frames or
//! [`Config::max_held_bytes`](super::config::Config) bytes waiting, the oldest hold fails closed (its
//! session detached, an attach the client asked for refused), and what waited behind it leaves,
//! as often as it takes to get under both bounds.

use serde_json::Value;

use super::core::{int_id, session_of, Core};
use super::outbox::Slot;
use super::output::{Output, Refused};
use super::refusal::Refusal;

impl Core {
    /// A response that waited (`frame`, read into `v`) is judged again as it leaves: its
    /// session may have been detached, or what it names may have turned protected, while it
    /// waited.
    fn judged_again(&self, frame: String, mut v: Value) -> Option<(String, Option<Refused>)> {
        let key = session_of(&v);
        // Every answer the policy lets wait answers a command it forwarded (an integer id).
        let id = int_id(&v)?;
        let gone = !key.is_empty()
            && self
                .sessions
                .map
                .get(&key)
                .is_none_or(|s| s.closed || self.hidden(&s.target));
        if gone {
            // "No such session" (the policy's own answer to a session nobody has, or
            // Chromium's) carries nothing of a page: it keeps its words.
            if no_such_session(&v) {
                return Some((frame, None));
            }
            let (frame, refused) = self.refused_frame(&key, id, Refusal::SessionTurned);
            return Some((frame, Some(refused)));
        }
        if let Some(items) = v
            .pointer_mut("/result/targetInfos")
            .and_then(Value::as_array_mut)
        {
            items.retain(|i| {
                i["targetId"]
                    .as_str()
                    .is_some_and(|t| !self.hidden_or_unknown(t))
            });
        }
        Some(match self.scrub_member(&mut v, "result") {
            Err(()) => {
                let (frame, refused) = self.refused_frame(&key, id, Refusal::ResultProtected);
                (frame, Some(refused))
            }
            Ok(_) => (v.to_string(), None),
        })
    }

    /// Takes a place in the client's order for the frames hold `hid` will release.
    pub(super) fn keep_place(&mut self, hid: u64, out: &Output) {
        self.checks.order.marks.push((out.to_client.len(), hid));
        self.checks.order.placed.insert(hid);
    }

    /// Settles hold `hid` ([`Policy::release_hold`]); what it released for the client goes to
    /// its place in the order.
    pub(super) fn settle_hold(&mut self, hid: u64, out: &mut Output) {
        let start = out.to_client.len();
        self.release_hold(hid, out);
        if self.checks.order.placed.remove(&hid) {
            let frames = out.to_client.split_off(start.min(out.to_client.len()));
            self.checks.order.bytes += frames.iter().map(String::len).sum::<usize>();
            self.checks.order.filled.insert(hid, frames);
        }
    }

    /// Puts this call's client frames in order: behind every hold still waiting, in the order
    /// they were produced; sends on what is no longer behind one.
    pub(super) fn keep_order(&mut self, out: &mut Output) {
        if self.checks.order.outbox.is_empty() && self.checks.order.marks.is_empty() {
            return;
        }
        let fresh = std::mem::take(&mut out.to_client);
        let marks = std::mem::take(&mut self.checks.order.marks);
        let mut fresh = fresh.into_iter();
        let mut at = 0;
        let mut passing = Vec::new();
        for (index, hid) in marks {
            while at < index {
                match fresh.next() {
                    Some(f) => self.queue_or_pass(f, &mut passing),
                    None => break,
                }
                at += 1;
            }
            self.checks.order.outbox.push_back(Slot::Held(hid));
        }
        for f in fresh {
            self.queue_or_pass(f, &mut passing);
        }
        out.to_client.append(&mut passing);
        // Bounded: the oldest hold fails closed while too much waits behind it.
        loop {
            self.send_ready(out);
            if self.checks.order.outbox.len() <= self.rules.cfg.max_pending
                && self.checks.order.bytes <= self.rules.cfg.max_held_bytes
            {
                break;
            }
            let Some(hid) = self.checks.order.outbox.iter().find_map(|s| match s {
                Slot::Held(h) if !self.checks.order.filled.contains_key(h) => Some(*h),
                _ => None,
            }) else {
                break;
            };
            let mut side = Output::new();
            self.fail_holds(|h, _| h == hid, Some(Refusal::Backlog), &mut side);
            out.to_browser.append(&mut side.to_browser);
            out.detached.append(&mut side.detached);
            // A hold gone without settling (forgotten) leaves nothing.
            self.checks.order.filled.entry(hid).or_default();
            self.checks.order.placed.remove(&hid);
        }
    }

    /// Sends on the outbox's frames up to the first hold still waiting.
    fn send_ready(&mut self, out: &mut Output) {
        while let Some(slot) = self.checks.order.outbox.pop_front() {
            match slot {
                Slot::Ready(f) => {
                    self.checks.order.bytes = self.checks.order.bytes.saturating_sub(f.len());
                    if let Some((f, refused)) = self.event_again(f) {
                        out.to_client.push(f);
                        out.refused.extend(refused);
                    }
                }
                Slot::Held(hid) => match self.checks.order.filled.remove(&hid) {
                    Some(frames) => {
                        for f in frames {
                            self.checks.order.bytes =
                                self.checks.order.bytes.saturating_sub(f.len());
                            if let Some((f, refused)) = self.event_again(f) {
                                out.to_client.push(f);
                                out.refused.extend(refused);
                            }
                        }
                    }
                    None if self.checks.holds.contains_key(&hid) => {
                        self.checks.order.outbox.push_front(Slot::Held(hid));
                        break;
                    }
                    // Gone without settling: nothing takes its place.
                    None => {
                        self.checks.order.placed.remove(&hid);
                    }
                },
            }
        }
    }

    /// A frame waits in the outbox while a held session's place is still in it; else it
    /// passes now.
    fn queue_or_pass(&mut self, frame: String, passing: &mut Vec<String>) {
        let waiting = self
            .checks
            .order
            .outbox
            .iter()
            .any(|s| matches!(s, Slot::Held(_)));
        if waiting {
            self.checks.order.bytes += frame.len();
            self.checks.order.outbox.push_back(Slot::Ready(frame));
        } else {
            passing.push(frame);
        }
    }
}

/// Whether `v` is an answer saying its session does not exist, in Chromium's words (-32001),
/// and nothing else.
fn no_such_session(v: &Value) -> bool {
    v.get("result").is_none()
        && v.pointer("/error/code").and_then(Value::as_i64) == Some(-32001)
        && v.pointer("/error/message").and_then(Value::as_str)
            == Some("Session with given id not found.")
        && v["error"].as_object().is_some_and(|e| e.len() == 2)
}

impl Core {
    /// A frame that waited behind a hold is judged again as it leaves: an event of a session,
    /// about a target, or an attach of a session that was detached or turned protected
    /// meanwhile does not leave (an attach's session then counts as never shown); a response
    /// goes through [`Core::judged_again`].
    fn event_again(&mut self, frame: String) -> Option<(String, Option<Refused>)> {
        let Ok(v) = serde_json::from_str::<Value>(&frame) else {
            return Some((frame, None));
        };
        if v.get("method").is_none() {
            return self.judged_again(frame, v);
        }
        let shut = |p: &Core, key: &str| {
            !key.is_empty()
                && p.sessions
                    .map
                    .get(key)
                    .is_none_or(|s| s.closed || p.hidden(&s.target))
        };
        if shut(self, &session_of(&v)) {
            return None;
        }
        let named = v["params"]["targetInfo"]["targetId"]
            .as_str()
            .or_else(|| v["params"]["targetId"].as_str());
        // A target the client was shown and that is hidden now is gone for it: telling it so
        // (`targetDestroyed`, sent when the policy withholds it) names only what it knew.
        if v["method"]
            .as_str()
            .is_some_and(|m| m.starts_with("Target.") && m != "Target.targetDestroyed")
            && named.is_some_and(|t| self.hidden(t))
        {
            return None;
        }
        if v["method"] == "Target.attachedToTarget" {
            let sid = v["params"]["sessionId"].as_str().unwrap_or_default();
            let target = v["params"]["targetInfo"]["targetId"]
                .as_str()
                .unwrap_or_default();
            if sid.is_empty() || shut(self, sid) || self.hidden_or_unknown(target) {
                if let Some(s) = self.sessions.map.get_mut(sid) {
                    s.visible = false;
                }
                return None;
            }
        }
        Some((frame, None))
    }
}
