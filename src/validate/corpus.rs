//! The corpus: `corpus.json` and `corpus/<case>/` against `schema/corpus.schema.json` (whose
//! `expected` documents are output schema 1), `corpus.json` built from `corpus/`, and each
//! case's rules a schema can't say (see [`super::corpus_case`]).

use std::path::Path;

use jsonschema::{Registry, Validator};
use serde_json::{json, Value};

use super::corpus_case::{case_rules, CaseDoc};
use super::{pointer, read_json, Problem};

/// Where the corpus schema is registered when it has no `$id` of its own.
const DEFAULT_CORPUS_ID: &str =
    "https://github.com/ai-ecoverse/slicc-browsers/schema/corpus.schema.json";

/// Checks the corpus of the crate dir `dir`, if it has one (`corpus.json` or `corpus/`).
pub fn corpus_rules(dir: &Path, catalog: &Value) -> Vec<Problem> {
    let has_dir = dir.join("corpus").is_dir();
    if !has_dir && !dir.join("corpus.json").exists() {
        return Vec::new();
    }
    let mut out = Vec::new();
    let corpus_json = read_json(dir, "corpus.json", &mut out);
    let schemas = match Schemas::load(dir) {
        Ok(s) => Some(s),
        Err(p) => {
            out.extend(p);
            None
        }
    };
    if let (Some(schemas), Some(corpus)) = (&schemas, &corpus_json) {
        out.extend(schema_errors(&schemas.corpus, "corpus.json", "", corpus));
    }

    let docs = if has_dir {
        if corpus_json.is_some() {
            match crate::corpus::build(dir) {
                Ok(built) => {
                    let committed =
                        std::fs::read_to_string(dir.join("corpus.json")).unwrap_or_default();
                    if built != committed {
                        out.push(Problem::new(
                            "corpus.json",
                            "",
                            "corpus-stale",
                            format!(
                                "corpus.json is not what corpus/ builds ({}); run `slicc-browsers corpus build`",
                                first_difference(&committed, &built)
                            ),
                        ));
                    }
                }
                Err(e) => out.push(Problem::new("corpus", "", "corpus-files", e.to_string())),
            }
        }
        docs_from_dir(dir, &mut out)
    } else {
        corpus_json
            .as_ref()
            .map(docs_from_corpus_json)
            .unwrap_or_default()
    };

    let cat = crate::catalog::Catalog::parse(&catalog.to_string()).ok();
    let mut names = std::collections::HashMap::new();
    for doc in &docs {
        if let Some(first) = names.insert(doc.name.clone(), doc.case_at.1.clone()) {
            out.push(Problem::new(
                &doc.case_at.0,
                &doc.case_at.1,
                "case-name",
                format!("case name {:?} is also used at {first}", doc.name),
            ));
        }
        if !valid_name(&doc.name) {
            out.push(Problem::new(
                &doc.case_at.0,
                &doc.case_at.1,
                "case-name",
                format!(
                    "case name {:?} is not kebab-case (^[a-z0-9]+(-[a-z0-9]+)*$)",
                    doc.name
                ),
            ));
        }
        if let Some(schemas) = &schemas {
            // From corpus.json the whole-file schema check above already covered each case.
            if has_dir {
                out.extend(schema_errors(
                    &schemas.case,
                    &doc.case_at.0,
                    &doc.case_at.1,
                    &doc.case,
                ));
                out.extend(schema_errors(
                    &schemas.expected,
                    &doc.expected_at.0,
                    &doc.expected_at.1,
                    &doc.expected,
                ));
            }
        }
        out.extend(case_rules(doc, catalog, cat.as_ref()));
    }
    out
}

/// The first differing line of two texts, for the staleness message.
fn first_difference(committed: &str, built: &str) -> String {
    let line = committed
        .lines()
        .zip(built.lines())
        .position(|(a, b)| a != b)
        .unwrap_or_else(|| committed.lines().count().min(built.lines().count()));
    format!("first difference at line {}", line + 1)
}

fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.split('-').all(|part| {
            !part.is_empty()
                && part
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        })
}

fn docs_from_dir(dir: &Path, out: &mut Vec<Problem>) -> Vec<CaseDoc> {
    let root = dir.join("corpus");
    let mut names: Vec<String> = match std::fs::read_dir(&root) {
        Ok(entries) => entries
            .filter_map(Result::ok)
            .filter(|e| e.path().is_dir())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect(),
        Err(e) => {
            out.push(Problem::new("corpus", "", "readable", e.to_string()));
            return Vec::new();
        }
    };
    names.sort();
    let mut docs = Vec::new();
    for name in names {
        let case_file = format!("corpus/{name}/case.json");
        let expected_file = format!("corpus/{name}/expected.json");
        let case = read_json(dir, &case_file, out);
        let expected = read_json(dir, &expected_file, out);
        if let (Some(case), Some(expected)) = (case, expected) {
            docs.push(CaseDoc {
                name,
                case,
                expected,
                case_at: (case_file, String::new()),
                expected_at: (expected_file, String::new()),
            });
        }
    }
    docs
}

fn docs_from_corpus_json(corpus: &Value) -> Vec<CaseDoc> {
    let cases = corpus["cases"].as_array().map(Vec::as_slice).unwrap_or(&[]);
    cases
        .iter()
        .enumerate()
        .map(|(i, c)| CaseDoc {
            name: c["name"].as_str().unwrap_or_default().to_string(),
            case: c["case"].clone(),
            expected: c["expected"].clone(),
            case_at: (
                "corpus.json".into(),
                pointer(["cases".to_string(), i.to_string(), "case".into()]),
            ),
            expected_at: (
                "corpus.json".into(),
                pointer(["cases".to_string(), i.to_string(), "expected".into()]),
            ),
        })
        .collect()
}

/// The compiled validators: the whole corpus, one case object, one expected document.
struct Schemas {
    corpus: Validator,
    case: Validator,
    expected: Validator,
}

impl Schemas {
    /// Compiles `schema/corpus.schema.json` with `schema/browsers.schema.json` registered where
    /// the corpus schema's relative `browsers.schema.json` reference points, whatever `$id`
    /// the browsers schema gives itself.
    fn load(dir: &Path) -> Result<Schemas, Vec<Problem>> {
        let mut problems = Vec::new();
        let corpus = read_json(dir, "schema/corpus.schema.json", &mut problems);
        let browsers = read_json(dir, "schema/browsers.schema.json", &mut problems);
        let (Some(mut corpus), Some(mut browsers)) = (corpus, browsers) else {
            return Err(problems);
        };
        let compiles = |file: &str, e: &dyn std::fmt::Display| {
            vec![Problem::new(file, "", "schema-compiles", e.to_string())]
        };
        let corpus_id = corpus["$id"]
            .as_str()
            .unwrap_or(DEFAULT_CORPUS_ID)
            .to_string();
        corpus["$id"] = json!(corpus_id);
        let browsers_id = match corpus_id.rfind('/') {
            Some(i) => format!("{}browsers.schema.json", &corpus_id[..=i]),
            None => "browsers.schema.json".to_string(),
        };
        browsers["$id"] = json!(browsers_id);
        let registry = Registry::new()
            .add(&corpus_id, corpus)
            .and_then(|r| r.add(&browsers_id, browsers))
            .and_then(|r| r.prepare())
            .map_err(|e| compiles("schema/corpus.schema.json", &e))?;
        let build = |file: &str, reference: String| {
            jsonschema::draft202012::options()
                .with_registry(&registry)
                .build(&json!({ "$ref": reference }))
                .map_err(|e| compiles(file, &e))
        };
        Ok(Schemas {
            corpus: build("schema/corpus.schema.json", corpus_id.clone())?,
            case: build(
                "schema/corpus.schema.json",
                format!("{corpus_id}#/$defs/case"),
            )?,
            expected: build("schema/browsers.schema.json", browsers_id)?,
        })
    }
}

fn schema_errors(validator: &Validator, file: &str, prefix: &str, value: &Value) -> Vec<Problem> {
    validator
        .iter_errors(value)
        .map(|e| {
            Problem::new(
                file,
                format!("{prefix}{}", e.instance_path()),
                "schema",
                e.to_string(),
            )
        })
        .collect()
}
