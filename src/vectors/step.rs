//! Steps: the declarative, transport-neutral actions of a vector's `setup` and `trigger`.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use super::vocabulary::{kind_enum, not_one_kind_message, one_kind};

/// The step table: each row declares one kind (its variant, struct and JSON key, with the
/// doc of the variant). [`Step`], [`StepKind`] (with `ALL`, `as_str`, `from_key`), the
/// deserializer, [`Step::kind`], [`Step::on`] and [`Step::extra`] are derived from it.
macro_rules! steps {
    ($( $(#[$doc:meta])* $variant:ident($name:ident) $key:literal, )*) => {
        /// One step. Each JSON step carries exactly one kind key (`text`, `cdp`, `page`,
        /// `answer`, `children`, `settle`, `wait` or `guess`), which picks the variant.
        #[derive(Debug, Clone, PartialEq, Serialize)]
        #[serde(untagged)]
        pub enum Step {
            $( $(#[$doc])* $variant($name), )*
        }

        kind_enum! {
            /// The kind of a [`Step`], named as its key in the JSON.
            StepKind, "step",
            [$( $(#[$doc])* $variant = $key ),*]
        }

        impl Step {
            /// The step's kind.
            pub fn kind(&self) -> StepKind {
                match self {
                    $(Step::$variant(_) => StepKind::$variant,)*
                }
            }

            /// The leg the step is limited to (`control` or `guarded`), or `None` for both.
            pub fn on(&self) -> Option<&str> {
                match self {
                    $(Step::$variant(s) => s.on.as_deref(),)*
                }
            }

            /// The members this version of the format does not name, kept as they are.
            pub fn extra(&self) -> &Map<String, Value> {
                match self {
                    $(Step::$variant(s) => &s.extra,)*
                }
            }
        }

        impl<'de> Deserialize<'de> for Step {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let map = Map::<String, Value>::deserialize(deserializer)?;
                let kind = one_kind(StepKind::kinds_in(&map), &map).map_err(|e| {
                    D::Error::custom(not_one_kind_message("step", &StepKind::ALL, &e))
                })?;
                let value = Value::Object(map);
                let step = match kind {
                    $(StepKind::$variant => serde_json::from_value(value).map(Step::$variant),)*
                };
                step.map_err(|e| D::Error::custom(format!("{kind} step: {e}")))
            }
        }
    };
}

steps! {
    /// `{ "text": … }`: a step in words, with nothing to execute.
    Text(TextStep) "text",
    /// `{ "cdp": method, … }`: a CDP call.
    Cdp(CdpStep) "cdp",
    /// `{ "page": action, … }`: a page action.
    Page(PageStep) "page",
    /// `{ "answer": { … } }`: answers paused requests for one URL.
    Answer(AnswerStep) "answer",
    /// `{ "children": [steps], … }`: steps run on every target auto-attached from then on.
    Children(ChildrenStep) "children",
    /// `{ "settle": { … } }`: waits for a beacon, a title, a detach or the detach variant.
    Settle(SettleStep) "settle",
    /// `{ "wait": ms }`: sleeps.
    Wait(WaitStep) "wait",
    /// `{ "guess": { … }, "as": name }`: a call for each request id between two paused ones.
    Guess(GuessStep) "guess",
}

/// A text step: a step described in words.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TextStep {
    /// What happens, in words.
    pub text: String,
    /// `control` or `guarded`: the one leg this step runs on (both when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on: Option<String>,
    /// Members this version of the format does not name, kept as they are.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A CDP call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CdpStep {
    /// The method, such as `Page.navigate`.
    pub cdp: String,
    /// The call's parameters (open: whatever the method takes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<Map<String, Value>>,
    /// `page` (the default), `browser`, `page-or-browser` or `child`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// The name of the call's outcome (and its refusal name when refusable).
    #[serde(rename = "as", default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The one leg this step runs on (both when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on: Option<String>,
    /// The capabilities this call needs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requires: Option<Vec<String>>,
    /// `true` when a guard may refuse this call at registration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refusable: Option<bool>,
    /// How to recognise the guard's refusal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refusal: Option<Refusal>,
    /// Members this version of the format does not name, kept as they are.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// How a guard's refusal of a call is recognised.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Refusal {
    /// A regular expression tested against the error message or code.
    #[serde(rename = "match")]
    pub pattern: String,
    /// Members this version of the format does not name, kept as they are.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A page action (`tab`, `navigate`, `href`, `replace`, `form`, `post`, `open`, `iframe`,
/// `framed`, `fetch`, `xhr`, `image` or `eval`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PageStep {
    /// The action.
    pub page: String,
    /// The URL the action loads or navigates to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The redirect chain `url` is routed through.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hops: Option<Vec<Hop>>,
    /// For `framed`: the origin of the framing page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// For `tab`: the browser context to open it in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// For `eval`: the JavaScript to evaluate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expression: Option<String>,
    /// For `fetch`: `include` sends credentials.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credentials: Option<String>,
    /// For `fetch`, `xhr`, `image`: the body is named as `<status> <body>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<bool>,
    /// For `tab` (default `true`) and loads: don't wait.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub background: Option<bool>,
    /// The session the action runs on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// The name of the action's outcome.
    #[serde(rename = "as", default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The one leg this step runs on (both when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on: Option<String>,
    /// The capabilities this action needs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requires: Option<Vec<String>>,
    /// Members this version of the format does not name, kept as they are.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One hop of a redirect chain: the stand-in's `/hop` on `origin`, answering with `code`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Hop {
    /// The origin whose `/hop` redirects.
    pub origin: String,
    /// The redirect status, 300 to 399.
    pub code: u16,
    /// Members this version of the format does not name, kept as they are.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// An answer step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnswerStep {
    /// What to answer and how.
    pub answer: Answer,
    /// The one leg this step runs on (both when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on: Option<String>,
    /// Members this version of the format does not name, kept as they are.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Answers every paused request or auth challenge for `url`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Answer {
    /// The exact URL whose paused requests are answered.
    pub url: String,
    /// `Request` or `Response`: the interception stage answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stage: Option<String>,
    /// The method to answer with, such as `Fetch.fulfillRequest`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cdp: Option<String>,
    /// The answer's parameters (the runner adds the request id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<Map<String, Value>>,
    /// `true` keeps those requests paused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hold: Option<bool>,
    /// Members this version of the format does not name, kept as they are.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Steps run on every target auto-attached from this point on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChildrenStep {
    /// The nested steps.
    pub children: Vec<Step>,
    /// Which attached targets the steps run on (all when absent).
    #[serde(rename = "where", default, skip_serializing_if = "Option::is_none")]
    pub r#where: Option<Where>,
    /// The one leg this step runs on (both when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on: Option<String>,
    /// The capabilities this step needs (`autoAttach`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requires: Option<Vec<String>>,
    /// Members this version of the format does not name, kept as they are.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Which auto-attached targets a [`ChildrenStep`] applies to: exactly one member is set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Where {
    /// `page`: popups whose opener is the row's page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opener_id: Option<String>,
    /// Targets whose URL starts with this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url_prefix: Option<String>,
    /// Members this version of the format does not name, kept as they are.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A settle step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SettleStep {
    /// What to wait for.
    pub settle: Settle,
    /// The capabilities this step needs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requires: Option<Vec<String>>,
    /// The one leg this step runs on (both when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on: Option<String>,
    /// Members this version of the format does not name, kept as they are.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// What a settle step waits for, up to `ms` (10000 by default) plus 600 ms.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Settle {
    /// A beacon from this origin.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beacon: Option<String>,
    /// The page title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// How long to wait, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ms: Option<u64>,
    /// `true`: wait the run's detach variant instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<bool>,
    /// Wait for this session to detach.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// `true`: a missing beacon fails the row, unless a refusal in `depends_on` was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
    /// Refusal names that excuse a missing beacon.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depends_on: Option<Vec<String>>,
    /// Members this version of the format does not name, kept as they are.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A wait step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WaitStep {
    /// Milliseconds to sleep.
    pub wait: u64,
    /// The one leg this step runs on (both when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on: Option<String>,
    /// Members this version of the format does not name, kept as they are.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A guess step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GuessStep {
    /// The call and the two URLs whose request ids bound the guesses.
    pub guess: Guess,
    /// The name of the attempts' outcome (required).
    #[serde(rename = "as")]
    pub name: String,
    /// The one leg this step runs on (both when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on: Option<String>,
    /// Members this version of the format does not name, kept as they are.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Issues `cdp` once per request id between the ids paused for the two `between` URLs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Guess {
    /// The two URLs (exactly two).
    pub between: Vec<String>,
    /// The method to call with each guessed id.
    pub cdp: String,
    /// The call's parameters (the runner adds the request id).
    pub params: Map<String, Value>,
    /// Members this version of the format does not name, kept as they are.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Rule V9, the one place it is written: the capabilities a step needs, each with why. The spec:
/// "every Target.setAutoAttach, children, child-session, browser-session and browser-context
/// step has the matching requires". `cdp` is the step's `cdp` method (a `cdp` step), `children`
/// whether it is a `children` step, `session` its `session`. A `page-or-browser` call with a
/// `browserContextId` is not among them: the spec makes that a runtime skip
/// (`not-supported:browserSession`), not a rule of the file.
///
/// ```
/// use slicc_browsers::vectors::{capabilities_needed, CAP_AUTO_ATTACH, CAP_BROWSER_SESSION};
/// assert_eq!(
///     capabilities_needed(Some("Target.setAutoAttach"), false, Some("browser")),
///     [(CAP_AUTO_ATTACH, "Target.setAutoAttach"), (CAP_BROWSER_SESSION, "session: browser")]
/// );
/// assert!(capabilities_needed(Some("Runtime.evaluate"), false, Some("page")).is_empty());
/// ```
pub fn capabilities_needed(
    cdp: Option<&str>,
    children: bool,
    session: Option<&str>,
) -> Vec<(&'static str, &'static str)> {
    use super::vocabulary::{
        CAP_AUTO_ATTACH, CAP_BROWSER_CONTEXTS, CAP_BROWSER_SESSION, SESSION_BROWSER, SESSION_CHILD,
    };
    let mut out = Vec::new();
    if cdp == Some("Target.setAutoAttach") {
        out.push((CAP_AUTO_ATTACH, "Target.setAutoAttach"));
    }
    if children {
        out.push((CAP_AUTO_ATTACH, "a children step"));
    }
    match session {
        Some(SESSION_CHILD) => out.push((CAP_AUTO_ATTACH, "session: child")),
        Some(SESSION_BROWSER) => out.push((CAP_BROWSER_SESSION, "session: browser")),
        _ => {}
    }
    if matches!(
        cdp,
        Some("Target.createBrowserContext" | "Target.disposeBrowserContext")
    ) {
        out.push((
            CAP_BROWSER_CONTEXTS,
            "Target.createBrowserContext and Target.disposeBrowserContext",
        ));
    }
    out
}

impl Step {
    /// Whether the step runs on `leg` (`control` or `guarded`).
    pub fn runs_on(&self, leg: &str) -> bool {
        self.on().is_none_or(|on| on == leg)
    }

    /// The capabilities the step must list in its `requires` (rule V9), each with why: see
    /// [`capabilities_needed`].
    pub fn needs(&self) -> Vec<(&'static str, &'static str)> {
        let (cdp, session) = match self {
            Step::Cdp(s) => (Some(s.cdp.as_str()), s.session.as_deref()),
            Step::Page(s) => (None, s.session.as_deref()),
            _ => (None, None),
        };
        capabilities_needed(cdp, matches!(self, Step::Children(_)), session)
    }

    /// The capabilities listed on the step itself.
    pub fn requires(&self) -> &[String] {
        let requires = match self {
            Step::Cdp(s) => &s.requires,
            Step::Page(s) => &s.requires,
            Step::Children(s) => &s.requires,
            Step::Settle(s) => &s.requires,
            _ => &None,
        };
        requires.as_deref().unwrap_or(&[])
    }

    /// The name of the step's outcome (`as`), for the kinds that have one.
    pub fn name(&self) -> Option<&str> {
        match self {
            Step::Cdp(s) => s.name.as_deref(),
            Step::Page(s) => s.name.as_deref(),
            Step::Guess(s) => Some(&s.name),
            _ => None,
        }
    }

    /// The CDP method the step calls: a `cdp` step's method, an `answer`'s `cdp` or a `guess`'s.
    pub fn method(&self) -> Option<&str> {
        match self {
            Step::Cdp(s) => Some(&s.cdp),
            Step::Answer(s) => s.answer.cdp.as_deref(),
            Step::Guess(s) => Some(&s.guess.cdp),
            _ => None,
        }
    }

    /// Whether a guard may refuse this step at registration (only `cdp` steps can be).
    pub fn is_refusable(&self) -> bool {
        matches!(self, Step::Cdp(s) if s.refusable == Some(true))
    }

    /// The nested steps of a `children` step (empty for every other kind).
    pub fn children(&self) -> &[Step] {
        match self {
            Step::Children(s) => &s.children,
            _ => &[],
        }
    }
}

/// The legs a step runs on: its own `on` within its `children` step's.
#[cfg_attr(not(feature = "validate"), allow(dead_code))]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Legs {
    /// Runs on the control leg.
    pub control: bool,
    /// Runs on the guarded leg.
    pub guarded: bool,
}

#[cfg_attr(not(feature = "validate"), allow(dead_code))]
impl Legs {
    /// Both legs: a top-level step without `on`.
    pub const BOTH: Legs = Legs {
        control: true,
        guarded: true,
    };

    /// The legs a step with this `on` runs on, inside a step running on `outer`: a nested step
    /// runs only where its `children` step runs.
    pub fn within(outer: Legs, on: Option<&str>) -> Legs {
        match on {
            None => outer,
            Some(super::vocabulary::CONTROL) => Legs {
                control: outer.control,
                guarded: false,
            },
            Some(super::vocabulary::GUARDED) => Legs {
                control: false,
                guarded: outer.guarded,
            },
            Some(_) => Legs {
                control: false,
                guarded: false,
            },
        }
    }

    /// Whether the step runs on `leg` ([`CONTROL`](super::vocabulary::CONTROL) or
    /// [`GUARDED`](super::vocabulary::GUARDED)).
    pub fn has(self, leg: &str) -> bool {
        match leg {
            super::vocabulary::CONTROL => self.control,
            super::vocabulary::GUARDED => self.guarded,
            _ => false,
        }
    }

    /// Whether both run on a common leg.
    pub fn overlap(self, other: Legs) -> bool {
        (self.control && other.control) || (self.guarded && other.guarded)
    }
}

/// A step as the flattening sees it: a typed [`Step`], or a step still in JSON (what
/// `validate` reads, so that a file the types refuse is still checked).
pub(crate) trait StepNode: Sized {
    /// The step's `on`.
    fn on(&self) -> Option<&str>;
    /// The steps nested in it (a `children` step's), empty for the rest.
    fn nested(&self) -> &[Self];
}

impl StepNode for Step {
    fn on(&self) -> Option<&str> {
        Step::on(self)
    }
    fn nested(&self) -> &[Step] {
        self.children()
    }
}

impl StepNode for Value {
    fn on(&self) -> Option<&str> {
        self.get("on").and_then(Value::as_str)
    }
    fn nested(&self) -> &[Value] {
        self.get(StepKind::Children.as_str())
            .and_then(Value::as_array)
            .map_or(&[], Vec::as_slice)
    }
}

/// One step of the flattening.
#[cfg_attr(not(feature = "validate"), allow(dead_code))]
pub(crate) struct Flat<'a, T> {
    /// The step.
    pub step: &'a T,
    /// Its index: its place in the flattening, counted from 0 (§3.2).
    pub index: usize,
    /// Its JSON pointer inside the vector, such as `/setup/1/children/0`.
    pub pointer: String,
    /// The legs it runs on.
    pub legs: Legs,
}

/// A vector's steps flattened in refusal-name order (§3.2): `setup`, then `trigger`, each
/// `children` step followed at once by its own steps, depth-first, every step counted
/// (`text` ones too) before `on` is applied. The one walk of the runner's order that the types
/// and `validate` share.
pub(crate) fn flatten<'a, T: StepNode>(setup: &'a [T], trigger: &'a [T]) -> Vec<Flat<'a, T>> {
    fn go<'a, T: StepNode>(
        steps: &'a [T],
        at: &mut String,
        legs: Legs,
        out: &mut Vec<Flat<'a, T>>,
    ) {
        for (i, step) in steps.iter().enumerate() {
            let len = at.len();
            at.push('/');
            at.push_str(&i.to_string());
            let legs = Legs::within(legs, step.on());
            out.push(Flat {
                step,
                index: out.len(),
                pointer: at.clone(),
                legs,
            });
            at.push_str("/children");
            go(step.nested(), at, legs, out);
            at.truncate(len);
        }
    }
    let mut out = Vec::new();
    go(setup, &mut "/setup".to_string(), Legs::BOTH, &mut out);
    go(trigger, &mut "/trigger".to_string(), Legs::BOTH, &mut out);
    out
}
