//! Rules that `list` (discovery) and `launch` share, pinned on every OS: the home dir and which
//! dirs are SLICC six's. Each was written twice before; both users now call the catalog's one
//! implementation, and these tests pin what it answers.
#![cfg(all(feature = "discovery", feature = "launch", feature = "corpus"))]

use slicc_browsers::catalog::{home_dir, six_path_key, Os};
use slicc_browsers::discovery::{discover, FakeHost, Options};
use slicc_browsers::launch::{is_six_dir, SevenProfile};
use slicc_browsers::shared_catalog;

const OSES: [Os; 3] = [Os::Macos, Os::Linux, Os::Windows];

#[test]
fn the_home_dir_is_userprofile_on_windows_and_home_elsewhere() {
    let both = |k: &str| match k {
        "HOME" => Some("/c/Users/me".to_string()),
        "USERPROFILE" => Some(r"C:\Users\me".to_string()),
        _ => None,
    };
    assert_eq!(
        home_dir(Os::Windows, &both).as_deref(),
        Some(r"C:\Users\me")
    );
    assert_eq!(home_dir(Os::Macos, &both).as_deref(), Some("/c/Users/me"));
    assert_eq!(home_dir(Os::Linux, &both).as_deref(), Some("/c/Users/me"));
    // HOME alone is not a Windows home (launch used to read it first there).
    let home_only = |k: &str| (k == "HOME").then(|| "/c/Users/me".to_string());
    assert_eq!(home_dir(Os::Windows, &home_only), None);
    let empty = |_: &str| Some(String::new());
    for os in OSES {
        assert_eq!(
            home_dir(os, &empty),
            None,
            "{os:?}: an empty value is unset"
        );
    }
}

/// Six's default profile dir on `os` under `home`.
fn six_default(os: Os, home: &str) -> String {
    let cat = shared_catalog();
    let root = cat.six_root(os, home, &|_: &str| None).expect("six's root");
    slicc_browsers::catalog::join_path(os, &root, &[cat.profiles.six.default_name.as_str()])
}

fn home(os: Os) -> &'static str {
    match os {
        Os::Windows => r"C:\Users\me",
        Os::Macos => "/Users/me",
        Os::Linux => "/home/me",
    }
}

#[test]
fn six_dirs_are_compared_without_case_or_separator_differences_but_not_trimmed() {
    let cat = shared_catalog();
    let none = |_: &str| None;
    for os in OSES {
        let six = six_default(os, home(os));
        let shouted = six.to_uppercase().replace('\\', "/") + "//";
        assert!(is_six_dir(cat, os, home(os), &none, &six), "{os:?}: {six}");
        assert!(
            is_six_dir(cat, os, home(os), &none, &shouted),
            "{os:?}: {shouted}"
        );
        // A path with a space around it is another dir (launch used to trim it).
        let spaced = format!(" {six}");
        assert!(
            !is_six_dir(cat, os, home(os), &none, &spaced),
            "{os:?}: {spaced:?}"
        );
        assert_ne!(six_path_key(&spaced), six_path_key(&six));
        // Six's root itself and a sibling whose name is not six's are not six's.
        let root = cat.six_root(os, home(os), &none).unwrap();
        assert!(
            !is_six_dir(cat, os, home(os), &none, &root),
            "{os:?}: the root"
        );
        let other = slicc_browsers::catalog::join_path(os, &root, &["someone-else"]);
        assert!(
            !is_six_dir(cat, os, home(os), &none, &other),
            "{os:?}: {other}"
        );
    }
}

#[test]
fn launch_refuses_six_dirs_and_dirs_inside_them_on_every_os() {
    let cat = shared_catalog();
    let none = |_: &str| None;
    for os in OSES {
        let six = six_default(os, home(os));
        let inside = slicc_browsers::catalog::join_path(os, &six, &["Default"]);
        for dir in [&six, &inside] {
            assert!(
                SevenProfile::in_dir(cat, os, home(os), &none, dir).is_err(),
                "{os:?}: {dir} must be refused"
            );
        }
        let beside = format!("{six}-not");
        assert!(
            SevenProfile::in_dir(cat, os, home(os), &none, &beside).is_ok(),
            "{os:?}: {beside} is not six's"
        );
    }
}

#[test]
fn discovery_marks_the_same_dir_six_that_launch_refuses() {
    // A process on six's profile dir, written in another case with the other separators, is
    // six's for discovery too (port 0: its DevToolsActivePort is read from that dir).
    let cat = shared_catalog();
    for os in OSES {
        let h = home(os);
        let six = six_default(os, h);
        let mut host = FakeHost::new(os, h);
        host.add_file(
            &slicc_browsers::catalog::join_path(os, &six, &["DevToolsActivePort"]),
            "5311\n/devtools/browser/six\n",
        );
        host.add_server(
            "127.0.0.1:5311",
            Some(r#"{"Browser":"Chrome/150.0.7800.12","webSocketDebuggerUrl":"ws://127.0.0.1:5311/devtools/browser/six"}"#),
            Some("[]"),
        );
        let written = six.to_uppercase();
        let command = format!("chrome --remote-debugging-port=0 --user-data-dir={written}");
        host.set_processes(&if os == Os::Windows {
            serde_json::json!([{ "ProcessId": 41, "CommandLine": command }]).to_string()
        } else {
            format!("  41 {command}\n")
        });
        let out = discover(&host, &Options::new(os));
        let entry = out
            .entries
            .iter()
            .find(|e| e.id == "cdp:127.0.0.1:5311")
            .unwrap_or_else(|| panic!("{os:?}: six's endpoint is listed: {:?}", out.entries));
        assert!(entry.is_six(), "{os:?}: marked six");
        assert!(is_six_dir(cat, os, h, &|_: &str| None, &written));
    }
}

#[test]
fn origins_and_cdp_values_split_host_and_port_alike() {
    use slicc_browsers::catalog::Origin;
    use slicc_browsers::discovery::parse_cdp;
    // A colon in a host outside brackets is no host: `Origin::parse` used to take `a:b` as one.
    assert!(Origin::parse("http://a:b:5000/").is_none());
    assert!(parse_cdp("a:b:5000").is_none());
    // Bracketed IPv6 hosts split the same way in both.
    let o = Origin::parse("http://[FE80::1]:5000/x").expect("an IPv6 origin");
    assert_eq!((o.host.as_str(), o.port), ("[fe80::1]", Some(5000)));
    let t = parse_cdp("[fe80::1]:5000").expect("an IPv6 --cdp value");
    assert_eq!((t.host.as_str(), t.port), ("fe80::1", 5000));
}
