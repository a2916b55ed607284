//! Six's dirs through symlinks (§2.9: compared after resolving symlinks where possible).
//! The corpus cannot express symlinks, so these build real trees in a temporary home; the
//! process list and the browsers' HTTP servers are fakes.
#![cfg(all(unix, feature = "discovery"))]

use crate::discovery_support;

use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;

use discovery_support::{path_str, version_body, MixedHost};
use slicc_browsers::catalog::Os;
use slicc_browsers::discovery::{discover, Entry, FakeHost, Options, Source};

fn os() -> Os {
    Os::current().expect("a Unix test machine is macOS or Linux")
}

fn six_root(home: &Path, env: &[(&str, &str)]) -> String {
    let env = |k: &str| {
        env.iter()
            .find(|(n, _)| *n == k)
            .map(|(_, v)| v.to_string())
    };
    slicc_browsers::shared_catalog()
        .six_root(os(), &path_str(home), &env)
        .expect("six has a root on every OS")
}

fn options() -> Options {
    let mut o = Options::new(os());
    o.probe_ports.clear();
    o
}

fn serve(net: &mut FakeHost, port: u16, path: &str) {
    net.add_server(
        &format!("127.0.0.1:{port}"),
        Some(&version_body(port, path)),
        Some("[]"),
    );
}

fn entry(entries: &[Entry], port: u16) -> &Entry {
    let id = format!("cdp:127.0.0.1:{port}");
    entries
        .iter()
        .find(|e| e.id == id)
        .unwrap_or_else(|| panic!("{id} in {entries:#?}"))
}

#[test]
fn a_symlink_to_six_profile_is_six() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let root = six_root(home, &[]);
    let profile = Path::new(&root).join("browser-coding-agent-chrome");
    fs::create_dir_all(&profile).unwrap();
    let link = home.join("six-link");
    symlink(&profile, &link).unwrap();
    let other = home.join("other").join("browser-coding-agent-chrome");
    fs::create_dir_all(&other).unwrap();

    let mut net = FakeHost::new(os(), &path_str(home));
    net.set_processes(&format!(
        "  100 /opt/chrome --remote-debugging-port=5300 --user-data-dir={}\n  101 /opt/chrome --remote-debugging-port=5301 --user-data-dir={}\n",
        path_str(&link),
        path_str(&other)
    ));
    serve(&mut net, 5300, "/devtools/browser/a");
    serve(&mut net, 5301, "/devtools/browser/b");
    let host = MixedHost::new(home, &[], net);
    let out = discover(&host, &options());

    let six = entry(&out.entries, 5300).endpoint.as_ref().unwrap();
    assert!(six.six, "a process in a symlink to six's profile is six's");
    assert_eq!(entry(&out.entries, 5300).tier, 6);
    assert_eq!(six.source, Source::Process);
    assert_eq!(
        six.user_data_dir.as_deref(),
        Some(path_str(&link).as_str()),
        "reported verbatim"
    );
    let not_six = entry(&out.entries, 5301);
    assert!(
        !not_six.endpoint.as_ref().unwrap().six,
        "a six-like name outside six's root is not six's"
    );
    assert_eq!(not_six.tier, 2);
}

#[test]
fn a_symlinked_six_root_is_scanned_and_its_real_paths_are_six() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let root = six_root(home, &[]);
    let real = home.join("elsewhere").join("profiles");
    let profile = real.join("BROWSER-Coding-Agent-Chrome-5720");
    fs::create_dir_all(&profile).unwrap();
    fs::write(
        profile.join("DevToolsActivePort"),
        "5310\n/devtools/browser/c\n",
    )
    .unwrap();
    fs::create_dir_all(Path::new(&root).parent().unwrap()).unwrap();
    symlink(&real, &root).unwrap();

    let mut net = FakeHost::new(os(), &path_str(home));
    let missing = real.join("browser-coding-agent-chrome-5799");
    net.set_processes(&format!(
        "  200 /opt/chrome --remote-debugging-port=5311 --user-data-dir={}\n",
        path_str(&missing)
    ));
    serve(&mut net, 5310, "/devtools/browser/c");
    serve(&mut net, 5311, "/devtools/browser/d");
    let host = MixedHost::new(home, &[], net);
    let out = discover(&host, &options());

    let found = entry(&out.entries, 5310).endpoint.as_ref().unwrap();
    assert!(found.six);
    assert_eq!(found.source, Source::DevtoolsActivePort);
    let expected_dir = format!("{root}/BROWSER-Coding-Agent-Chrome-5720");
    assert_eq!(
        found.user_data_dir.as_deref(),
        Some(expected_dir.as_str()),
        "the root as built, the name as on disk"
    );
    let by_real_path = entry(&out.entries, 5311).endpoint.as_ref().unwrap();
    assert!(
        by_real_path.six,
        "a dir under the root's real path is six's, even when it does not exist"
    );
}

#[test]
fn a_missing_profile_under_an_alias_of_six_root_is_six() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let root = six_root(home, &[]);
    fs::create_dir_all(&root).unwrap();
    let alias = home.join("alias");
    symlink(&root, &alias).unwrap();

    let mut net = FakeHost::new(os(), &path_str(home));
    net.set_processes(&format!(
        "  300 /opt/chrome --remote-debugging-port=5320 --user-data-dir={}\n  301 /opt/chrome --remote-debugging-port=5321 --user-data-dir={}\n",
        path_str(&alias.join("browser-coding-agent-chrome-7000")),
        path_str(&alias.join("leader"))
    ));
    serve(&mut net, 5320, "/devtools/browser/e");
    serve(&mut net, 5321, "/devtools/browser/f");
    let host = MixedHost::new(home, &[], net);
    let out = discover(&host, &options());
    assert!(entry(&out.entries, 5320).endpoint.as_ref().unwrap().six);
    assert!(
        !entry(&out.entries, 5321).endpoint.as_ref().unwrap().six,
        "only six-named dirs in the root are six's"
    );
}

#[test]
fn a_symlink_to_slicc_user_data_dir_is_six() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let real = home.join("real-env");
    fs::create_dir_all(&real).unwrap();
    let link = home.join("env-link");
    symlink(&real, &link).unwrap();
    let env_value = format!("  {}\n", path_str(&link));

    let mut net = FakeHost::new(os(), &path_str(home));
    net.set_processes(&format!(
        "  400 /opt/chrome --remote-debugging-port=5330 --user-data-dir={}\n",
        path_str(&real)
    ));
    serve(&mut net, 5330, "/devtools/browser/g");
    let host = MixedHost::new(home, &[("SLICC_USER_DATA_DIR", &env_value)], net);
    let out = discover(&host, &options());
    assert!(entry(&out.entries, 5330).endpoint.as_ref().unwrap().six);
    assert_eq!(
        out.auto().map(|e| e.id.as_str()),
        None,
        "a six endpoint is never chosen by itself"
    );
}
