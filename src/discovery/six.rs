//! Source §2.5, six's profile dirs, and §2.9: which dirs are six's.

use crate::catalog::{join_path, six_path_key as normalise};

use super::active_port;
use super::candidate::Candidate;
use super::Context;

/// Six's profile dirs, as compared (§2.9): six's root and `SLICC_USER_DATA_DIR`, each as
/// written and as resolved, compared without regard to case with `/` and `\` alike.
#[derive(Debug, Clone, Default)]
pub(crate) struct SixDirs {
    /// Six's root, normalised, as written and resolved.
    roots: Vec<String>,
    /// `SLICC_USER_DATA_DIR`, trimmed and normalised, as written and resolved.
    env_dirs: Vec<String>,
}

impl SixDirs {
    /// Six's dirs on the host: its root (§6.3) and the trimmed `SLICC_USER_DATA_DIR`.
    pub(crate) fn new(cx: &Context<'_>) -> SixDirs {
        let mut dirs = SixDirs::default();
        let both = |path: &str| -> Vec<String> {
            let mut v = vec![normalise(path)];
            if let Some(resolved) = cx.host.resolve(path) {
                let r = normalise(&resolved);
                if !v.contains(&r) {
                    v.push(r);
                }
            }
            v
        };
        if let Some(root) = cx.six_root() {
            dirs.roots = both(&root);
        }
        if let Some(env) = cx.catalog.six_env_dir(cx.env()) {
            dirs.env_dirs = both(&env);
        }
        dirs
    }

    /// Whether `path` is one of six's dirs: by path, as written, as resolved, or with its
    /// parent resolved (the dir itself need not exist).
    pub(crate) fn contains(&self, cx: &Context<'_>, path: &str) -> bool {
        if self.roots.is_empty() && self.env_dirs.is_empty() {
            return false;
        }
        let written = normalise(path);
        if self.matches(cx, &written) {
            return true;
        }
        if let Some(resolved) = cx.host.resolve(path) {
            if self.matches(cx, &normalise(&resolved)) {
                return true;
            }
        }
        // The profile may not exist while its (symlinked) root does.
        let trimmed = path.trim_end_matches(['/', '\\']);
        if let Some(cut) = trimmed.rfind(['/', '\\']).filter(|&cut| cut > 0) {
            let (parent, last) = (&trimmed[..cut], &trimmed[cut + 1..]);
            if let Some(resolved) = cx.host.resolve(parent) {
                if self.matches(cx, &normalise(&format!("{resolved}/{last}"))) {
                    return true;
                }
            }
        }
        false
    }

    fn matches(&self, cx: &Context<'_>, normalised: &str) -> bool {
        let is_six = |root: Option<&str>, env: Option<&str>| {
            cx.catalog.is_six_dir_key(normalised, root, env)
        };
        self.env_dirs.iter().any(|d| is_six(None, Some(d)))
            || self.roots.iter().any(|r| is_six(Some(r), None))
    }
}

/// Six's profile dirs in its root whose names match `sixProfilePattern`, in name order, then
/// the `SLICC_USER_DATA_DIR` dir; each checked for a file and marked six's.
pub(crate) fn collect(cx: &Context<'_>, out: &mut Vec<Candidate>) {
    let mut dirs = Vec::new();
    if let Some(root) = cx.six_root() {
        for entry in cx.host.list_dir(&root) {
            if entry.is_dir && cx.catalog.is_six_profile_name(&entry.name) {
                dirs.push(join_path(cx.os, &root, &[entry.name.as_str()]));
            }
        }
    }
    if let Some(env) = cx.catalog.six_env_dir(cx.env()) {
        dirs.push(env);
    }
    for dir in dirs {
        if let Some(mut c) = active_port::candidate(cx.host, cx.os, cx.active_port_file(), &dir) {
            c.six = true;
            out.push(c);
        }
    }
}
