//! Choosing what to launch: the browser `--browser` names, else the best installed Chromium
//! browser by discovery's ranking.

use crate::catalog::Catalog;
use crate::catalog::Os;
use crate::discovery::{self, Installed};

use super::{Error, Executable, Via};

/// The browser to launch, from discovery's installed scan (`installed`).
///
/// With `browser`, that catalog browser: its resolved executable (`resolve`, the launch
/// module's own resolution by catalog paths) when there is one, else the install the scan
/// found for it. Without, the best installed Chromium browser of the catalog by the ranking
/// (`rank.chromeId` first, then catalog priority). An install only the scan finds (through a
/// desktop file, say) runs its recorded executable.
///
/// ```
/// use slicc_browsers::catalog::Os;
/// use slicc_browsers::discovery::Installed;
/// use slicc_browsers::launch::{choose_executable, Via};
/// let cat = slicc_browsers::shared_catalog();
/// let chromium: Installed = serde_json::from_str(r#"{"id": "chromium", "name": "Chromium",
///     "engine": "chromium", "path": "/usr/bin/chromium", "executable": "/usr/bin/chromium",
///     "debugSupport": "supported"}"#).unwrap();
/// let exe = choose_executable(cat, Os::Linux, None, &[chromium], &|_: &str| None).unwrap();
/// assert_eq!((exe.browser.as_str(), exe.program.as_str(), exe.via), ("chromium", "/usr/bin/chromium", Via::Path));
/// assert!(choose_executable(cat, Os::Linux, Some("chrome"), &[], &|_: &str| None).is_err());
/// ```
pub fn choose_executable(
    catalog: &Catalog,
    os: Os,
    browser: Option<&str>,
    installed: &[Installed],
    resolve: &dyn Fn(&str) -> Option<Executable>,
) -> Result<Executable, Error> {
    if let Some(id) = browser {
        if catalog.browser(id).is_none() {
            return Err(Error::UnknownBrowser { id: id.to_string() });
        }
        if let Some(exe) = resolve(id) {
            return Ok(exe);
        }
    }
    let ranked = discovery::rank(catalog, Vec::new(), installed);
    let record = ranked
        .entries
        .into_iter()
        .filter_map(|e| e.installed)
        .find(|r| {
            r.engine == "chromium"
                && catalog.browser(&r.id).is_some()
                && browser.is_none_or(|id| r.id == id)
        })
        .ok_or_else(|| Error::NotInstalled {
            browser: browser.unwrap_or("any browser").to_string(),
        })?;
    Ok(resolve(&record.id).unwrap_or_else(|| from_record(&record, os)))
}

/// The command of an installed record (its executable: a flatpak's is its exported launcher).
fn from_record(record: &Installed, os: Os) -> Executable {
    let via = match (record.via.as_deref(), os) {
        (Some("snap"), _) => Via::Snap,
        (Some("flatpak"), _) => Via::Flatpak,
        (_, Os::Macos) => Via::Bundle,
        (_, Os::Windows) => Via::WindowsRoot,
        (_, Os::Linux) => Via::Path,
    };
    Executable {
        browser: record.id.clone(),
        program: record.executable.clone(),
        args: Vec::new(),
        via,
    }
}
