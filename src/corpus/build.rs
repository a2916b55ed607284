//! Building `corpus.json` from `corpus/<case>/{case.json,expected.json}`.

use std::path::Path;

use serde_json::{json, Value};

use crate::error::Error;

/// Builds the text of `corpus.json` from the `corpus/` dir of the crate dir `dir`: every
/// case dir, sorted by name, as `{ "name", "case", "expected" }` with the files' JSON as
/// written (tokens unexpanded, member order kept), 2-space indented, with a final newline.
///
/// Entries of `corpus/` that are not dirs (such as `README.md`) are skipped. A dir without
/// both files, or a file that is not JSON, is an error naming the file.
pub fn build(dir: &Path) -> Result<String, Error> {
    let root = dir.join("corpus");
    let entries = std::fs::read_dir(&root)
        .map_err(|e| Error::invalid(root.display().to_string(), format!("cannot read: {e}")))?;
    let mut names = Vec::new();
    for entry in entries {
        let entry = entry
            .map_err(|e| Error::invalid(root.display().to_string(), format!("cannot read: {e}")))?;
        if entry.path().is_dir() {
            let name = entry.file_name().into_string().map_err(|n| {
                Error::invalid(
                    format!("corpus/{}", n.to_string_lossy()),
                    "the name is not UTF-8",
                )
            })?;
            names.push(name);
        }
    }
    names.sort();
    let mut cases = Vec::with_capacity(names.len());
    for name in names {
        let case = read(&root, &name, "case.json")?;
        let expected = read(&root, &name, "expected.json")?;
        cases.push(json!({ "name": name, "case": case, "expected": expected }));
    }
    let corpus = json!({ "schema": crate::files::SCHEMA, "cases": cases });
    let mut text = serde_json::to_string_pretty(&corpus)
        .map_err(|e| Error::invalid("corpus.json", e.to_string()))?;
    text.push('\n');
    Ok(text)
}

fn read(root: &Path, name: &str, file: &str) -> Result<Value, Error> {
    let shown = format!("corpus/{name}/{file}");
    let text = std::fs::read_to_string(root.join(name).join(file))
        .map_err(|e| Error::invalid(&shown, format!("cannot read: {e}")))?;
    serde_json::from_str(&text).map_err(|e| Error::invalid(&shown, e.to_string()))
}
