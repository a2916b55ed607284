//! The rules for `protected.json` that its schema can't say.

use serde_json::Value;

use super::{pointer, Problem};
use crate::catalog::ProtectedOrigins;
use crate::protected::{Matcher, Opener, Vectors};

/// The ports no vector may use: the browsers' debugging ports.
const RESERVED: std::ops::RangeInclusive<u16> = 9222..=9229;

/// Checks `value` (the contents of `file`, a `protected.json`) against the `catalog` beside it:
///
/// - `origins`: every extra origin is a `scheme://host[:port]` origin;
/// - `vectors-pass`: every vector gives its `protected` answer through the matcher;
/// - `reserved-ports`: no text uses a port from 9222 to 9229.
///
/// A file or catalog of the wrong shape is left to the schema checks.
pub fn protected_rules(file: &str, catalog: &Value, value: &Value) -> Vec<Problem> {
    let mut problems = Vec::new();
    reserved_ports(file, value, &mut Vec::new(), &mut problems);
    let Ok(vectors) = serde_json::from_value::<Vectors>(value.clone()) else {
        return problems;
    };
    let Some(origins) = catalog
        .get("protectedOrigins")
        .and_then(|o| serde_json::from_value::<ProtectedOrigins>(o.clone()).ok())
    else {
        return problems;
    };
    for (i, origin) in vectors.origins.iter().enumerate() {
        if let Err(e) = Matcher::new(&origins, &[origin]) {
            problems.push(Problem::new(
                file,
                pointer(["origins".to_string(), i.to_string()]),
                "origins",
                e.to_string(),
            ));
        }
    }
    let extras: Vec<&String> = vectors
        .origins
        .iter()
        .filter(|o| Matcher::new(&origins, &[o]).is_ok())
        .collect();
    let matcher = match Matcher::new(&origins, &extras) {
        Ok(m) => m,
        Err(e) => {
            problems.push(Problem::new(
                "catalog.json",
                "/protectedOrigins",
                "vectors-pass",
                e.to_string(),
            ));
            return problems;
        }
    };
    let mut wrong = |kind: &str, i: usize, input: &str, expected: bool| {
        let got = if expected {
            "not protected"
        } else {
            "protected"
        };
        problems.push(Problem::new(
            file,
            pointer([kind.to_string(), i.to_string(), "protected".to_string()]),
            "vectors-pass",
            format!("{input:?} is {got} by the matcher, the vector says {expected}"),
        ));
    };
    for (i, v) in vectors.urls.iter().enumerate() {
        if matcher.url(&v.url) != v.protected {
            wrong("urls", i, &v.url, v.protected);
        }
    }
    for (i, v) in vectors.targets.iter().enumerate() {
        // An unknown opener is the schema's to report; here it counts as unknown.
        let opener = Opener::from_name(v.opener.as_deref()).unwrap_or(Opener::Unknown);
        if matcher.target(&v.url, v.previous, opener) != v.protected {
            wrong("targets", i, &v.url, v.protected);
        }
    }
    for (i, v) in vectors.cookie_domains.iter().enumerate() {
        if matcher.cookie_domain(&v.domain) != v.protected {
            wrong("cookieDomains", i, &v.domain, v.protected);
        }
    }
    for (i, v) in vectors.storage_keys.iter().enumerate() {
        if matcher.storage_key(&v.key) != v.protected {
            wrong("storageKeys", i, &v.key, v.protected);
        }
    }
    problems
}

/// Reports every string in `value` that uses a reserved port, as text (`:9222`, `:09222`) or
/// as the port of the URL it parses to.
fn reserved_ports(file: &str, value: &Value, at: &mut Vec<String>, problems: &mut Vec<Problem>) {
    match value {
        Value::String(s) => {
            if let Some(port) = reserved_port(s) {
                problems.push(Problem::new(
                    file,
                    pointer(at.iter()),
                    "reserved-ports",
                    format!("{s:?} uses port {port}, which is reserved for the browsers' debugging ports"),
                ));
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                at.push(i.to_string());
                reserved_ports(file, item, at, problems);
                at.pop();
            }
        }
        Value::Object(members) => {
            for (key, item) in members {
                at.push(key.clone());
                reserved_ports(file, item, at, problems);
                at.pop();
            }
        }
        _ => {}
    }
}

fn reserved_port(text: &str) -> Option<u16> {
    if let Ok(url) = url::Url::parse(text) {
        if let Some(port) = url.port_or_known_default().filter(|p| RESERVED.contains(p)) {
            return Some(port);
        }
    }
    // Any `:` followed by digits that read as a reserved port, wherever it is.
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b':' {
            let digits: String = text[i + 1..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            if let Ok(port) = digits.parse::<u32>() {
                if let Ok(port) = u16::try_from(port) {
                    if RESERVED.contains(&port) {
                        return Some(port);
                    }
                }
            }
        }
        i += 1;
    }
    None
}
