//! Where a catalog browser's executable is, per OS, as a pure function of OS, home,
//! environment and a "does this path exist" predicate.
//!
//! Sources: the macOS bundle layout `<app>/Contents/MacOS/<CFBundleExecutable>` and the two
//! application folders `/Applications` and `~/Applications` (Apple's File System Programming
//! Guide); flatpak's installations `/var/lib/flatpak` and `~/.local/share/flatpak`, each with
//! its apps under `app/<id>` (flatpak-installation(5)); snaps' commands in `/snap/bin` (snapd).

use crate::catalog::Catalog;
use crate::catalog::{join_path, Browser, Env, Os};

/// A "does this path exist" check: the real file system, or a fake in tests.
pub type Exists<'a> = &'a dyn Fn(&str) -> bool;

/// How an executable was found, which also says how the browser is confined.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Via {
    /// A macOS app bundle in `/Applications` or `~/Applications`.
    Bundle,
    /// A Windows root (`platforms.windows.roots`) joined with one of the browser's executables.
    WindowsRoot,
    /// One of the browser's `linux.bins` on `PATH`.
    Path,
    /// `flatpak run <id>`.
    Flatpak,
    /// A snap's command in `/snap/bin` (also when found there through `PATH`). A snap can only
    /// write under `~/snap/<snap>`, so its seven profiles live in the snap root.
    Snap,
}

/// A command that starts a catalog browser: `program`, then `args`, then the launch's argv.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Executable {
    /// The catalog browser id.
    pub browser: String,
    /// The program to run.
    pub program: String,
    /// Arguments before the browser's own (`run <id>` for flatpak).
    pub args: Vec<String>,
    /// How it was found.
    pub via: Via,
}

impl Executable {
    /// The whole command line: the program, its own arguments, then `argv`.
    pub fn command(&self, argv: &[String]) -> Vec<String> {
        let mut out = Vec::with_capacity(1 + self.args.len() + argv.len());
        out.push(self.program.clone());
        out.extend(self.args.iter().cloned());
        out.extend(argv.iter().cloned());
        out
    }

    /// The snap name when the browser runs as a snap (its seven profiles go in the snap root).
    pub fn snap<'c>(&self, catalog: &'c Catalog) -> Option<&'c str> {
        if self.via != Via::Snap {
            return None;
        }
        catalog
            .browser(&self.browser)?
            .linux
            .as_ref()?
            .snap
            .as_deref()
    }
}

/// The snap command directory.
const SNAP_BIN: &str = "/snap/bin";
/// The system flatpak installation.
const FLATPAK_SYSTEM: &str = "/var/lib/flatpak";

/// Finds `browser`'s executable on `os`, in this order:
///
/// - macOS: `/Applications/<app>/Contents/MacOS/<executable>`, then the same under
///   `~/Applications`;
/// - Windows: each of the browser's `roots` in order, each `executables` entry under it;
/// - Linux: each of `bins` on `PATH` (in `bins` order, then `PATH` order; empty and relative
///   `PATH` entries are skipped), then `flatpak run <id>` when the app is in the system or user
///   installation and `flatpak` is on `PATH`, then `/snap/bin/<snap>`.
///
/// ```
/// use slicc_browsers::catalog::Os;
/// use slicc_browsers::launch::{resolve_executable, Via};
/// let cat = slicc_browsers::shared_catalog();
/// let chrome = cat.browser("chrome").unwrap();
/// let env = |_: &str| None;
/// let exists = |p: &str| p == "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome";
/// let exe = resolve_executable(cat, chrome, Os::Macos, "/Users/me", &env, &exists).unwrap();
/// assert_eq!(exe.via, Via::Bundle);
/// assert!(resolve_executable(cat, chrome, Os::Linux, "/home/me", &env, &exists).is_none());
/// ```
pub fn resolve_executable(
    catalog: &Catalog,
    browser: &Browser,
    os: Os,
    home: &str,
    env: Env<'_>,
    exists: Exists<'_>,
) -> Option<Executable> {
    let found = |program: String, args: Vec<String>, via: Via| Executable {
        browser: browser.id.clone(),
        program,
        args,
        via,
    };
    match os {
        Os::Macos => {
            let mac = &browser.macos;
            let contents = [
                mac.app.as_str(),
                "Contents",
                "MacOS",
                mac.executable.as_str(),
            ];
            let user_apps = join_path(os, home, &["Applications"]);
            let hit = ["/Applications", user_apps.as_str()]
                .into_iter()
                .map(|dir| join_path(os, dir, &contents))
                .find(|path| exists(path));
            hit.map(|path| found(path, Vec::new(), Via::Bundle))
        }
        Os::Windows => {
            let win = browser.windows.as_ref()?;
            win.roots
                .iter()
                .filter_map(|root| catalog.windows_root(root, home, env))
                .flat_map(|root| {
                    win.executables
                        .iter()
                        .map(move |exe| join_path(os, &root, exe))
                })
                .find(|path| exists(path))
                .map(|path| found(path, Vec::new(), Via::WindowsRoot))
        }
        Os::Linux => {
            let linux = browser.linux.as_ref()?;
            let path_dirs = path_dirs(env);
            let on_path = |name: &str| {
                path_dirs
                    .iter()
                    .map(|dir| join_path(os, dir, &[name]))
                    .find(|path| exists(path))
            };
            for bin in &linux.bins {
                if let Some(path) = on_path(bin) {
                    let via = if path.starts_with(&format!("{SNAP_BIN}/")) {
                        Via::Snap
                    } else {
                        Via::Path
                    };
                    return Some(found(path, Vec::new(), via));
                }
            }
            if let Some(id) = &linux.flatpak {
                let user = join_path(os, home, &[".local", "share", "flatpak"]);
                let installed = [FLATPAK_SYSTEM, user.as_str()]
                    .into_iter()
                    .any(|inst| exists(&join_path(os, inst, &["app", id])));
                if installed {
                    if let Some(flatpak) = on_path("flatpak") {
                        let args = vec!["run".to_string(), id.clone()];
                        return Some(found(flatpak, args, Via::Flatpak));
                    }
                }
            }
            if let Some(snap) = &linux.snap {
                let path = join_path(os, SNAP_BIN, &[snap]);
                if exists(&path) {
                    return Some(found(path, Vec::new(), Via::Snap));
                }
            }
            None
        }
    }
}

/// Every installed catalog browser on `os`, in catalog priority order, with `rank.chromeId`
/// first: the order in which installed Chromium browsers rank (tier `chrome`, then `chromium`).
pub fn installed_executables(
    catalog: &Catalog,
    os: Os,
    home: &str,
    env: Env<'_>,
    exists: Exists<'_>,
) -> Vec<Executable> {
    let chrome = catalog.browser(&catalog.rank.chrome_id);
    let rest = catalog
        .browsers
        .iter()
        .filter(|b| b.id != catalog.rank.chrome_id);
    chrome
        .into_iter()
        .chain(rest)
        .filter_map(|b| resolve_executable(catalog, b, os, home, env, exists))
        .collect()
}

/// The absolute dirs of `PATH`, in order (Linux separator `:`).
fn path_dirs(env: Env<'_>) -> Vec<String> {
    env("PATH")
        .unwrap_or_default()
        .split(':')
        .filter(|d| d.starts_with('/'))
        .map(str::to_string)
        .collect()
}
