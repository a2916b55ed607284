//! Local paths: commands that hand a page files by path (a file input, a drop, an installed
//! app's file launch) or choose where the browser writes (downloads), judged against the
//! protected paths ([`Config::protected_paths`](super::config::Config::protected_paths)): the browser's
//! profile keeps every site's storage, cookies and history in files a page reads in the clear
//! once it is given them (the suite's `c7.file-input-profile`).
//!
//! A path is judged in every form the policy can give it: lexically (absolute, `.` and `..`
//! taken out, separators collapsed), and, with a [`LocalPaths`] from the caller, with its
//! symbolic links resolved and by the identity (device and inode) of the file and of each
//! folder above it. Forms are compared case-insensitively (a case-insensitive file system
//! spells one folder many ways; on a case-sensitive one this only protects more). The policy
//! does no I/O itself: without a [`LocalPaths`] it judges the lexical form alone.

use std::borrow::Cow;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;

pub use super::config::{LocalPaths, Resolved};
use super::refusal::Refusal;
use super::table::{Concern, Judge};
use super::walk;

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
    match p.to_str() {
        Some(s) => PathBuf::from(s.to_lowercase()),
        None => PathBuf::from(p.to_string_lossy().to_lowercase()),
    }
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
    pub(super) fn judge(&self, raw: &str, use_: Use) -> Option<Refusal<'static>> {
        let lex = match placed(raw, use_) {
            Ok(lex) => lex,
            Err(why) => return why,
        };
        // The path as given: the kernel reads `..` after a link from where the link leads,
        // not lexically (`/a/link/../x` is `x` beside the link's target).
        let resolved = self.local.as_ref().map(|l| l.resolve(raw));
        self.judge_forms(&lex, resolved.as_ref(), use_)
    }

    /// Why a path of lexical form `lex`, resolved by the caller to `resolved` (`None`: not
    /// asked), used as `use_`, is refused.
    fn judge_forms(
        &self,
        lex: &Path,
        resolved: Option<&Resolved>,
        use_: Use,
    ) -> Option<Refusal<'static>> {
        let mut forms = vec![fold(lex)];
        let (mut own, mut ids) = (None, Vec::new());
        match resolved {
            Some(Resolved::Real { path, id, above }) => {
                // The same path (no link on the way) adds no form.
                if Path::new(path) != lex {
                    if let Some(real) = lexical(path) {
                        forms.push(fold(&real));
                    }
                }
                own = *id;
                ids = id.iter().chain(above).copied().collect();
            }
            Some(Resolved::Indirect) if use_ != Use::Named => return Some(Refusal::Unplaced),
            _ => {}
        }
        for dir in &self.dirs {
            let inside = forms
                .iter()
                .any(|f| dir.forms.iter().any(|d| f.starts_with(d)))
                || dir.id.is_some_and(|id| ids.contains(&id));
            if inside {
                return Some(Refusal::Inside);
            }
            if use_ == Use::Offer {
                let holds = forms
                    .iter()
                    .any(|f| dir.forms.iter().any(|d| d.starts_with(f)))
                    || own.is_some_and(|id| dir.chain.contains(&id));
                if holds {
                    return Some(Refusal::HoldsPath);
                }
            }
        }
        None
    }

    /// Why a client command `method` with `params` is refused for the local paths it names;
    /// `None` when it names none in a protected path (or none are protected).
    pub(super) fn command(&self, method: &str, params: &Value) -> Option<Refusal<'static>> {
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
        // know yet). Only the inside rule applies to these: each is judged lexically first,
        // then the rest are resolved together (one command's look-ups shared), in batches.
        let (mut found, mut batch) = (None, Vec::new());
        walk::each_string(params, |_, s| {
            if found.is_some() {
                return;
            }
            if s.starts_with(['/', '\\']) || windows_absolute(s) {
                batch.push(Cow::Borrowed(s));
            } else if let Some(p) = file_url_path(s) {
                batch.push(Cow::Owned(p));
            }
            if batch.len() == NAMED_BATCH {
                found = self.named(&batch);
                batch.clear();
            }
        });
        found.or_else(|| self.named(&batch))
    }

    /// Why a command naming `batch` (strings the client wrote as absolute paths, `file:` URLs'
    /// paths) is refused: lexically inside a protected path, else once resolved together.
    fn named(&self, batch: &[Cow<'_, str>]) -> Option<Refusal<'static>> {
        let mut left: Vec<(&str, PathBuf)> = Vec::new();
        for raw in batch {
            let Ok(lex) = placed(raw, Use::Named) else {
                continue;
            };
            if let Some(why) = self.judge_forms(&lex, None, Use::Named) {
                return Some(why);
            }
            left.push((raw, lex));
        }
        let local = self.local.as_ref()?;
        let raws: Vec<&str> = left.iter().map(|(raw, _)| *raw).collect();
        for ((_, lex), resolved) in left.iter().zip(local.resolve_all(&raws)) {
            if let Some(why) = self.judge_forms(lex, Some(&resolved), Use::Named) {
                return Some(why);
            }
        }
        None
    }
}

/// Named strings judged together at most (bounds what one command's judging keeps).
const NAMED_BATCH: usize = 1024;

/// `raw`'s lexical form when the policy judges it as `use_`; else whether it is refused
/// unjudged (`Some` reason: it cannot be placed) or goes (`None`: a named string that is no
/// absolute path).
fn placed(raw: &str, use_: Use) -> Result<PathBuf, Option<Refusal<'static>>> {
    let Some(lex) = lexical(raw) else {
        // Named strings are any text: only absolute paths are judged.
        return Err((use_ != Use::Named).then_some(Refusal::Unplaced));
    };
    if use_ != Use::Named {
        let text = lex.to_string_lossy().to_lowercase();
        if INDIRECT
            .iter()
            .any(|p| text == *p || text.starts_with(&format!("{p}/")))
        {
            return Err(Some(Refusal::Unplaced));
        }
    }
    Ok(lex)
}

/// Calls `f` on every local path command `method`'s parameters name (the parameters its
/// entry in the table judges as `path`), with its use: handed to a page (the `files`
/// concern: file inputs, drops, an app's file launch) or written into (`downloads`).
pub(super) fn each_path(method: &str, params: &Value, f: &mut dyn FnMut(&str, Use)) {
    let Some(entry) = super::table::table().command(method) else {
        return;
    };
    let use_ = match entry.concern {
        Some(Concern::Files) => Use::Offer,
        Some(Concern::Downloads) => Use::Write,
        _ => return,
    };
    path_params(&entry.params, params, &mut |s| f(s, use_));
}

/// Calls `f` on every string in `v` that `judges` (a command's parameters in the table) say
/// is a local path (`path`), in members and lists alike.
fn path_params<'a>(judges: &[(String, Judge)], v: &'a Value, f: &mut dyn FnMut(&'a str)) {
    for (name, judge) in judges {
        match (judge, v.get(name)) {
            (Judge::Path, Some(at)) => walk::each_string(at, |_, s| f(s)),
            (Judge::Members(members), Some(at)) => path_params(members, at, f),
            _ => {}
        }
    }
}

/// Whether `s` starts like a Windows absolute path (`C:\`, `C:/`).
fn windows_absolute(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && matches!(b[2], b'\\' | b'/')
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
            assert_eq!(p.judge(path, Use::Offer), Some(Refusal::Inside), "{path}");
            assert_eq!(p.judge(path, Use::Write), Some(Refusal::Inside), "{path}");
            assert_eq!(p.judge(path, Use::Named), Some(Refusal::Inside), "{path}");
        }
        // Folders above it: refused when offered (a dropped folder is walked), not otherwise.
        for path in ["/", "/home", "/home/u/", "/home/u/.config"] {
            assert_eq!(
                p.judge(path, Use::Offer),
                Some(Refusal::HoldsPath),
                "{path}"
            );
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
            assert_eq!(p.judge(path, Use::Offer), Some(Refusal::Unplaced), "{path}");
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

#[cfg(all(test, not(windows)))]
mod batched {
    //! Named strings judged lexically first, then resolved in batches, against each string
    //! judged on its own (as before).
    use super::*;
    use serde_json::json;

    /// A made-up file system: `/x/link…` leads into the profile (`/p`), `/x/bind…` is a
    /// folder with the profile's identity, `/x/proc…` goes through `/proc`, `/x/real…` is
    /// itself; anything else is unknown. Counts the paths it is asked about one by one and in
    /// batches.
    #[derive(Debug, Default)]
    struct Fake {
        single: std::sync::atomic::AtomicUsize,
        batched: std::sync::atomic::AtomicUsize,
    }

    impl LocalPaths for Fake {
        fn resolve(&self, path: &str) -> Resolved {
            self.single
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            if let Some(rest) = path.strip_prefix("/x/link") {
                Resolved::Real {
                    path: format!("/p/{rest}"),
                    id: None,
                    above: vec![(1, 1)],
                }
            } else if path.starts_with("/x/bind") {
                Resolved::Real {
                    path: path.to_string(),
                    id: Some((1, 2)),
                    above: vec![(1, 1), (1, 10)],
                }
            } else if path.starts_with("/x/proc") {
                Resolved::Indirect
            } else if path.starts_with("/x/real") {
                Resolved::Real {
                    path: path.to_string(),
                    id: None,
                    above: vec![(1, 10)],
                }
            } else {
                Resolved::Unknown
            }
        }

        fn resolve_all(&self, paths: &[&str]) -> Vec<Resolved> {
            self.batched
                .fetch_add(paths.len(), std::sync::atomic::Ordering::Relaxed);
            let got = paths.iter().map(|p| self.resolve(p)).collect();
            self.single
                .fetch_sub(paths.len(), std::sync::atomic::Ordering::Relaxed);
            got
        }
    }

    /// The profile `/p` with identity (1, 1) under a root (1, 10).
    fn protected(fake: Arc<Fake>) -> Protected {
        let mut p = Protected::new(&["/p".to_string()], None);
        p.dirs[0].id = Some((1, 1));
        p.dirs[0].chain = vec![(1, 1), (1, 10)];
        p.local = Some(fake);
        p
    }

    /// How `command` judged named strings before batching: each string on its own.
    fn before(p: &Protected, method: &str, params: &Value) -> Option<Refusal<'static>> {
        let mut found = None;
        each_path(method, params, &mut |s, use_| {
            if found.is_none() {
                found = p.judge(s, use_);
            }
        });
        if found.is_some() {
            return found;
        }
        walk::each_string(params, |_, s| {
            if found.is_some() {
                return;
            }
            if s.starts_with(['/', '\\']) || windows_absolute(s) {
                found = p.judge(s, Use::Named);
            } else if let Some(path) = file_url_path(s) {
                found = p.judge(&path, Use::Named);
            }
        });
        found
    }

    #[test]
    fn named_strings_are_judged_as_each_on_its_own() {
        let fake = Arc::new(Fake::default());
        let p = protected(fake.clone());
        let pieces = [
            "/x/link/Cookies",
            "/x/linkage",
            "/x/bind/Cookies",
            "/x/proc/self/root/p/x",
            "/x/real/y",
            "/p/Default/Cookies",
            "/P/../p",
            "//div",
            "/^a$/",
            "\\p\\x",
            "C:\\p",
            "file:///x/link/Cookies",
            "file:///p/x%20y",
            "file:relative",
            "text",
            "/pp/x",
            "/x/real/../../p/q",
        ];
        let mut seed = 0x9E37_79B9_7F4A_7C15_u64;
        let mut next = move |n: usize| {
            seed ^= seed >> 12;
            seed ^= seed << 25;
            seed ^= seed >> 27;
            (seed.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n
        };
        let (mut refused, mut runs) = (0, 0);
        for _ in 0..3000 {
            // Up to 3000 strings, past one batch, nested in objects and arrays.
            let n = if next(50) == 0 {
                2000 + next(1000)
            } else {
                next(6)
            };
            let mut items = Vec::new();
            for _ in 0..n {
                // Mostly strings that go, so that one refusing string decides.
                let s = if next(8) == 0 {
                    pieces[next(pieces.len())]
                } else {
                    pieces[7 + next(3)]
                };
                items.push(match next(3) {
                    0 => json!({"value": s}),
                    1 => json!([s, 1]),
                    _ => json!(s),
                });
            }
            let method = ["Runtime.callFunctionOn", "DOM.setFileInputFiles"][next(2)];
            let file = ["/x/real/upload", pieces[next(pieces.len())]][usize::from(next(4) == 0)];
            let params = json!({"arguments": items, "files": [file]});
            let (got, want) = (p.command(method, &params), before(&p, method, &params));
            assert_eq!(got, want, "{method} {params:.300}");
            runs += 1;
            refused += usize::from(got.is_some());
        }
        assert!(
            refused > runs / 4 && refused < runs * 3 / 4,
            "{refused} of {runs}"
        );
        // One refusing string after batches of ordinary ones, lexically and through a link.
        for last in ["/p/Cookies", "/x/link/Cookies", "file:///x/bind/Cookies"] {
            let mut items = vec![json!("//div"); 3 * NAMED_BATCH];
            items.push(json!(last));
            let params = json!({"arguments": items});
            assert_eq!(
                p.command("Some.method", &params),
                Some(Refusal::Inside),
                "{last}"
            );
        }
        // Named strings went through the batches.
        assert!(fake.batched.load(std::sync::atomic::Ordering::Relaxed) > 1000);
    }
}
