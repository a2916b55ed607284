//! A CDP guard as a state machine (feature `guard`): it sees every message between a CDP
//! client and the browser and says what to do with each, so that browser control never reaches
//! a protected origin ([`crate::protected`]) while everything else keeps working.
//!
//! [`Policy`] does no I/O, starts no thread and reads no clock: the caller feeds it each frame
//! (text) with the time in milliseconds, and sends on what comes back in [`Output`]. It builds
//! for `wasm32-wasip1`. Every judgement about a URL, a cookie domain or a storage key goes
//! through [`Matcher`]: URLs through [`Matcher::cookie_url`] ([`Matcher::url`], with `ws:` and
//! `wss:` read as `http:` and `https:`, since a WebSocket or a cookie command on seven reaches
//! seven's cookies). A guard should pass a [`Matcher::strict`] matcher, as the proxy does: its
//! readings without Chromium evidence only ever add protection.
//!
//! ```
//! use slicc_browsers::guard::policy::{Policy, Verdict};
//! use slicc_browsers::protected::Matcher;
//!
//! let matcher = Matcher::new(&slicc_browsers::shared_catalog().protected_origins, &[] as &[&str]).unwrap();
//! let mut policy = Policy::new(matcher);
//!
//! // The policy opens with its own target discovery (ids in a reserved range)...
//! let start = policy.start(0);
//! assert!(start.to_browser[0].contains("Target.setDiscoverTargets"));
//! // ...and is ready once the browser has answered it.
//! let id = slicc_browsers::guard::policy::RESERVED_IDS.start();
//! policy.from_browser(r#"{"method":"Target.targetCreated","params":{"targetInfo":{"targetId":"T1","type":"page","title":"","url":"https://example.test/","attached":false,"canAccessOpener":false}}}"#, 1);
//! let ready = policy.from_browser(&format!(r#"{{"id":{id},"result":{{}}}}"#), 2);
//! assert_eq!(ready.verdict, Verdict::Own);
//!
//! // A navigation to seven is refused with the catalog's refusal...
//! let out = policy.from_client(r#"{"id":1,"method":"Target.createTarget","params":{"url":"https://seven.sliccy.ai/"}}"#, 3);
//! assert_eq!(out.verdict, Verdict::Refuse);
//! assert!(out.to_browser.is_empty());
//! assert!(out.to_client[0].contains("slicc: refused: target is on seven's origin"));
//!
//! // ...and an ordinary one goes through unchanged.
//! let out = policy.from_client(r#"{"id":2,"method":"Target.createTarget","params":{"url":"https://example.test/"}}"#, 4);
//! assert_eq!(out.verdict, Verdict::Forward);
//! assert_eq!(out.to_browser.len(), 1);
//! ```
//!
//! # What it does
//!
//! Each class below is written up, with the Chromium behaviour it rests on, in `docs/guard.md`.
//!
//! - **Default deny**: only the commands the table classifies (`table`, from `commands.json`:
//!   every command of Chromium 156's protocol) are forwarded, judged parameter by parameter,
//!   answered by the policy or refused with why; any other command is refused as unclassified,
//!   and a parameter the table does not list is judged as if it named an origin.
//! - **Targets** are judged by the spec's *Targets* rule with [`Matcher::target`] (URL, previous
//!   origin, opener, the origin a session shows); a protected one is left out of every listing
//!   and event, and a command naming it, or a target the policy never saw, is refused.
//! - **Belonging and reach**: what belongs to a protected page (its frames of any origin, the
//!   popups that can script it, its workers with no origin of their own) is a protected target
//!   too (`belonging.rs`), and a command is judged by everything its table entry says it
//!   reaches (its target, tab, renderer process, browser context, the browser, a host's
//!   cookies), not by the URL of the session it is sent on (`reach.rs`).
//! - **Sessions** the client gets to a document target first get the policy's own
//!   `Fetch.enable` for document requests, its `Network` and `Preload` domains, its auto-attach
//!   and a frame-tree, history and resource check; a document request to a protected URL on such
//!   a session is failed before it is sent (a popup's first document is let load for the user
//!   once every session on it is detached), and a session whose target turns protected anyway
//!   is detached.
//! - **Requests, cookies and storage** of protected origins are withheld, answered by the policy
//!   or filtered out; commands naming them are refused, and the client may name only ids it was
//!   shown as ordinary (requests, scripts, style sheets, objects).
//! - **Browser-internal pages** ([`internal_url`], local files, the browser's own DevTools
//!   endpoint: [`Config::devtools_endpoints`]) count as protected.
//! - **Local paths** in [`Config::protected_paths`] (resolved through [`LocalPaths`]) are named by
//!   no command; **downloads**, the **clipboard**, **renderer-wide overrides**, **profiling**,
//!   **navigations under way**, **prefetches**, **client request headers**, **service workers**,
//!   **protected scripts, style sheets and images in a client's page** each have their rule.
//!
//! Refusals are CDP errors (code `-32000`) carrying [`Matcher::refusal`]; where the reason is
//! not the protected origin itself, it follows in brackets.
//!
//! # What it remembers, and its bounds
//!
//! Everything a policy keeps for its connection is bounded ([`Policy::footprint`] counts it),
//! whatever the client sends:
//!
//! - **Client commands in flight**: at most [`Config::max_pending`] (65,536); one more is
//!   answered `slicc: guard: too many commands in flight`. A command Chromium would answer
//!   without its id (an id outside 32 bits, a member named twice) is answered by the policy
//!   and never counted. A duplicate id on a session is refused.
//! - **Commands before the discovery is answered**: at most [`Config::max_queue`] (4,096)
//!   and [`Config::max_held_bytes`] (256 MiB); more are answered
//!   `slicc: guard: too many commands while starting`.
//! - **Frames for the client waiting behind a session's checks** (Chromium's order kept, see
//!   `order.rs`): at most [`Config::max_pending`] frames and [`Config::max_held_bytes`]
//!   bytes; past either, the oldest checks fail closed (the session detached, an attach the
//!   client asked for refused with the refusal and `(too much for the client waited behind
//!   this session's checks)`) until what is left is within both. Checks also fail closed
//!   after [`Config::hold_ms`].
//! - **What judging one message costs**: a parsed JSON value takes about 80 bytes however
//!   short its text, so a message of many small values grows some 40 times when parsed (a
//!   60 MB answer of 30 million zeros took a proxy to 2.2 GB). A message of 1 MiB or more is
//!   parsed only when it holds at most [`Config::max_values`] (8,000,000, about 0.6 GiB
//!   parsed) values, counted first without allocating; over it, a client's message is
//!   answered `slicc: guard: the message holds too many JSON values to judge (N; limit M)`,
//!   a browser's answer becomes that error for its command (for the policy's own check: the
//!   check fails closed), a browser's event is dropped.
//! - **Per session** (request, script, style sheet, history entry and paused request ids):
//!   [`Config::per_session`] (8,192) each, object ids 8 times that, the oldest forgotten
//!   (forgotten ids are refused: the safe side). So are the URLs a session saw load
//!   (loads.rs); once one that ended on a protected origin is forgotten, no URL is read as
//!   seen-ordinary on that session any more (only the target's own URL).
//! - **Sessions made from sessions**: a client's `Target.attachToTarget` or
//!   `attachToBrowserTarget` on a session 64 deep is refused (`slicc: guard: sessions nest at
//!   most 64 deep`): Chromium 156 crashes when the outermost of 30,000 nested browser
//!   sessions is detached (measured straight), which would close the user's protected tabs.
//!   Forgetting a session forgets what it attached with a work list, not recursion, however
//!   deep the browser nests them.
//! - **Targets and sessions** as long as the browser has them: forgotten when it reports them
//!   destroyed or detached (a destroyed target's protection kept for [`Config::gone`], 4,096,
//!   for openers); out-of-process frames and the pages hosting them likewise.
//!
//! # Limits
//!
//! What the policy cannot rule out from where it stands, each with an attack that shows it
//! (`docs/guard.md`, *Limits*, has the reasoning and what a protected app does about each): a
//! document that commits with no request to pause while a page floods requests (a same-site
//! frame's navigation under way at the attach, a prefetch-served navigation); client headers on a
//! WebSocket handshake; cookies on another port of an extra origin's host; what an ordinary page's
//! own script or rendering holds of protected content, and protected images it loaded before the
//! session by another name; a protected cookie sent to an ordinary origin; protected URLs inside
//! ordinary content; local files beyond the protected paths; downloads before the client chooses
//! a behaviour; and the clipboard by the user's own grants.

mod belonging;
mod browser;
pub(crate) mod budget;
mod client;
mod clipboard;
mod command;
mod commits;
mod compat;
mod config;
mod cookies;
mod core;
mod deny;
mod downloads;
mod endpoints;
mod fetch;
mod footprint;
mod holds;
mod loads;
mod local_paths;
mod order;
mod outbox;
mod output;
mod overrides;
mod pattern;
mod reach;
mod refusal;
mod scripts;
mod scrub;
mod sessions;
mod shown;
mod state;
pub mod table;
mod targets;
mod walk;

use std::collections::VecDeque;

use serde_json::json;

use crate::protected::Matcher;
pub use config::{Config, LocalPaths, Resolved};
pub use core::RESERVED_IDS;
use core::{Core, ROOT};
pub use footprint::Footprint;
pub use output::{Output, Refused, Verdict, REFUSAL_CODE};
pub use scrub::{internal_url, INTERNAL_SCHEMES};
use state::Own;

/// The guard policy: one per client connection (see the module docs).
#[derive(Debug)]
pub struct Policy {
    /// What every concern works over: the rules, own ids, targets and sessions (core.rs).
    core: Core,
    /// The client frames kept until the browser answers the policy's discovery.
    start: Start,
    /// Download folders and cancelled downloads (downloads.rs).
    downloads: downloads::Downloads,
}

/// The client frames kept until the browser answers the policy's discovery.
#[derive(Debug, Default)]
struct Start {
    /// The discovery was sent.
    started: bool,
    /// The browser answered it.
    ready: bool,
    /// Client frames kept meanwhile, in order.
    queue: VecDeque<String>,
    /// Bytes in `queue`.
    bytes: usize,
}

impl Policy {
    /// A policy over `matcher` with the default [`Config`].
    pub fn new(matcher: Matcher) -> Policy {
        Policy::with_config(matcher, Config::default())
    }

    /// A policy over `matcher` with the limits of `config`; the matcher also protects
    /// [`Config::protect`].
    pub fn with_config(matcher: Matcher, config: Config) -> Policy {
        let matcher = matcher.protecting(&config.protect);
        let downloads = downloads::Downloads::new(config.per_session, config.local_paths.clone());
        Policy {
            core: Core::new(matcher, config),
            start: Start::default(),
            downloads,
        }
    }

    /// The matcher every judgement goes through.
    pub fn matcher(&self) -> &Matcher {
        &self.core.rules.m
    }

    /// The policy's opening commands (its target discovery). Calling it is optional: the first
    /// message in either direction starts the policy too. Client commands wait (verdict
    /// [`Verdict::Hold`]) until the browser has answered the discovery.
    pub fn start(&mut self, now_ms: u64) -> Output {
        self.core.checks.now = now_ms;
        let mut out = Output::new();
        out.set(Verdict::Own, "start");
        self.ensure_started(&mut out);
        out
    }

    /// Whether the browser has answered the policy's discovery.
    pub fn is_ready(&self) -> bool {
        self.start.ready
    }

    /// A frame from the client (a command `{id, method, params?, sessionId?}`), at `now_ms`.
    pub fn from_client(&mut self, frame: &str, now_ms: u64) -> Output {
        self.core.checks.now = self.core.checks.now.max(now_ms);
        let mut out = Output::new();
        self.ensure_started(&mut out);
        self.core.expire(&mut out);
        if let Some(n) = self.core.over_budget(frame) {
            self.core.client_over_budget(frame, n, &mut out);
            self.core.flush_cut(&mut out);
            self.core.keep_order(&mut out);
            return out;
        }
        if !self.start.ready {
            if self.start.queue.len() >= self.core.rules.cfg.max_queue
                || self.start.bytes.saturating_add(frame.len()) > self.core.rules.cfg.max_held_bytes
            {
                self.core.client_error(
                    frame,
                    -32000,
                    "slicc: guard: too many commands while starting",
                    &mut out,
                );
                out.set(Verdict::Refuse, "queue full");
            } else {
                self.start.bytes += frame.len();
                self.start.queue.push_back(frame.to_string());
                out.set(Verdict::Hold, "starting");
            }
            self.core.flush_cut(&mut out);
            self.core.keep_order(&mut out);
            return out;
        }
        self.core.client_frame(&mut self.downloads, frame, &mut out);
        self.core.flush_cut(&mut out);
        self.core.keep_order(&mut out);
        out
    }

    /// A frame from the browser (a response `{id, result|error, sessionId?}` or an event
    /// `{method, params, sessionId?}`), at `now_ms`.
    pub fn from_browser(&mut self, frame: &str, now_ms: u64) -> Output {
        self.core.checks.now = self.core.checks.now.max(now_ms);
        let mut out = Output::new();
        self.ensure_started(&mut out);
        self.core.expire(&mut out);
        match self.core.over_budget(frame) {
            Some(n) => self.core.browser_over_budget(frame, n, &mut out),
            None => self
                .core
                .browser_frame(&mut self.downloads, frame, &mut out),
        }
        self.let_kept_go(&mut out);
        self.core.flush_cut(&mut out);
        self.core.keep_order(&mut out);
        out
    }

    /// Lets time pass: held messages whose checks did not come back in time fail closed.
    pub fn tick(&mut self, now_ms: u64) -> Output {
        self.core.checks.now = self.core.checks.now.max(now_ms);
        let mut out = Output::new();
        out.set(Verdict::Own, "tick");
        self.core.expire(&mut out);
        self.core.flush_cut(&mut out);
        self.core.keep_order(&mut out);
        out
    }

    /// Client commands in flight (forwarded, not answered).
    pub fn in_flight(&self) -> usize {
        self.core.sessions.pending.len()
    }

    /// What this policy remembers now, counted (for tests and monitoring).
    pub fn footprint(&self) -> Footprint {
        let queued = self.start.queue.len();
        let downloads = self.downloads.entries();
        Footprint::of(&self.core, queued, self.start.bytes, downloads)
    }

    /// Once the browser answered the discovery ([`core::Ids::discovered`]): the policy is
    /// ready, and the client frames kept meanwhile are judged, in order.
    fn let_kept_go(&mut self, out: &mut Output) {
        if !std::mem::take(&mut self.core.ids.discovered) {
            return;
        }
        self.start.ready = true;
        let kept: Vec<String> = self.start.queue.drain(..).collect();
        self.start.bytes = 0;
        for frame in kept {
            self.core.client_frame(&mut self.downloads, &frame, out);
        }
        out.set(Verdict::Own, "guard ready");
    }

    fn ensure_started(&mut self, out: &mut Output) {
        if self.start.started {
            return;
        }
        self.start.started = true;
        let msg = self.core.own_command(
            ROOT,
            "Target.setDiscoverTargets",
            json!({"discover": true, "filter": [{}]}),
            Own::Discover,
        );
        out.to_browser.push(msg);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A command that came before the browser answered the discovery and is answered with an
    /// error once it did is recorded in that later output, as a refusal is: a relay logs it
    /// from the record (a session nobody has: Chromium's protocol error, `Invalid`).
    #[test]
    fn an_error_for_a_command_kept_while_starting_is_recorded() {
        let m = Matcher::new(
            &crate::catalog::shared_catalog().protected_origins,
            &[] as &[&str],
        )
        .unwrap();
        let mut p = Policy::new(m);
        let kept = p.from_client(
            r#"{"id":10,"method":"Runtime.evaluate","sessionId":"NOPE"}"#,
            0,
        );
        assert_eq!(kept.verdict, Verdict::Hold);
        assert!(kept.refused.is_empty());
        let discovery = *RESERVED_IDS.start();
        let out = p.from_browser(&format!(r#"{{"id":{discovery},"result":{{}}}}"#), 1);
        assert!(p.is_ready());
        assert_eq!(out.to_client.len(), 1, "{:?}", out.to_client);
        assert_eq!(
            out.refused,
            vec![Refused {
                session: "NOPE".into(),
                id: 10,
                message: "Session with given id not found.".into(),
                verdict: Verdict::Invalid,
            }]
        );
    }
}
