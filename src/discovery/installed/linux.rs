//! Linux: the catalog's binaries on `PATH` and desktop files, flatpak and snap installs.

use crate::catalog::{join_path, Browser, Catalog, LinuxBrowser, Os};

use super::super::host::{FileKind, Host};
use super::super::output::Installed;
use super::{chromium_record, default_user_data_dir, read_text};

/// The upstream part of a Debian version: no epoch (`1:`), no Debian revision (`-1~deb12u1`).
pub(crate) fn upstream_version(version: &str) -> Option<String> {
    let v = version.trim();
    let v = v.split_once(':').map_or(v, |(epoch, rest)| {
        if epoch.bytes().all(|b| b.is_ascii_digit()) {
            rest
        } else {
            v
        }
    });
    let v = v.rsplit_once('-').map_or(v, |(up, _)| up);
    (!v.is_empty()).then(|| v.to_string())
}

/// The program a desktop file's `Exec=` line runs: its first word, unquoted.
pub(crate) fn desktop_exec(text: &str) -> Option<String> {
    let mut in_entry = false;
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_entry = line == "[Desktop Entry]";
            continue;
        }
        if let (true, Some(value)) = (in_entry, line.strip_prefix("Exec=")) {
            let value = value.trim();
            let program = match value.strip_prefix('"') {
                Some(rest) => &rest[..rest.find('"')?],
                None => value.split_whitespace().next()?,
            };
            return Some(program.to_string());
        }
    }
    None
}

/// The value of `version:` in a snap's `meta/snap.yaml`.
fn snap_version(text: &str) -> Option<String> {
    text.lines().find_map(|line| {
        let v = line
            .strip_prefix("version:")?
            .trim()
            .trim_matches(['\'', '"']);
        (!v.is_empty()).then(|| v.to_string())
    })
}

fn is_file(host: &dyn Host, path: &str) -> bool {
    host.kind(path) == Some(FileKind::File)
}

/// The dirs holding `applications/*.desktop`: `$XDG_DATA_HOME` (else `~/.local/share`), then
/// `$XDG_DATA_DIRS` (else `/usr/local/share:/usr/share`).
fn data_dirs(host: &dyn Host, home: &str) -> Vec<String> {
    let mut dirs = vec![host
        .env("XDG_DATA_HOME")
        .filter(|v| v.starts_with('/'))
        .unwrap_or_else(|| join_path(Os::Linux, home, &[".local", "share"]))];
    let system = host
        .env("XDG_DATA_DIRS")
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| "/usr/local/share:/usr/share".into());
    dirs.extend(
        system
            .split(':')
            .filter(|d| d.starts_with('/'))
            .map(str::to_string),
    );
    dirs
}

/// A native install: the first of the browser's binaries on `PATH`, else the program of its
/// first desktop file that runs an existing absolute path (not a flatpak or snap launcher).
fn native(host: &dyn Host, home: &str, linux: &LinuxBrowser) -> Option<String> {
    let path = host.env("PATH").unwrap_or_default();
    for bin in &linux.bins {
        for dir in path.split(':').filter(|d| !d.is_empty()) {
            let candidate = join_path(Os::Linux, dir, &[bin.as_str()]);
            if is_file(host, &candidate) {
                return Some(candidate);
            }
        }
    }
    for id in &linux.desktop_ids {
        for dir in data_dirs(host, home) {
            let file = join_path(Os::Linux, &dir, &["applications", &format!("{id}.desktop")]);
            let Some(program) = read_text(host, &file).as_deref().and_then(desktop_exec) else {
                continue;
            };
            let base = program.rsplit('/').next().unwrap_or(&program);
            if program.starts_with('/')
                && !program.starts_with("/snap/")
                && !matches!(base, "flatpak" | "env" | "snap")
                && is_file(host, &program)
            {
                return Some(program);
            }
        }
    }
    None
}

/// The version dpkg records for the first of the browser's packages that is installed.
///
/// A snap transition package (Ubuntu's `chromium-browser`, version `2:1snap1-0ubuntu2`) only
/// installs the snap: its version is not the browser's, so it is skipped.
fn deb_version(host: &dyn Host, linux: &LinuxBrowser) -> Option<String> {
    linux.debs.iter().find_map(|deb| {
        let argv = ["dpkg-query", "-W", "-f=${Version}", deb.as_str()].map(String::from);
        upstream_version(&host.run(&argv)?).filter(|v| !is_snap_transition(v))
    })
}

/// Whether an upstream version is a snap transition package's (`1snap1`).
fn is_snap_transition(version: &str) -> bool {
    version.contains("snap")
}

fn flatpak(
    host: &dyn Host,
    home: &str,
    browser: &Browser,
    linux: &LinuxBrowser,
) -> Option<Installed> {
    let id = linux.flatpak.as_deref()?;
    let user = join_path(Os::Linux, home, &[".local", "share", "flatpak"]);
    for base in ["/var/lib/flatpak", user.as_str()] {
        let dir = join_path(Os::Linux, base, &["app", id]);
        if host.kind(&dir) != Some(FileKind::Dir) {
            continue;
        }
        let exe = join_path(Os::Linux, base, &["exports", "bin", id]);
        let mut r = chromium_record(browser, &dir, &exe);
        r.via = Some("flatpak".into());
        r.package = Some(id.to_string());
        let data = join_path(Os::Linux, home, &[".var", "app", id, "config"]);
        let data = join_path(Os::Linux, &data, &linux.config_dir);
        r.user_data_dir = (host.kind(&data) == Some(FileKind::Dir)).then_some(data);
        return Some(r);
    }
    None
}

fn snap(host: &dyn Host, home: &str, browser: &Browser, linux: &LinuxBrowser) -> Option<Installed> {
    let name = linux.snap.as_deref()?;
    let dir = join_path(Os::Linux, "/snap", &[name]);
    let current = join_path(Os::Linux, &dir, &["current"]);
    if host.kind(&current) != Some(FileKind::Dir) {
        return None;
    }
    let exe = join_path(Os::Linux, "/snap/bin", &[name]);
    let mut r = chromium_record(browser, &dir, &exe);
    r.via = Some("snap".into());
    r.package = Some(name.to_string());
    r.version = read_text(
        host,
        &join_path(Os::Linux, &current, &["meta", "snap.yaml"]),
    )
    .as_deref()
    .and_then(snap_version);
    if !linux.snap_data_dir.is_empty() {
        let data = join_path(Os::Linux, home, &["snap", name, "common"]);
        let data = join_path(Os::Linux, &data, &linux.snap_data_dir);
        r.user_data_dir = (host.kind(&data) == Some(FileKind::Dir)).then_some(data);
    }
    Some(r)
}

pub(super) fn scan(catalog: &Catalog, host: &dyn Host, home: &str) -> Vec<Installed> {
    let mut out = Vec::new();
    for browser in &catalog.browsers {
        let Some(linux) = &browser.linux else {
            continue;
        };
        if let Some(exe) = native(host, home, linux) {
            let mut r = chromium_record(browser, &exe, &exe);
            r.version = deb_version(host, linux);
            r.user_data_dir = default_user_data_dir(catalog, host, browser, Os::Linux, home);
            out.push(r);
        }
        out.extend(flatpak(host, home, browser, linux));
        out.extend(snap(host, home, browser, linux));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::discovery::FakeHost;

    #[test]
    fn debian_versions_lose_epoch_and_revision() {
        assert_eq!(
            upstream_version("156.0.8078.108-1~deb12u1").as_deref(),
            Some("156.0.8078.108")
        );
        assert_eq!(upstream_version("1:2.3-4-5").as_deref(), Some("2.3-4"));
        assert_eq!(upstream_version("154.0").as_deref(), Some("154.0"));
        assert_eq!(upstream_version(""), None);
        // Ubuntu's chromium-browser deb only installs the snap.
        let stub = upstream_version("2:1snap1-0ubuntu2").unwrap();
        assert_eq!(stub, "1snap1");
        assert!(is_snap_transition(&stub));
        assert!(!is_snap_transition("156.0.8078.108"));
    }

    #[test]
    fn desktop_files_give_their_program() {
        let text = "[Desktop Action x]\nExec=/wrong\n[Desktop Entry]\nName=C\nExec=\"/opt/a b/chrome\" %U\n";
        assert_eq!(desktop_exec(text).as_deref(), Some("/opt/a b/chrome"));
        assert_eq!(
            desktop_exec("[Desktop Entry]\nExec=/usr/bin/flatpak run x\n").as_deref(),
            Some("/usr/bin/flatpak")
        );
        assert_eq!(desktop_exec("no entry"), None);
    }

    #[test]
    fn packages_are_found_each_way() {
        let cat = crate::catalog();
        let mut h = FakeHost::new(Os::Linux, "/home/me");
        h.set_env("PATH", "/nope:/usr/bin");
        h.add_file("/opt/google/chrome/chrome", "");
        h.add_file(
            "/usr/share/applications/google-chrome.desktop",
            "[Desktop Entry]\nExec=/opt/google/chrome/chrome %U\n",
        );
        h.add_file(
            "/usr/share/applications/org.chromium.Chromium.desktop",
            "[Desktop Entry]\nExec=/usr/bin/flatpak run org.chromium.Chromium\n",
        );
        h.add_file("/usr/bin/flatpak", "");
        h.add_dir("/var/lib/flatpak/app/org.chromium.Chromium/current");
        h.add_file(
            "/snap/brave/current/meta/snap.yaml",
            "name: brave\nversion: '1.70.1'\n",
        );
        h.add_dir("/home/me/.config/google-chrome");
        let found = scan(&cat, &h, "/home/me");
        let summary: Vec<(&str, &str, Option<&str>)> = found
            .iter()
            .map(|r| (r.id.as_str(), r.path.as_str(), r.via.as_deref()))
            .collect();
        assert_eq!(
            summary,
            vec![
                ("chrome", "/opt/google/chrome/chrome", None),
                ("brave", "/snap/brave", Some("snap")),
                (
                    "chromium",
                    "/var/lib/flatpak/app/org.chromium.Chromium",
                    Some("flatpak")
                ),
            ]
        );
        assert_eq!(
            found[0].user_data_dir.as_deref(),
            Some("/home/me/.config/google-chrome")
        );
        assert_eq!(found[1].version.as_deref(), Some("1.70.1"));
        assert_eq!(
            found[2].executable,
            "/var/lib/flatpak/exports/bin/org.chromium.Chromium"
        );
    }
}
