//! The proxy's file system view for the policy's protected paths
//! ([`LocalPaths`]): symbolic links resolved the way the kernel follows them, and file
//! identities (device, inode), read on the proxy's machine (the browser's, when both run on
//! one machine, as CDP on loopback does).
//!
//! The policy asks about every string of a client command that starts like an absolute path
//! (an XPath `//div`, a `/regex/`, a URL's path, a script opening with a comment), under the
//! proxy's lock on it, so the cost matters (`benches/guard_paths.rs`): a walk reads each
//! existing component once (`lstat`), takes identities from those reads, stops reading at the
//! first missing component, and one command's strings share their reads
//! ([`LocalPaths::resolve_all`]). Nothing is kept from one command to the next: a link made
//! in between is seen.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::ffi::{OsStr, OsString};
use std::path::{Component, Path, PathBuf};

use crate::guard::policy::{LocalPaths, Resolved};

/// Symbolic links followed at most in one path (Linux's limit), like the kernel's `ELOOP`.
const MAX_LINKS: u32 = 40;

/// [`LocalPaths`] on this machine's file system.
#[derive(Debug, Default, Clone, Copy)]
pub struct FsPaths;

impl LocalPaths for FsPaths {
    fn resolve(&self, path: &str) -> Resolved {
        resolve(Path::new(path), &mut Looks::default())
    }

    /// Each path as [`FsPaths::resolve`] gives it, the file system read once per distinct
    /// name among them (one command's strings: `/api/v1/a`, `/api/v1/b`, … look up `/api`
    /// once). Nothing is kept past the call: a link made later is seen by the next one.
    fn resolve_all(&self, paths: &[&str]) -> Vec<Resolved> {
        let mut looks = Looks::default();
        paths
            .iter()
            .map(|p| resolve(Path::new(p), &mut looks))
            .collect()
    }
}

/// A file's identity: (device, inode).
type Id = (u64, u64);

/// The file system look-ups of one [`LocalPaths::resolve_all`] call, each made once.
#[derive(Debug, Default)]
#[cfg_attr(not(unix), allow(dead_code))]
struct Looks {
    /// `lstat`: a link's target (`Ok(Err(..))` when it cannot be read), or the identity of
    /// what is no link; `Err` when nothing is there.
    lstat: std::collections::HashMap<PathBuf, Result<Result<Id, Option<PathBuf>>, ()>>,
    /// `stat` (links followed): the identity, if there is anything.
    stat: std::collections::HashMap<PathBuf, Option<Id>>,
}

#[cfg(unix)]
impl Looks {
    /// What `lstat` says of `p`: `Ok(Ok(id))` for what is no link, `Ok(Err(target))` for a
    /// link (`None`: its target cannot be read), `Err` when nothing is there.
    fn lstat(&mut self, p: &Path) -> Result<Result<Id, Option<PathBuf>>, ()> {
        use std::os::unix::fs::MetadataExt;
        if let Some(known) = self.lstat.get(p) {
            return known.clone();
        }
        let got = match std::fs::symlink_metadata(p) {
            Ok(m) if m.file_type().is_symlink() => Ok(Err(std::fs::read_link(p).ok())),
            Ok(m) => Ok(Ok((m.dev(), m.ino()))),
            Err(_) => Err(()),
        };
        self.lstat.insert(p.to_path_buf(), got.clone());
        got
    }

    /// What `stat` says of `p` (links followed): its identity, if anything is there.
    fn stat(&mut self, p: &Path) -> Option<Id> {
        use std::os::unix::fs::MetadataExt;
        if let Some(known) = self.stat.get(p) {
            return *known;
        }
        let got = std::fs::metadata(p).ok().map(|m| (m.dev(), m.ino()));
        self.stat.insert(p.to_path_buf(), got);
        got
    }
}

/// Whether a resolved path lies in `/proc` (where `self`, `cwd`, `root` and `fd` name the
/// looking process's own files: another file for the browser than for the proxy).
fn in_proc(p: &Path) -> bool {
    let mut c = p.components();
    c.next() == Some(Component::RootDir) && c.next() == Some(Component::Normal("proc".as_ref()))
}

/// What the walk of [`resolve`] knows of one component of the path resolved so far.
#[cfg(unix)]
#[derive(Debug, Clone, Copy)]
enum Seen {
    /// It exists and is no link: its identity (from the walk's own `lstat`).
    Known(Id),
    /// Nothing is there (or it cannot be looked up): neither is anything below it.
    Missing,
    /// Taken as it is, after a missing component (`..` may have led back to existing folders).
    Unknown,
}

/// Resolves `path` component by component, as the kernel does: each symbolic link is
/// replaced by its target (relative to its folder), `..` goes up from what is resolved so far;
/// once a component does not exist the rest is taken as it is. A path that passes through
/// `/proc` is [`Resolved::Indirect`].
///
/// The identities come from the walk's own `lstat` of each component (a component that is no
/// link has the same identity either way); only folders taken as they are after a missing
/// component are looked up again, from the root down, and the first that is not there ends the
/// look-ups (nothing below a missing folder exists). So a string with a missing first
/// component (`//div`, `/api/v1/x`, a script opening with `/*`) costs two look-ups, and a
/// long one costs time linear in its length.
#[cfg(unix)]
fn resolve(path: &Path, looks: &mut Looks) -> Resolved {
    if !path.is_absolute() {
        return Resolved::Unknown;
    }
    // The parts still to walk: a link's target's first (in order), then the path's own.
    let mut todo: VecDeque<OsString> = VecDeque::new();
    let mut rest = path.components();
    let mut done = PathBuf::from("/");
    // What is known of each component of `done`, in order.
    let mut seen: Vec<Seen> = Vec::new();
    let mut links = 0;
    let mut exists = true;
    loop {
        let part: Cow<'_, OsStr> = match todo.pop_front() {
            Some(p) => Cow::Owned(p),
            None => match rest.next() {
                Some(Component::Normal(n)) => Cow::Borrowed(n),
                Some(Component::ParentDir) => Cow::Borrowed(OsStr::new("..")),
                Some(_) => continue,
                None => break,
            },
        };
        if part == OsStr::new("..") {
            if done.pop() {
                seen.pop();
            }
            continue;
        }
        done.push(&part);
        if exists {
            match looks.lstat(&done) {
                Ok(Err(target)) => {
                    links += 1;
                    let Some(target) = target else {
                        return Resolved::Unknown;
                    };
                    if links > MAX_LINKS {
                        return Resolved::Unknown;
                    }
                    done.pop();
                    if target.is_absolute() {
                        done = PathBuf::from("/");
                        seen.clear();
                    }
                    for p in parts(&target).into_iter().rev() {
                        todo.push_front(p);
                    }
                    continue;
                }
                Ok(Ok(id)) => seen.push(Seen::Known(id)),
                Err(()) => {
                    exists = false;
                    seen.push(Seen::Missing);
                }
            }
        } else {
            seen.push(Seen::Unknown);
        }
        // Only a first component can lead into /proc (later ones keep the first).
        if seen.len() == 1 && in_proc(&done) {
            return Resolved::Indirect;
        }
    }
    let root = looks.stat(Path::new("/"));
    // The root itself (`/`, `/a/..`): no folder above it.
    let Some((&last, folders)) = seen.split_last() else {
        return Resolved::Real {
            id: if exists { root } else { None },
            above: Vec::new(),
            path: text(done),
        };
    };
    // The identities of `done`'s folders, the root first (then reversed: the nearest first).
    let mut above: Vec<Id> = root.into_iter().collect();
    let mut folder = PathBuf::from("/");
    for (part, s) in done.iter().skip(1).zip(folders) {
        folder.push(part);
        match s {
            Seen::Known(known) => above.push(*known),
            Seen::Missing => break,
            Seen::Unknown => match looks.stat(&folder) {
                Some(id) => above.push(id),
                None => break,
            },
        }
    }
    above.reverse();
    let own = match last {
        Seen::Known(known) if exists => Some(known),
        _ => None,
    };
    Resolved::Real {
        id: own,
        above,
        path: text(done),
    }
}

/// `p` as text (lossily where it is not UTF-8), without copying it when it is.
#[cfg(unix)]
fn text(p: PathBuf) -> String {
    p.into_os_string()
        .into_string()
        .unwrap_or_else(|s| s.to_string_lossy().into_owned())
}

/// Elsewhere: the platform's canonical path (symbolic links, short names and case as the
/// file system keeps them), when the file exists; no identities.
#[cfg(not(unix))]
fn resolve(path: &Path, _looks: &mut Looks) -> Resolved {
    match std::fs::canonicalize(path) {
        Ok(p) => Resolved::Real {
            path: p.to_string_lossy().into_owned(),
            id: None,
            above: Vec::new(),
        },
        Err(_) => Resolved::Unknown,
    }
}

/// The parts of a path to resolve: names and `..` (the root and `.` left out).
fn parts(p: &Path) -> VecDeque<OsString> {
    p.components()
        .filter_map(|c| match c {
            Component::Normal(n) => Some(n.to_os_string()),
            Component::ParentDir => Some(OsString::from("..")),
            _ => None,
        })
        .collect()
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::guard::policy::Resolved;

    /// One path resolved on its own.
    fn resolve(path: &Path) -> Resolved {
        super::resolve(path, &mut Looks::default())
    }

    fn real(r: Resolved) -> (String, Option<Id>, Vec<Id>) {
        match r {
            Resolved::Real { path, id, above } => (path, id, above),
            other => panic!("not resolved: {other:?}"),
        }
    }

    /// The resolver as it was before it took identities from its own walk (7th session,
    /// 56209ea): every folder above looked up again, paths joined anew at each step. Kept as
    /// the reference the faster one must agree with.
    pub(super) fn reference(path: &Path) -> Resolved {
        use std::os::unix::fs::MetadataExt;
        if !path.is_absolute() {
            return Resolved::Unknown;
        }
        let mut todo: VecDeque<OsString> = parts(path);
        let mut done = PathBuf::from("/");
        let mut links = 0;
        let mut exists = true;
        while let Some(part) = todo.pop_front() {
            if part == ".." {
                done.pop();
                continue;
            }
            let next = done.join(&part);
            if exists {
                match std::fs::symlink_metadata(&next) {
                    Ok(m) if m.file_type().is_symlink() => {
                        links += 1;
                        let Ok(target) = std::fs::read_link(&next) else {
                            return Resolved::Unknown;
                        };
                        if links > MAX_LINKS {
                            return Resolved::Unknown;
                        }
                        if target.is_absolute() {
                            done = PathBuf::from("/");
                        }
                        for p in parts(&target).into_iter().rev() {
                            todo.push_front(p);
                        }
                        continue;
                    }
                    Ok(_) => {}
                    Err(_) => exists = false,
                }
            }
            done = next;
            if in_proc(&done) {
                return Resolved::Indirect;
            }
        }
        let id = |p: &Path| std::fs::metadata(p).ok().map(|m| (m.dev(), m.ino()));
        Resolved::Real {
            id: if exists { id(&done) } else { None },
            above: done.ancestors().skip(1).filter_map(id).collect(),
            path: done.to_string_lossy().into_owned(),
        }
    }

    /// A folder with a profile, an upload and links of every kind: into the profile (absolute,
    /// relative, chained, to a file), up, to the root, through /proc and /dev/fd, a loop, a
    /// dangling one. Returns the temporary folder and its resolved path.
    pub(super) fn tree() -> (tempfile::TempDir, PathBuf) {
        let tmp = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(tmp.path()).unwrap();
        let default = base.join("profile/Default");
        std::fs::create_dir_all(default.join("Local Storage/leveldb")).unwrap();
        std::fs::write(default.join("Cookies"), "x").unwrap();
        std::fs::write(default.join("Local Storage/leveldb/000003.log"), "x").unwrap();
        std::fs::create_dir_all(base.join("PROFILE")).unwrap();
        std::fs::write(base.join("upload.txt"), "y").unwrap();
        let links = base.join("links");
        std::fs::create_dir_all(&links).unwrap();
        let link = |target: &Path, name: &str| {
            std::os::unix::fs::symlink(target, links.join(name)).unwrap()
        };
        link(&default, "abs");
        link(Path::new("../profile/Default"), "rel");
        link(Path::new("abs"), "chain");
        link(Path::new(".."), "up");
        link(Path::new("/"), "root");
        link(Path::new("/proc/self/cwd"), "proc");
        link(Path::new("/dev/fd"), "devfd");
        link(Path::new("loop"), "loop");
        link(Path::new("nowhere/x"), "dangling");
        link(Path::new("../profile/Default/Cookies"), "file");
        link(Path::new("."), "self");
        link(Path::new("../upload.txt"), "toupload");
        (tmp, base)
    }

    /// Hand-picked and 3,000 seeded paths over [`tree`] at `base` (xorshift64*: a failure
    /// names its case): links, `..`, `.`, empty and long components, missing folders, past
    /// `PATH_MAX`.
    pub(super) fn cases(base: &Path) -> Vec<String> {
        let long = "x".repeat(300);
        let pieces = [
            "links/abs",
            "links/rel",
            "links/chain",
            "links/up",
            "links/root",
            "links/proc",
            "links/devfd",
            "links/loop",
            "links/dangling",
            "links/file",
            "links/self",
            "links/toupload",
            "links",
            "profile/Default",
            "profile",
            "PROFILE",
            "Default",
            "Cookies",
            "Local Storage/leveldb",
            "upload.txt",
            "missing",
            "missing/..",
            "Default/..",
            "..",
            ".",
            "",
            "tmp",
            "dev",
            long.as_str(),
        ];
        let starts = [base.display().to_string(), String::new(), "/tmp".into()];
        let mut cases: Vec<String> = [
            "/",
            "/..",
            "//",
            "/missing/..",
            "/proc/self/root/tmp",
            "/proc",
            "/proc/..",
            "/missing/../proc",
            "/dev/fd/0",
            "//div[@id='x']",
            "/^a\\/b$/i",
            "/api/v1/items/3/details",
            "relative/x",
            "\\tmp\\profile",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        for via in [
            "missing/../links/abs/Cookies",
            "missing/../links/abs",
            "links/abs/../Default/Cookies",
            "links/up/profile/Default/Cookies",
            "links/chain/missing/../Cookies",
            "upload.txt/x",
            "links/toupload/x",
            "links/file",
        ] {
            cases.push(format!("{}/{via}", base.display()));
        }
        // Seeded, so a failure names its case (xorshift64*).
        let mut seed = 0x9E37_79B9_7F4A_7C15_u64;
        let mut next = move |n: usize| {
            seed ^= seed >> 12;
            seed ^= seed << 25;
            seed ^= seed >> 27;
            (seed.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n
        };
        for n in 0..3000 {
            let mut p = starts[next(starts.len())].clone();
            // A few long ones: past PATH_MAX, thousands of components.
            let count = if n % 600 == 0 { 1500 } else { next(8) };
            for _ in 0..count {
                p.push_str(["/", "//"][usize::from(next(5) == 0)]);
                p.push_str(pieces[next(pieces.len())]);
            }
            if p.is_empty() {
                p.push('/');
            }
            cases.push(p);
        }
        cases
    }

    #[test]
    fn the_walk_agrees_with_the_reference_resolver() {
        let (_tmp, base) = tree();
        let cases = cases(&base);
        let (mut real, mut into) = (0, 0);
        // All at once too, sharing their look-ups (as one command's strings are).
        let all: Vec<&str> = cases.iter().map(String::as_str).collect();
        let shared = FsPaths.resolve_all(&all);
        assert_eq!(shared.len(), cases.len());
        for (case, shared) in cases.iter().zip(shared) {
            let (got, want) = (resolve(Path::new(case)), reference(Path::new(case)));
            assert_eq!(got, want, "{case}");
            assert_eq!(shared, want, "{case}, among the others");
            if let Resolved::Real { path, .. } = &got {
                real += 1;
                into += usize::from(path.starts_with(&base.join("profile").display().to_string()));
            }
        }
        // The generator reaches the profile, through links too, and not only there.
        assert!(
            real > 1000 && into > 200,
            "{real} resolved, {into} into the profile"
        );
    }

    #[test]
    fn links_are_followed_as_the_kernel_does() {
        let tmp = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(tmp.path()).unwrap();
        let profile = base.join("profile/Default");
        std::fs::create_dir_all(&profile).unwrap();
        std::fs::write(profile.join("Cookies"), "x").unwrap();
        let links = base.join("links");
        std::fs::create_dir_all(&links).unwrap();
        std::os::unix::fs::symlink(&profile, links.join("abs")).unwrap();
        std::os::unix::fs::symlink("../profile/Default", links.join("rel")).unwrap();
        std::os::unix::fs::symlink("abs", links.join("chain")).unwrap();
        std::os::unix::fs::symlink("/proc/self/cwd", links.join("proc")).unwrap();
        std::os::unix::fs::symlink("loop", links.join("loop")).unwrap();
        let cookies = profile.join("Cookies");
        let want = real(resolve(&cookies));
        assert_eq!(want.0, cookies.display().to_string());
        assert!(want.1.is_some());
        assert_eq!(want.2.len(), cookies.ancestors().count() - 1);
        for via in [
            "abs/Cookies",
            "rel/Cookies",
            "chain/Cookies",
            "chain/../Default/Cookies",
        ] {
            let got = real(resolve(&links.join(via)));
            // `chain/..` is the folder above where `chain` leads, as the kernel reads it.
            assert_eq!(got.0, cookies.display().to_string(), "{via}");
            assert_eq!(got.1, want.1, "{via}");
        }
        // Through /proc: another file for the browser.
        assert_eq!(resolve(&links.join("proc/x")), Resolved::Indirect);
        assert_eq!(resolve(Path::new("/dev/fd/0")), Resolved::Indirect);
        // A loop resolves to nothing.
        assert_eq!(resolve(&links.join("loop/x")), Resolved::Unknown);
        // Missing files: the rest taken as it is, only the folders above identified.
        let (path, id, above) = real(resolve(&links.join("abs/missing/../x")));
        assert_eq!(path, profile.join("x").display().to_string());
        assert_eq!(id, None);
        assert!(!above.is_empty());
        assert_eq!(resolve(Path::new("relative")), Resolved::Unknown);
    }

    #[test]
    fn the_policy_with_the_proxys_view_refuses_links_into_a_protected_path() {
        use crate::guard::policy::{Config, Policy, Verdict, RESERVED_IDS};
        use std::sync::Arc;
        let tmp = tempfile::tempdir().unwrap();
        let profile = tmp.path().join("profile");
        std::fs::create_dir_all(profile.join("Default")).unwrap();
        std::fs::write(profile.join("Default/Cookies"), "x").unwrap();
        std::os::unix::fs::symlink(profile.join("Default"), tmp.path().join("link")).unwrap();
        std::fs::write(tmp.path().join("upload.txt"), "y").unwrap();
        let link = tmp.path().join("link/Cookies").display().to_string();
        let upload = tmp.path().join("upload.txt").display().to_string();
        let matcher = crate::protected::Matcher::new(
            &crate::catalog::shared_catalog().protected_origins,
            &[] as &[&str],
        )
        .unwrap();
        let run = |local: bool, file: &str| {
            let config = Config {
                protected_paths: vec![profile.display().to_string()],
                local_paths: local.then(|| Arc::new(FsPaths) as _),
                ..Config::default()
            };
            let mut policy = Policy::with_config(matcher.clone(), config);
            policy.start(0);
            let id = RESERVED_IDS.start();
            policy.from_browser(&format!(r#"{{"id":{id},"result":{{}}}}"#), 1);
            let cmd = serde_json::json!({"id": 1, "method": "PWA.launchFilesInApp",
                "params": {"manifestId": "https://example.test/", "files": [file]}});
            policy.from_client(&cmd.to_string(), 2).verdict
        };
        assert_eq!(run(true, &link), Verdict::Refuse);
        // `..` after a link goes up from where the link leads (the profile), not lexically.
        let around = tmp
            .path()
            .join("link/../Default/Cookies")
            .display()
            .to_string();
        assert_eq!(run(true, &around), Verdict::Refuse);
        assert_eq!(run(true, &upload), Verdict::Forward);
        // Lexically the link is no file in the profile: the proxy's view is what sees it.
        assert_eq!(run(false, &link), Verdict::Forward);
    }
}

#[cfg(all(test, unix))]
mod policy_tests {
    //! The policy with the proxy's view, on commands: what must stay refused however cheaply
    //! it is judged.
    use super::FsPaths;
    use crate::guard::policy::{Policy, Verdict};
    use serde_json::{json, Value};
    use std::path::Path;
    use std::sync::Arc;

    /// A started policy protecting `profile` with [`FsPaths`].
    fn policy(profile: &Path) -> Policy {
        super::equivalence::policy(profile, Arc::new(FsPaths))
    }

    /// The verdict on `method` with `params` (answered when forwarded, so ids never pile up).
    fn verdict(policy: &mut Policy, method: &str, params: Value) -> Verdict {
        let out = policy.from_client(
            &json!({"id": 7, "method": method, "params": params}).to_string(),
            2,
        );
        if out.verdict == Verdict::Forward {
            policy.from_browser(r#"{"id":7,"result":{}}"#, 3);
        }
        out.verdict
    }

    /// `path` offered to a page (a file input) and named in a script's arguments.
    fn both(policy: &mut Policy, path: &str) -> (Verdict, Verdict) {
        let offered = verdict(
            policy,
            "DOM.setFileInputFiles",
            json!({"nodeId": 3, "files": [path]}),
        );
        let named = verdict(
            policy,
            "Runtime.callFunctionOn",
            json!({"functionDeclaration": "(p) => p", "executionContextId": 1,
                "arguments": [{"value": "//div"}, {"value": path}]}),
        );
        (offered, named)
    }

    #[test]
    fn a_link_made_after_the_start_is_seen_at_the_next_command() {
        let tmp = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(tmp.path()).unwrap();
        let profile = base.join("profile");
        std::fs::create_dir_all(profile.join("Default")).unwrap();
        std::fs::write(profile.join("Default/Cookies"), "x").unwrap();
        std::fs::create_dir_all(base.join("other")).unwrap();
        let mut p = policy(&profile);
        let via = base.join("later/Default/Cookies").display().to_string();
        assert_eq!(both(&mut p, &via), (Verdict::Forward, Verdict::Forward));
        // The link appears: the same strings are refused.
        std::os::unix::fs::symlink(&profile, base.join("later")).unwrap();
        assert_eq!(both(&mut p, &via), (Verdict::Refuse, Verdict::Refuse));
        // A folder above the link, with it in place: a drop holding the profile.
        let dropped = json!({"type": "drop", "x": 1, "y": 1,
            "data": {"items": [], "files": [base.join("later").display().to_string()], "dragOperationsMask": 1}});
        assert_eq!(
            verdict(&mut p, "Input.dispatchDragEvent", dropped.clone()),
            Verdict::Refuse
        );
        // It goes elsewhere: nothing kept from before.
        std::fs::remove_file(base.join("later")).unwrap();
        std::os::unix::fs::symlink(base.join("other"), base.join("later")).unwrap();
        assert_eq!(both(&mut p, &via), (Verdict::Forward, Verdict::Forward));
        // A folder of the path made a link later (not its last component).
        std::fs::create_dir_all(base.join("deep/a")).unwrap();
        let deep = base.join("deep/a/b/Default/Cookies").display().to_string();
        assert_eq!(both(&mut p, &deep), (Verdict::Forward, Verdict::Forward));
        std::os::unix::fs::symlink(&profile, base.join("deep/a/b")).unwrap();
        assert_eq!(both(&mut p, &deep), (Verdict::Refuse, Verdict::Refuse));
    }

    /// A bind mount of the profile (same device and inode, another path) and a hard link to
    /// one of its files. Mounting needs privileges and changes the machine's mount table for
    /// a moment, so this runs only with `SLICC_TEST_MOUNTS=1` (it says so otherwise).
    #[test]
    fn a_bind_mount_of_the_profile_is_seen_by_identity() {
        if std::env::var_os("SLICC_TEST_MOUNTS").is_none() {
            eprintln!("skipped: set SLICC_TEST_MOUNTS=1 to bind-mount a temporary folder");
            return;
        }
        let tmp = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(tmp.path()).unwrap();
        let profile = base.join("profile");
        std::fs::create_dir_all(profile.join("Default")).unwrap();
        std::fs::write(profile.join("Default/Cookies"), "x").unwrap();
        let mnt = base.join("mnt");
        std::fs::create_dir_all(&mnt).unwrap();
        /// Unmounts at the end, also on failure (before the folder is removed).
        struct Unmount(std::path::PathBuf);
        impl Drop for Unmount {
            fn drop(&mut self) {
                let _ = std::process::Command::new("umount").arg(&self.0).status();
            }
        }
        let status = std::process::Command::new("mount")
            .arg("--bind")
            .arg(&profile)
            .arg(&mnt)
            .status()
            .unwrap();
        assert!(status.success(), "mount --bind failed: {status}");
        let _unmount = Unmount(mnt.clone());
        let mut p = policy(&profile);
        let via = mnt.join("Default/Cookies").display().to_string();
        assert_eq!(both(&mut p, &via), (Verdict::Refuse, Verdict::Refuse));
        let folder = mnt.display().to_string();
        assert_eq!(both(&mut p, &folder), (Verdict::Refuse, Verdict::Refuse));
        // A hard link to a profile file outside it is another name of the same file, with
        // no folder of the profile above it: not seen (like a copy of the profile elsewhere;
        // see the module docs' Limits).
        std::fs::hard_link(profile.join("Default/Cookies"), base.join("hard")).unwrap();
        let hard = base.join("hard").display().to_string();
        assert_eq!(both(&mut p, &hard), (Verdict::Forward, Verdict::Forward));
    }

    #[test]
    fn links_dotdot_case_proc_and_backslashes_in_any_string() {
        let tmp = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(tmp.path()).unwrap();
        let profile = base.join("profile");
        std::fs::create_dir_all(profile.join("Default")).unwrap();
        std::fs::write(profile.join("Default/Cookies"), "x").unwrap();
        std::fs::write(base.join("upload.txt"), "y").unwrap();
        std::os::unix::fs::symlink(profile.join("Default"), base.join("link")).unwrap();
        std::os::unix::fs::symlink(&profile, base.join("plink")).unwrap();
        std::os::unix::fs::symlink("/proc/self/cwd", base.join("procl")).unwrap();
        let mut p = policy(&profile);
        let at = |s: &str| format!("{}/{s}", base.display());
        // Into the profile: through a link, `..` after a link (from where it leads), a link
        // after a missing folder and `..` (the resolver's reading), case and separators.
        for inside in [
            at("link/Cookies"),
            at("link/../Default/Cookies"),
            at("missing/../plink/Default/Cookies"),
            at("link//./Cookies"),
            at("PROFILE/Default/Cookies").to_uppercase(),
            format!("/{}//profile/Default/../Default/Cookies", base.display()),
        ] {
            assert_eq!(
                both(&mut p, &inside),
                (Verdict::Refuse, Verdict::Refuse),
                "{inside}"
            );
        }
        // Another process's view: refused when handed to a page.
        for unplaced in [
            format!("/proc/self/root{}/Default/Cookies", profile.display()),
            "/dev/fd/3".to_string(),
            at("procl/x"),
            "\\tmp\\profile\\Default\\Cookies".to_string(),
        ] {
            let offered = verdict(
                &mut p,
                "DOM.setFileInputFiles",
                json!({"nodeId": 3, "files": [unplaced]}),
            );
            assert_eq!(offered, Verdict::Refuse, "{unplaced}");
        }
        // Neither inside nor holding: forwarded both ways.
        for ordinary in [
            at("upload.txt"),
            at("link/../../upload.txt"),
            at("profile-other/x"),
            "//div[@class='a']//span".to_string(),
        ] {
            assert_eq!(
                both(&mut p, &ordinary),
                (Verdict::Forward, Verdict::Forward),
                "{ordinary}"
            );
        }
    }
}

#[cfg(all(test, unix))]
mod equivalence {
    //! The policy with today's resolver and batched look-ups against the policy as it was: the
    //! old resolver, each string on its own.
    use super::tests::{cases, reference, tree};
    use super::FsPaths;
    use crate::guard::policy::{Config, LocalPaths, Policy, Resolved, Verdict, RESERVED_IDS};
    use serde_json::json;
    use std::path::Path;
    use std::sync::Arc;

    /// The resolver as it was first written, one path at a time (the reference the walk is
    /// held to).
    #[derive(Debug)]
    struct Before;

    impl LocalPaths for Before {
        fn resolve(&self, path: &str) -> Resolved {
            reference(Path::new(path))
        }
    }

    /// A started policy protecting `profile` with the resolver `local`.
    pub(super) fn policy(profile: &Path, local: Arc<dyn LocalPaths>) -> Policy {
        let matcher = crate::protected::Matcher::new(
            &crate::catalog::shared_catalog().protected_origins,
            &[] as &[&str],
        )
        .unwrap();
        let config = Config {
            protected_paths: vec![profile.display().to_string()],
            local_paths: Some(local),
            ..Config::default()
        };
        let mut policy = Policy::with_config(matcher, config);
        policy.start(0);
        let id = RESERVED_IDS.start();
        policy.from_browser(&format!(r#"{{"id":{id},"result":{{}}}}"#), 1);
        policy
    }

    #[test]
    fn the_policy_judges_every_command_as_before() {
        let (_tmp, base) = tree();
        let profile = base.join("profile");
        let paths = cases(&base);
        let mut now = policy(&profile, Arc::new(FsPaths));
        let mut before = policy(&profile, Arc::new(Before));
        let (mut refused, mut commands) = (0, 0);
        // Commands of 1 to 9 strings from the cases (some as file: URLs, some not paths at
        // all), named in a script's arguments, and each case offered to a file input.
        let mut seed = 0x2545_F491_4F6C_DD1D_u64;
        let mut next = move |n: usize| {
            seed ^= seed >> 12;
            seed ^= seed << 25;
            seed ^= seed >> 27;
            (seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 33) as usize % n
        };
        let mut run = |method: &str, params: serde_json::Value| {
            let frame = json!({"id": 5, "method": method, "params": params}).to_string();
            let (a, b) = (now.from_client(&frame, 2), before.from_client(&frame, 2));
            assert_eq!(
                (a.verdict, &a.to_client),
                (b.verdict, &b.to_client),
                "{frame:.300}"
            );
            for p in [&mut now, &mut before] {
                p.from_browser(r#"{"id":5,"result":{}}"#, 3);
            }
            a.verdict
        };
        for (i, path) in paths.iter().enumerate() {
            let offered = run(
                "DOM.setFileInputFiles",
                json!({"nodeId": 3, "files": [path]}),
            );
            let mut args = Vec::new();
            for _ in 0..=next(9) {
                let p = &paths[next(paths.len())];
                args.push(match next(4) {
                    0 => json!({"value": format!("file://{p}")}),
                    1 => json!({"value": "ordinary text"}),
                    _ => json!({"value": p}),
                });
            }
            args.push(json!({"value": path}));
            let named = run(
                "Runtime.callFunctionOn",
                json!({"functionDeclaration": "(...a) => a", "executionContextId": 1,
                    "arguments": args, "n": i}),
            );
            commands += 2;
            refused +=
                usize::from(offered == Verdict::Refuse) + usize::from(named == Verdict::Refuse);
        }
        // Both verdicts are common.
        assert!(
            refused > commands / 5 && refused < commands * 4 / 5,
            "{refused} of {commands}"
        );
    }
}
