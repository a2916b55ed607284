//! The proxy's file system view for the policy's protected paths
//! ([`LocalPaths`]): symbolic links resolved the way the kernel follows them, and file
//! identities (device, inode), read on the proxy's machine (the browser's, when both run on
//! one machine, as CDP on loopback does).

use std::collections::VecDeque;
use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};

use crate::guard::policy::{LocalPaths, Resolved};

/// Symbolic links followed at most in one path (Linux's limit), like the kernel's `ELOOP`.
const MAX_LINKS: u32 = 40;

/// [`LocalPaths`] on this machine's file system.
#[derive(Debug, Default, Clone, Copy)]
pub struct FsPaths;

impl LocalPaths for FsPaths {
    fn resolve(&self, path: &str) -> Resolved {
        resolve(Path::new(path))
    }
}

/// Whether a resolved path lies in `/proc` (where `self`, `cwd`, `root` and `fd` name the
/// looking process's own files: another file for the browser than for the proxy).
fn in_proc(p: &Path) -> bool {
    let mut c = p.components();
    c.next() == Some(Component::RootDir) && c.next() == Some(Component::Normal("proc".as_ref()))
}

/// Resolves `path` component by component, as the kernel does: each symbolic link is
/// replaced by its target (relative to its folder), `..` goes up from what is resolved so far;
/// once a component does not exist the rest is taken as it is. A path that passes through
/// `/proc` is [`Resolved::Indirect`].
#[cfg(unix)]
fn resolve(path: &Path) -> Resolved {
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

/// Elsewhere: the platform's canonical path (symbolic links, short names and case as the
/// file system keeps them), when the file exists; no identities.
#[cfg(not(unix))]
fn resolve(path: &Path) -> Resolved {
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

    /// A file's identity: (device, inode).
    type Id = (u64, u64);

    fn real(r: Resolved) -> (String, Option<Id>, Vec<Id>) {
        match r {
            Resolved::Real { path, id, above } => (path, id, above),
            other => panic!("not resolved: {other:?}"),
        }
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
