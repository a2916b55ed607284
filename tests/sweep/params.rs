//! Parameters drawn from the protocol: for a command, its required parameters only, each by its
//! type (a string `"x"`, a number 1, `true`, `[]`, `{}`, an enum's first value, a `$ref`
//! resolved, an object's required members, at most [`DEPTH`] deep), with sensible values for
//! the names that say what they hold (a URL, the session's own target, frame, context and
//! session, a time zone).

use serde_json::{json, Map, Value};
use std::collections::HashMap;

/// How deep `$ref` objects are filled.
pub const DEPTH: usize = 4;

/// An ordinary URL.
pub const ORDINARY_URL: &str = "http://ordinary.test/";

/// The ids a command may name: those of the session it is sent on.
#[derive(Debug, Clone, Default)]
pub struct Own {
    /// The session's target (also its main frame's id).
    pub target: String,
    /// The session id (empty on the root).
    pub session: String,
    /// The target's browser context.
    pub context: String,
    /// A remote object of the session (`document`), when one was made.
    pub object: Option<String>,
}

/// One command of the protocol.
#[derive(Debug, Clone)]
pub struct Method {
    /// `Domain.command`.
    pub name: String,
    /// Its parameters, as the protocol lists them.
    pub params: Vec<Value>,
}

/// The protocol's commands and types.
pub struct Protocol {
    /// Every command, in the protocol's order.
    pub methods: Vec<Method>,
    types: HashMap<String, Value>,
}

impl Protocol {
    /// Reads `/json/protocol`'s text.
    pub fn parse(v: &Value) -> Protocol {
        let mut methods = Vec::new();
        let mut types = HashMap::new();
        for d in v["domains"].as_array().cloned().unwrap_or_default() {
            let domain = d["domain"].as_str().unwrap_or_default().to_string();
            for t in d["types"].as_array().cloned().unwrap_or_default() {
                let id = t["id"].as_str().unwrap_or_default();
                types.insert(format!("{domain}.{id}"), t.clone());
            }
            for c in d["commands"].as_array().cloned().unwrap_or_default() {
                let mut params = c["parameters"].as_array().cloned().unwrap_or_default();
                for p in &mut params {
                    // `$ref`s without a domain are the command's own domain's.
                    qualify(p, &domain);
                }
                methods.push(Method {
                    name: format!("{domain}.{}", c["name"].as_str().unwrap_or_default()),
                    params,
                });
            }
        }
        for (k, t) in types.iter_mut() {
            let domain = k.split('.').next().unwrap_or_default().to_string();
            qualify(t, &domain);
        }
        Protocol { methods, types }
    }

    /// Whether the protocol has `name`.
    pub fn has(&self, name: &str) -> bool {
        self.methods.iter().any(|m| m.name == name)
    }

    /// The command's required parameters, filled for `own`.
    pub fn fill(&self, method: &Method, own: &Own) -> Value {
        let mut out = Map::new();
        for p in &method.params {
            if p["optional"] == json!(true) {
                continue;
            }
            let name = p["name"].as_str().unwrap_or_default();
            out.insert(name.to_string(), self.value(name, p, own, 0));
        }
        Value::Object(out)
    }

    fn value(&self, name: &str, spec: &Value, own: &Own, depth: usize) -> Value {
        if let Some(v) = named(name, own) {
            return v;
        }
        if let Some(r) = spec["$ref"].as_str() {
            let Some(t) = self.types.get(r) else {
                return json!("x");
            };
            return self.value(name, t, own, depth + 1);
        }
        if let Some(first) = spec["enum"].as_array().and_then(|e| e.first()) {
            return first.clone();
        }
        match spec["type"].as_str().unwrap_or_default() {
            "string" => json!("x"),
            "integer" | "number" => json!(1),
            "boolean" => json!(true),
            "array" => json!([]),
            "object" => {
                let mut out = Map::new();
                if depth < DEPTH {
                    for m in spec["properties"].as_array().cloned().unwrap_or_default() {
                        if m["optional"] == json!(true) {
                            continue;
                        }
                        let n = m["name"].as_str().unwrap_or_default();
                        out.insert(n.to_string(), self.value(n, &m, own, depth + 1));
                    }
                }
                Value::Object(out)
            }
            _ => json!("x"),
        }
    }
}

fn qualify(v: &mut Value, domain: &str) {
    match v {
        Value::Object(map) => {
            if let Some(Value::String(r)) = map.get_mut("$ref") {
                if !r.contains('.') {
                    *r = format!("{domain}.{r}");
                }
            }
            for (_, m) in map.iter_mut() {
                qualify(m, domain);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|i| qualify(i, domain)),
        _ => {}
    }
}

/// The value of a parameter whose name says what it holds.
fn named(name: &str, own: &Own) -> Option<Value> {
    Some(match name {
        "url" | "frameUrl" | "documentURL" | "baseURL" | "scriptURL" | "href" => {
            json!(ORDINARY_URL)
        }
        "urls" => json!([ORDINARY_URL]),
        "origin" | "securityOrigin" | "topLevelSite" => json!("http://ordinary.test"),
        "storageKey" => json!(ORDINARY_URL),
        "targetId" | "frameId" | "parentFrameId" => json!(own.target),
        "sessionId" => json!(own.session),
        "browserContextId" => json!(own.context),
        "objectId" => json!(own.object.clone().unwrap_or_else(|| "x".into())),
        "nodeId" | "backendNodeId" => json!(1),
        "expression" => json!("1"),
        "functionDeclaration" => json!("function () { return 1; }"),
        "path" | "downloadPath" | "filePath" | "profilePath" => json!("/tmp/slicc-sweep"),
        "domain" => json!("ordinary.test"),
        "timezoneId" => json!("Asia/Tokyo"),
        "locale" => json!("fr-FR"),
        "userAgent" => json!("sweep-agent"),
        "deviceScaleFactor" => json!(2),
        "permissions" => json!(["geolocation"]),
        "permission" => json!({"name": "geolocation"}),
        _ => return None,
    })
}
