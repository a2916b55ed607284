//! Validation of the crate's files (feature `validate`, in `cli-full`): each file against its JSON Schema, then
//! every rule a schema cannot say.
//!
//! [`validate_dir`] checks a directory laid out like this crate (the shipped files by default,
//! or a broken copy in a test) and returns every problem found, each with the file, the JSON
//! path and the rule it breaks.
//!
//! Problems have a [`Level`]. An [`Level::Error`] breaks a rule the spec states (each rule
//! cites its sentence); a [`Level::Warning`] breaks a rule of this crate's own that the spec
//! does not state, so a file the spec accepts is never refused for it. [`validate_dir`] returns
//! the errors only; [`validate_dir_strict`] (what `slicc-browsers validate --strict` prints)
//! returns the warnings too.

mod catalog;
mod corpus;
mod corpus_case;
mod guard;
mod locate;
mod protected;

pub use catalog::catalog_rules;
pub use corpus::corpus_rules;
pub use guard::{guard_problems, guard_rules, Rule, RULES as GUARD_RULES};
pub use protected::protected_rules;

use std::fmt;
use std::path::Path;

use serde_json::Value;

/// How bad a problem is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Level {
    /// The file breaks a rule the spec states: other readers may refuse or misread it.
    Error,
    /// The file breaks a rule of this crate's own, which the spec does not state: it is still
    /// a file the spec accepts. Reported only by [`validate_dir_strict`] (`validate --strict`).
    Warning,
}

/// One problem found in a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// An error (a rule of the spec) or a warning (a rule of this crate's own).
    pub level: Level,
    /// The file, relative to the validated directory, such as `catalog.json`.
    pub file: String,
    /// The JSON pointer of the value, such as `/browsers/3/id` (empty for the whole file).
    pub path: String,
    /// The rule broken, such as `schema` or `unique-ids`.
    pub rule: String,
    /// What is wrong.
    pub message: String,
}

impl Problem {
    /// An error in `file` at `path`, breaking `rule`.
    pub fn new(
        file: impl Into<String>,
        path: impl Into<String>,
        rule: impl Into<String>,
        message: impl Into<String>,
    ) -> Problem {
        Problem {
            level: Level::Error,
            file: file.into(),
            path: path.into(),
            rule: rule.into(),
            message: message.into(),
        }
    }
}

impl Problem {
    /// A warning in `file` at `path`, breaking `rule`, a rule of this crate's own.
    pub fn warning(
        file: impl Into<String>,
        path: impl Into<String>,
        rule: impl Into<String>,
        message: impl Into<String>,
    ) -> Problem {
        Problem {
            level: Level::Warning,
            ..Problem::new(file, path, rule, message)
        }
    }

    /// Whether this is an error (a rule the spec states).
    pub fn is_error(&self) -> bool {
        self.level == Level::Error
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = if self.path.is_empty() {
            "/"
        } else {
            &self.path
        };
        let level = match self.level {
            Level::Error => "",
            Level::Warning => "warning ",
        };
        write!(
            f,
            "{}: {}: {level}[{}] {}",
            self.file, path, self.rule, self.message
        )
    }
}

/// Validates every file of a crate directory: `catalog.json` and whichever of the corpus,
/// `protected.json` and `guard-vectors.json` it holds, each against its schema in `schema/`.
/// Returns the errors: the rules the spec states. [`validate_dir_strict`] adds the warnings.
pub fn validate_dir(dir: &Path) -> Vec<Problem> {
    let mut problems = validate_dir_strict(dir);
    problems.retain(Problem::is_error);
    problems
}

/// [`validate_dir`], with the warnings too: the rules of this crate's own that the spec does
/// not state (`slicc-browsers validate --strict`).
///
/// Each problem at a place in a file read here (catalog.json, protected.json,
/// guard-vectors.json) ends with that place's line and column, and a fault is reported once: the
/// typed catalog's parse error is left out when the schema already names the fault, and the
/// corpus rules that compare a case with the catalog skip a catalog value of the wrong type.
pub fn validate_dir_strict(dir: &Path) -> Vec<Problem> {
    let mut problems = Vec::new();
    let Some((catalog_text, catalog)) = read_text_json(dir, "catalog.json", &mut problems) else {
        return problems;
    };
    let mut texts = vec![("catalog.json", catalog_text)];
    let schema = check_schema(dir, "catalog.json", "catalog.schema.json", &catalog);
    let schema_clean = schema.is_empty();
    problems.extend(schema);
    problems.extend(catalog::static_rules("catalog.json", &catalog));
    problems.extend(catalog::typed_rules(
        "catalog.json",
        &texts[0].1,
        schema_clean,
    ));
    problems.extend(corpus_rules(dir, &catalog));
    if dir.join(guard::FILE).exists() {
        if let Some((text, vectors)) = read_text_json(dir, guard::FILE, &mut problems) {
            problems.extend(guard_problems(dir, &vectors));
            texts.push((guard::FILE, text));
        }
    }
    if dir.join("protected.json").exists() {
        if let Some((text, vectors)) = read_text_json(dir, "protected.json", &mut problems) {
            problems.extend(check_schema(
                dir,
                "protected.json",
                "protected.schema.json",
                &vectors,
            ));
            problems.extend(protected_rules("protected.json", &catalog, &vectors));
            texts.push(("protected.json", text));
        }
    }
    for p in &mut problems {
        let Some((_, text)) = texts.iter().find(|(file, _)| *file == p.file) else {
            continue;
        };
        if p.path.is_empty() {
            continue;
        }
        if let Some((line, column)) = locate::locate(text, &p.path) {
            p.message
                .push_str(&format!(" (line {line}, column {column})"));
        }
    }
    problems
}

/// Reads and parses `dir/file`, recording a problem (and returning `None`) when it can't.
pub fn read_json(dir: &Path, file: &str, problems: &mut Vec<Problem>) -> Option<Value> {
    read_text_json(dir, file, problems).map(|(_, value)| value)
}

/// [`read_json`], with the text it was parsed from.
fn read_text_json(dir: &Path, file: &str, problems: &mut Vec<Problem>) -> Option<(String, Value)> {
    let path = dir.join(file);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) => {
            problems.push(Problem::new(
                file,
                "",
                "readable",
                format!("cannot read {}: {e}", path.display()),
            ));
            return None;
        }
    };
    match serde_json::from_str(&text) {
        Ok(value) => Some((text, value)),
        Err(e) => {
            problems.push(Problem::new(file, "", "json", e.to_string()));
            None
        }
    }
}

/// Validates `value` (the contents of `file`) against `dir/schema/<schema>`.
pub fn check_schema(dir: &Path, file: &str, schema: &str, value: &Value) -> Vec<Problem> {
    let schema_file = format!("schema/{schema}");
    let mut problems = Vec::new();
    let Some(schema_value) = read_json(dir, &schema_file, &mut problems) else {
        return problems;
    };
    schema_problems(file, &schema_file, &schema_value, value)
}

/// Validates `value` (the contents of `file`) against an already parsed schema.
pub fn schema_problems(
    file: &str,
    schema_file: &str,
    schema: &Value,
    value: &Value,
) -> Vec<Problem> {
    let validator = match jsonschema::draft202012::options().build(schema) {
        Ok(v) => v,
        Err(e) => {
            return vec![Problem::new(
                schema_file,
                "",
                "schema-compiles",
                e.to_string(),
            )];
        }
    };
    validator
        .iter_errors(value)
        .map(|e| Problem::new(file, e.instance_path().to_string(), "schema", e.to_string()))
        .collect()
}

/// The JSON pointer of `segments` (each escaped as RFC 6901 says).
pub fn pointer<I, S>(segments: I) -> String
where
    I: IntoIterator<Item = S>,
    S: fmt::Display,
{
    crate::json::pointer(segments)
}
