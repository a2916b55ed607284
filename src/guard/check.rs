//! Checks: the vocabulary observations and liveness are judged with.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use super::shapes::{BlockSpec, CallNames, CanaryState, Filtered, UrlRef};
use super::step::{Hop, Refusal};
use super::vocabulary::{CheckKind, Observer};

/// One check. Each JSON check carries exactly one kind key, which picks the variant, and the
/// `observer` that kind declares.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Check {
    /// `beacon`
    Beacon(BeaconCheck),
    /// `served`
    Served(ServedCheck),
    /// `header`
    Header(HeaderCheck),
    /// `event`
    Event(EventCheck),
    /// `result`
    Result(ResultCheck),
    /// `cookie`
    Cookie(CookieCheck),
    /// `compare`
    Compare(CompareCheck),
    /// `refused`
    Refused(RefusedCheck),
    /// `reached`
    Reached(ReachedCheck),
    /// `attached`
    Attached(AttachedCheck),
    /// `delivered`
    Delivered(DeliveredCheck),
    /// `title`
    Title(TitleCheck),
    /// `expression`
    Expression(ExpressionCheck),
    /// `executed`
    Executed(ExecutedCheck),
    /// `live`
    Live(LiveCheck),
    /// `hops`
    Hops(HopsCheck),
    /// `detached`
    Detached(DetachedCheck),
    /// `pre`
    Pre(PreCheck),
    /// `loaded`
    Loaded(LoadedCheck),
    /// `registration`
    Registration(RegistrationCheck),
    /// `state`
    State(StateCheck),
    /// `filtered`
    Filtered(FilteredCheck),
    /// `blocked` (observer `client` or `unguarded`)
    Blocked(BlockedCheck),
    /// `history`
    History(HistoryCheck),
    /// `frameBlocked`
    FrameBlocked(FrameBlockedCheck),
    /// `all`
    All(AllCheck),
    /// `any`
    Any(AnyCheck),
    /// `not`
    Not(NotCheck),
}

/// Declares a check struct: the kind's own members, then `observer` and the unknown members.
macro_rules! check_struct {
    ($(#[$doc:meta])* $name:ident { $($(#[$fdoc:meta])* $field:ident : $ty:ty),* $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        #[serde(rename_all = "camelCase")]
        pub struct $name {
            $($(#[$fdoc])* pub $field: $ty,)*
            /// Who reads the data this check is judged on.
            pub observer: Observer,
            /// Members this version of the format does not name, kept as they are.
            #[serde(flatten)]
            pub extra: Map<String, Value>,
        }
    };
}

check_struct!(
    /// A beacon from an origin was logged.
    BeaconCheck {
        /// The origin.
        beacon: String,
    }
);
check_struct!(
    /// The fixture logged a request.
    ServedCheck {
        /// The URL, or a path when `origin` is given.
        served: String,
        /// The origin of a path in `served`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        origin: Option<String>,
        /// Undocumented in schema 1.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tagged: Option<bool>,
    }
);
check_struct!(
    /// The request to `on` carried a header.
    HeaderCheck {
        /// The header name, in lower case.
        header: String,
        /// The request URL.
        on: String,
        /// The value the header must have.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        value: Option<String>,
    }
);
check_struct!(
    /// A delivered event has this method and matches `where`.
    EventCheck {
        /// The event method, such as `Fetch.requestPaused`.
        event: String,
        /// A predicate on the event `{method, params, sessionId}`.
        #[serde(rename = "where", default, skip_serializing_if = "Option::is_none")]
        r#where: Option<Value>,
    }
);
check_struct!(
    /// A named outcome, at `path`, matches `equals`.
    ResultCheck {
        /// The `as` of the step whose outcome is read.
        result: String,
        /// A dotted path into the outcome.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        path: Option<String>,
        /// The predicate.
        equals: Value,
    }
);
check_struct!(
    /// The named call's result contains the cookie.
    CookieCheck {
        /// The cookie name.
        cookie: String,
        /// The `as` of the call.
        from: String,
        /// The origin the cookie is for.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        on: Option<String>,
    }
);
check_struct!(
    /// Two named outcomes agree at `path`.
    CompareCheck {
        /// The two `as` names.
        compare: Vec<String>,
        /// A dotted path into both outcomes.
        path: String,
    }
);
check_struct!(
    /// The named refusable steps were refused.
    RefusedCheck {
        /// The steps, or all of them.
        refused: CallNames,
        /// How to recognise the refusal in protocol errors.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        refusal: Option<Refusal>,
    }
);
check_struct!(
    /// The named calls reached the browser and were not refused.
    ReachedCheck {
        /// The calls, or all of them.
        reached: CallNames,
    }
);
check_struct!(
    /// The client attached to a target at a URL or origin.
    AttachedCheck {
        /// The URL or origin.
        attached: String,
        /// The session kind looked at.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        session: Option<String>,
    }
);
check_struct!(
    /// Data for a URL was delivered to the client.
    DeliveredCheck {
        /// The URL stem.
        delivered: String,
    }
);
check_struct!(
    /// The page title, read by the unguarded observer, equals `title`.
    TitleCheck {
        /// The title.
        title: String,
        /// Always `unguarded`.
        via: String,
        /// The session read.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        session: Option<String>,
    }
);
check_struct!(
    /// A value evaluated by the unguarded observer matches `equals`.
    ExpressionCheck {
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
);
check_struct!(
    /// Diagnostic: a phase (`setup`, `trigger`, `child`) ran.
    ExecutedCheck {
        /// The phase.
        executed: String,
    }
);
check_struct!(
    /// Diagnostic: always `true`.
    LiveCheck {
        /// `true`.
        live: bool,
    }
);
check_struct!(
    /// Every exact nested redirect URL of the chain and the final `to` were logged.
    HopsCheck {
        /// The chain.
        hops: Vec<Hop>,
        /// The final destination.
        to: String,
    }
);
check_struct!(
    /// A session (`page` or `child`) detached.
    DetachedCheck {
        /// The session.
        detached: String,
    }
);
check_struct!(
    /// The pre-action heartbeat for a URL was logged.
    PreCheck {
        /// The URL or chain.
        pre: UrlRef,
    }
);
check_struct!(
    /// The exact URL (or a heartbeat from its origin) was logged.
    LoadedCheck {
        /// The URL or chain.
        loaded: UrlRef,
    }
);
check_struct!(
    /// The guard refused a refusable step at registration, matching its `refusal.match`.
    RegistrationCheck {
        /// `any`.
        registration: String,
    }
);
check_struct!(
    /// The canary state, read back outside the guard, equals `value`.
    StateCheck {
        /// Whose canary and which value.
        state: CanaryState,
    }
);
check_struct!(
    /// The named calls' responses left a cookie out.
    FilteredCheck {
        /// Which calls and which cookie.
        filtered: Filtered,
    }
);
check_struct!(
    /// An error or block for an exact URL.
    BlockedCheck {
        /// The URL(s).
        blocked: BlockSpec,
    }
);
check_struct!(
    /// The guard swapped in its own page for an exact URL, which the fixture never served.
    HistoryCheck {
        /// The URL(s).
        history: BlockSpec,
    }
);
check_struct!(
    /// An out-of-process iframe shows chrome-error for an exact URL, and can't be attached to.
    FrameBlockedCheck {
        /// The URL(s).
        frame_blocked: BlockSpec,
    }
);
check_struct!(
    /// Every operand holds.
    AllCheck {
        /// The operands.
        all: Vec<Check>,
    }
);
check_struct!(
    /// Some operand holds.
    AnyCheck {
        /// The operands.
        any: Vec<Check>,
    }
);
check_struct!(
    /// The operand does not hold.
    NotCheck {
        /// The operand.
        not: Box<Check>,
    }
);

impl<'de> Deserialize<'de> for Check {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let map = Map::<String, Value>::deserialize(deserializer)?;
        let kinds: Vec<CheckKind> = CheckKind::ALL
            .into_iter()
            .filter(|k| map.contains_key(k.as_str()))
            .collect();
        let kind = match kinds.as_slice() {
            [kind] => *kind,
            [] => {
                let keys: Vec<&str> = map.keys().map(String::as_str).collect();
                return Err(D::Error::custom(format!(
                    "a check needs one kind key (beacon, served, … not), found {}",
                    keys.join(", ")
                )));
            }
            more => {
                let names: Vec<&str> = more.iter().map(|k| k.as_str()).collect();
                return Err(D::Error::custom(format!(
                    "a check has more than one kind: {}",
                    names.join(", ")
                )));
            }
        };
        let value = Value::Object(map);
        fn parse<T: serde::de::DeserializeOwned>(v: Value) -> Result<T, serde_json::Error> {
            serde_json::from_value(v)
        }
        let check = match kind {
            CheckKind::Beacon => parse(value).map(Check::Beacon),
            CheckKind::Served => parse(value).map(Check::Served),
            CheckKind::Header => parse(value).map(Check::Header),
            CheckKind::Event => parse(value).map(Check::Event),
            CheckKind::Result => parse(value).map(Check::Result),
            CheckKind::Cookie => parse(value).map(Check::Cookie),
            CheckKind::Compare => parse(value).map(Check::Compare),
            CheckKind::Refused => parse(value).map(Check::Refused),
            CheckKind::Reached => parse(value).map(Check::Reached),
            CheckKind::Attached => parse(value).map(Check::Attached),
            CheckKind::Delivered => parse(value).map(Check::Delivered),
            CheckKind::Title => parse(value).map(Check::Title),
            CheckKind::Expression => parse(value).map(Check::Expression),
            CheckKind::Executed => parse(value).map(Check::Executed),
            CheckKind::Live => parse(value).map(Check::Live),
            CheckKind::Hops => parse(value).map(Check::Hops),
            CheckKind::Detached => parse(value).map(Check::Detached),
            CheckKind::Pre => parse(value).map(Check::Pre),
            CheckKind::Loaded => parse(value).map(Check::Loaded),
            CheckKind::Registration => parse(value).map(Check::Registration),
            CheckKind::State => parse(value).map(Check::State),
            CheckKind::Filtered => parse(value).map(Check::Filtered),
            CheckKind::Blocked => parse(value).map(Check::Blocked),
            CheckKind::History => parse(value).map(Check::History),
            CheckKind::FrameBlocked => parse(value).map(Check::FrameBlocked),
            CheckKind::All => parse(value).map(Check::All),
            CheckKind::Any => parse(value).map(Check::Any),
            CheckKind::Not => parse(value).map(Check::Not),
        };
        check.map_err(|e| D::Error::custom(format!("{} check: {e}", kind.as_str())))
    }
}

impl Check {
    /// The check's kind.
    pub fn kind(&self) -> CheckKind {
        match self {
            Check::Beacon(_) => CheckKind::Beacon,
            Check::Served(_) => CheckKind::Served,
            Check::Header(_) => CheckKind::Header,
            Check::Event(_) => CheckKind::Event,
            Check::Result(_) => CheckKind::Result,
            Check::Cookie(_) => CheckKind::Cookie,
            Check::Compare(_) => CheckKind::Compare,
            Check::Refused(_) => CheckKind::Refused,
            Check::Reached(_) => CheckKind::Reached,
            Check::Attached(_) => CheckKind::Attached,
            Check::Delivered(_) => CheckKind::Delivered,
            Check::Title(_) => CheckKind::Title,
            Check::Expression(_) => CheckKind::Expression,
            Check::Executed(_) => CheckKind::Executed,
            Check::Live(_) => CheckKind::Live,
            Check::Hops(_) => CheckKind::Hops,
            Check::Detached(_) => CheckKind::Detached,
            Check::Pre(_) => CheckKind::Pre,
            Check::Loaded(_) => CheckKind::Loaded,
            Check::Registration(_) => CheckKind::Registration,
            Check::State(_) => CheckKind::State,
            Check::Filtered(_) => CheckKind::Filtered,
            Check::Blocked(_) => CheckKind::Blocked,
            Check::History(_) => CheckKind::History,
            Check::FrameBlocked(_) => CheckKind::FrameBlocked,
            Check::All(_) => CheckKind::All,
            Check::Any(_) => CheckKind::Any,
            Check::Not(_) => CheckKind::Not,
        }
    }

    /// The observer the check declares.
    pub fn observer(&self) -> Observer {
        match self {
            Check::Beacon(c) => c.observer,
            Check::Served(c) => c.observer,
            Check::Header(c) => c.observer,
            Check::Event(c) => c.observer,
            Check::Result(c) => c.observer,
            Check::Cookie(c) => c.observer,
            Check::Compare(c) => c.observer,
            Check::Refused(c) => c.observer,
            Check::Reached(c) => c.observer,
            Check::Attached(c) => c.observer,
            Check::Delivered(c) => c.observer,
            Check::Title(c) => c.observer,
            Check::Expression(c) => c.observer,
            Check::Executed(c) => c.observer,
            Check::Live(c) => c.observer,
            Check::Hops(c) => c.observer,
            Check::Detached(c) => c.observer,
            Check::Pre(c) => c.observer,
            Check::Loaded(c) => c.observer,
            Check::Registration(c) => c.observer,
            Check::State(c) => c.observer,
            Check::Filtered(c) => c.observer,
            Check::Blocked(c) => c.observer,
            Check::History(c) => c.observer,
            Check::FrameBlocked(c) => c.observer,
            Check::All(c) => c.observer,
            Check::Any(c) => c.observer,
            Check::Not(c) => c.observer,
        }
    }

    /// The operands of `all`, `any` and `not` (empty for every other kind).
    pub fn operands(&self) -> &[Check] {
        match self {
            Check::All(c) => &c.all,
            Check::Any(c) => &c.any,
            Check::Not(c) => std::slice::from_ref(&*c.not),
            _ => &[],
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
