//! Placeholders and legs: the runner's origin map, a leg's variables, `{name}` expansion, the
//! stand-in's redirect URLs, a leg's steps with their refusal names, and the unguarded reads a
//! leg's checks need. No I/O.
//!
//! ```
//! use slicc_browsers::harness::runner::expand::{Leg, Origins, Vars};
//! let origins = Origins::from_json(r#"{
//!     "ordinary": "http://ordinary.test:8080", "ordinary-same-site": null,
//!     "seven": "http://seven.sliccy.ai:8080", "vault": "http://vault.sliccy.ai:8080",
//!     "vault-x": "http://pr-1.vault.sliccy.ai:8080", "apex": "http://sliccy.ai:8080",
//!     "own": "http://client.test:8080", "client": "http://client.test:8080"
//! }"#).unwrap();
//! let vars = Vars::for_leg(&origins, Leg::Guarded, "seven", "t1", "c1");
//! assert_eq!(vars.expand_str("{target}/doc?n=dest-{tag}"), "http://seven.sliccy.ai:8080/doc?n=dest-t1");
//! // the control leg's target is {plain}, which defaults to {ordinary}
//! let control = Vars::for_leg(&origins, Leg::Control, "seven", "t0", "c0");
//! assert_eq!(control.get("target"), Some("http://ordinary.test:8080"));
//! // a null origin is never substituted: the row skips
//! assert_eq!(vars.null_reason_in_str("{ordinary-same-site}/doc"), Some("ordinary-same-site".into()));
//! ```

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::record::Read;
use crate::error::Error;
use crate::vectors::{
    BlockSpec, Check, Hop, Observation, Step, UrlRef, Vector, CONTROL, GUARDED, SESSION_PAGE,
};

/// The origin names the runner maps, required ones first: a missing or `null` one is null.
pub const REQUIRED_ORIGINS: [&str; 8] = [
    "ordinary",
    "ordinary-same-site",
    "seven",
    "vault",
    "vault-x",
    "apex",
    "own",
    "client",
];

/// The optional origin names and the name each defaults to when absent or `null`.
pub const OPTIONAL_ORIGINS: [(&str, &str); 3] = [
    ("plain", "ordinary"),
    ("cross", "client"),
    ("log", "ordinary"),
];

/// A leg of a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Leg {
    /// The control, on the ordinary origin (`{target}` is `{plain}`), judged by
    /// `control.expected`.
    Control,
    /// The guarded leg, on the protected target, judged by `expected` (and liveness).
    Guarded,
}

impl Leg {
    /// `control` or `guarded`, as a step's `on` names it.
    pub fn as_str(self) -> &'static str {
        match self {
            Leg::Control => CONTROL,
            Leg::Guarded => GUARDED,
        }
    }
}

/// The runner's origin map: every name of [`REQUIRED_ORIGINS`] and [`OPTIONAL_ORIGINS`] to an
/// origin (`scheme://host[:port]`) or null.
///
/// A required name that is missing is null, and a null origin is never replaced by another: a
/// row that needs it skips with `not-applicable:no-<name>-origin`. An optional name that is
/// missing or `null` takes its default's value (and so its default's null).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Origins {
    map: BTreeMap<String, Option<String>>,
}

impl Origins {
    /// An origin map with every name null.
    pub fn new() -> Origins {
        Origins::default()
    }

    /// Reads a JSON object of names to origins or `null` (the `--origins` file). Unknown names
    /// and malformed origins are errors naming the key.
    pub fn from_json(text: &str) -> Result<Origins, Error> {
        let value: Value = serde_json::from_str(text).map_err(|e| Error::json("origin map", &e))?;
        let Value::Object(object) = value else {
            return Err(Error::invalid(
                "origin map",
                "must be a JSON object of names to origins or null",
            ));
        };
        let mut origins = Origins::new();
        for (name, v) in object {
            match v {
                Value::Null => origins.set(&name, None)?,
                Value::String(s) => origins.set(&name, Some(&s))?,
                other => {
                    return Err(Error::invalid(
                        format!("origin map/{name}"),
                        format!("must be an origin string or null, not {other}"),
                    ))
                }
            }
        }
        Ok(origins)
    }

    /// Maps `name` to `origin` (`None`: null). The name must be one of [`REQUIRED_ORIGINS`] or
    /// [`OPTIONAL_ORIGINS`]; the origin must look like `scheme://host[:port]` with no path.
    pub fn set(&mut self, name: &str, origin: Option<&str>) -> Result<(), Error> {
        if !is_origin_name(name) {
            return Err(Error::invalid(
                format!("origin map/{name}"),
                format!(
                    "unknown origin name (the names are {} and {})",
                    REQUIRED_ORIGINS.join(", "),
                    OPTIONAL_ORIGINS.map(|(n, _)| n).join(", ")
                ),
            ));
        }
        if let Some(o) = origin {
            check_origin(o).map_err(|m| Error::invalid(format!("origin map/{name}"), m))?;
        }
        self.map
            .insert(name.to_string(), origin.map(|o| o.to_string()));
        Ok(())
    }

    /// [`Origins::set`], chained.
    pub fn with(mut self, name: &str, origin: Option<&str>) -> Result<Origins, Error> {
        self.set(name, origin)?;
        Ok(self)
    }

    /// The origin `name` stands for (optional names resolved through their defaults), or `None`
    /// when it is null or not an origin name.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.resolve(name).0
    }

    /// The origin `name` stands for and the name to report when it is null (`plain` that
    /// defaults to a null `ordinary` reports `ordinary`).
    fn resolve<'b>(&self, name: &'b str) -> (Option<&str>, &'b str) {
        if let Some((_, default)) = OPTIONAL_ORIGINS.iter().find(|(n, _)| *n == name) {
            match self.map.get(name) {
                Some(Some(o)) => (Some(o.as_str()), name),
                _ => (self.map.get(*default).and_then(|o| o.as_deref()), default),
            }
        } else {
            (self.map.get(name).and_then(|o| o.as_deref()), name)
        }
    }

    /// The origin of a protected target (`seven`, `vault`, `vault-x`, `apex`, `own`), or `None`
    /// when it is null.
    pub fn target(&self, target: &str) -> Option<&str> {
        self.get(target)
    }

    /// The names mapped to null (or missing), required and optional, after defaults.
    pub fn null_names(&self) -> Vec<&'static str> {
        REQUIRED_ORIGINS
            .into_iter()
            .chain(OPTIONAL_ORIGINS.map(|(n, _)| n))
            .filter(|n| self.get(n).is_none())
            .collect()
    }
}

/// Whether `name` is one of the origin names the runner maps.
pub fn is_origin_name(name: &str) -> bool {
    REQUIRED_ORIGINS.contains(&name) || OPTIONAL_ORIGINS.iter().any(|(n, _)| *n == name)
}

fn check_origin(origin: &str) -> Result<(), String> {
    let Some((scheme, rest)) = origin.split_once("://") else {
        return Err(format!(
            "{origin:?} is not an origin (scheme://host[:port])"
        ));
    };
    let scheme_ok = scheme
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    if !scheme_ok {
        return Err(format!("{origin:?} has no valid scheme"));
    }
    if rest.is_empty() || rest.contains(['/', '?', '#', '@', ' ']) {
        return Err(format!(
            "{origin:?} is not an origin: it must be scheme://host[:port], no path or slash"
        ));
    }
    Ok(())
}

/// The origin (`scheme://host[:port]`) of a URL, or `None` when it has none.
pub fn origin_of(url: &str) -> Option<&str> {
    let (_, rest) = url.split_once("://")?;
    let start = url.len() - rest.len();
    let end = rest.find(['/', '?', '#']).map_or(url.len(), |i| start + i);
    if end == start {
        return None;
    }
    Some(&url[..end])
}

/// The host of an origin or URL, without its port (`http://a.b:8080/x` → `a.b`; IPv6 keeps its
/// brackets).
pub fn host_of(url: &str) -> Option<&str> {
    let origin = origin_of(url)?;
    let authority = &origin[origin.find("://")? + 3..];
    let authority = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    if authority.starts_with('[') {
        return authority.find(']').map(|i| &authority[..=i]);
    }
    Some(authority.split_once(':').map_or(authority, |(h, _)| h))
}

/// One variable's value: a string, or a null origin (with the origin name a skip reports).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", untagged)]
enum Var {
    Value(String),
    Null { null: String },
}

/// A leg's variables: what each `{name}` expands to.
///
/// [`Vars::for_leg`] sets the origins, `target`, `targetHost`, `tag` and `cookie`. The driver
/// sets the rest with [`Vars::set`] as it learns them: `beacon` and `probe` (the JS sources),
/// `pageTarget`, `popupTarget` (our extension, see `docs/guard-vectors.md`), `context` (the
/// `as: "context"` call's `browserContextId`) and `responseOrigin`. A token whose name is not
/// set is left as it is, so a step can be expanded again once more is known.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Vars {
    vars: BTreeMap<String, Var>,
}

impl Vars {
    /// No variables.
    pub fn new() -> Vars {
        Vars::default()
    }

    /// The variables of one leg of a row on protected target `target` (`seven`, `vault`,
    /// `vault-x`, `apex` or `own`): every origin name, `target` (`{plain}` on the control leg,
    /// the target's origin on the guarded leg), `targetHost` (its host without the port),
    /// `tag` and `cookie`.
    ///
    /// For the unguarded control's second run, against the protected stand-in, take the guarded
    /// leg's variables (a fresh tag) and the control leg's steps and expectation.
    pub fn for_leg(origins: &Origins, leg: Leg, target: &str, tag: &str, cookie: &str) -> Vars {
        let mut vars = Vars::new();
        for name in REQUIRED_ORIGINS
            .into_iter()
            .chain(OPTIONAL_ORIGINS.map(|(n, _)| n))
        {
            let (origin, report) = origins.resolve(name);
            vars.put_origin(name, origin, report);
        }
        let (origin, report) = match leg {
            Leg::Control => origins.resolve("plain"),
            Leg::Guarded => origins.resolve(target),
        };
        vars.put_origin("target", origin, report);
        let host = origin.and_then(host_of);
        vars.put_origin("targetHost", host, report);
        vars.set("tag", tag);
        vars.set("cookie", cookie);
        vars
    }

    fn put_origin(&mut self, name: &str, value: Option<&str>, report: &str) {
        let var = match value {
            Some(v) => Var::Value(v.to_string()),
            None => Var::Null {
                null: report.to_string(),
            },
        };
        self.vars.insert(name.to_string(), var);
    }

    /// Sets `{name}` to `value` (replacing a value or a null).
    pub fn set(&mut self, name: &str, value: &str) -> &mut Vars {
        self.vars
            .insert(name.to_string(), Var::Value(value.to_string()));
        self
    }

    /// Marks `{name}` as a null origin; rows that need it skip with
    /// `not-applicable:no-<report>-origin`.
    pub fn set_null(&mut self, name: &str, report: &str) -> &mut Vars {
        self.vars.insert(
            name.to_string(),
            Var::Null {
                null: report.to_string(),
            },
        );
        self
    }

    /// The value of `{name}`, or `None` when it is null or not set.
    pub fn get(&self, name: &str) -> Option<&str> {
        match self.vars.get(name) {
            Some(Var::Value(v)) => Some(v),
            _ => None,
        }
    }

    /// The leg's tag (empty when not set).
    pub fn tag(&self) -> &str {
        self.get("tag").unwrap_or("")
    }

    /// The origin name to report when `{name}` needs a null origin, or `None` when it does
    /// not. `{beacon}` and `{probe}` send to `{log}`, so they need it even before the driver sets
    /// them.
    pub fn null_reason(&self, name: &str) -> Option<&str> {
        match self.vars.get(name) {
            Some(Var::Null { null }) => Some(null),
            Some(Var::Value(_)) => None,
            None if matches!(name, "beacon" | "probe") => self.null_reason("log"),
            None => None,
        }
    }

    /// Expands every `{name}` token (`\{[A-Za-z][A-Za-z-]*\}`) whose name has a value; other
    /// tokens and other braces stay as they are.
    pub fn expand_str(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut last = 0;
        for (start, end, name) in tokens(text) {
            if let Some(v) = self.get(name) {
                out.push_str(&text[last..start]);
                out.push_str(v);
                last = end;
            }
        }
        out.push_str(&text[last..]);
        out
    }

    /// Expands every string in a JSON value, at any depth (object keys stay as they are).
    pub fn expand_value(&self, value: &Value) -> Value {
        match value {
            Value::String(s) => Value::String(self.expand_str(s)),
            Value::Array(items) => {
                Value::Array(items.iter().map(|v| self.expand_value(v)).collect())
            }
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, v)| (k.clone(), self.expand_value(v)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }

    /// A step with every placeholder expanded (nested `children` steps too).
    pub fn expand_step(&self, step: &Step) -> Result<Step, Error> {
        self.expand_typed(step, "step")
    }

    /// A check with every placeholder expanded.
    pub fn expand_check(&self, check: &Check) -> Result<Check, Error> {
        self.expand_typed(check, "check")
    }

    fn expand_typed<T: Serialize + serde::de::DeserializeOwned>(
        &self,
        item: &T,
        what: &str,
    ) -> Result<T, Error> {
        let value = serde_json::to_value(item)
            .map_err(|e| Error::invalid(what, format!("cannot be written as JSON: {e}")))?;
        serde_json::from_value(self.expand_value(&value)).map_err(|e| {
            Error::invalid(
                what,
                format!("no longer reads after expanding its placeholders: {e}"),
            )
        })
    }

    /// The origin name reported for the first null origin `text` references, if any.
    pub fn null_reason_in_str(&self, text: &str) -> Option<String> {
        tokens(text).find_map(|(_, _, name)| self.null_reason(name).map(str::to_string))
    }

    /// Whether some variable is a null origin (when none is, nothing needs one).
    pub fn has_nulls(&self) -> bool {
        self.vars.values().any(|v| matches!(v, Var::Null { .. }))
    }

    /// The origin name reported for the first null origin a JSON value references, if any.
    pub fn null_reason_in_value(&self, value: &Value) -> Option<String> {
        if !self.has_nulls() {
            return None;
        }
        match value {
            Value::String(s) => self.null_reason_in_str(s),
            Value::Array(items) => items.iter().find_map(|v| self.null_reason_in_value(v)),
            Value::Object(map) => map.values().find_map(|v| self.null_reason_in_value(v)),
            _ => None,
        }
    }

    /// The origin name reported for the first null origin a step references (nested steps
    /// included), if any.
    pub fn null_reason_in_step(&self, step: &Step) -> Option<String> {
        if !self.has_nulls() {
            return None;
        }
        serde_json::to_value(step)
            .ok()
            .and_then(|v| self.null_reason_in_value(&v))
    }

    /// The origin name reported for the first null origin a check itself references, if any.
    /// This is the plain reading: `any` is not special here (the judge drops an `any`
    /// alternative that needs a null origin, see [`super::judge`]).
    pub fn null_reason_in_check(&self, check: &Check) -> Option<String> {
        if !self.has_nulls() {
            return None;
        }
        serde_json::to_value(check)
            .ok()
            .and_then(|v| self.null_reason_in_value(&v))
    }
}

/// The `{name}` tokens of `text`: `(start, end, name)` byte ranges, `name` matching
/// `[A-Za-z][A-Za-z-]*`.
pub fn tokens(text: &str) -> impl Iterator<Item = (usize, usize, &str)> {
    let bytes = text.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < bytes.len() {
            if bytes[i] == b'{' && i + 1 < bytes.len() && bytes[i + 1].is_ascii_alphabetic() {
                let mut j = i + 2;
                while j < bytes.len() && (bytes[j].is_ascii_alphabetic() || bytes[j] == b'-') {
                    j += 1;
                }
                if j < bytes.len() && bytes[j] == b'}' {
                    let found = (i, j + 1, &text[i + 1..j]);
                    i = j + 1;
                    return Some(found);
                }
                // `{` followed by a non-token: go on after the `{`
                i += 1;
            } else {
                i += 1;
            }
        }
        None
    })
}

/// JavaScript's `encodeURIComponent`: every byte of the UTF-8 text except
/// `A-Z a-z 0-9 - _ . ! ~ * ' ( )` as `%XX` (upper-case hex).
pub fn encode_uri_component(text: &str) -> String {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut out = String::with_capacity(text.len() * 3 / 2);
    for &b in text.as_bytes() {
        if b.is_ascii_alphanumeric()
            || matches!(
                b,
                b'-' | b'_' | b'.' | b'!' | b'~' | b'*' | b'\'' | b'(' | b')'
            )
        {
            out.push(b as char);
        } else {
            out.push('%');
            out.push(HEX[usize::from(b >> 4)] as char);
            out.push(HEX[usize::from(b & 15)] as char);
        }
    }
    out
}

/// The URL of one stand-in redirect: `<origin>/hop?code=<code>&to=<encodeURIComponent(to)>`.
pub fn hop_url(origin: &str, code: u16, to: &str) -> String {
    format!("{origin}/hop?code={code}&to={}", encode_uri_component(to))
}

/// Every URL of a redirect chain, in the order the browser requests them: position 0 is the
/// URL a page action loads (the first hop, with the rest nested in its `to`), then each nested
/// hop URL, then `to` itself (position `hops.len()`). With no hops it is just `[to]`.
///
/// This is the one builder the driver (which loads position 0) and the judge (`hops`, `pre`,
/// `loaded` and block checks on a chain) share.
pub fn chain_urls(hops: &[Hop], to: &str) -> Vec<String> {
    let mut urls = vec![to.to_string()];
    for hop in hops.iter().rev() {
        let next = hop_url(&hop.origin, hop.code, &urls[urls.len() - 1]);
        urls.push(next);
    }
    urls.reverse();
    urls
}

/// The URL a page action with `url` and `hops` loads: the chain's position 0.
pub fn chain_start(hops: &[Hop], to: &str) -> String {
    chain_urls(hops, to).swap_remove(0)
}

/// The URLs a [`UrlRef`] stands for, by how a check reads it:
/// a string is that URL; a chain with `index` is the URL at that position (none when out of
/// range); a chain without `index` is every URL of the chain.
pub fn url_ref_urls(url: &UrlRef) -> Vec<String> {
    match url {
        UrlRef::Url(u) => vec![u.clone()],
        UrlRef::Chain(chain) => {
            let urls = chain_urls(&chain.hops, &chain.to);
            match chain.index {
                Some(i) => usize::try_from(i)
                    .ok()
                    .and_then(|i| urls.get(i).cloned())
                    .into_iter()
                    .collect(),
                None => urls,
            }
        }
    }
}

/// Which phase of a vector a step belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    /// `setup`.
    Setup,
    /// `trigger`.
    Trigger,
}

impl Phase {
    /// `setup` or `trigger`.
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Setup => "setup",
            Phase::Trigger => "trigger",
        }
    }
}

/// One step of a leg, ready for the driver.
#[derive(Debug, Clone, PartialEq)]
pub struct LegStep {
    /// The step's flat index (§3.2: `setup` then `trigger`, each `children` step followed by its
    /// nested steps depth-first, `text` steps counted, before `on` filtering).
    pub index: usize,
    /// The phase it belongs to (nested steps take their `children` step's).
    pub phase: Phase,
    /// The step, placeholders expanded with the variables known when the leg was built; a
    /// `page: "tab"` step without `background` gets `background: true`. For a `children` step
    /// run [`LegStep::children`], not the nested steps inside this value.
    pub step: Step,
    /// The refusal name of a refusable step: its `as`, or `refused.<index>`.
    pub refusal_name: Option<String>,
    /// A `children` step's nested steps that run on this leg (a nested step's own `on`
    /// decides), each with its own flat index.
    pub children: Vec<LegStep>,
}

/// The refusal name of each refusable step, with its flat index, in step order (§3.2): the
/// guard module's flattening (that of [`Vector::all_steps`]) and
/// [`refusal_name`](crate::vectors::refusal_name), with the indexes kept.
pub fn refusal_names(vector: &Vector) -> Vec<(usize, String)> {
    crate::vectors::flatten(&vector.setup, &vector.trigger)
        .into_iter()
        .filter(|f| f.step.is_refusable())
        .map(|f| {
            (
                f.index,
                crate::vectors::refusal_name(f.step.name(), f.index),
            )
        })
        .collect()
}

/// The steps of one leg: `on` filtering applied after the flat indexes and refusal names were
/// computed, placeholders expanded with `vars`.
pub fn leg_steps(vector: &Vector, leg: Leg, vars: &Vars) -> Result<Vec<LegStep>, Error> {
    let mut index = 0;
    let mut out = Vec::new();
    build_steps(&vector.setup, Phase::Setup, leg, vars, &mut index, &mut out)
        .map_err(|e| locate(e, &vector.id))?;
    build_steps(
        &vector.trigger,
        Phase::Trigger,
        leg,
        vars,
        &mut index,
        &mut out,
    )
    .map_err(|e| locate(e, &vector.id))?;
    Ok(out)
}

fn locate(e: Error, id: &str) -> Error {
    match e {
        Error::Invalid { path, message } => Error::invalid(format!("{id}/{path}"), message),
        other => other,
    }
}

fn build_steps(
    steps: &[Step],
    phase: Phase,
    leg: Leg,
    vars: &Vars,
    index: &mut usize,
    out: &mut Vec<LegStep>,
) -> Result<(), Error> {
    for step in steps {
        let i = *index;
        *index += 1;
        let runs = step.runs_on(leg.as_str());
        let mut children = Vec::new();
        // nested steps are counted whether or not this step runs on the leg
        build_steps(step.children(), phase, leg, vars, index, &mut children)?;
        if !runs {
            continue;
        }
        let mut expanded = vars
            .expand_step(step)
            .map_err(|e| Error::invalid(format!("step {i}"), e.to_string()))?;
        if let Step::Page(p) = &mut expanded {
            if p.page == "tab" && p.background.is_none() {
                p.background = Some(true);
            }
        }
        out.push(LegStep {
            index: i,
            phase,
            refusal_name: step
                .is_refusable()
                .then(|| crate::vectors::refusal_name(step.name(), i)),
            step: expanded,
            children,
        });
    }
    Ok(())
}

/// The names of the observations judged on a leg: the keys of `control.expected` on the
/// control leg, of `expected` on the guarded leg (none for text rows).
pub fn judged_names(vector: &Vector, leg: Leg) -> Vec<&str> {
    let expected = match leg {
        Leg::Control => &vector.control.expected,
        Leg::Guarded => &vector.expected,
    };
    match expected {
        crate::vectors::Expected::Checks(map) => map.keys().collect(),
        crate::vectors::Expected::Text(_) => Vec::new(),
    }
}

/// The checks judged on a leg, unexpanded: each judged observation's check (and, on the guarded
/// leg, its `eitherWhen`), then on the guarded leg the `liveCheck`.
pub fn leg_checks(vector: &Vector, leg: Leg) -> Vec<&Check> {
    LegChecks::new(vector, leg).all()
}

/// The checks judged on one leg of a vector, unexpanded, by role: each judged observation
/// (`control.expected`'s names on the control leg, `expected`'s on the guarded leg) with its
/// check and, on the guarded leg, its `eitherWhen`; on the guarded leg the `liveCheck`.
#[derive(Debug, Clone)]
pub struct LegChecks<'v> {
    observations: Vec<(&'v str, &'v Check, Option<&'v Check>)>,
    live: Option<&'v Check>,
}

impl<'v> LegChecks<'v> {
    /// The checks judged on `leg` of `vector`.
    pub fn new(vector: &'v Vector, leg: Leg) -> LegChecks<'v> {
        let guarded = leg == Leg::Guarded;
        let observations = judged_names(vector, leg)
            .into_iter()
            .filter_map(|name| {
                let Observation {
                    check, either_when, ..
                } = vector.observation(name)?;
                let when = either_when.as_ref().filter(|_| guarded);
                Some((name, check, when))
            })
            .collect();
        LegChecks {
            observations,
            live: vector.live_check.as_ref().filter(|_| guarded),
        }
    }

    /// Every check, in order: each observation's check and `eitherWhen`, then the `liveCheck`.
    pub fn all(&self) -> Vec<&'v Check> {
        let mut out = Vec::new();
        for (_, check, when) in &self.observations {
            out.push(*check);
            out.extend(*when);
        }
        out.extend(self.live);
        out
    }

    /// The checks expanded with a leg's (final) variables, once, for the observer's reads and
    /// the judge.
    pub fn expand(&self, vars: &Vars) -> ExpandedChecks<'v> {
        let expand = |c: &Check| vars.expand_check(c).map_err(|e| e.to_string());
        ExpandedChecks {
            observations: self
                .observations
                .iter()
                .map(|(name, check, when)| ExpandedObservation {
                    name,
                    raw: check,
                    check: expand(check),
                    raw_when: *when,
                    either_when: when.map(expand),
                })
                .collect(),
            live: self.live.map(|c| (c, expand(c))),
        }
    }
}

/// One judged observation's checks, expanded.
#[derive(Debug, Clone)]
struct ExpandedObservation<'v> {
    name: &'v str,
    raw: &'v Check,
    check: Result<Check, String>,
    raw_when: Option<&'v Check>,
    either_when: Option<Result<Check, String>>,
}

/// A leg's checks ([`LegChecks`]) expanded with its final variables: each one `Err` with the
/// message when it does not expand.
#[derive(Debug, Clone)]
pub struct ExpandedChecks<'v> {
    observations: Vec<ExpandedObservation<'v>>,
    live: Option<(&'v Check, Result<Check, String>)>,
}

impl ExpandedChecks<'_> {
    /// The expanded check of the judged observation `name` and, on the guarded leg, its
    /// `eitherWhen`; `None` when `name` is not judged on the leg.
    #[allow(clippy::type_complexity)]
    pub fn observation(
        &self,
        name: &str,
    ) -> Option<(&Result<Check, String>, Option<&Result<Check, String>>)> {
        self.observations
            .iter()
            .find(|o| o.name == name)
            .map(|o| (&o.check, o.either_when.as_ref()))
    }

    /// The expanded `liveCheck` (the guarded leg's only).
    pub fn live(&self) -> Option<&Result<Check, String>> {
        self.live.as_ref().map(|(_, c)| c)
    }

    /// Every read the checks need from the unguarded observer, sorted and without duplicates,
    /// as [`leg_reads`] gives them for the same variables.
    pub fn reads(&self, vars: &Vars) -> Vec<Read> {
        let mut reads = BTreeSet::new();
        let mut add = |raw: &Check, expanded: &Result<Check, String>| match expanded {
            Ok(c) => collect_reads(c, vars, false, &mut reads),
            // a check that does not expand as a whole: its leaves that do still read
            Err(_) => collect_reads(raw, vars, true, &mut reads),
        };
        for o in &self.observations {
            add(o.raw, &o.check);
            if let (Some(raw), Some(when)) = (o.raw_when, &o.either_when) {
                add(raw, when);
            }
        }
        if let Some((raw, live)) = &self.live {
            add(raw, live);
        }
        reads.into_iter().collect()
    }
}

/// The read an unguarded check needs from the observer (the check expanded), or `None` for
/// every other check. `blocked`'s unguarded form and `frameBlocked` read the error frames
/// (`frameBlocked` always with the out-of-process iframes), `history` the navigation history;
/// a missing `session` is `page`.
pub fn read_for(check: &Check) -> Option<Read> {
    use crate::vectors::Observer;
    let session = |s: &Option<String>| s.clone().unwrap_or_else(|| SESSION_PAGE.to_string());
    let block_session = |b: &BlockSpec| session(&b.session);
    match check {
        Check::Title(c) => Some(Read::Title {
            session: session(&c.session),
        }),
        Check::Expression(c) => Some(Read::Expression {
            expression: c.expression.clone(),
            session: session(&c.session),
        }),
        Check::Blocked(c) if c.observer == Observer::Unguarded => Some(Read::Errors {
            session: block_session(&c.blocked),
            frame: c.blocked.frame == Some(true),
        }),
        Check::FrameBlocked(c) => Some(Read::Errors {
            session: block_session(&c.frame_blocked),
            frame: true,
        }),
        Check::History(c) => Some(Read::History {
            session: block_session(&c.history),
        }),
        Check::State(c) => Some(Read::State {
            origin: c.state.origin.clone(),
            cookie: c.state.cookie.clone(),
            storage: c.state.storage == Some(true),
        }),
        _ => None,
    }
}

/// Every read the leg's checks need from the unguarded observer, sorted and without
/// duplicates: checks expanded with `vars`, alternatives of an `any` that need a null origin
/// left out. Checks that do not expand are left out too (the judge reports them).
pub fn leg_reads(vector: &Vector, leg: Leg, vars: &Vars) -> Vec<Read> {
    let checks = LegChecks::new(vector, leg);
    checks.expand(vars).reads(vars)
}

/// The reads of a check's leaves into `out`; `expand`: each leaf is expanded with `vars` first
/// (when it does not expand it reads nothing), else the check is expanded already.
fn collect_reads(check: &Check, vars: &Vars, expand: bool, out: &mut BTreeSet<Read>) {
    match check {
        Check::All(_) | Check::Any(_) | Check::Not(_) => {
            for operand in check.operands() {
                if matches!(check, Check::Any(_)) && vars.null_reason_in_check(operand).is_some() {
                    continue;
                }
                collect_reads(operand, vars, expand, out);
            }
        }
        _ => {
            if vars.null_reason_in_check(check).is_some() {
                return;
            }
            let read = if expand {
                vars.expand_check(check).ok().as_ref().and_then(read_for)
            } else {
                read_for(check)
            };
            out.extend(read);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_skip_js_braces() {
        let found: Vec<&str> = tokens("x {a-b} {1} {} {{c}} {d e} {f}")
            .map(|(_, _, n)| n)
            .collect();
        assert_eq!(found, ["a-b", "c", "f"]);
    }

    #[test]
    fn encode_matches_js() {
        assert_eq!(
            encode_uri_component("http://a.b:1/x?y=1&z=é ~*'()!"),
            "http%3A%2F%2Fa.b%3A1%2Fx%3Fy%3D1%26z%3D%C3%A9%20~*'()!"
        );
    }

    #[test]
    fn hosts_and_origins() {
        assert_eq!(origin_of("http://a.b:8/x?y"), Some("http://a.b:8"));
        assert_eq!(origin_of("http://a.b"), Some("http://a.b"));
        assert_eq!(origin_of("nope"), None);
        assert_eq!(host_of("http://a.b:8/x"), Some("a.b"));
        assert_eq!(host_of("http://[::1]:8/x"), Some("[::1]"));
    }
}
