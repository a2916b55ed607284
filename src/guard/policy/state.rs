//! What the policy remembers: targets, sessions, commands in flight, holds.

use std::collections::{HashMap, VecDeque};
use std::hash::Hash;

use serde_json::{json, Value};

use super::pattern::{FetchPattern, TargetFilter};

/// A map that forgets its oldest entries past `cap`. Forgetting is always the safe side:
/// the policy treats what it does not know as protected.
#[derive(Debug)]
pub(crate) struct Bounded<K, V> {
    map: HashMap<K, V>,
    order: VecDeque<K>,
    cap: usize,
}

impl<K: Eq + Hash + Clone, V> Bounded<K, V> {
    pub(crate) fn new(cap: usize) -> Self {
        Bounded {
            map: HashMap::new(),
            order: VecDeque::new(),
            cap: cap.max(1),
        }
    }

    pub(crate) fn insert(&mut self, k: K, v: V) {
        self.insert_forgetting(k, v, |_| {});
    }

    /// [`Bounded::insert`], handing each value forgotten to make room to `forgot`.
    pub(crate) fn insert_forgetting(&mut self, k: K, v: V, mut forgot: impl FnMut(V)) {
        if !self.map.contains_key(&k) {
            self.order.push_back(k.clone());
            while self.order.len() > self.cap {
                if let Some(old) = self.order.pop_front() {
                    if let Some(gone) = self.map.remove(&old) {
                        forgot(gone);
                    }
                }
            }
        }
        self.map.insert(k, v);
    }

    pub(crate) fn get(&self, k: &K) -> Option<&V> {
        self.map.get(k)
    }

    pub(crate) fn remove(&mut self, k: &K) -> Option<V> {
        self.map.remove(k)
    }

    pub(crate) fn contains(&self, k: &K) -> bool {
        self.map.contains_key(k)
    }

    /// Entries remembered.
    pub(crate) fn len(&self) -> usize {
        self.map.len()
    }
}

/// A set that forgets the entries least recently used past `cap` (used ones move to the back).
/// Forgetting is the safe side here too: a forgotten object id is refused.
#[derive(Debug)]
pub(crate) struct Recent {
    /// Entry -> its last use.
    map: HashMap<String, u64>,
    /// Uses in order; an entry whose use is not its last is stale and skipped.
    order: VecDeque<(String, u64)>,
    cap: usize,
    clock: u64,
}

impl Recent {
    pub(crate) fn new(cap: usize) -> Recent {
        Recent {
            map: HashMap::new(),
            order: VecDeque::new(),
            cap: cap.max(1),
            clock: 0,
        }
    }

    /// Adds `k`, or marks it used now.
    pub(crate) fn touch(&mut self, k: &str) {
        self.clock += 1;
        self.map.insert(k.to_string(), self.clock);
        self.order.push_back((k.to_string(), self.clock));
        while self.map.len() > self.cap {
            match self.order.pop_front() {
                Some((old, at)) if self.map.get(&old) == Some(&at) => {
                    self.map.remove(&old);
                }
                Some(_) => {}
                None => break,
            }
        }
        if self.order.len() > 2 * self.cap {
            let map = &self.map;
            self.order.retain(|(k, at)| map.get(k) == Some(at));
        }
    }

    pub(crate) fn contains(&self, k: &str) -> bool {
        self.map.contains_key(k)
    }

    /// Entries remembered.
    pub(crate) fn len(&self) -> usize {
        self.map.len()
    }
}

/// A target as the policy last saw it.
#[derive(Debug)]
pub(crate) struct TargetRecord {
    /// The last `TargetInfo`.
    pub(crate) info: Value,
    /// Its `type`.
    pub(crate) kind: String,
    /// Whether it is protected now (the spec's *Targets* rule).
    pub(crate) protected: bool,
    /// Whether it was protected before its current URL (the rule's "previous").
    pub(crate) previous: bool,
    /// A session showed a protected origin for its document (`Page.frameNavigated`,
    /// `Runtime.executionContextCreated`), until a URL with an origin of its own replaces it.
    pub(crate) origin: bool,
    /// Its opener was unknown when it was last judged (so the first discovery's rejudging may
    /// clear a protection that rested on that alone).
    pub(crate) unknown_opener: bool,
    /// Protected for the rest of its life: its page prefetched a protected document
    /// (speculation rules), which a navigation of that page may commit with no request to
    /// pause, or its back/forward list holds a protected page, which a history navigation
    /// restores with no request either (or it is the tab holding such a page).
    pub(crate) withheld: bool,
    /// Creation order, for listings.
    pub(crate) seq: u64,
    /// The client was told about it by the root session's discovery.
    pub(crate) announced: bool,
    /// Protected URLs whose main-frame document load the policy failed in this target (the
    /// most recent last, a few at most): the error page Chromium commits for such a load
    /// shows the failed URL as the target's URL, yet it is no protected document.
    pub(crate) blocked: Vec<String>,
    /// Its current URL is one of `blocked`: an error page, shown with its URL and title
    /// redacted to the origin.
    pub(crate) error_page: bool,
}

impl TargetRecord {
    /// Its URL (empty when the browser gave none).
    pub(crate) fn url(&self) -> &str {
        self.info["url"].as_str().unwrap_or_default()
    }

    /// Its browser context's id, as the browser wrote it.
    pub(crate) fn context(&self) -> Option<&Value> {
        self.info.get("browserContextId")
    }

    /// The target that opened it (`openerId`), else the frame (`openerFrameId`).
    pub(crate) fn opener(&self) -> Option<&str> {
        self.info
            .get("openerId")
            .or_else(|| self.info.get("openerFrameId"))
            .and_then(Value::as_str)
    }

    /// The target whose document holds it (`parentId`: an iframe target's).
    pub(crate) fn parent(&self) -> Option<&str> {
        self.info.get("parentId").and_then(Value::as_str)
    }
}

/// How many blocked URLs a target remembers.
pub(crate) const BLOCKED_KEPT: usize = 8;

/// What a session is attached to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// The browser target (the root, or `Target.attachToBrowserTarget`).
    Browser,
    /// A target that holds documents: the policy intercepts its document requests.
    Document,
    /// Anything else (workers, tabs).
    Other,
}

impl Kind {
    pub(crate) fn of(target_type: &str) -> Kind {
        match target_type {
            "browser" => Kind::Browser,
            "page" | "iframe" | "background_page" | "app" | "webview" | "prerender" => {
                Kind::Document
            }
            _ => Kind::Other,
        }
    }
}

/// A client's `Fetch.enable` on a session.
#[derive(Debug, Clone)]
pub(crate) struct ClientFetch {
    pub(crate) patterns: Vec<FetchPattern>,
    /// Its patterns as given (`[{"urlPattern": "*"}]` when it gave none).
    pub(crate) raw: Vec<Value>,
    pub(crate) handle_auth: bool,
}

/// A CDP session (the root is the one without a session id): what it is, and what each
/// concern keeps of it.
#[derive(Debug)]
pub(crate) struct Session {
    /// Its target id (empty for the root).
    pub(crate) target: String,
    pub(crate) kind: Kind,
    /// The session that attached it (where `Target.detachFromTarget` goes); empty for the root.
    pub(crate) parent: String,
    /// The client knows this session.
    pub(crate) visible: bool,
    /// Hidden or being detached: nothing of it reaches the client any more.
    pub(crate) closed: bool,
    /// The policy's own: a child target its own auto-attach gave it, which the client did not
    /// ask for (yet). Never shown to the client while so.
    pub(crate) own: bool,
    /// Its `Target.attachedToTarget` event, to show the client when it asks for it later.
    pub(crate) announce: Option<Value>,
    /// The policy's document interception is on.
    pub(crate) guarded: bool,
    /// The hold whose frame-tree check waits for the main frame's first document (see
    /// [`FirstCommit`]).
    pub(crate) first_commit: Option<FirstCommit>,
    /// The client's discovery on this session (the root only: answered by the policy).
    pub(crate) discover: Option<TargetFilter>,
    /// The client's auto-attach on this session (sessions.rs).
    pub(crate) auto: AutoAttach,
    /// The client's `Fetch` domain here, and the requests it was shown paused (fetch.rs).
    pub(crate) fetch: FetchSeen,
    /// The `Network` domain here: the client's, the requests and navigations seen (cookies.rs).
    pub(crate) network: NetworkSeen,
    /// The client enabled `Preload` here (the policy enables it on a new page session to
    /// read the prefetches its document holds; its events reach the client only while so).
    pub(crate) client_preload: bool,
    /// `Page.getNavigationHistory` entry ids and whether their URL is protected.
    pub(crate) history: Bounded<i64, bool>,
    /// The script, style sheet and object ids the client was shown here (scripts.rs).
    pub(crate) code: CodeSeen,
    /// What this session's pages loaded (loads.rs).
    pub(crate) loaded: Loaded,
    /// Request headers the client set here (kept off protected requests).
    pub(crate) overrides: Overrides,
    /// The client set a renderer-wide override here (time zone, locale, virtual time,
    /// network state): its document requests to a site a protected origin shares are failed.
    pub(crate) renderer_wide: bool,
}

/// The client's auto-attach on a session (sessions.rs).
#[derive(Debug, Default)]
pub(crate) struct AutoAttach {
    /// The client's `waitForDebuggerOnStart` for this session's auto-attach, which the policy
    /// turns on in the browser.
    pub(crate) wait: Option<bool>,
    /// The client's auto-attach filter on this session (with `wait`).
    pub(crate) filter: Option<TargetFilter>,
}

/// The client's `Fetch` domain on a session, and the paused requests it was shown (fetch.rs).
#[derive(Debug)]
pub(crate) struct FetchSeen {
    /// The client's own `Fetch.enable`, if any.
    pub(crate) client: Option<ClientFetch>,
    /// `Fetch` request ids the client was shown and may answer.
    pub(crate) paused: Bounded<String, ()>,
}

/// The `Network` domain on a session: the client's, and the requests and navigations the
/// policy saw (cookies.rs, commits.rs).
#[derive(Debug)]
pub(crate) struct NetworkSeen {
    /// The client enabled `Network` here (the policy keeps it on for its service-worker
    /// bypass; its events reach the client only while this is set).
    pub(crate) client: bool,
    /// `Network` request ids: whether the request's URL is protected, and its host.
    pub(crate) requests: Bounded<String, (bool, String)>,
    /// Document requests the policy's own `Network` domain saw start here (so its interception,
    /// on before, pauses their redirects too).
    pub(crate) navigations: Bounded<String, ()>,
}

/// The script, style sheet and object ids the client was shown on a session (scripts.rs).
#[derive(Debug)]
pub(crate) struct CodeSeen {
    /// `Debugger` script ids reported here, and whether each is from a protected origin.
    pub(crate) scripts: Bounded<String, bool>,
    /// `CSS` style sheet ids reported here, and whether each is from a protected origin.
    pub(crate) sheets: Bounded<String, bool>,
    /// `sheets` forgot a protected style sheet: an unknown sheet id in a `CSS` result is then
    /// taken for a protected one (see `scripts.rs`).
    pub(crate) sheets_forgot: bool,
    /// `Runtime` object ids the client was shown here (it may name only these).
    pub(crate) objects: Recent,
    /// The policy resumed a pause the client was not shown: the next `Debugger.resumed` is
    /// withheld too.
    pub(crate) resumed_hidden: bool,
}

/// What a session's pages loaded, and where each load started (loads.rs).
#[derive(Debug)]
pub(crate) struct Loaded {
    /// URLs this session's pages loaded something from, seen by the policy's own `Network`
    /// domain (or frames' documents), and whether that load ended on a protected origin (a
    /// redirect of an ordinary URL): see `loads.rs`.
    pub(crate) urls: Bounded<String, bool>,
    /// `urls` forgot a URL that ended on a protected origin, or a request's first URL was
    /// not known when it redirected to one: no URL is read as seen-ordinary any more (a URL
    /// forgotten then seen ordinary would otherwise read as ordinary).
    pub(crate) forgot: bool,
    /// `Network` request ids and the URL each started at (a redirect keeps the id).
    pub(crate) starts: Bounded<String, String>,
}

/// A new page session whose main frame has committed no document yet (its frame tree shows an
/// empty URL): a tab made with a URL whose first navigation is under way. That navigation began
/// before the session, so the interception does not see it, and Chromium answers the session's
/// commands from the initial empty document meanwhile and carries the session (its init
/// scripts among it) into whatever commits. The session's checks wait for that commit: each
/// `Target.targetInfoChanged` of the target asks for the frame tree again.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FirstCommit {
    /// The hold of the session's checks.
    pub(crate) hold: u64,
    /// A `Page.getFrameTree` for it is out.
    pub(crate) asked: bool,
    /// The target changed while it was out (its answer may predate a commit): ask again.
    pub(crate) changed: bool,
}

impl Session {
    pub(crate) fn new(target: &str, kind: Kind, parent: &str, cap: usize) -> Session {
        Session {
            target: target.to_string(),
            kind,
            parent: parent.to_string(),
            visible: false,
            closed: false,
            own: false,
            announce: None,
            guarded: false,
            first_commit: None,
            discover: None,
            auto: AutoAttach::default(),
            fetch: FetchSeen {
                client: None,
                paused: Bounded::new(cap),
            },
            network: NetworkSeen {
                client: false,
                requests: Bounded::new(cap),
                navigations: Bounded::new(cap),
            },
            client_preload: false,
            history: Bounded::new(cap),
            code: CodeSeen {
                scripts: Bounded::new(cap),
                sheets: Bounded::new(cap),
                sheets_forgot: false,
                objects: Recent::new(cap.saturating_mul(8)),
                resumed_hidden: false,
            },
            loaded: Loaded {
                urls: Bounded::new(cap),
                forgot: false,
                starts: Bounded::new(cap),
            },
            overrides: Default::default(),
            renderer_wide: false,
        }
    }
}

/// A client command forwarded to the browser and not answered yet.
#[derive(Debug)]
pub(crate) struct Pending {
    pub(crate) method: String,
    /// The concern the table routes it to: its answer goes there (browser.rs).
    pub(crate) concern: Option<super::table::Concern>,
    /// The `targetId` it named, for `Target.attachToTarget`.
    pub(crate) target: Option<String>,
    /// The `Network` or `Audits` request id it named: its answer is refused if the request
    /// turned protected meanwhile (a redirect the policy saw only after forwarding it).
    pub(crate) request: Option<String>,
}

/// Why the policy sent a command of its own.
#[derive(Debug)]
pub(crate) enum Own {
    /// The opening `Target.setDiscoverTargets`.
    Discover,
    /// Fire and forget (continue, fail, detach, resume).
    Ignore,
    /// Part of a hold's checks.
    Probe { hold: u64, what: Probe },
    /// A step of a `Storage.clearCookies` the policy does itself (see `compat`).
    Clear(Clearing),
    /// `Page.getNavigationHistory` on a new page session: a protected entry the tab could go
    /// back or forward to costs the session.
    Backlist,
    /// The policy's `Fetch.enable` widened to every request of a session whose client set
    /// request headers (see `overrides`).
    Widen,
    /// `Page.getResourceTree` on a new document session: a protected image it already shows
    /// marks the page (see `loads`).
    Resources,
}

/// A check a hold waits for.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Probe {
    /// The policy's `Fetch.enable` on a new session.
    Fetch,
    /// `Page.getFrameTree` on a new session: no frame of it may be protected.
    FrameTree,
    /// `Page.getNavigationHistory` before a `Page.navigateToHistoryEntry`.
    History { entry: i64 },
    /// The policy's own `Target.setAutoAttach` on a new document session: its frames in
    /// other processes are attached (and judged) before it is answered.
    AutoAttach,
    /// `Storage.getStorageKeyForFrame` of a frame whose URL inherits its origin
    /// (`about:blank`): the frame tree shows such a document's origin as `://`, the storage
    /// key its real one. `main` when it is the session's main frame.
    StorageKey { main: bool },
}

/// A message kept back until the policy's own commands are answered.
#[derive(Debug)]
pub(crate) struct Hold {
    pub(crate) waiting: u32,
    pub(crate) deadline: u64,
    pub(crate) blocked: bool,
    /// Why it failed, when the catalog's refusal alone does not say.
    pub(crate) reason: Option<super::refusal::Refusal<'static>>,
    /// The session the checks ran on.
    pub(crate) session: String,
    /// What it releases, in order.
    pub(crate) then: Vec<Then>,
}

/// What a hold releases.
#[derive(Debug)]
pub(crate) enum Then {
    /// A response to the client's `Target.attachToTarget`.
    Attached {
        response: Value,
        client_session: String,
        id: i64,
    },
    /// A `Target.attachedToTarget` event (auto-attach); `resume` when the client did not ask
    /// the target to wait for it.
    AutoAttached { event: Value, resume: bool },
    /// A client command (`Page.navigateToHistoryEntry`).
    Command {
        frame: String,
        session: String,
        id: i64,
        method: String,
    },
}

/// Where a `Storage.clearCookies` the policy does itself (compat.rs) is.
#[derive(Debug)]
pub(crate) enum Clear {
    /// The policy's `Storage.getCookies` is out.
    Listed,
    /// The policy's `Storage.setCookies` (the expiring cookies) is out.
    Expired,
}

/// The client command the policy answers when its clear is done.
#[derive(Debug)]
pub(crate) struct Clearing {
    pub(crate) step: Clear,
    /// The client's session and command id.
    pub(crate) session: String,
    pub(crate) id: i64,
    /// The browser context named, if any.
    pub(crate) context: Option<Value>,
}

/// What a client set on a session that reaches the page's requests.
#[derive(Debug, Clone, Default)]
pub(crate) struct Overrides {
    /// The header names of its `Network.setExtraHTTPHeaders`, lower case.
    pub(crate) headers: Vec<String>,
    /// `Network.setUserAgentOverride`: (a user agent, with its client hints; an
    /// `Accept-Language`).
    pub(crate) network: (bool, bool),
    /// `Emulation.setUserAgentOverride`, kept apart (Chromium keeps both).
    pub(crate) emulation: (bool, bool),
}

impl Overrides {
    /// Whether anything is overridden (the policy then intercepts every request).
    pub(crate) fn any(&self) -> bool {
        !self.headers.is_empty() || self.agent() || self.language()
    }

    fn agent(&self) -> bool {
        self.network.0 || self.emulation.0
    }

    fn language(&self) -> bool {
        self.network.1 || self.emulation.1
    }

    /// Whether a request header `name` may carry a value the client chose.
    fn taints(&self, name: &str) -> bool {
        let name = name.to_ascii_lowercase();
        self.headers.contains(&name)
            || (self.agent() && (name == "user-agent" || name.starts_with("sec-ch-ua")))
            || (self.language() && name == "accept-language")
    }

    /// The headers of a paused request without the client's values, as `Fetch.continueRequest`
    /// takes them; `None` when nothing is taken out.
    pub(crate) fn clean(&self, headers: &Value) -> Option<Value> {
        let map = headers.as_object()?;
        if !map.keys().any(|k| self.taints(k)) {
            return None;
        }
        Some(Value::Array(
            map.iter()
                .filter(|(k, _)| !self.taints(k))
                .map(|(k, v)| json!({"name": k, "value": v.as_str().unwrap_or_default()}))
                .collect(),
        ))
    }
}
