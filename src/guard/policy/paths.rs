//! Local paths: commands that hand a page files by path (a file input, a drop, an installed
//! app's file launch) or choose where the browser writes (downloads), judged against the
//! protected paths ([`Config::protected_paths`](super::Config::protected_paths)): the browser's
//! profile keeps every site's storage, cookies and history in files a page reads in the clear
//! once it is given them (the suite's `c7.file-input-profile`).
//!
//! A path is judged in every form the policy can give it: lexically (absolute, `.` and `..`
//! taken out, separators collapsed), and, with a [`LocalPaths`] from the caller, with its
//! symbolic links resolved and by the identity (device and inode) of the file and of each
//! folder above it. Forms are compared case-insensitively (a case-insensitive file system
//! spells one folder many ways; on a case-sensitive one this only protects more). The policy
//! does no I/O itself: without a [`LocalPaths`] it judges the lexical form alone.

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;

/// What the caller's file system says about a local path, for [`LocalPaths::resolve`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolved {
    /// The path with every symbolic link resolved (as far as it exists), and the identities
    /// (device, inode) of what exists of it (none where the platform has no such thing).
    Real {
        /// The resolved path.
        path: String,
        /// `(device, inode)` of the file or folder it names, when that exists.
        id: Option<(u64, u64)>,
        /// `(device, inode)` of every existing folder above it.
        above: Vec<(u64, u64)>,
    },
    /// It goes through a link that names a different file for the browser than for the caller
    /// (`/proc/self/…`, `/dev/fd/…`): refused.
    Indirect,
    /// Not known (nothing there, or no file system to ask): the lexical form alone is judged.
    Unknown,
}

/// How the caller resolves a local path on the browser's machine (the policy does no I/O);
/// `guard proxy` gives one that reads its own file system, the browser's when both run on one
/// machine.
pub trait LocalPaths: std::fmt::Debug + Send + Sync {
    /// What `path` (absolute, as the client gave it: `.` and `..` still in it) is on the
    /// browser's machine.
    fn resolve(&self, path: &str) -> Resolved;
}

/// How a command uses a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Use {
    /// Handed to a page (file inputs, drops, an app's file launch): a folder is walked by the
    /// page (a dropped folder's entries), so a folder holding a protected path is refused too,
    /// and so is a path the policy cannot place (relative, `/proc`).
    Offer,
    /// A folder the browser writes into (downloads): refused inside a protected path, and
    /// when it cannot be placed.
    Write,
    /// Any other absolute path (or `file:` URL) in a command: refused inside a protected path.
    Named,
}

/// Why a command naming a file inside a protected path is refused, in the refusal's words.
pub(super) const INSIDE_WHY: &str = "it names a local file in a protected path, such as the browser's profile, whose files hold every site's storage, cookies and history";

/// Why a command handing a page a folder that holds a protected path is refused.
pub(super) const HOLDS_WHY: &str =
    "it hands a page a local folder that holds a protected path, such as the browser's profile, which the page can walk";

/// Why a path the policy cannot place is refused.
pub(super) const UNPLACED_WHY: &str = "a relative local path, or one through /proc or /dev/fd, may name a file in a protected path, such as the browser's profile, and the guard cannot rule it out";

/// The client commands that name local paths, and where: (method, members leading to the
/// paths, how they are used). Found in Chromium 156's `/json/protocol` (every parameter
/// whose name or description says path, file or directory); `Extensions.loadUnpacked` is
/// refused outright elsewhere.
const PATH_PARAMS: [(&str, &[&str], Use); 5] = [
    ("DOM.setFileInputFiles", &["files"], Use::Offer),
    ("Input.dispatchDragEvent", &["data", "files"], Use::Offer),
    ("PWA.launchFilesInApp", &["files"], Use::Offer),
    ("Browser.setDownloadBehavior", &["downloadPath"], Use::Write),
    ("Page.setDownloadBehavior", &["downloadPath"], Use::Write),
];

/// Lexically absolute prefixes whose entries name different files for the browser than for
/// anyone else (another process's view: `/proc/self`, its descriptors, its root).
const INDIRECT: [&str; 5] = [
    "/proc",
    "/dev/fd",
    "/dev/stdin",
    "/dev/stdout",
    "/dev/stderr",
];

/// One protected path in every form the policy could give it.
#[derive(Debug, Clone)]
struct Dir {
    /// Case-folded lexical and resolved forms.
    forms: Vec<PathBuf>,
    /// The folder's own identity.
    id: Option<(u64, u64)>,
    /// The identities of the folder and every folder above it.
    chain: Vec<(u64, u64)>,
}

/// The protected paths, as the policy judges them.
#[derive(Debug, Clone, Default)]
pub(super) struct Protected {
    dirs: Vec<Dir>,
    local: Option<Arc<dyn LocalPaths>>,
    /// Paths added after the start ([`Protected::add`]).
    added: usize,
}

/// Paths [`Protected::add`] adds at most (past it, the first ones stay protected).
const MAX_ADDED: usize = 1024;

/// `raw` made absolute and lexically normal (`.` and `..` taken out, separators collapsed,
/// no trailing separator); `None` for a relative path, one with a NUL, or an empty one.
pub(super) fn lexical(raw: &str) -> Option<PathBuf> {
    if raw.is_empty() || raw.contains('\0') {
        return None;
    }
    let p = Path::new(raw);
    if !p.is_absolute() {
        return None;
    }
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::Prefix(_) | Component::RootDir => out.push(c.as_os_str()),
            Component::CurDir => {}
            // `..` at the root stays at the root, as the kernel reads it.
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(n) => out.push(n),
        }
    }
    Some(out)
}

/// A path's form for comparing: case-folded.
fn fold(p: &Path) -> PathBuf {
    PathBuf::from(p.to_string_lossy().to_lowercase())
}

/// The path a `file:` URL names (`file:///a%20b`, `file://localhost/a`), percent-decoded.
fn file_url_path(s: &str) -> Option<String> {
    let lower = s.get(..5)?.to_ascii_lowercase();
    if lower != "file:" {
        return None;
    }
    let rest = &s[5..];
    // After `//` comes a host (empty in `file:///a`, or `localhost`), up to the path.
    let path = match rest.strip_prefix("//") {
        Some(after) => after.find('/').map_or("/", |i| &after[i..]),
        None => rest,
    };
    Some(String::from_utf8_lossy(&crate::percent::decode(path.as_bytes())).into_owned())
}

impl Protected {
    /// The protected paths `paths`, resolved once with `local` when given.
    pub(super) fn new(paths: &[String], local: Option<Arc<dyn LocalPaths>>) -> Protected {
        let mut dirs = Vec::new();
        for raw in paths {
            let Some(lex) = lexical(raw.trim()) else {
                continue;
            };
            let mut dir = Dir {
                forms: vec![fold(&lex)],
                id: None,
                chain: Vec::new(),
            };
            if let Some(local) = &local {
                if let Resolved::Real { path, id, above } = local.resolve(raw.trim()) {
                    if let Some(real) = lexical(&path) {
                        let real = fold(&real);
                        if !dir.forms.contains(&real) {
                            dir.forms.push(real);
                        }
                    }
                    // Identities only of a folder that exists.
                    if let Some(id) = id {
                        dir.id = Some(id);
                        dir.chain = std::iter::once(id).chain(above).collect();
                    }
                }
            }
            dirs.push(dir);
        }
        Protected {
            dirs,
            local,
            added: 0,
        }
    }

    /// Protects `raw` too (a download folder a protected download was cancelled into); a
    /// relative path, or one already protected, adds nothing. At most [`MAX_ADDED`] are added:
    /// Returns false when it is full (nothing added).
    pub(super) fn add(&mut self, raw: &str) -> bool {
        let Some(lex) = lexical(raw.trim()) else {
            return true;
        };
        if self.dirs.iter().any(|d| d.forms.contains(&fold(&lex))) {
            return true;
        }
        if self.added >= MAX_ADDED {
            return false;
        }
        self.added += 1;
        let one = Protected::new(&[raw.trim().to_string()], self.local.clone());
        self.dirs.extend(one.dirs);
        true
    }

    /// Paths added after the start.
    pub(super) fn added(&self) -> usize {
        self.added
    }

    /// Whether any path is protected.
    pub(super) fn any(&self) -> bool {
        !self.dirs.is_empty()
    }

    /// Why `raw`, used as `use_`, is refused; `None` when it may go.
    pub(super) fn judge(&self, raw: &str, use_: Use) -> Option<&'static str> {
        let Some(lex) = lexical(raw) else {
            // Named strings are any text: only absolute paths are judged.
            return (use_ != Use::Named).then_some(UNPLACED_WHY);
        };
        if use_ != Use::Named {
            let text = lex.to_string_lossy().to_lowercase();
            if INDIRECT
                .iter()
                .any(|p| text == *p || text.starts_with(&format!("{p}/")))
            {
                return Some(UNPLACED_WHY);
            }
        }
        let mut forms = vec![fold(&lex)];
        let (mut own, mut ids) = (None, Vec::new());
        // The path as given: the kernel reads `..` after a link from where the link leads,
        // not lexically (`/a/link/../x` is `x` beside the link's target).
        match self.local.as_ref().map(|l| l.resolve(raw)) {
            Some(Resolved::Real { path, id, above }) => {
                if let Some(real) = lexical(&path) {
                    forms.push(fold(&real));
                }
                own = id;
                ids = id.into_iter().chain(above).collect();
            }
            Some(Resolved::Indirect) if use_ != Use::Named => return Some(UNPLACED_WHY),
            _ => {}
        }
        for dir in &self.dirs {
            let inside = forms
                .iter()
                .any(|f| dir.forms.iter().any(|d| f.starts_with(d)))
                || dir.id.is_some_and(|id| ids.contains(&id));
            if inside {
                return Some(INSIDE_WHY);
            }
            if use_ == Use::Offer {
                let holds = forms
                    .iter()
                    .any(|f| dir.forms.iter().any(|d| d.starts_with(f)))
                    || own.is_some_and(|id| dir.chain.contains(&id));
                if holds {
                    return Some(HOLDS_WHY);
                }
            }
        }
        None
    }

    /// Why a client command `method` with `params` is refused for the local paths it names;
    /// `None` when it names none in a protected path (or none are protected).
    pub(super) fn command(&self, method: &str, params: &Value) -> Option<&'static str> {
        if !self.any() {
            return None;
        }
        let mut found = None;
        each_path(method, params, &mut |s, use_| {
            if found.is_none() {
                found = self.judge(s, use_);
            }
        });
        if found.is_some() {
            return found;
        }
        // Any other absolute path or file: URL in any command (a parameter this list does not
        // know yet).
        let mut found = None;
        strings(params, &mut |s| {
            if found.is_some() {
                return;
            }
            if s.starts_with(['/', '\\']) || windows_absolute(s) {
                found = self.judge(s, Use::Named);
            } else if let Some(p) = file_url_path(s) {
                found = self.judge(&p, Use::Named);
            }
        });
        found
    }
}

/// Calls `f` on every path `method`'s parameters name where [`PATH_PARAMS`] says, with its use.
pub(super) fn each_path(method: &str, params: &Value, f: &mut dyn FnMut(&str, Use)) {
    if let Some((_, members, use_)) = PATH_PARAMS.iter().find(|(m, _, _)| *m == method) {
        let mut at = Some(params);
        for m in *members {
            at = at.and_then(|v| v.get(m));
        }
        if let Some(v) = at {
            strings(v, &mut |s| f(s, *use_));
        }
    }
}

/// Whether `s` starts like a Windows absolute path (`C:\`, `C:/`).
fn windows_absolute(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && matches!(b[2], b'\\' | b'/')
}

/// Calls `f` on every string in `v`, depth first.
fn strings(v: &Value, f: &mut dyn FnMut(&str)) {
    match v {
        Value::String(s) => f(s),
        Value::Array(items) => items.iter().for_each(|i| strings(i, f)),
        Value::Object(map) => map.values().for_each(|i| strings(i, f)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn protected(paths: &[&str]) -> Protected {
        let paths: Vec<String> = paths.iter().map(|p| p.to_string()).collect();
        Protected::new(&paths, None)
    }

    #[cfg(not(windows))]
    #[test]
    fn lexical_forms() {
        let l = |s: &str| lexical(s).map(|p| p.display().to_string());
        assert_eq!(l("/a/./b//c/../d/").as_deref(), Some("/a/b/d"));
        assert_eq!(l("/../../etc").as_deref(), Some("/etc"));
        assert_eq!(l("a/b"), None);
        assert_eq!(l("./a"), None);
        assert_eq!(l(""), None);
        assert_eq!(l("/a\0/b"), None);
        assert_eq!(l("file:///etc/passwd"), None);
    }

    #[cfg(not(windows))]
    #[test]
    fn files_in_a_protected_path_are_refused_in_every_spelling() {
        let p = protected(&["/home/u/.config/chromium/"]);
        let inside = [
            "/home/u/.config/chromium/Default/Cookies",
            "/home/u/.config/chromium",
            "/home/u/.config/chromium/",
            "//home//u/.config/./chromium/Default/Cookies",
            "/home/u/x/../.config/chromium/Default/Cookies",
            "/home/U/.CONFIG/Chromium/Default/Cookies",
            "/../home/u/.config/chromium/Local State",
        ];
        for path in inside {
            assert_eq!(p.judge(path, Use::Offer), Some(INSIDE_WHY), "{path}");
            assert_eq!(p.judge(path, Use::Write), Some(INSIDE_WHY), "{path}");
            assert_eq!(p.judge(path, Use::Named), Some(INSIDE_WHY), "{path}");
        }
        // Folders above it: refused when offered (a dropped folder is walked), not otherwise.
        for path in ["/", "/home", "/home/u/", "/home/u/.config"] {
            assert_eq!(p.judge(path, Use::Offer), Some(HOLDS_WHY), "{path}");
            assert_eq!(p.judge(path, Use::Write), None, "{path}");
        }
        // Places it cannot be sure of.
        for path in [
            "Default/Cookies",
            "./x",
            "file:///home/u/.config/chromium/Default/Cookies",
            "/proc/self/root/home/u/.config/chromium/Default/Cookies",
            "/proc/1234/fd/23",
            "/dev/fd/23",
            "/dev/stdin",
            "/PROC/self/cwd/x",
        ] {
            assert_eq!(p.judge(path, Use::Offer), Some(UNPLACED_WHY), "{path}");
        }
        // Neighbours go.
        for path in [
            "/home/u/.config/chromium-other/x",
            "/home/u/.config/chromiu",
            "/home/u/upload.txt",
            "/tmp/x",
            "/procfs/x",
        ] {
            assert_eq!(p.judge(path, Use::Offer), None, "{path}");
        }
        // Named strings: only absolute paths inside.
        assert_eq!(p.judge("Default/Cookies", Use::Named), None);
        assert_eq!(p.judge("/proc/self/fd/2", Use::Named), None);
    }

    #[cfg(not(windows))]
    #[test]
    fn commands_are_judged_where_they_name_paths() {
        let p = protected(&["/tmp/profile"]);
        let refused = [
            (
                "DOM.setFileInputFiles",
                json!({"files": ["/tmp/ok.txt", "/tmp/profile/Default/Cookies"], "nodeId": 3}),
            ),
            (
                "Input.dispatchDragEvent",
                json!({"type": "drop", "x": 1, "y": 1, "data": {"items": [], "files": ["/tmp"]}}),
            ),
            (
                "PWA.launchFilesInApp",
                json!({"manifestId": "x", "files": ["rel/ative"]}),
            ),
            (
                "Browser.setDownloadBehavior",
                json!({"behavior": "allow", "downloadPath": "/tmp/profile/Default"}),
            ),
            // Unknown members: absolute paths and file: URLs inside.
            (
                "Some.newCommand",
                json!({"where": {"deep": ["/tmp/profile/x"]}}),
            ),
            (
                "PWA.install",
                json!({"manifestId": "x", "installUrlOrBundleUrl": "file:///tmp/profile/Default/x%20y"}),
            ),
        ];
        for (method, params) in refused {
            assert!(p.command(method, &params).is_some(), "{method} {params}");
        }
        let allowed = [
            (
                "DOM.setFileInputFiles",
                json!({"files": ["/tmp/ok.txt"], "nodeId": 3}),
            ),
            (
                "Browser.setDownloadBehavior",
                json!({"behavior": "allow", "downloadPath": "/tmp"}),
            ),
            (
                "Runtime.evaluate",
                json!({"expression": "/profile/.test(location.href)"}),
            ),
            ("DOM.performSearch", json!({"query": "//div"})),
        ];
        for (method, params) in allowed {
            assert_eq!(p.command(method, &params), None, "{method} {params}");
        }
        // Nothing protected: nothing judged.
        let none = protected(&[]);
        assert_eq!(
            none.command("DOM.setFileInputFiles", &json!({"files": ["rel"]})),
            None
        );
    }
}
