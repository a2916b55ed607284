//! The rules for `protected.json` that its schema can't say.

use serde_json::Value;

use super::{pointer, Problem};
use crate::catalog::ProtectedOrigins;
use crate::json::Node;
use crate::protected::{Matcher, Vectors};

/// Checks `value` (the contents of `file`, a `protected.json`) against the `catalog` beside it:
///
/// - `origins`: every extra origin is a `scheme://host[:port]` origin;
/// - `vectors-pass`: every vector gives its `protected` answer through the matcher
///   ([`crate::conformance::run_protected`]; a target whose `opener` is none of the three
///   names is reported at its `opener`, as it cannot be asked);
/// - `reserved-ports`: no text uses a port from 9222 to 9229 (the spec: "no vector uses a port
///   from 9222 to 9229"), read by [`crate::ports::port_after_colon`].
///
/// A file or catalog of the wrong shape is left to the schema checks.
pub fn protected_rules(file: &str, catalog: &Value, value: &Value) -> Vec<Problem> {
    let mut problems = Vec::new();
    reserved_ports(file, value, &mut problems);
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
    for outcome in crate::conformance::run_protected(&matcher, &vectors).failures() {
        problems.push(Problem::new(
            file,
            outcome.pointer(),
            "vectors-pass",
            outcome.to_string(),
        ));
    }
    problems
}

/// Reports every string in `value` that uses a reserved port as a URL's or `host:port`'s port.
fn reserved_ports(file: &str, value: &Value, problems: &mut Vec<Problem>) {
    crate::json::walk(value, &mut |path, node| {
        if let Node::Value(Value::String(s)) = node {
            if let Some(port) = crate::ports::port_after_colon(s) {
                problems.push(Problem::new(
                    file,
                    path,
                    "reserved-ports",
                    format!("{s:?} uses port {port}, which is reserved for the browsers' debugging ports"),
                ));
            }
        }
    });
}
