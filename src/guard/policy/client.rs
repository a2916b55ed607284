//! Client to browser: each frame is read once into a [`ClientCommand`] (command.rs), with the
//! concern its entry in the table routes it to: the table's class first (deny.rs), then each
//! of [`GATES`] (whose answer is a [`Refusal`] or none), then its reach (reach.rs), then the
//! concern the entry names (`table::Concern`: cookies, attach, fetch, ...; a [`Step`]). The
//! dispatch goes from the entry, never from a method name; what passes has its parameters judged once, each by the judge the
//! table gives it (deny.rs), before it is forwarded. Every refusal goes through
//! [`Core::refuse`], in the words of its [`Refusal`] (refusal.rs).

use serde_json::{json, Value};

use super::command::{ClientCommand, Step};
use super::core::{int_id, session_of, Core, RESERVED_IDS};
use super::deny::Named;
use super::downloads::Downloads;
use super::output::{Output, Refused, Verdict, REFUSAL_CODE};
use super::refusal::Refusal;
use super::scrub::internal_url;
use super::state::Pending;
use super::table::{self, Class, Concern};
use super::walk;

/// The members a CDP command may have (Chromium refuses others).
const COMMAND_KEYS: [&str; 4] = ["id", "method", "params", "sessionId"];

/// A client frame read once: a JSON object, unless a member is named twice (Chromium refuses
/// such a message; serde_json alone would keep the last), or any other JSON value.
enum Top {
    Object(serde_json::Map<String, Value>),
    /// The first member named twice.
    Twice(String),
    Other,
}

impl<'de> serde::Deserialize<'de> for Top {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Top, D::Error> {
        d.deserialize_any(TopVisitor)
    }
}

struct TopVisitor;

impl<'de> serde::de::Visitor<'de> for TopVisitor {
    type Value = Top;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut a: A) -> Result<Top, A::Error> {
        let mut map = serde_json::Map::new();
        while let Some(key) = a.next_key::<String>()? {
            if map.contains_key(&key) {
                while a
                    .next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?
                    .is_some()
                {}
                return Ok(Top::Twice(key));
            }
            let value: Value = a.next_value()?;
            map.insert(key, value);
        }
        Ok(Top::Object(map))
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut a: A) -> Result<Top, A::Error> {
        while a.next_element::<serde::de::IgnoredAny>()?.is_some() {}
        Ok(Top::Other)
    }

    fn visit_bool<E>(self, _: bool) -> Result<Top, E> {
        Ok(Top::Other)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Top, E> {
        Ok(Top::Other)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Top, E> {
        Ok(Top::Other)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Top, E> {
        Ok(Top::Other)
    }
    fn visit_str<E>(self, _: &str) -> Result<Top, E> {
        Ok(Top::Other)
    }
    fn visit_unit<E>(self) -> Result<Top, E> {
        Ok(Top::Other)
    }
}

/// A gate: a concern that may refuse a command for what it names or would do. Every command
/// passing the table goes through each, in order, before it is handed to its method's concern.
type Gate = fn(&mut Core, &mut Downloads, &ClientCommand) -> Option<Refusal<'static>>;

/// The gates, in the order they are asked.
const GATES: [Gate; 8] = [
    // A frame on a protected origin in another process of this page: nothing that would
    // read or drive it goes through the page (targets.rs).
    |p, _, c| p.reaches_hosted(c).then_some(Refusal::Hosted),
    // A capture of a page showing a protected image, a resource read by a URL that may have
    // redirected to a protected origin, a load that follows any redirect (loads.rs).
    |p, _, c| p.load_command(c),
    // Local files in a protected path (the profile's storage files), by path (local_paths.rs).
    |p, _, c| p.rules.paths.command(c.method, c.params),
    // The user's clipboard into a page: a paste, a clipboard read permission (clipboard.rs).
    |_, _, c| super::clipboard::reads_clipboard(c).then_some(Refusal::Clipboard),
    // A page handed a download folder, or a file or folder above one (downloads.rs).
    |_, d, c| d.overlap(c.method, c.params),
    // A frame id of a protected target (an out-of-process frame) is refused anywhere.
    |p, _, c| {
        c.params
            .get("frameId")
            .and_then(Value::as_str)
            .is_some_and(|f| p.hidden(f))
            .then_some(Refusal::ProtectedFrame)
    },
    // Scripts, style sheets and objects from protected origins a page loaded (scripts.rs).
    |p, _, c| p.script_command(c),
    |p, _, c| p.object_command(c),
];

impl Core {
    /// What a refused command named that is protected, in the words a refusal gives it: the
    /// origin of a protected URL (or of a storage key), the domain of a protected cookie
    /// (`cookies of <domain>`), "a browser-internal page", or "a protected target" for a
    /// target id (whose origin the client may never have been shown). `None` when the command names none of them (it was
    /// refused for what it would do, not for what it names).
    pub(super) fn refused_what(&self, v: &Value) -> Option<String> {
        let of_url = |u: &str| -> Option<String> {
            if self.internal(u) {
                Some("a browser-internal page".to_string())
            } else if self.rules.m.cookie_url(u) {
                Some(super::scrub::redacted(u))
            } else {
                None
            }
        };
        // A member's value only (an item of a list names nothing by itself).
        walk::find_string(v, |k, s| match k? {
            // Not its origin: the client may have guessed an id it was never shown.
            "targetId" | "openerId" if self.hidden_or_unknown(s) => {
                Some("a protected target".to_string())
            }
            "storageKey" | "origin" | "securityOrigin"
                if self.rules.m.storage_key(s) || self.off_limits(s) =>
            {
                Some(
                    of_url(s).unwrap_or_else(|| {
                        super::scrub::redacted(s.split('^').next().unwrap_or(s))
                    }),
                )
            }
            "domain" if self.rules.m.cookie_domain(s) => {
                Some(format!("cookies of {}", s.trim_start_matches('.')))
            }
            _ if s.contains(':') => of_url(s),
            _ => None,
        })
    }

    /// Refusal `r`'s message for client command `cmd`, naming what it refused (see
    /// [`Core::refused_what`]): the catalog's refusal stays the prefix, and the bracket says
    /// which protected thing it was. Worked out only for a command refused.
    fn named_refusal(&self, cmd: &ClientCommand, r: Refusal) -> String {
        let refusal = self.rules.m.refusal();
        let message = r.message(refusal);
        let Some(what) = self.refused_what(cmd.params) else {
            return message;
        };
        if message == refusal {
            return format!("{refusal} ({what})");
        }
        match message
            .strip_prefix(refusal)
            .and_then(|rest| rest.strip_prefix(" ("))
        {
            Some(rest) if !rest.starts_with(&what) => format!("{refusal} ({what}: {rest}"),
            _ => message,
        }
    }

    /// Whether `v` holds a browser-internal URL or names a target on one.
    pub(super) fn names_internal(&self, v: &Value) -> bool {
        walk::any_string(v, |_, s| {
            self.internal(s)
                || self
                    .targets
                    .map
                    .get(s)
                    .is_some_and(|t| internal_url(t.url()))
        })
    }

    /// Whether a protected tab is open in browser context `context` (in any, for `None`): an
    /// ordinary or internal page is not one, and an unknown context holds none the policy saw.
    pub(super) fn closes_protected(&self, context: Option<&Value>) -> bool {
        self.targets.map.values().any(|t| {
            t.protected
                && matches!(t.kind.as_str(), "page" | "tab")
                && !internal_url(t.url())
                && context.is_none_or(|c| t.context() == Some(c))
        })
    }

    /// Answers a frame the policy cannot take with a protocol error (with its id, if any), or
    /// (code [`REFUSAL_CODE`]) one over a bound of the guard's with its refusal; one with an
    /// integer id is recorded in [`Output::refused`].
    pub(super) fn client_error(&self, frame: &str, code: i64, message: &str, out: &mut Output) {
        // Its top level only (the rest is not read again).
        let head = super::budget::FrameHead::of(frame);
        let mut msg = json!({"error": {"code": code, "message": message}});
        if let Some(id) = head.id.clone().filter(|id| id.is_i64() || id.is_u64()) {
            msg["id"] = id;
        }
        if let Some(s) = &head.session {
            msg["sessionId"] = Value::String(s.clone());
        }
        out.to_client.push(msg.to_string());
        if let Some(id) = head.int_id() {
            out.refused.push(Refused {
                session: head.session.unwrap_or_default(),
                id,
                message: message.to_string(),
                verdict: if code == REFUSAL_CODE {
                    Verdict::Refuse
                } else {
                    Verdict::Invalid
                },
            });
        }
    }

    /// Answers command `id` on session `key` with refusal `r`, and logs its reason.
    pub(super) fn refuse_id(&self, key: &str, id: i64, r: Refusal, out: &mut Output) {
        self.push_refused(key, id, r, out);
        out.set(Verdict::Refuse, r.reason());
    }

    /// Answers client command `cmd` with refusal `r`, naming what it refused, and logs its
    /// reason.
    pub(super) fn refuse(&self, cmd: &ClientCommand, r: Refusal, out: &mut Output) {
        let (frame, refused) = self.refusal(cmd.key, cmd.id, self.named_refusal(cmd, r));
        out.to_client.push(frame);
        out.refused.push(refused);
        out.set(Verdict::Refuse, r.reason());
    }

    /// Whether `cmd` names (`browserContextId`) a browser context the client created.
    pub(super) fn client_created(&self, cmd: &ClientCommand) -> bool {
        cmd.params
            .get("browserContextId")
            .and_then(Value::as_str)
            .is_some_and(|c| self.targets.contexts.contains(&c.to_string()))
    }

    /// A frame from the client: read once into a [`ClientCommand`] (or answered with a protocol
    /// error), judged, and forwarded, rewritten, answered, held or refused; a refusal then
    /// names what it refused ([`Core::refuse`]).
    pub(super) fn client_frame(
        &mut self,
        downloads: &mut Downloads,
        frame: &str,
        out: &mut Output,
    ) {
        let v: Value = match serde_json::from_str(frame) {
            Ok(Top::Object(map)) => Value::Object(map),
            Ok(Top::Other) => {
                self.client_error(frame, -32600, "Message must be an object", out);
                return out.set(Verdict::Invalid, "not an object");
            }
            // Chromium refuses it and answers the first `id`, the policy would have waited for
            // the last: answered here, without an id (which one would be a guess).
            Ok(Top::Twice(name)) => {
                let message = format!("Message must not name a member twice ({name:?})");
                out.to_client
                    .push(json!({"error": {"code": -32700, "message": message}}).to_string());
                return out.set(Verdict::Invalid, "a member named twice");
            }
            Err(_) => {
                self.client_error(frame, -32700, "Message must be in JSON format", out);
                return out.set(Verdict::Invalid, "not JSON");
            }
        };
        let Some(obj) = v.as_object() else {
            self.client_error(frame, -32600, "Message must be an object", out);
            return out.set(Verdict::Invalid, "not an object");
        };
        // Chromium reads ids as 32-bit integers and answers others without an id: the client
        // would never be answered, and the command would count as in flight for good.
        let Some(id) = int_id(&v).filter(|id| i32::try_from(*id).is_ok()) else {
            self.client_error(
                frame,
                -32600,
                "Message must have integer 'id' property",
                out,
            );
            return out.set(Verdict::Invalid, "no integer id");
        };
        let Some(method) = v.get("method").and_then(Value::as_str) else {
            self.client_error(
                frame,
                -32600,
                "Message must have string 'method' property",
                out,
            );
            return out.set(Verdict::Invalid, "no method");
        };
        if obj.keys().any(|k| !COMMAND_KEYS.contains(&k.as_str())) {
            self.client_error(
                frame,
                -32600,
                "Message has property other than 'id', 'method', 'sessionId', 'params'",
                out,
            );
            return out.set(Verdict::Invalid, "unknown member");
        }
        if v.get("params").is_some_and(|p| !p.is_object()) {
            self.client_error(
                frame,
                -32602,
                "Invalid parameters: params must be an object",
                out,
            );
            return out.set(Verdict::Invalid, "params not an object");
        }
        if v.get("sessionId").is_some_and(|s| !s.is_string()) {
            self.client_error(
                frame,
                -32600,
                "Message must have string 'sessionId' property",
                out,
            );
            return out.set(Verdict::Invalid, "sessionId not a string");
        }
        if RESERVED_IDS.contains(&id) {
            self.client_error(
                frame,
                -32600,
                "slicc: guard: command ids from 2000000000 are reserved for the guard",
                out,
            );
            return out.set(Verdict::Invalid, "reserved id");
        }
        let key = session_of(&v);
        if self.sessions.pending.contains_key(&(key.clone(), id)) {
            self.client_error(
                frame,
                -32600,
                "slicc: guard: a command with this id is already in flight on this session",
                out,
            );
            return out.set(Verdict::Invalid, "duplicate id");
        }
        if self.sessions.pending.len() >= self.rules.cfg.max_pending {
            self.client_error(
                frame,
                -32000,
                "slicc: guard: too many commands in flight",
                out,
            );
            return out.set(Verdict::Refuse, "too many in flight");
        }
        static EMPTY: std::sync::OnceLock<Value> = std::sync::OnceLock::new();
        // Default deny: only what the table classifies goes on (table.rs, deny.rs).
        let entry = table::table().command(method);
        let cmd = ClientCommand {
            key: &key,
            id,
            method,
            concern: entry.and_then(|e| e.concern),
            params: v
                .get("params")
                .unwrap_or_else(|| EMPTY.get_or_init(|| json!({}))),
            v: &v,
            frame,
        };
        if !key.is_empty() {
            match self.sessions.map.get(&key) {
                Some(s) => {
                    if s.closed || !s.visible || self.hidden(&s.target) {
                        return self.refuse(&cmd, Refusal::SessionProtected, out);
                    }
                }
                // Chromium's own answer: a client never waits for a session nobody has.
                None => {
                    self.client_error(frame, -32001, "Session with given id not found.", out);
                    return out.set(Verdict::Invalid, "unknown session");
                }
            }
        }
        match entry {
            Some(entry) => self.command(downloads, &cmd, entry, out),
            None => self.refuse(&cmd, Refusal::Unclassified, out),
        }
    }

    /// One well-formed client command.
    fn command(
        &mut self,
        downloads: &mut Downloads,
        cmd: &ClientCommand,
        entry: &table::Command,
        out: &mut Output,
    ) {
        if entry.class == Class::Refuse {
            let why = entry.why.as_deref().unwrap_or_default();
            return self.refuse(cmd, Refusal::Table(why), out);
        }
        for gate in GATES {
            if let Some(r) = gate(self, downloads, cmd) {
                return self.refuse(cmd, r, out);
            }
        }
        // What it reaches beyond its session's target: the tab, the renderer process, the
        // browser (reach.rs).
        if let Some(r) = self.reach_judge(cmd, entry.reach) {
            return self.refuse(cmd, r, out);
        }
        // The concern the table routes the command to (table.rs `Concern`), if any.
        let step = match entry.concern {
            None => Step::Go(None),
            Some(Concern::Cookies) => self.cookie_command(cmd, out),
            Some(Concern::Permissions) => self.permission_command(cmd),
            Some(Concern::Wipe) => self.clear_cookies(cmd, out),
            Some(Concern::Attach) => self.attach_command(cmd, out),
            Some(Concern::Contexts) => self.context_command(cmd),
            Some(Concern::Discover) => self.answer_discover(cmd, out),
            Some(Concern::History) => self.history_command(cmd, out),
            Some(Concern::Fetch) => self.fetch_command(cmd),
            Some(Concern::Downloads) => downloads.on_command(self, cmd),
            Some(Concern::Preload) => self.preload_command(cmd),
            Some(Concern::Network) => self.network_command(cmd, out),
            Some(Concern::Overrides) => self.override_command(cmd, out),
            // Judged above (GATES), or only in their answers (browser.rs).
            Some(
                Concern::Listing
                | Concern::Frames
                | Concern::FrameOwner
                | Concern::Files
                | Concern::Captures
                | Concern::Resources
                | Concern::Clipboard
                | Concern::Scripts,
            ) => Step::Go(None),
        };
        let rewritten = match step {
            Step::Done => return,
            Step::Refuse(r) => return self.refuse(cmd, r, out),
            Step::Go(rewritten) => rewritten,
        };

        let consume = match self.fetch_answer_check(cmd) {
            Ok(consume) => consume,
            Err(r) => return self.refuse(cmd, r, out),
        };
        if let Some(r) = self.request_id_command(cmd) {
            return self.refuse(cmd, r, out);
        }

        // What goes to the browser is judged: the command as the policy rewrote it, if it did
        // (a cookie read with the protected URLs taken out), unless the policy made it another
        // command of its own (a `Fetch.disable` that keeps the policy's interception on).
        let sent = rewritten
            .as_ref()
            .filter(|nv| nv.get("method").and_then(Value::as_str) == Some(cmd.method))
            .and_then(|nv| nv.get("params"))
            .unwrap_or(cmd.params);
        match self.table_judges(entry, sent) {
            Some(Named::Internal) => return self.refuse(cmd, Refusal::Internal, out),
            Some(Named::Protected) => return self.refuse(cmd, Refusal::ProtectedOrigin, out),
            Some(Named::Unlisted(name)) => {
                return self.refuse(cmd, Refusal::Unlisted(&name), out);
            }
            Some(Named::Grant) => return self.refuse(cmd, Refusal::Grant, out),
            None => {}
        }

        if let Some(rid) = consume {
            if let Some(s) = self.session_mut(cmd.key) {
                s.fetch.paused.remove(&rid);
            }
        }
        let target = cmd
            .params
            .get("targetId")
            .and_then(Value::as_str)
            .map(str::to_string);
        let request = (cmd.domain() == "Network" || cmd.domain() == "Audits")
            .then(|| cmd.params.get("requestId").and_then(Value::as_str))
            .flatten()
            .map(str::to_string);
        self.sessions.pending.insert(
            (cmd.key.to_string(), cmd.id),
            Pending {
                method: cmd.method.to_string(),
                concern: entry.concern,
                target,
                request,
            },
        );
        match rewritten {
            Some(nv) => {
                out.to_browser.push(nv.to_string());
                out.set(Verdict::Rewrite, "guard settings kept");
            }
            None => {
                out.to_browser.push(cmd.frame.to_string());
                out.set(Verdict::Forward, "");
            }
        }
    }
}
