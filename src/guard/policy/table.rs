//! The guard's table of every CDP command and event (`commands.json`, beside this file): the
//! policy forwards only what it classifies here (default deny).
//!
//! Each command of the protocol of the Chromium CI uses (`/json/protocol`, listed with its
//! version in the file) has a [`Class`]: forwarded as it is (it acts on the session's own
//! target and shows nothing of other origins), judged (its parameters name a URL, an origin,
//! a site, a storage key, a cookie domain, a target, frame, session, request, script or object
//! id, or a local path: each parameter carries its [`Judge`]), answered by the policy, or
//! refused (with why, in the refusal's words). A command the table lacks is refused as
//! unclassified, and a parameter it does not list is judged as if it named an origin. Events
//! list the fields that carry what the policy filters.
//!
//! Each command also says what it touches when Chromium runs it on a session, its [`Reach`]
//! (its target, its whole tab, its renderer process, its browser context, the browser, or a
//! host's cookies): a command is judged by everything within its reach, not by the URL of the
//! session it is sent on.
//!
//! To add a command (a new Chromium): add its line to `commands.json` with its class, its
//! reach, every parameter and each parameter's judge (`""` for none); the protocol test
//! (`tests/browser/guard_protocol.rs`) names every command, parameter and event the table lacks.

use std::collections::HashMap;
use std::sync::OnceLock;

use serde_json::Value;

/// The table's text, as shipped.
pub const COMMANDS_JSON: &str = include_str!("commands.json");

/// What the policy does with a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Class {
    /// Forwarded as it is: it acts on the session's own target only and shows nothing of other
    /// origins.
    Forward,
    /// Its parameters are judged (each by its [`Judge`]), and its answer filtered where the
    /// table says so.
    Judge,
    /// Answered (or done) by the policy itself.
    Answer,
    /// Refused, for the reason in [`Command::why`].
    Refuse,
}

impl Class {
    /// The class's name in the file.
    pub fn name(self) -> &'static str {
        match self {
            Class::Forward => "forward",
            Class::Judge => "judge",
            Class::Answer => "answer",
            Class::Refuse => "refuse",
        }
    }

    fn parse(s: &str) -> Option<Class> {
        Some(match s {
            "forward" => Class::Forward,
            "judge" => Class::Judge,
            "answer" => Class::Answer,
            "refuse" => Class::Refuse,
            _ => return None,
        })
    }
}

/// What a command touches when Chromium runs it on a session (`reach` in the file): a command
/// is refused when anything protected lies within its reach when it is judged. Judged beside
/// the session's own target (a protected one is never the client's) and the parameters' judges.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Reach {
    /// The session's own target (its document or worker), and what its parameters name
    /// (`target`).
    Target,
    /// Every frame and worker of the session's tab (`page`): refused when the tab's page is
    /// protected or belongs to a protected page.
    Page,
    /// The session's renderer process (`process`): every page that may share it, same-site
    /// with the session's document or opened from one that is; refused when that site is a
    /// protected origin's.
    Process,
    /// The session's browser context (`context`): judged by the concern of the command (a
    /// wipe, a permission reset or a context's disposal only in a context the client created
    /// or one holding no protected tab).
    Context,
    /// The whole browser (`browser`): refused while a protected tab is open.
    Browser,
    /// The cookies of a host (`host`): a URL among its parameters is judged by its host, any
    /// scheme and port, as cookies are.
    Host,
}

impl Reach {
    /// The reach's name in the file.
    pub fn name(self) -> &'static str {
        match self {
            Reach::Target => "target",
            Reach::Page => "page",
            Reach::Process => "process",
            Reach::Context => "context",
            Reach::Browser => "browser",
            Reach::Host => "host",
        }
    }

    /// Every reach, from the narrowest.
    pub const ALL: [Reach; 6] = [
        Reach::Target,
        Reach::Page,
        Reach::Process,
        Reach::Context,
        Reach::Browser,
        Reach::Host,
    ];

    fn parse(s: &str) -> Option<Reach> {
        Reach::ALL.into_iter().find(|r| r.name() == s)
    }
}

/// How a parameter (or an event's field) is judged; in the file a string (`""` for none) or,
/// for an object, the judges of its members. A judge on a list applies to each item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Judge {
    /// Names nothing the policy judges.
    None,
    /// A URL, an origin or a site (`url`).
    Url,
    /// A list of URLs (`urls`).
    Urls,
    /// URL patterns that only narrow what the command does (`pattern`: not judged).
    Pattern,
    /// A storage key (`storage-key`).
    StorageKey,
    /// A `CacheStorage` cache id, `<storage key>|<name>` (`cache-id`).
    CacheId,
    /// A cookie domain or a relying party id (`cookie-domain`).
    CookieDomain,
    /// A cookie: its domain, URL and partition key (`cookie`).
    Cookie,
    /// A target id (`target`).
    Target,
    /// A session id (`session`).
    Session,
    /// A frame id (`frame`).
    Frame,
    /// A request id (`request`).
    Request,
    /// A script or style sheet id (`script`).
    Script,
    /// A remote object id (`object`).
    Object,
    /// A local path (`path`).
    Path,
    /// A browser context id (`context`).
    Context,
    /// A value the protocol does not describe, walked whole (`any`).
    Any,
    /// Origins granted reach over every other origin (`grant`): the pages of the origins it
    /// lists read any origin's responses past CORS, protected ones included, whichever
    /// origins they are; only an empty list passes.
    Grant,
    /// An object whose members are judged by name.
    Members(Vec<(String, Judge)>),
}

impl Judge {
    fn parse(v: &Value) -> Result<Judge, String> {
        Ok(match v {
            Value::String(s) => match s.as_str() {
                "" => Judge::None,
                "url" => Judge::Url,
                "urls" => Judge::Urls,
                "pattern" => Judge::Pattern,
                "storage-key" => Judge::StorageKey,
                "cache-id" => Judge::CacheId,
                "cookie-domain" => Judge::CookieDomain,
                "cookie" => Judge::Cookie,
                "target" => Judge::Target,
                "session" => Judge::Session,
                "frame" => Judge::Frame,
                "request" => Judge::Request,
                "script" => Judge::Script,
                "object" => Judge::Object,
                "path" => Judge::Path,
                "context" => Judge::Context,
                "any" => Judge::Any,
                "grant" => Judge::Grant,
                other => return Err(format!("unknown judge {other:?}")),
            },
            Value::Object(map) => Judge::Members(members(map)?),
            other => return Err(format!("a judge is a string or an object, not {other}")),
        })
    }

    /// Whether the value needs judging at all.
    pub fn judged(&self) -> bool {
        !matches!(self, Judge::None | Judge::Pattern)
    }
}

fn members(map: &serde_json::Map<String, Value>) -> Result<Vec<(String, Judge)>, String> {
    map.iter()
        .map(|(k, v)| {
            Judge::parse(v)
                .map(|j| (k.clone(), j))
                .map_err(|e| format!("{k}: {e}"))
        })
        .collect()
}

/// One command of the table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    /// What the policy does with it.
    pub class: Class,
    /// What it touches when Chromium runs it.
    pub reach: Reach,
    /// Why it is refused or answered, in words a client author understands.
    pub why: Option<String>,
    /// Whether its answer is filtered (protected targets, cookies, storage taken out).
    pub filtered: bool,
    /// Every parameter of the protocol, with its judge.
    pub params: Vec<(String, Judge)>,
}

impl Command {
    /// The judge of parameter `name`, `None` when the protocol has no such parameter.
    pub fn param(&self, name: &str) -> Option<&Judge> {
        self.params.iter().find(|(n, _)| n == name).map(|(_, j)| j)
    }
}

/// One event of the table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// The fields that carry what the policy filters, with their judges.
    pub filter: Vec<(String, Judge)>,
}

/// The table: every command and event of one Chromium's protocol.
#[derive(Debug, Clone)]
pub struct Table {
    /// The Chromium version whose `/json/protocol` the table covers.
    pub chromium: String,
    commands: HashMap<String, Command>,
    events: HashMap<String, Event>,
}

impl Table {
    /// Reads a table (the format of `commands.json`); the error names the entry at fault.
    pub fn parse(text: &str) -> Result<Table, String> {
        let v: Value = serde_json::from_str(text).map_err(|e| format!("the table: {e}"))?;
        let chromium = v["chromium"]
            .as_str()
            .ok_or("the table has no \"chromium\" version")?
            .to_string();
        let mut commands = HashMap::new();
        for (name, e) in v["commands"]
            .as_object()
            .ok_or("the table has no commands")?
        {
            let at = |what: &str| format!("commands.{name}: {what}");
            let class = e["class"]
                .as_str()
                .and_then(Class::parse)
                .ok_or_else(|| at("\"class\" is not forward, judge, answer or refuse"))?;
            let reach = e["reach"].as_str().and_then(Reach::parse).ok_or_else(|| {
                at("\"reach\" is not target, page, process, context, browser or host")
            })?;
            let why = e.get("why").and_then(Value::as_str).map(str::to_string);
            if matches!(class, Class::Refuse | Class::Answer) && why.is_none() {
                return Err(at("a refused or answered command needs its \"why\""));
            }
            let params = match e.get("params") {
                Some(Value::Object(map)) => members(map).map_err(|w| at(&w))?,
                None => Vec::new(),
                Some(_) => return Err(at("\"params\" is not an object")),
            };
            let filtered = e.get("answer").and_then(Value::as_str) == Some("filtered");
            commands.insert(
                name.clone(),
                Command {
                    class,
                    reach,
                    why,
                    filtered,
                    params,
                },
            );
        }
        let mut events = HashMap::new();
        for (name, e) in v["events"].as_object().ok_or("the table has no events")? {
            let filter = match e.get("filter") {
                Some(Value::Object(map)) => {
                    members(map).map_err(|w| format!("events.{name}: {w}"))?
                }
                None => Vec::new(),
                Some(_) => return Err(format!("events.{name}: \"filter\" is not an object")),
            };
            events.insert(name.clone(), Event { filter });
        }
        Ok(Table {
            chromium,
            commands,
            events,
        })
    }

    /// The entry of command `method` (`Domain.name`), `None` when it is unclassified.
    pub fn command(&self, method: &str) -> Option<&Command> {
        self.commands.get(method)
    }

    /// The entry of event `method`.
    pub fn event(&self, method: &str) -> Option<&Event> {
        self.events.get(method)
    }

    /// Every command, in no particular order.
    pub fn commands(&self) -> impl Iterator<Item = (&str, &Command)> {
        self.commands.iter().map(|(k, v)| (k.as_str(), v))
    }

    /// Every event, in no particular order.
    pub fn events(&self) -> impl Iterator<Item = (&str, &Event)> {
        self.events.iter().map(|(k, v)| (k.as_str(), v))
    }

    /// How many commands each reach has, in the order of [`Reach::ALL`].
    pub fn reaches(&self) -> [(Reach, usize); 6] {
        Reach::ALL.map(|r| (r, self.commands.values().filter(|e| e.reach == r).count()))
    }

    /// How many commands each class has, in the order forward, judge, answer, refuse.
    pub fn counts(&self) -> [(Class, usize); 4] {
        let n = |c: Class| self.commands.values().filter(|e| e.class == c).count();
        [Class::Forward, Class::Judge, Class::Answer, Class::Refuse].map(|c| (c, n(c)))
    }

    /// What `protocol` (the JSON of a browser's `/json/protocol`) has that this table lacks:
    /// one line per command, parameter or event, sorted. Empty when the table covers it all.
    pub fn missing(&self, protocol: &Value) -> Vec<String> {
        let mut out = Vec::new();
        for d in protocol["domains"].as_array().into_iter().flatten() {
            let domain = d["domain"].as_str().unwrap_or_default();
            for c in d["commands"].as_array().into_iter().flatten() {
                let name = format!("{domain}.{}", c["name"].as_str().unwrap_or_default());
                match self.command(&name) {
                    None => out.push(format!("command {name}")),
                    Some(e) => {
                        for p in c["parameters"].as_array().into_iter().flatten() {
                            let p = p["name"].as_str().unwrap_or_default();
                            if e.param(p).is_none() {
                                out.push(format!("parameter {name}.{p}"));
                            }
                        }
                    }
                }
            }
            for ev in d["events"].as_array().into_iter().flatten() {
                let name = format!("{domain}.{}", ev["name"].as_str().unwrap_or_default());
                if self.event(&name).is_none() {
                    out.push(format!("event {name}"));
                }
            }
        }
        out.sort();
        out
    }
}

/// The shipped table, read once.
pub fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| Table::parse(COMMANDS_JSON).expect("the shipped commands.json reads"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_shipped_table_reads() {
        let t = Table::parse(COMMANDS_JSON).unwrap();
        assert!(t.chromium.starts_with("156."));
        let total: usize = t.counts().iter().map(|(_, n)| n).sum();
        assert!(total > 600, "{total} commands");
        let e = t.command("Browser.setPermission").unwrap();
        assert_eq!(e.class, Class::Judge);
        assert_eq!(e.param("embeddedOrigin"), Some(&Judge::Url));
        assert_eq!(
            t.command("Network.clearBrowserCache").unwrap().class,
            Class::Refuse
        );
        assert_eq!(t.command("Page.crash").unwrap().reach, Reach::Process);
        assert_eq!(
            t.command("Emulation.updateScreen").unwrap().reach,
            Reach::Browser
        );
        assert_eq!(t.command("Network.setCookie").unwrap().reach, Reach::Host);
        assert_eq!(t.command("Runtime.evaluate").unwrap().reach, Reach::Target);
        let counted: usize = t.reaches().iter().map(|(_, n)| n).sum();
        assert_eq!(counted, total);
    }

    #[test]
    fn missing_names_what_the_table_lacks() {
        let t = Table::parse(COMMANDS_JSON).unwrap();
        let protocol = json!({"domains": [{
            "domain": "Browser",
            "commands": [
                {"name": "getVersion"},
                {"name": "setPermission", "parameters": [{"name": "origin"}, {"name": "newOne"}]},
                {"name": "brandNew"}
            ],
            "events": [{"name": "downloadWillBegin"}, {"name": "newEvent"}]
        }]});
        assert_eq!(
            t.missing(&protocol),
            [
                "command Browser.brandNew",
                "event Browser.newEvent",
                "parameter Browser.setPermission.newOne"
            ]
        );
    }

    #[test]
    fn bad_tables_say_where() {
        let bad = r#"{"chromium": "1", "commands": {"A.b": {"class": "maybe", "reach": "target"}}, "events": {}}"#;
        assert!(Table::parse(bad).unwrap_err().contains("A.b"));
        let no_why = r#"{"chromium": "1", "commands": {"A.b": {"class": "refuse", "reach": "target"}}, "events": {}}"#;
        assert!(Table::parse(no_why).unwrap_err().contains("why"));
        let no_reach =
            r#"{"chromium": "1", "commands": {"A.b": {"class": "forward"}}, "events": {}}"#;
        assert!(Table::parse(no_reach).unwrap_err().contains("reach"));
        let bad_reach = r#"{"chromium": "1", "commands": {"A.b": {"class": "forward", "reach": "tab"}}, "events": {}}"#;
        assert!(Table::parse(bad_reach).unwrap_err().contains("A.b"));
        let judge = r#"{"chromium": "1", "commands": {"A.b": {"class": "judge", "reach": "target", "params": {"x": "colour"}}}, "events": {}}"#;
        assert!(Table::parse(judge).unwrap_err().contains("x"));
    }

    /// Every CDP method the policy's code names (a string `Domain.name` outside comments and
    /// tests) is in the table, and a command the code handles is one the table lets through:
    /// the table is the only classifier, and an arm for a command the table refuses first
    /// could never run.
    #[test]
    fn every_method_named_in_code_agrees_with_its_entry() {
        let t = table();
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src/guard/policy");
        let mut named = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().and_then(|e| e.to_str()) != Some("rs") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let code = text.split("#[cfg(test)]").next().unwrap_or_default();
            for (n, line) in code.lines().enumerate() {
                if line.trim_start().starts_with("//") {
                    continue;
                }
                for (i, part) in line.split('"').enumerate() {
                    if i % 2 == 0 || !is_method(part) {
                        continue;
                    }
                    named += 1;
                    let at = format!("{}:{}: {part}", path.display(), n + 1);
                    match (t.command(part), t.event(part)) {
                        (Some(c), _) => assert_ne!(
                            c.class,
                            Class::Refuse,
                            "{at} is handled in code, but the table refuses it first"
                        ),
                        (None, Some(_)) => {}
                        (None, None) => panic!("{at} is not in the table"),
                    }
                }
            }
        }
        assert!(
            named > 100,
            "only {named} methods named in the policy's code"
        );
    }

    /// docs/guard-table.md gives each reach's count as the shipped table has it.
    #[test]
    fn the_documented_reach_counts_are_the_tables() {
        let doc =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/guard-table.md"))
                .unwrap();
        for (reach, n) in table().reaches() {
            let line = format!("`{}` ({n})", reach.name());
            assert!(doc.contains(&line), "docs/guard-table.md lacks {line:?}");
        }
    }

    /// Whether `s` reads as a CDP method: `Domain.name`.
    fn is_method(s: &str) -> bool {
        let Some((domain, name)) = s.split_once('.') else {
            return false;
        };
        domain.len() > 1
            && domain.starts_with(|c: char| c.is_ascii_uppercase())
            && domain.chars().all(|c| c.is_ascii_alphanumeric())
            && name.starts_with(|c: char| c.is_ascii_lowercase())
            && name.chars().all(|c| c.is_ascii_alphanumeric())
    }
}
