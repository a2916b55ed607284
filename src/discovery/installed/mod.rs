//! Installed browsers on a machine, as output schema 1's installed records.
//!
//! Each OS is scanned the way it installs browsers: macOS app bundles in `/Applications` and
//! `~/Applications` (Chromium browsers by bundle name, Electron apps by their framework),
//! Windows roots × executables and the StartMenuInternet registry keys, and on Linux the
//! catalog's binaries on `PATH` and desktop files, flatpak and snap installs, with versions
//! from dpkg. Everything is read through a [`Host`], so a scan runs on a fake machine too.
//!
//! ```
//! use slicc_browsers::catalog::Os;
//! use slicc_browsers::discovery::{installed, FakeHost};
//! let mut host = FakeHost::new(Os::Linux, "/home/me");
//! host.set_env("PATH", "/usr/bin");
//! host.add_file("/usr/bin/chromium", "");
//! host.set_command(&["dpkg-query", "-W", "-f=${Version}", "chromium"], "156.0.8078.108-1~deb12u1");
//! let found = installed::scan(&host, Os::Linux);
//! assert_eq!(found[0].id, "chromium");
//! assert_eq!(found[0].version.as_deref(), Some("156.0.8078.108"));
//! ```

mod linux;
mod macos;
mod windows;

use crate::catalog::{Browser, Catalog, Os};

use super::host::{FileKind, Host};
use super::output::Installed;

/// The installed browsers and Electron apps on `host`, with the embedded catalog.
pub fn scan(host: &dyn Host, os: Os) -> Vec<Installed> {
    scan_with(crate::catalog::shared_catalog(), host, os)
}

/// The installed browsers and Electron apps on `host` running `os`, found with `catalog`.
/// Each install is listed once per path.
pub fn scan_with(catalog: &Catalog, host: &dyn Host, os: Os) -> Vec<Installed> {
    let Some(home) = host.home().filter(|h| !h.is_empty()) else {
        return Vec::new();
    };
    let found = match os {
        Os::Macos => macos::scan(catalog, host, &home),
        Os::Linux => linux::scan(catalog, host, &home),
        Os::Windows => windows::scan(catalog, host, &home),
    };
    let mut out: Vec<Installed> = Vec::new();
    for record in found {
        if !out
            .iter()
            .any(|r| r.id == record.id && r.path.eq_ignore_ascii_case(&record.path))
        {
            out.push(record);
        }
    }
    out
}

/// A Chromium browser's record, without version or dir.
fn chromium_record(browser: &Browser, path: &str, executable: &str) -> Installed {
    let mut r = Installed::new(
        browser.id.as_str(),
        browser.name.as_str(),
        "chromium",
        path,
        executable,
        "supported",
    );
    r.channel = Some(browser.channel.clone());
    r
}

/// The browser's first default user-data dir (the native install's), when it exists.
fn default_user_data_dir(
    catalog: &Catalog,
    host: &dyn Host,
    browser: &Browser,
    os: Os,
    home: &str,
) -> Option<String> {
    let env = |k: &str| host.env(k);
    catalog
        .user_data_dirs(browser, os, home, &env)
        .into_iter()
        .next()
        .filter(|d| host.kind(d) == Some(FileKind::Dir))
}

/// A small text file through the host (plists, desktop files, snap metadata).
fn read_text(host: &dyn Host, path: &str) -> Option<String> {
    let bytes = host.read_file(path, 1024 * 1024)?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}
