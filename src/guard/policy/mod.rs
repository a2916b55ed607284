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
mod cookies;
mod deny;
mod downloads;
mod endpoints;
mod fetch;
mod footprint;
mod holds;
mod loads;
mod order;
mod overrides;
mod paths;
mod pattern;
mod reach;
mod refusal;
mod scripts;
mod scrub;
mod sessions;
mod state;
pub mod table;
mod targets;
mod walk;

use std::collections::{HashMap, HashSet, VecDeque};
use std::ops::RangeInclusive;
use std::sync::Arc;

use serde_json::{json, Value};

use crate::protected::{Matcher, ProtectPattern};
pub use footprint::Footprint;
pub use paths::{LocalPaths, Resolved};
pub use scrub::{internal_url, INTERNAL_SCHEMES};
use state::{Hold, Own, Pending, SessionRecord, TargetRecord};

/// The command ids the policy uses for its own commands. Chromium reads ids as 32-bit
/// integers; a client command with an id in this range is refused.
pub const RESERVED_IDS: RangeInclusive<i64> = 2_000_000_000..=2_147_483_647;

/// The part of [`RESERVED_IDS`] the policy's own `Target.setAutoAttach` commands take, counted
/// down from the top.
const AUTO_IDS: RangeInclusive<i64> = 2_147_000_000..=2_147_483_647;

/// How deep a client may nest sessions it attaches from sessions: a `Target.attachToTarget`
/// or `attachToBrowserTarget` on a session this deep is refused (see the module docs).
const MAX_NESTING: usize = 64;

/// The commands the policy sends of its own (its discovery, auto-attach, checks, and the
/// answers to paused requests it keeps from the client). Every other command its code names
/// is one the table routes to the concern whose code names it (a unit test in table.rs).
pub(crate) const OWN_COMMANDS: [&str; 20] = [
    "Browser.cancelDownload",
    "Debugger.resume",
    "Fetch.continueRequest",
    "Fetch.continueResponse",
    "Fetch.continueWithAuth",
    "Fetch.enable",
    "Fetch.failRequest",
    "Network.enable",
    "Network.setBypassServiceWorker",
    "Page.getFrameTree",
    "Page.getNavigationHistory",
    "Page.getResourceTree",
    "Preload.enable",
    "Runtime.runIfWaitingForDebugger",
    "Storage.getCookies",
    "Storage.getStorageKeyForFrame",
    "Storage.setCookies",
    "Target.detachFromTarget",
    "Target.setAutoAttach",
    "Target.setDiscoverTargets",
];

/// The key of the root session: the browser connection itself, whose messages carry no
/// `sessionId`.
const ROOT: &str = "";

/// The CDP error code of a refusal (Chromium's generic server error).
pub const REFUSAL_CODE: i64 = -32000;

/// What the policy did with the message it was given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Passed on unchanged.
    Forward,
    /// Passed on changed: protected targets, cookies or storage taken out.
    Rewrite,
    /// A client command answered with a refusal; the browser never sees it.
    Refuse,
    /// A client command the policy answered itself (`Target.setDiscoverTargets` on the root).
    Answer,
    /// Withheld from the client (protected, or about a session the client does not have).
    Drop,
    /// Kept back until the policy's own checks are answered; a later call releases it.
    Hold,
    /// A response to the policy's own command, swallowed.
    Own,
    /// Not a CDP message (the client gets a protocol error; a browser frame is dropped).
    Invalid,
}

/// A refusal the policy answered a client command with: the command (its session and id)
/// and the refusal's words, as its frame in [`Output::to_client`] carries them. A relay logs
/// these instead of reading its frames back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    /// The session the command came on (empty for the root).
    pub session: String,
    /// The command's id.
    pub id: i64,
    /// The refusal's message (the catalog's refusal, then why in brackets).
    pub message: String,
}

/// The parameters of a command of the policy's own: a value, or parameters encoded once
/// (the same for every session: the `Fetch.enable` of every session's checks).
pub(crate) enum OwnParams {
    /// Encoded with the command.
    Value(Value),
    /// Already JSON text (an object).
    Encoded(std::sync::Arc<str>),
}

impl From<Value> for OwnParams {
    fn from(v: Value) -> OwnParams {
        OwnParams::Value(v)
    }
}

/// What to do after one message: frames to send each way, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Output {
    /// What happened to the message given.
    pub verdict: Verdict,
    /// Why, in a few words (for logs and tests).
    pub why: &'static str,
    /// Frames for the browser, in order (the policy's own commands, then what it forwards).
    pub to_browser: Vec<String>,
    /// Frames for the client, in order.
    pub to_client: Vec<String>,
    /// Sessions the policy is detaching with this output.
    pub detached: Vec<String>,
    /// The refusals the policy decided with this output, in order: their frames are in
    /// `to_client`, or, behind a session's checks, in the output that ends them.
    pub refused: Vec<Refused>,
}

impl Output {
    fn new() -> Output {
        Output {
            verdict: Verdict::Forward,
            why: "",
            to_browser: Vec::new(),
            to_client: Vec::new(),
            detached: Vec::new(),
            refused: Vec::new(),
        }
    }

    fn set(&mut self, verdict: Verdict, why: &'static str) {
        self.verdict = verdict;
        self.why = why;
    }
}

/// Limits, timeouts, the protected local paths and the user's own protected sites.
#[derive(Debug, Clone)]
pub struct Config {
    /// How long a held message waits for the policy's checks before it fails closed (ms).
    pub hold_ms: u64,
    /// Client commands in flight at most; more are refused.
    pub max_pending: usize,
    /// Client frames kept while the policy's discovery starts; more are refused.
    pub max_queue: usize,
    /// Bytes of messages kept back at most: client frames kept while the policy's discovery
    /// starts (more are refused), and client-bound frames waiting behind a session's checks
    /// (past it the oldest checks fail closed, see the module docs).
    pub max_held_bytes: usize,
    /// JSON values a message may hold to be judged (a parsed value takes about 80 bytes, so
    /// this bounds what judging one message costs: about 0.6 GiB at the default); a client's
    /// message over it is refused, a browser's answer over it becomes an error for its
    /// command, a browser's event over it is dropped. Messages under 1 MiB are not counted.
    pub max_values: usize,
    /// Request ids, history entries and paused requests remembered per session.
    pub per_session: usize,
    /// Targets remembered after they are destroyed (for openers).
    pub gone: usize,
    /// Local folders no command may name a file in (the browser's user-data dir: its files
    /// hold every site's storage, cookies and history in the clear). A file input, a drop or an
    /// app's file launch naming a file in one, a folder holding one, or a path the policy
    /// cannot place (relative, through `/proc` or `/dev/fd`) is refused, as is a download
    /// folder in one and any other absolute path or `file:` URL in one. Empty by default:
    /// the policy does not know where the profile is (see the module docs' *Limits*).
    pub protected_paths: Vec<String>,
    /// How to resolve local paths on the browser's machine (symbolic links, file identities)
    /// for [`Config::protected_paths`]; the policy does no I/O itself. `None` (the default):
    /// paths are judged lexically only.
    pub local_paths: Option<Arc<dyn LocalPaths>>,
    /// The browser's DevTools HTTP endpoints (`host:port`: the proxy's upstream). A page there
    /// reads every tab's URL and title and, on its own origin, opens the browser WebSocket
    /// with no guard in between, so any URL on such a port whose host reaches it (a loopback
    /// or unspecified address, `localhost` and the names under it, the endpoint's own host)
    /// counts as browser-internal (see the module docs). Empty by default.
    pub devtools_endpoints: Vec<String>,
    /// The user's own protected sites, host patterns and origins (`--protect`), each read once
    /// by [`ProtectPattern::parse`]: the policy's matcher protects them too
    /// ([`Matcher::protecting`]), with every reading it applies to the catalog's origins.
    /// Empty by default.
    ///
    /// ```
    /// use slicc_browsers::guard::policy::{Config, Policy};
    /// use slicc_browsers::protected::{Matcher, ProtectPattern};
    /// let matcher = Matcher::new(&slicc_browsers::shared_catalog().protected_origins, &[] as &[&str]).unwrap();
    /// let config = Config {
    ///     protect: vec![ProtectPattern::parse("bank.example").unwrap()],
    ///     ..Config::default()
    /// };
    /// let policy = Policy::with_config(matcher.strict(), config);
    /// assert!(policy.matcher().url("https://login.BANK.example./"));
    /// ```
    pub protect: Vec<ProtectPattern>,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            hold_ms: 10_000,
            max_pending: 65_536,
            max_queue: 4_096,
            max_held_bytes: 256 << 20,
            max_values: 8_000_000,
            per_session: 8_192,
            gone: 4_096,
            protected_paths: Vec::new(),
            local_paths: None,
            devtools_endpoints: Vec::new(),
            protect: Vec::new(),
        }
    }
}

/// The guard policy: one per client connection (see the module docs).
#[derive(Debug)]
pub struct Policy {
    m: Matcher,
    cfg: Config,
    started: bool,
    ready: bool,
    queue: VecDeque<String>,
    /// Bytes in `queue`.
    queue_bytes: usize,
    next_own: i64,
    next_auto: i64,
    own: HashMap<i64, (String, Own)>,
    pending: HashMap<(String, i64), Pending>,
    /// Sessions cut during the message being handled: their commands still in flight are
    /// answered at its end.
    cut: Vec<String>,
    targets: HashMap<String, TargetRecord>,
    gone: state::Bounded<String, bool>,
    seq: u64,
    root: SessionRecord,
    sessions: HashMap<String, SessionRecord>,
    holds: HashMap<u64, Hold>,
    next_hold: u64,
    now: u64,
    order: order::Order,
    /// Child target (an out-of-process frame) -> the target whose session attached it.
    frame_hosts: HashMap<String, String>,
    /// Targets hosting a frame on a protected origin (in another process, out of reach of
    /// their own session's interception).
    hosting: HashSet<String>,
    /// Targets showing a protected image (or holding a frame that does): see `loads.rs`.
    showing: HashSet<String>,
    /// The policy's own `Fetch` patterns for images, media and `Other` requests
    /// ([`fetch::shown_patterns`]), built once from the matcher.
    shown: fetch::Shown,
    /// The protected local paths ([`Config::protected_paths`]), resolved once.
    paths: paths::Protected,
    /// The browser's DevTools endpoints ([`Config::devtools_endpoints`]).
    endpoints: endpoints::Endpoints,
    /// Download folders and cancelled downloads (downloads.rs).
    downloads: downloads::Downloads,
    /// The browser contexts the client created (`Target.createBrowserContext` answers): only
    /// theirs may be wiped, without the protected cookies (compat.rs).
    client_contexts: state::Bounded<String, ()>,
    /// Protected first documents of popups the policy let go on to their response
    /// (`<session>\n<request id>`), where the popup's sessions are detached (fetch.rs).
    handoffs: state::Bounded<String, ()>,
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
        let mut root = SessionRecord::new("", state::Kind::Browser, ROOT, config.per_session);
        root.visible = true;
        let paths = paths::Protected::new(&config.protected_paths, config.local_paths.clone());
        let endpoints = endpoints::Endpoints::new(&config.devtools_endpoints);
        Policy {
            endpoints,
            shown: fetch::Shown::new(&matcher),
            m: matcher,
            root,
            paths,
            downloads: downloads::Downloads::new(config.per_session, config.local_paths.clone()),
            gone: state::Bounded::new(config.gone),
            client_contexts: state::Bounded::new(config.gone),
            handoffs: state::Bounded::new(config.gone),
            cfg: config,
            started: false,
            ready: false,
            queue: VecDeque::new(),
            queue_bytes: 0,
            next_own: *RESERVED_IDS.start(),
            next_auto: *AUTO_IDS.end(),
            own: HashMap::new(),
            pending: HashMap::new(),
            cut: Vec::new(),
            targets: HashMap::new(),
            seq: 0,
            sessions: HashMap::new(),
            holds: HashMap::new(),
            next_hold: 0,
            now: 0,
            order: order::Order::default(),
            frame_hosts: HashMap::new(),
            hosting: HashSet::new(),
            showing: HashSet::new(),
        }
    }

    /// The matcher every judgement goes through.
    pub fn matcher(&self) -> &Matcher {
        &self.m
    }

    /// The policy's opening commands (its target discovery). Calling it is optional: the first
    /// message in either direction starts the policy too. Client commands wait (verdict
    /// [`Verdict::Hold`]) until the browser has answered the discovery.
    pub fn start(&mut self, now_ms: u64) -> Output {
        self.now = now_ms;
        let mut out = Output::new();
        out.set(Verdict::Own, "start");
        self.ensure_started(&mut out);
        out
    }

    /// Whether the browser has answered the policy's discovery.
    pub fn is_ready(&self) -> bool {
        self.ready
    }

    /// A frame from the client (a command `{id, method, params?, sessionId?}`), at `now_ms`.
    pub fn from_client(&mut self, frame: &str, now_ms: u64) -> Output {
        self.now = self.now.max(now_ms);
        let mut out = Output::new();
        self.ensure_started(&mut out);
        self.expire(&mut out);
        if let Some(n) = self.over_budget(frame) {
            self.client_over_budget(frame, n, &mut out);
            self.flush_cut(&mut out);
            self.keep_order(&mut out);
            return out;
        }
        if !self.ready {
            if self.queue.len() >= self.cfg.max_queue
                || self.queue_bytes.saturating_add(frame.len()) > self.cfg.max_held_bytes
            {
                self.client_error(
                    frame,
                    -32000,
                    "slicc: guard: too many commands while starting",
                    &mut out,
                );
                out.set(Verdict::Refuse, "queue full");
            } else {
                self.queue_bytes += frame.len();
                self.queue.push_back(frame.to_string());
                out.set(Verdict::Hold, "starting");
            }
            self.flush_cut(&mut out);
            self.keep_order(&mut out);
            return out;
        }
        self.client_frame(frame, &mut out);
        self.flush_cut(&mut out);
        self.keep_order(&mut out);
        out
    }

    /// A frame from the browser (a response `{id, result|error, sessionId?}` or an event
    /// `{method, params, sessionId?}`), at `now_ms`.
    pub fn from_browser(&mut self, frame: &str, now_ms: u64) -> Output {
        self.now = self.now.max(now_ms);
        let mut out = Output::new();
        self.ensure_started(&mut out);
        self.expire(&mut out);
        match self.over_budget(frame) {
            Some(n) => self.browser_over_budget(frame, n, &mut out),
            None => self.browser_frame(frame, &mut out),
        }
        self.flush_cut(&mut out);
        self.keep_order(&mut out);
        out
    }

    /// Lets time pass: held messages whose checks did not come back in time fail closed.
    pub fn tick(&mut self, now_ms: u64) -> Output {
        self.now = self.now.max(now_ms);
        let mut out = Output::new();
        out.set(Verdict::Own, "tick");
        self.expire(&mut out);
        self.flush_cut(&mut out);
        self.keep_order(&mut out);
        out
    }

    /// Client commands in flight (forwarded, not answered).
    pub fn in_flight(&self) -> usize {
        self.pending.len()
    }

    fn ensure_started(&mut self, out: &mut Output) {
        if self.started {
            return;
        }
        self.started = true;
        let msg = self.own_command(
            ROOT,
            "Target.setDiscoverTargets",
            json!({"discover": true, "filter": [{}]}),
            Own::Discover,
        );
        out.to_browser.push(msg);
    }

    /// A command of the policy's own on `session` (empty for the root), serialised.
    fn own_command(
        &mut self,
        session: &str,
        method: &str,
        params: impl Into<OwnParams>,
        why: Own,
    ) -> String {
        debug_assert!(
            OWN_COMMANDS.contains(&method),
            "{method} is not in OWN_COMMANDS"
        );
        // The policy's own auto-attach counts its ids down from the top of the range (so
        // the other commands' ids read the same in traces with or without it).
        let auto = matches!(
            method,
            "Target.setAutoAttach"
                | "Network.enable"
                | "Network.setBypassServiceWorker"
                | "Preload.enable"
        ) || matches!(why, Own::Backlist | Own::Widen | Own::Resources);
        let id = if auto { self.next_auto } else { self.next_own };
        if auto {
            self.next_auto = if self.next_auto <= *AUTO_IDS.start() {
                *AUTO_IDS.end()
            } else {
                self.next_auto - 1
            };
        } else {
            self.next_own = if self.next_own >= *AUTO_IDS.start() - 1 {
                *RESERVED_IDS.start()
            } else {
                self.next_own + 1
            };
        }
        self.own.insert(id, (session.to_string(), why));
        match params.into() {
            OwnParams::Value(params) => {
                let mut msg = json!({"id": id, "method": method, "params": params});
                if session != ROOT {
                    msg["sessionId"] = Value::String(session.to_string());
                }
                msg.to_string()
            }
            // As serde_json writes the message above (members in order, no spaces).
            OwnParams::Encoded(params) => {
                let method = Value::from(method);
                let mut msg = format!(r#"{{"id":{id},"method":{method},"params":{params}"#);
                if session != ROOT {
                    msg.push_str(r#","sessionId":"#);
                    msg.push_str(&Value::from(session).to_string());
                }
                msg.push('}');
                msg
            }
        }
    }

    fn session(&self, key: &str) -> Option<&SessionRecord> {
        if key == ROOT {
            Some(&self.root)
        } else {
            self.sessions.get(key)
        }
    }

    fn session_mut(&mut self, key: &str) -> Option<&mut SessionRecord> {
        if key == ROOT {
            Some(&mut self.root)
        } else {
            self.sessions.get_mut(key)
        }
    }

    /// Whether a document's URL or origin is off limits to the client: protected, or a
    /// browser-internal page ([`internal_url`]).
    fn off_limits(&self, url: &str) -> bool {
        self.m.cookie_url(url) || self.internal(url)
    }

    /// Whether `url` is browser-internal ([`internal_url`]) or a page of the browser's own
    /// DevTools endpoint ([`Config::devtools_endpoints`]).
    fn internal(&self, url: &str) -> bool {
        internal_url(url) || self.endpoints.url(url)
    }

    /// The error answering command `id` on `session` with refusal `r`.
    fn refused_frame(&self, session: &str, id: i64, r: refusal::Refusal) -> (String, Refused) {
        self.refusal(session, id, r.message(self.m.refusal()))
    }

    /// Refusal `r` of client command `id` on `session`, to the client.
    fn push_refused(&self, session: &str, id: i64, r: refusal::Refusal, out: &mut Output) {
        let (frame, refused) = self.refused_frame(session, id, r);
        out.to_client.push(frame);
        out.refused.push(refused);
    }

    /// The refusal error for client command `id` on `session`, with `message`: its frame and
    /// its record.
    fn refusal(&self, session: &str, id: i64, message: String) -> (String, Refused) {
        let frame = self.refusal_frame(session, &Value::from(id), &message);
        let refused = Refused {
            session: session.to_string(),
            id,
            message,
        };
        (frame, refused)
    }

    /// The refusal error for a client command.
    fn refusal_frame(&self, session: &str, id: &Value, message: &str) -> String {
        let mut msg = json!({"id": id, "error": {"code": REFUSAL_CODE, "message": message}});
        if session != ROOT {
            msg["sessionId"] = Value::String(session.to_string());
        }
        msg.to_string()
    }
}

/// The `id` of a parsed frame, when it is an integer.
fn int_id(v: &Value) -> Option<i64> {
    v.get("id").and_then(Value::as_i64)
}

/// The `sessionId` of a parsed frame, empty for the root.
fn session_of(v: &Value) -> String {
    v.get("sessionId")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A command of the policy's own reads the same whether its parameters were encoded
    /// with it or before.
    #[test]
    fn own_commands_encode_alike() {
        let m = crate::protected::Matcher::new(
            &crate::catalog::shared_catalog().protected_origins,
            &[] as &[&str],
        )
        .unwrap();
        let params = json!({"patterns": [{"urlPattern": "*\"q\u{1}", "resourceType": "Image"}]});
        for session in ["", "S1", "a\"b\\c\u{2028}"] {
            let mut p = Policy::new(m.clone());
            let by_value = p.own_command(session, "Fetch.enable", params.clone(), Own::Ignore);
            let mut p = Policy::new(m.clone());
            let encoded = OwnParams::Encoded(params.to_string().into());
            let by_text = p.own_command(session, "Fetch.enable", encoded, Own::Ignore);
            assert_eq!(by_value, by_text);
            assert!(serde_json::from_str::<Value>(&by_text).is_ok());
        }
    }
}
