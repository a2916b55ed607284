//! Windows: each browser's roots × executables, and the StartMenuInternet registry keys.

use crate::catalog::{join_path, Browser, Catalog, Os};

use super::super::host::{FileKind, Host};
use super::super::output::Installed;
use super::{chromium_record, default_user_data_dir};

/// The subkey names in `reg query <key>` output: the lines naming `<key>\<name>`.
pub(crate) fn reg_subkeys(output: &str) -> Vec<String> {
    let mut lines = output
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.is_empty() && !l.starts_with(' '));
    let Some(key) = lines.next() else {
        return Vec::new();
    };
    let prefix = format!("{}\\", key.to_ascii_lowercase());
    lines
        .filter(|l| l.to_ascii_lowercase().starts_with(&prefix))
        .map(|l| l[prefix.len()..].to_string())
        .filter(|name| !name.is_empty() && !name.contains('\\'))
        .collect()
}

/// The default value in `reg query <key> /ve` output (`(Default)  REG_SZ  <value>`).
pub(crate) fn reg_default(output: &str) -> Option<String> {
    output.lines().find_map(|line| {
        let line = line.trim();
        for kind in ["REG_EXPAND_SZ", "REG_SZ"] {
            if let Some(at) = line.find(kind) {
                let value = line[at + kind.len()..].trim();
                return (!value.is_empty()).then(|| value.to_string());
            }
        }
        None
    })
}

/// The program of a launch command: the quoted first token, else up to `.exe`; `%VAR%`
/// references expanded with `env`.
pub(crate) fn command_program(
    command: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Option<String> {
    let command = command.trim();
    let program = match command.strip_prefix('"') {
        Some(rest) => &rest[..rest.find('"')?],
        None => {
            let lower = command.to_ascii_lowercase();
            match lower.find(".exe") {
                Some(at) => &command[..at + 4],
                None => command.split_whitespace().next()?,
            }
        }
    };
    let mut out = String::new();
    let mut rest = program;
    while let Some(start) = rest.find('%') {
        let Some(len) = rest[start + 1..].find('%') else {
            break;
        };
        let name = &rest[start + 1..start + 1 + len];
        out.push_str(&rest[..start]);
        match env(name) {
            Some(value) => out.push_str(&value),
            None => out.push_str(&rest[start..start + len + 2]),
        }
        rest = &rest[start + len + 2..];
    }
    out.push_str(rest);
    (!out.is_empty()).then_some(out)
}

/// The highest version-named dir (`154.0.1.2`) beside an executable, as Chromium installs
/// keep one per version next to the launcher.
fn version_beside(host: &dyn Host, exe: &str) -> Option<String> {
    let dir = &exe[..exe.rfind('\\')?];
    let parse = |name: &str| -> Option<Vec<u64>> {
        if !name.contains('.') {
            return None;
        }
        name.split('.').map(|p| p.parse().ok()).collect()
    };
    host.list_dir(dir)
        .into_iter()
        .filter(|e| e.is_dir)
        .filter_map(|e| Some((parse(&e.name)?, e.name)))
        .max()
        .map(|(_, name)| name)
}

fn record(
    catalog: &Catalog,
    host: &dyn Host,
    browser: &Browser,
    exe: &str,
    home: &str,
) -> Installed {
    let mut r = chromium_record(browser, exe, exe);
    r.version = version_beside(host, exe);
    r.user_data_dir = default_user_data_dir(catalog, host, browser, Os::Windows, home);
    r
}

pub(super) fn scan(catalog: &Catalog, host: &dyn Host, home: &str) -> Vec<Installed> {
    let os = Os::Windows;
    let env = |k: &str| host.env(k);
    let is_file = |p: &str| host.kind(p) == Some(FileKind::File);
    let mut out: Vec<Installed> = Vec::new();
    for browser in &catalog.browsers {
        let Some(win) = &browser.windows else {
            continue;
        };
        for root in &win.roots {
            let Some(base) = catalog.windows_root(root, home, &env) else {
                continue;
            };
            for exe in &win.executables {
                let path = join_path(os, &base, exe);
                if is_file(&path) {
                    out.push(record(catalog, host, browser, &path, home));
                }
            }
        }
    }
    let registry = &catalog.platforms.windows.registry;
    for hive in &registry.hives {
        for key in &registry.start_menu_internet {
            let key = format!("{hive}\\{key}");
            let Some(list) = host.run(&["reg".into(), "query".into(), key.clone()]) else {
                continue;
            };
            for sub in reg_subkeys(&list) {
                let Some(browser) = catalog.browsers.iter().find(|b| {
                    b.windows.as_ref().is_some_and(|w| {
                        w.start_menu_internet
                            .iter()
                            .any(|n| n.eq_ignore_ascii_case(&sub))
                    })
                }) else {
                    continue;
                };
                let command_key = format!("{key}\\{sub}\\{}", registry.open_command);
                let argv = ["reg".into(), "query".into(), command_key, "/ve".into()];
                let Some(program) = host
                    .run(&argv)
                    .as_deref()
                    .and_then(reg_default)
                    .and_then(|c| command_program(&c, &env))
                else {
                    continue;
                };
                let known = out.iter().any(|r| r.path.eq_ignore_ascii_case(&program));
                if !known && is_file(&program) {
                    out.push(record(catalog, host, browser, &program, home));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::discovery::FakeHost;

    #[test]
    fn reg_output_parses() {
        let list = "\r\nHKEY_LOCAL_MACHINE\\SOFTWARE\\Clients\\StartMenuInternet\r\n    (Default)    REG_SZ    x\r\n\r\nHKEY_LOCAL_MACHINE\\SOFTWARE\\Clients\\StartMenuInternet\\Google Chrome\r\nHKEY_LOCAL_MACHINE\\SOFTWARE\\Clients\\StartMenuInternet\\IEXPLORE.EXE\r\n";
        assert_eq!(reg_subkeys(list), vec!["Google Chrome", "IEXPLORE.EXE"]);
        let value = "\r\nHKEY_X\\shell\\open\\command\r\n    (Default)    REG_SZ    \"C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe\"\r\n";
        let cmd = reg_default(value).unwrap();
        let none = |_: &str| None;
        assert_eq!(
            command_program(&cmd, &none).as_deref(),
            Some(r"C:\Program Files\Google\Chrome\Application\chrome.exe")
        );
        let env = |k: &str| (k == "LOCALAPPDATA").then(|| r"C:\Users\me\AppData\Local".to_string());
        assert_eq!(
            command_program(r"%LOCALAPPDATA%\Chromium\Application\chrome.exe --x", &env).as_deref(),
            Some(r"C:\Users\me\AppData\Local\Chromium\Application\chrome.exe")
        );
    }

    #[test]
    fn roots_and_registry_find_installs() {
        let cat = crate::catalog();
        let mut h = FakeHost::new(Os::Windows, r"C:\Users\me");
        h.add_file(r"C:\Program Files\Google\Chrome\Application\chrome.exe", "");
        h.add_dir(r"C:\Program Files\Google\Chrome\Application\154.0.7000.1");
        h.add_dir(r"C:\Program Files\Google\Chrome\Application\99.0.1.1");
        h.add_file(r"D:\Apps\Chromium\chrome.exe", "");
        h.set_command(&["reg", "query", r"HKCU\SOFTWARE\Clients\StartMenuInternet"], "HKEY_CURRENT_USER\\SOFTWARE\\Clients\\StartMenuInternet\r\nHKEY_CURRENT_USER\\SOFTWARE\\Clients\\StartMenuInternet\\Chromium\r\nHKEY_CURRENT_USER\\SOFTWARE\\Clients\\StartMenuInternet\\Google Chrome\r\n");
        h.set_command(
            &[
                "reg",
                "query",
                r"HKCU\SOFTWARE\Clients\StartMenuInternet\Chromium\shell\open\command",
                "/ve",
            ],
            "    (Default)    REG_SZ    D:\\Apps\\Chromium\\chrome.exe --flag\r\n",
        );
        h.set_command(&["reg", "query", r"HKCU\SOFTWARE\Clients\StartMenuInternet\Google Chrome\shell\open\command", "/ve"], "    (Default)    REG_SZ    \"C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe\"\r\n");
        let found = scan(&cat, &h, r"C:\Users\me");
        let ids: Vec<(&str, &str)> = found
            .iter()
            .map(|r| (r.id.as_str(), r.path.as_str()))
            .collect();
        assert_eq!(
            ids,
            vec![
                (
                    "chrome",
                    r"C:\Program Files\Google\Chrome\Application\chrome.exe"
                ),
                ("chromium", r"D:\Apps\Chromium\chrome.exe")
            ]
        );
        assert_eq!(found[0].version.as_deref(), Some("154.0.7000.1"));
    }
}
