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

/// The concern of the policy that handles a command beyond its parameters' judges (`concern`
/// in the file): the policy dispatches a command, and its answer, from its entry to this
/// concern, and its code names no command the table does not route there (a unit test holds
/// it). Most commands have none: their parameters' judges and their reach say all.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Concern {
    /// Cookie reads answered filtered, cookie deletes judged by host (`cookies`).
    Cookies,
    /// Permissions granted, set or reset (`permissions`): a clipboard read, a protected
    /// origin's permission, a reset of a context the client did not create.
    Permissions,
    /// A wipe of a context's cookies (`wipe`): only a context the client created, cleared of
    /// its ordinary cookies by the policy.
    Wipe,
    /// Sessions made on targets (`attach`): attach, auto-attach, nesting.
    Attach,
    /// Browser contexts made and disposed of (`contexts`).
    Contexts,
    /// Target discovery turned on and off (`discover`): answered by the policy at the root.
    Discover,
    /// Target listings (`listing`): protected targets taken out of the answer.
    Listing,
    /// Session history read and walked (`history`).
    History,
    /// Frame trees (`frames`): protected frames taken out of the answer.
    Frames,
    /// The element holding a frame (`frame-owner`): refused on a page holding a protected
    /// frame in another process.
    FrameOwner,
    /// Request interception and the answers to paused requests (`fetch`).
    Fetch,
    /// Download folders (`downloads`): a folder the browser writes into.
    Downloads,
    /// Local files handed to a page (`files`): file inputs, drops, an app's file launch.
    Files,
    /// Speculative loads shown to the client (`preload`).
    Preload,
    /// A document session's network events (`network`).
    Network,
    /// Request headers and user agents overridden (`overrides`).
    Overrides,
    /// Pictures of a page (`captures`): screenshots, snapshots, screencasts, PDFs, layers.
    Captures,
    /// A page's resources read by URL (`resources`).
    Resources,
    /// Keys that paste the user's clipboard (`clipboard`).
    Clipboard,
    /// Script objects' properties and breakpoints by URL (`scripts`).
    Scripts,
}

impl Concern {
    /// Every concern.
    pub const ALL: [Concern; 20] = [
        Concern::Cookies,
        Concern::Permissions,
        Concern::Wipe,
        Concern::Attach,
        Concern::Contexts,
        Concern::Discover,
        Concern::Listing,
        Concern::History,
        Concern::Frames,
        Concern::FrameOwner,
        Concern::Fetch,
        Concern::Downloads,
        Concern::Files,
        Concern::Preload,
        Concern::Network,
        Concern::Overrides,
        Concern::Captures,
        Concern::Resources,
        Concern::Clipboard,
        Concern::Scripts,
    ];

    /// The concern's name in the file.
    pub fn name(self) -> &'static str {
        match self {
            Concern::Cookies => "cookies",
            Concern::Permissions => "permissions",
            Concern::Wipe => "wipe",
            Concern::Attach => "attach",
            Concern::Contexts => "contexts",
            Concern::Discover => "discover",
            Concern::Listing => "listing",
            Concern::History => "history",
            Concern::Frames => "frames",
            Concern::FrameOwner => "frame-owner",
            Concern::Fetch => "fetch",
            Concern::Downloads => "downloads",
            Concern::Files => "files",
            Concern::Preload => "preload",
            Concern::Network => "network",
            Concern::Overrides => "overrides",
            Concern::Captures => "captures",
            Concern::Resources => "resources",
            Concern::Clipboard => "clipboard",
            Concern::Scripts => "scripts",
        }
    }

    fn parse(s: &str) -> Option<Concern> {
        Concern::ALL.into_iter().find(|c| c.name() == s)
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
    /// The concern that handles it beyond its parameters' judges, if any.
    pub concern: Option<Concern>,
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
            let concern = match e.get("concern") {
                None => None,
                Some(c) => Some(c.as_str().and_then(Concern::parse).ok_or_else(|| {
                    at("\"concern\" names no concern of the policy (see table::Concern)")
                })?),
            };
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
                    concern,
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
        let concern = r#"{"chromium": "1", "commands": {"A.b": {"class": "forward", "reach": "target", "concern": "cookie"}}, "events": {}}"#;
        assert!(Table::parse(concern).unwrap_err().contains("concern"));
        let judge = r#"{"chromium": "1", "commands": {"A.b": {"class": "judge", "reach": "target", "params": {"x": "colour"}}}, "events": {}}"#;
        assert!(Table::parse(judge).unwrap_err().contains("x"));
    }

    /// Every CDP method the policy's code names (a string `Domain.name` outside comments and
    /// tests) is in the table, and the table does not refuse it first; a command is one the
    /// policy sends of its own ([`OWN_COMMANDS`](super::super::core::OWN_COMMANDS)) or one the
    /// table routes to a concern the file naming it handles: dispatch goes from the entry to
    /// the concern, never from a method name the table does not route there.
    #[test]
    fn every_method_named_in_code_agrees_with_its_entry() {
        use Concern::*;
        // The concerns each file handles (the dispatcher, client.rs, handles none: it goes
        // by the entry alone; browser.rs dispatches the answers).
        let handles = |file: &str| -> &[Concern] {
            match file {
                "browser.rs" => &[Attach, Listing, History, Captures],
                "cookies.rs" => &[Cookies, Permissions, Network],
                "clipboard.rs" => &[Permissions, Clipboard],
                "sessions.rs" => &[Attach, History],
                "targets.rs" => &[Contexts, Discover, Listing],
                "fetch.rs" => &[Fetch],
                "downloads.rs" => &[Downloads],
                "commits.rs" => &[Preload],
                "overrides.rs" => &[Overrides],
                "loads.rs" => &[Captures, Resources],
                "scripts.rs" => &[Scripts],
                _ => &[],
            }
        };
        let t = table();
        let own = super::super::core::OWN_COMMANDS;
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src/guard/policy");
        let (mut named, mut routed) = (0, 0);
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().and_then(|e| e.to_str()) != Some("rs") {
                continue;
            }
            let file = path.file_name().unwrap().to_str().unwrap().to_string();
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
                    let at = format!("{file}:{}: {part}", n + 1);
                    match (t.command(part), t.event(part)) {
                        (Some(c), _) => {
                            assert_ne!(
                                c.class,
                                Class::Refuse,
                                "{at} is handled in code, but the table refuses it first"
                            );
                            if own.contains(&part) {
                                continue;
                            }
                            let concern = c.concern.unwrap_or_else(|| {
                                panic!("{at} is handled in code, but the table routes it nowhere")
                            });
                            assert!(
                                handles(&file).contains(&concern),
                                "{at} is routed to {}, which {file} does not handle",
                                concern.name()
                            );
                            routed += 1;
                        }
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
        assert!(routed > 20, "only {routed} routed commands named");
        // Each own command is one the table has (a newer Chromium may rename one).
        for m in own {
            assert!(
                t.command(m).is_some(),
                "{m} (OWN_COMMANDS) is not in the table"
            );
        }
        // Each concern is routed to by some command.
        for c in Concern::ALL {
            assert!(
                t.commands().any(|(_, e)| e.concern == Some(c)),
                "no command is routed to {}",
                c.name()
            );
        }
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
        let routed = table()
            .commands()
            .filter(|(_, e)| e.concern.is_some())
            .count();
        let line = format!("`concern` ({routed} commands)");
        assert!(doc.contains(&line), "docs/guard-table.md lacks {line:?}");
        for c in Concern::ALL {
            let name = format!("`{}`", c.name());
            assert!(doc.contains(&name), "docs/guard-table.md lacks {name}");
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
