//! Checks: the vocabulary observations and liveness are judged with.
//!
//! The table below declares each check kind once: its variant and struct, its JSON key, the
//! observers it may declare, whether it is diagnostic only, and its members. [`Check`],
//! [`CheckKind`] (with `ALL`, `as_str`, `from_key`, `observers`, `is_diagnostic`), the
//! deserializer, [`Check::kind`] and [`Check::observer`] are all derived from it.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use super::shapes::{BlockSpec, CallNames, CanaryState, Filtered, UrlRef};
use super::step::{Hop, Refusal};
use super::vocabulary::{kind_enum, not_one_kind_message, one_kind, Observer};

/// `true` for a row marked `diagnostic`.
macro_rules! diagnostic {
    () => {
        false
    };
    (diagnostic) => {
        true
    };
}

/// The check table: each row declares one kind. See the module docs for what it derives.
macro_rules! checks {
    ($(
        $(#[$doc:meta])*
        $variant:ident($name:ident) $key:literal [$($observer:ident),+] $($flag:ident)? {
            $($(#[$fattr:meta])* $field:ident : $ty:ty),* $(,)?
        }
    )*) => {
        $(
            $(#[$doc])*
            #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
            #[serde(rename_all = "camelCase")]
            pub struct $name {
                $($(#[$fattr])* pub $field: $ty,)*
                /// Who reads the data this check is judged on.
                pub observer: Observer,
                /// Members this version of the format does not name, kept as they are.
                #[serde(flatten)]
                pub extra: Map<String, Value>,
            }
        )*

        /// One check. Each JSON check carries exactly one kind key, which picks the variant,
        /// and the `observer` that kind declares.
        #[derive(Debug, Clone, PartialEq, Serialize)]
        #[serde(untagged)]
        pub enum Check {
            $( #[doc = concat!("`", $key, "`")] $variant($name), )*
        }

        kind_enum! {
            /// A check kind: the vocabulary of §4.3, named as its key in the JSON.
            CheckKind, "check",
            [$( $(#[$doc])* $variant = $key ),*]
        }

        impl CheckKind {
            /// The observers a check of this kind may declare (two for `blocked`, one for the
            /// rest).
            pub fn observers(self) -> &'static [Observer] {
                match self {
                    $(CheckKind::$variant => &[$(Observer::$observer),+],)*
                }
            }

            /// Whether the kind is diagnostic only (`executed`, `live`), never a liveness proof.
            pub fn is_diagnostic(self) -> bool {
                match self {
                    $(CheckKind::$variant => diagnostic!($($flag)?),)*
                }
            }
        }

        impl Check {
            /// The check's kind.
            pub fn kind(&self) -> CheckKind {
                match self {
                    $(Check::$variant(_) => CheckKind::$variant,)*
                }
            }

            /// The observer the check declares.
            pub fn observer(&self) -> Observer {
                match self {
                    $(Check::$variant(c) => c.observer,)*
                }
            }

            /// The members this version of the format does not name, kept as they are.
            pub fn extra(&self) -> &Map<String, Value> {
                match self {
                    $(Check::$variant(c) => &c.extra,)*
                }
            }
        }

        impl<'de> Deserialize<'de> for Check {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let map = Map::<String, Value>::deserialize(deserializer)?;
                let kind = one_kind(CheckKind::kinds_in(&map), &map).map_err(|e| {
                    D::Error::custom(not_one_kind_message("check", &CheckKind::ALL, &e))
                })?;
                let value = Value::Object(map);
                let check = match kind {
                    $(CheckKind::$variant => serde_json::from_value(value).map(Check::$variant),)*
                };
                check.map_err(|e| D::Error::custom(format!("{kind} check: {e}")))
            }
        }
    };
}

checks! {
    /// A beacon from an origin was logged.
    Beacon(BeaconCheck) "beacon" [Fixture] {
        /// The origin.
        beacon: String,
    }
    /// The fixture logged a request.
    Served(ServedCheck) "served" [Fixture] {
        /// The URL, or a path when `origin` is given.
        served: String,
        /// The origin of a path in `served`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        origin: Option<String>,
        /// Undocumented in schema 1.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tagged: Option<bool>,
    }
    /// The request to `on` carried a header.
    Header(HeaderCheck) "header" [Fixture] {
        /// The header name, in lower case.
        header: String,
        /// The request URL.
        on: String,
        /// The value the header must have.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        value: Option<String>,
    }
    /// A delivered event has this method and matches `where`.
    Event(EventCheck) "event" [Client] {
        /// The event method, such as `Fetch.requestPaused`.
        event: String,
        /// A predicate on the event `{method, params, sessionId}`.
        #[serde(rename = "where", default, skip_serializing_if = "Option::is_none")]
        r#where: Option<Value>,
    }
    /// A named outcome, at `path`, matches `equals`.
    Result(ResultCheck) "result" [Client] {
        /// The `as` of the step whose outcome is read.
        result: String,
        /// A dotted path into the outcome.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        path: Option<String>,
        /// The predicate.
        equals: Value,
    }
    /// The named call's result contains the cookie.
    Cookie(CookieCheck) "cookie" [Client] {
        /// The cookie name.
        cookie: String,
        /// The `as` of the call.
        from: String,
        /// The origin the cookie is for.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        on: Option<String>,
    }
    /// Two named outcomes agree at `path`.
    Compare(CompareCheck) "compare" [Client] {
        /// The two `as` names.
        compare: Vec<String>,
        /// A dotted path into both outcomes.
        path: String,
    }
    /// The named refusable steps were refused.
    Refused(RefusedCheck) "refused" [Client] {
        /// The steps, or all of them.
        refused: CallNames,
        /// How to recognise the refusal in protocol errors.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        refusal: Option<Refusal>,
    }
    /// The named calls reached the browser and were not refused.
    Reached(ReachedCheck) "reached" [Client] {
        /// The calls, or all of them.
        reached: CallNames,
    }
    /// The client attached to a target at a URL or origin.
    Attached(AttachedCheck) "attached" [Client] {
        /// The URL or origin.
        attached: String,
        /// The session kind looked at.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        session: Option<String>,
    }
    /// Data for a URL was delivered to the client.
    Delivered(DeliveredCheck) "delivered" [Client] {
        /// The URL stem.
        delivered: String,
    }
    /// The page title, read by the unguarded observer, equals `title`.
    Title(TitleCheck) "title" [Unguarded] {
        /// The title.
        title: String,
        /// Always `unguarded`.
        via: String,
        /// The session read.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        session: Option<String>,
    }
    /// A value evaluated by the unguarded observer matches `equals`.
    Expression(ExpressionCheck) "expression" [Unguarded] {
        /// The JavaScript.
        expression: String,
        /// The predicate.
        equals: Value,
        /// Always `unguarded`.
        via: String,
        /// The session evaluated in.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        session: Option<String>,
    }
    /// Diagnostic: a phase (`setup`, `trigger`, `child`) ran.
    Executed(ExecutedCheck) "executed" [Client] diagnostic {
        /// The phase.
        executed: String,
    }
    /// Diagnostic: always `true`.
    Live(LiveCheck) "live" [Unguarded] diagnostic {
        /// `true`.
        live: bool,
    }
    /// Every exact nested redirect URL of the chain and the final `to` were logged.
    Hops(HopsCheck) "hops" [Fixture] {
        /// The chain.
        hops: Vec<Hop>,
        /// The final destination.
        to: String,
    }
    /// A session (`page` or `child`) detached.
    Detached(DetachedCheck) "detached" [Client] {
        /// The session.
        detached: String,
    }
    /// The pre-action heartbeat for a URL was logged.
    Pre(PreCheck) "pre" [Fixture] {
        /// The URL or chain.
        pre: UrlRef,
    }
    /// The exact URL (or a heartbeat from its origin) was logged.
    Loaded(LoadedCheck) "loaded" [Fixture] {
        /// The URL or chain.
        loaded: UrlRef,
    }
    /// The guard refused a refusable step at registration, matching its `refusal.match`.
    Registration(RegistrationCheck) "registration" [Client] {
        /// `any`.
        registration: String,
    }
    /// The canary state, read back outside the guard, equals `value`.
    State(StateCheck) "state" [Unguarded] {
        /// Whose canary and which value.
        state: CanaryState,
    }
    /// The named calls' responses left a cookie out.
    Filtered(FilteredCheck) "filtered" [Client] {
        /// Which calls and which cookie.
        filtered: Filtered,
    }
    /// An error or block for an exact URL.
    Blocked(BlockedCheck) "blocked" [Client, Unguarded] {
        /// The URL(s).
        blocked: BlockSpec,
    }
    /// The guard swapped in its own page for an exact URL, which the fixture never served.
    History(HistoryCheck) "history" [Unguarded] {
        /// The URL(s).
        history: BlockSpec,
    }
    /// An out-of-process iframe shows chrome-error for an exact URL, and can't be attached to.
    FrameBlocked(FrameBlockedCheck) "frameBlocked" [Unguarded] {
        /// The URL(s).
        frame_blocked: BlockSpec,
    }
    /// Every operand holds.
    All(AllCheck) "all" [Client] {
        /// The operands.
        all: Vec<Check>,
    }
    /// Some operand holds.
    Any(AnyCheck) "any" [Client] {
        /// The operands.
        any: Vec<Check>,
    }
    /// The operand does not hold.
    Not(NotCheck) "not" [Client] {
        /// The operand.
        not: Box<Check>,
    }
}

impl Check {
    /// The operands of `all`, `any` and `not` (empty for every other kind).
    pub fn operands(&self) -> &[Check] {
        match self {
            Check::All(c) => &c.all,
            Check::Any(c) => &c.any,
            Check::Not(c) => std::slice::from_ref(&*c.not),
            _ => &[],
        }
    }

    /// The operands of a check still in JSON, each with its pointer under the check: what
    /// [`Check::operands`] gives for a typed one, for `validate`, which reads files the types
    /// may refuse.
    #[cfg_attr(not(feature = "validate"), allow(dead_code))]
    pub(crate) fn json_operands(kind: CheckKind, check: &Value) -> Vec<(String, &Value)> {
        let key = kind.as_str();
        match kind {
            CheckKind::All | CheckKind::Any => check[key]
                .as_array()
                .map_or(&[][..], Vec::as_slice)
                .iter()
                .enumerate()
                .map(|(i, operand)| (format!("/{key}/{i}"), operand))
                .collect(),
            CheckKind::Not => vec![(format!("/{key}"), &check[key])],
            _ => Vec::new(),
        }
    }

    /// Every observer the check needs: its own and, for `all`, its operands'. An `any` needs
    /// only one available alternative, so it counts as its own (`client`).
    pub fn observers(&self) -> Vec<Observer> {
        let mut out = vec![self.observer()];
        if let Check::All(c) = self {
            for operand in &c.all {
                for o in operand.observers() {
                    if !out.contains(&o) {
                        out.push(o);
                    }
                }
            }
        }
        out
    }
}
