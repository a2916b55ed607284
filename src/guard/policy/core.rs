//! The core every concern of the policy works over: the rules every judgement reads (the
//! matcher, the limits, the protected paths, the browser's DevTools endpoints), the ids of the
//! policy's own commands, the targets and what belongs to what, the sessions with the client's
//! commands in flight on them, and the checks on those sessions (holds, and the order of what
//! waits behind them: a session detached answers its held commands at once, in Chromium's
//! order, so the two change together). `Policy` (mod.rs) holds the core beside what is not
//! the core's: the client frames kept while it starts, and the downloads (a concern answering
//! `on_command` / `on_event` over the core). The concern files judge over the core
//! (`impl Core` in each); the core imports none of them (docs/architecture.md draws it).

use std::collections::{HashMap, HashSet};
use std::ops::RangeInclusive;

use serde_json::{json, Value};

use super::config::Config;
use super::outbox::Order;
use super::output::{Output, OwnParams, Refused, Verdict, REFUSAL_CODE};
use super::scrub::internal_url;
use super::state::{self, Hold, Own, Pending, Session, TargetRecord};
use super::{endpoints, local_paths, refusal, shown};
use crate::protected::Matcher;

/// The command ids the policy uses for its own commands. Chromium reads ids as 32-bit
/// integers; a client command with an id in this range is refused.
pub const RESERVED_IDS: RangeInclusive<i64> = 2_000_000_000..=2_147_483_647;

/// The part of [`RESERVED_IDS`] the policy's own `Target.setAutoAttach` commands take, counted
/// down from the top.
pub(super) const AUTO_IDS: RangeInclusive<i64> = 2_147_000_000..=2_147_483_647;

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
pub(super) const ROOT: &str = "";

/// What the policy's concerns share (see the module docs).
#[derive(Debug)]
pub(super) struct Core {
    /// What every judgement reads, set once.
    pub(super) rules: Rules,
    /// The ids of the policy's own commands, and what each was for.
    pub(super) ids: Ids,
    /// The targets the browser reported, and what belongs to what.
    pub(super) targets: Targets,
    /// The sessions, and the client's commands in flight on them.
    pub(super) sessions: Sessions,
    /// Messages kept back for the policy's checks on sessions, and their order.
    pub(super) checks: Checks,
}

/// Messages kept back for the policy's checks: the holds, and the order of the frames waiting
/// behind them (order.rs).
#[derive(Debug, Default)]
pub(super) struct Checks {
    /// The holds, by number.
    pub(super) holds: HashMap<u64, Hold>,
    /// The next hold's number.
    pub(super) next_hold: u64,
    /// The client-bound frames waiting behind holds, in Chromium's order.
    pub(super) order: Order,
    /// The time of the last message or tick (ms).
    pub(super) now: u64,
}

/// What every judgement reads; nothing changes it once the policy is made.
#[derive(Debug)]
pub(super) struct Rules {
    /// The matcher every judgement of a URL, cookie domain or storage key goes through.
    pub(super) m: Matcher,
    /// The limits and timeouts.
    pub(super) cfg: Config,
    /// The protected local paths ([`Config::protected_paths`]), resolved once.
    pub(super) paths: local_paths::Protected,
    /// The browser's DevTools endpoints ([`Config::devtools_endpoints`]).
    pub(super) endpoints: endpoints::Endpoints,
    /// The policy's own `Fetch` patterns for images, media and `Other` requests
    /// ([`shown::Shown`]), built once from the matcher.
    pub(super) shown: shown::Shown,
}

/// The ids of the policy's own commands (in [`RESERVED_IDS`]).
#[derive(Debug)]
pub(super) struct Ids {
    /// The next id of an own command, counted up from the start of [`RESERVED_IDS`].
    pub(super) next_own: i64,
    /// The next id of an own auto-attach or domain command, counted down from the top.
    pub(super) next_auto: i64,
    /// The own commands not answered: on which session, and what for.
    pub(super) own: HashMap<i64, (String, Own)>,
    /// The browser answered the policy's discovery during the message being handled: the
    /// policy lets the client frames it kept meanwhile go once the message is through.
    pub(super) discovered: bool,
}

/// The targets the browser reported, and what belongs to what.
#[derive(Debug)]
pub(super) struct Targets {
    /// Live targets, by id.
    pub(super) map: HashMap<String, TargetRecord>,
    /// Destroyed targets' protection, kept for openers ([`Config::gone`]).
    pub(super) gone: state::Bounded<String, bool>,
    /// The order targets were learnt in.
    pub(super) seq: u64,
    /// Child target (an out-of-process frame) -> the target whose session attached it.
    pub(super) frame_hosts: HashMap<String, String>,
    /// Targets hosting a frame on a protected origin (in another process, out of reach of
    /// their own session's interception).
    pub(super) hosting: HashSet<String>,
    /// Targets showing a protected image (or holding a frame that does): see `loads.rs`.
    pub(super) showing: HashSet<String>,
    /// The browser contexts the client created (`Target.createBrowserContext` answers): only
    /// theirs may be wiped, without the protected cookies (compat.rs).
    pub(super) contexts: state::Bounded<String, ()>,
}

/// The sessions, and the client's commands in flight on them.
#[derive(Debug)]
pub(super) struct Sessions {
    /// The root session: the browser connection itself.
    pub(super) root: Session,
    /// Every other session, by id.
    pub(super) map: HashMap<String, Session>,
    /// The client's commands forwarded and not answered, by session and id.
    pub(super) pending: HashMap<(String, i64), Pending>,
    /// Sessions cut during the message being handled: their commands still in flight are
    /// answered at its end.
    pub(super) cut: Vec<String>,
    /// Protected first documents of popups the policy let go on to their response
    /// (`<session>\n<request id>`), where the popup's sessions are detached (fetch.rs).
    pub(super) handoffs: state::Bounded<String, ()>,
}

impl Core {
    /// The core of a policy over `m` (already protecting [`Config::protect`]) with `cfg`.
    pub(super) fn new(m: Matcher, cfg: Config) -> Core {
        let mut root = Session::new("", state::Kind::Browser, ROOT, cfg.per_session);
        root.visible = true;
        let paths = local_paths::Protected::new(&cfg.protected_paths, cfg.local_paths.clone());
        let endpoints = endpoints::Endpoints::new(&cfg.devtools_endpoints);
        Core {
            checks: Checks::default(),
            targets: Targets {
                map: HashMap::new(),
                gone: state::Bounded::new(cfg.gone),
                seq: 0,
                frame_hosts: HashMap::new(),
                hosting: HashSet::new(),
                showing: HashSet::new(),
                contexts: state::Bounded::new(cfg.gone),
            },
            sessions: Sessions {
                root,
                map: HashMap::new(),
                pending: HashMap::new(),
                cut: Vec::new(),
                handoffs: state::Bounded::new(cfg.gone),
            },
            ids: Ids {
                next_own: *RESERVED_IDS.start(),
                next_auto: *AUTO_IDS.end(),
                own: HashMap::new(),
                discovered: false,
            },
            rules: Rules {
                shown: shown::Shown::new(&m),
                m,
                cfg,
                paths,
                endpoints,
            },
        }
    }

    /// A command of the policy's own on `session` (empty for the root), serialised.
    pub(super) fn own_command(
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
        let id = if auto {
            self.ids.next_auto
        } else {
            self.ids.next_own
        };
        if auto {
            self.ids.next_auto = if self.ids.next_auto <= *AUTO_IDS.start() {
                *AUTO_IDS.end()
            } else {
                self.ids.next_auto - 1
            };
        } else {
            self.ids.next_own = if self.ids.next_own >= *AUTO_IDS.start() - 1 {
                *RESERVED_IDS.start()
            } else {
                self.ids.next_own + 1
            };
        }
        self.ids.own.insert(id, (session.to_string(), why));
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

    pub(super) fn session(&self, key: &str) -> Option<&Session> {
        if key == ROOT {
            Some(&self.sessions.root)
        } else {
            self.sessions.map.get(key)
        }
    }

    pub(super) fn session_mut(&mut self, key: &str) -> Option<&mut Session> {
        if key == ROOT {
            Some(&mut self.sessions.root)
        } else {
            self.sessions.map.get_mut(key)
        }
    }

    /// Whether a document's URL or origin is off limits to the client: protected, or a
    /// browser-internal page ([`internal_url`]).
    pub(super) fn off_limits(&self, url: &str) -> bool {
        self.rules.m.cookie_url(url) || self.internal(url)
    }

    /// Whether `url` is browser-internal ([`internal_url`]) or a page of the browser's own
    /// DevTools endpoint ([`Config::devtools_endpoints`]).
    pub(super) fn internal(&self, url: &str) -> bool {
        internal_url(url) || self.rules.endpoints.url(url)
    }

    /// The error answering command `id` on `session` with refusal `r`.
    pub(super) fn refused_frame(
        &self,
        session: &str,
        id: i64,
        r: refusal::Refusal,
    ) -> (String, Refused) {
        self.refusal(session, id, r.message(self.rules.m.refusal()))
    }

    /// Refusal `r` of client command `id` on `session`, to the client.
    pub(super) fn push_refused(
        &self,
        session: &str,
        id: i64,
        r: refusal::Refusal,
        out: &mut Output,
    ) {
        let (frame, refused) = self.refused_frame(session, id, r);
        out.to_client.push(frame);
        out.refused.push(refused);
    }

    /// The refusal error for client command `id` on `session`, with `message`: its frame and
    /// its record.
    pub(super) fn refusal(&self, session: &str, id: i64, message: String) -> (String, Refused) {
        let frame = self.refusal_frame(session, &Value::from(id), &message);
        let refused = Refused {
            session: session.to_string(),
            id,
            message,
            verdict: Verdict::Refuse,
        };
        (frame, refused)
    }

    /// The refusal error for a client command.
    pub(super) fn refusal_frame(&self, session: &str, id: &Value, message: &str) -> String {
        let mut msg = json!({"id": id, "error": {"code": REFUSAL_CODE, "message": message}});
        if session != ROOT {
            msg["sessionId"] = Value::String(session.to_string());
        }
        msg.to_string()
    }
}

/// The `id` of a parsed frame, when it is an integer.
pub(super) fn int_id(v: &Value) -> Option<i64> {
    v.get("id").and_then(Value::as_i64)
}

/// The `sessionId` of a parsed frame, empty for the root.
pub(super) fn session_of(v: &Value) -> String {
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
            let mut p = Core::new(m.clone(), Config::default());
            let by_value = p.own_command(session, "Fetch.enable", params.clone(), Own::Ignore);
            let mut p = Core::new(m.clone(), Config::default());
            let encoded = OwnParams::Encoded(params.to_string().into());
            let by_text = p.own_command(session, "Fetch.enable", encoded, Own::Ignore);
            assert_eq!(by_value, by_text);
            assert!(serde_json::from_str::<Value>(&by_text).is_ok());
        }
    }
}
