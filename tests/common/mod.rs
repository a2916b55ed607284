//! Helpers shared by the integration tests: a copy of the crate's files to break.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use serde_json::Value;

/// The crate's own directory.
pub fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Copies the crate's data files (catalog, schemas, corpus, vectors) into a fresh temporary
/// directory, which is removed when the returned guard drops.
pub fn copy_of_crate_files() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().expect("a temporary directory");
    let src = crate_dir();
    for name in [
        "catalog.json",
        "corpus.json",
        "protected.json",
        "guard-vectors.json",
        "schema",
        "corpus",
    ] {
        let from = src.join(name);
        if from.exists() {
            copy_recursively(&from, &tmp.path().join(name));
        }
    }
    tmp
}

fn copy_recursively(from: &Path, to: &Path) {
    if from.is_dir() {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            copy_recursively(&entry.path(), &to.join(entry.file_name()));
        }
    } else {
        std::fs::copy(from, to).unwrap();
    }
}

/// Rewrites the JSON file `dir/file` through `edit`.
pub fn edit_json(dir: &Path, file: &str, edit: impl FnOnce(&mut Value)) {
    let path = dir.join(file);
    let mut value: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    edit(&mut value);
    std::fs::write(&path, serde_json::to_string_pretty(&value).unwrap()).unwrap();
}
