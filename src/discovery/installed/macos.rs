//! macOS: app bundles in `/Applications` and `~/Applications`.

use crate::catalog::{join_path, Catalog, Os};

use super::super::host::{FileKind, Host};
use super::super::output::Installed;
use super::{chromium_record, default_user_data_dir, read_text};

/// The string value of `key` in an XML property list; `None` for a binary plist or a
/// missing key.
pub(crate) fn plist_string(text: &str, key: &str) -> Option<String> {
    let tag = format!("<key>{key}</key>");
    let after = &text[text.find(&tag)? + tag.len()..];
    let after = after.trim_start();
    let value = after.strip_prefix("<string>")?;
    let value = &value[..value.find("</string>")?];
    let decoded = value
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&");
    let decoded = decoded.trim().to_string();
    (!decoded.is_empty()).then_some(decoded)
}

pub(super) fn scan(catalog: &Catalog, host: &dyn Host, home: &str) -> Vec<Installed> {
    let os = Os::Macos;
    let dirs = [
        "/Applications".to_string(),
        join_path(os, home, &["Applications"]),
    ];
    let mut out = Vec::new();
    for dir in &dirs {
        let mut browser_apps = Vec::new();
        for browser in &catalog.browsers {
            let app = join_path(os, dir, &[browser.macos.app.as_str()]);
            if host.kind(&app) != Some(FileKind::Dir) {
                continue;
            }
            let plist = read_text(host, &join_path(os, &app, &["Contents", "Info.plist"]))
                .unwrap_or_default();
            if plist_string(&plist, "CFBundleIdentifier")
                .is_some_and(|id| id != browser.macos.bundle_id)
            {
                continue; // another app under a browser's bundle name
            }
            let exe = join_path(
                os,
                &app,
                &["Contents", "MacOS", browser.macos.executable.as_str()],
            );
            let mut r = chromium_record(browser, &app, &exe);
            r.version = plist_string(&plist, "CFBundleShortVersionString");
            r.bundle_id = Some(browser.macos.bundle_id.clone());
            r.user_data_dir = default_user_data_dir(catalog, host, browser, os, home);
            browser_apps.push(browser.macos.app.clone());
            out.push(r);
        }
        for entry in host.list_dir(dir) {
            if !entry.is_dir || !entry.name.ends_with(".app") || browser_apps.contains(&entry.name)
            {
                continue;
            }
            let app = join_path(os, dir, &[entry.name.as_str()]);
            let framework = join_path(
                os,
                &app,
                &["Contents", "Frameworks", "Electron Framework.framework"],
            );
            if host.kind(&framework) != Some(FileKind::Dir) {
                continue;
            }
            out.push(electron_app(catalog, host, &app, &entry.name));
        }
    }
    out
}

/// An Electron app's record: named by the catalog for a known bundle id, else by its plist.
fn electron_app(catalog: &Catalog, host: &dyn Host, app: &str, file_name: &str) -> Installed {
    let os = Os::Macos;
    let plist =
        read_text(host, &join_path(os, app, &["Contents", "Info.plist"])).unwrap_or_default();
    let stem = file_name.strip_suffix(".app").unwrap_or(file_name);
    let bundle_id = plist_string(&plist, "CFBundleIdentifier");
    let known = bundle_id.as_deref().and_then(|id| {
        catalog
            .electron
            .macos_apps
            .iter()
            .find(|a| a.bundle_id == id)
    });
    let name = known
        .map(|a| a.name.clone())
        .or_else(|| plist_string(&plist, "CFBundleDisplayName"))
        .or_else(|| plist_string(&plist, "CFBundleName"))
        .unwrap_or_else(|| stem.to_string());
    let exe_name = plist_string(&plist, "CFBundleExecutable").unwrap_or_else(|| stem.to_string());
    let debug = if catalog.electron.is_debug_blocked(&name) {
        "disabled"
    } else if known.is_some() {
        "supported"
    } else {
        "unknown"
    };
    let exe = join_path(os, app, &["Contents", "MacOS", exe_name.as_str()]);
    let mut r = Installed::new(
        catalog.electron.app_id(&name),
        name,
        "electron",
        app,
        exe,
        debug,
    );
    r.version = plist_string(&plist, "CFBundleShortVersionString");
    r.bundle_id = bundle_id;
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::discovery::FakeHost;

    const PLIST: &str = r#"<?xml version="1.0"?><plist><dict>
        <key>CFBundleIdentifier</key><string>com.anthropic.claudefordesktop</string>
        <key>CFBundleShortVersionString</key>
        <string>1.2 &amp; more</string>
        <key>CFBundleExecutable</key><string>Claude</string></dict></plist>"#;

    #[test]
    fn plist_values_are_extracted() {
        assert_eq!(
            plist_string(PLIST, "CFBundleShortVersionString").as_deref(),
            Some("1.2 & more")
        );
        assert_eq!(plist_string(PLIST, "CFBundleName"), None);
        assert_eq!(
            plist_string("bplist00\u{0}\u{1}", "CFBundleIdentifier"),
            None
        );
    }

    #[test]
    fn bundles_and_electron_apps_are_found() {
        let cat = crate::catalog();
        let mut h = FakeHost::new(Os::Macos, "/Users/me");
        h.add_file("/Applications/Google Chrome.app/Contents/Info.plist",
            "<key>CFBundleIdentifier</key><string>com.google.Chrome</string><key>CFBundleShortVersionString</key><string>154.0.1.2</string>");
        h.add_file(
            "/Users/me/Applications/Claude.app/Contents/Info.plist",
            PLIST,
        );
        h.add_dir(
            "/Users/me/Applications/Claude.app/Contents/Frameworks/Electron Framework.framework",
        );
        h.add_dir("/Applications/Notes.app/Contents");
        let found = scan(&cat, &h, "/Users/me");
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!(found[0].id, "chrome");
        assert_eq!(found[0].version.as_deref(), Some("154.0.1.2"));
        assert_eq!(
            found[0].executable,
            "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome"
        );
        assert_eq!(found[1].id, "electron:claude");
        assert_eq!(found[1].debug_support, "disabled");
        assert_eq!(
            found[1].executable,
            "/Users/me/Applications/Claude.app/Contents/MacOS/Claude"
        );
    }
}
