//! The launch module: golden profile paths, argv and executables for every OS (run from
//! `tests/data/launch-golden.json`), and the Preferences merge on real files.
#![cfg(feature = "launch")]

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use serde_json::{json, Value};
use slicc_browsers::catalog::Os;
use slicc_browsers::launch::{
    self, chromium_args, electron_args, installed_executables, merge_preferences,
    resolve_executable, ChromiumOptions, Error, SevenProfile, SixProfile,
};
use slicc_browsers::Catalog;

fn cat() -> &'static Catalog {
    slicc_browsers::shared_catalog()
}

fn golden() -> Value {
    let text = include_str!("../data/launch-golden.json");
    serde_json::from_str(text).expect("launch-golden.json is JSON")
}

fn cases<'a>(golden: &'a Value, key: &str) -> &'a [Value] {
    let list = golden[key]
        .as_array()
        .unwrap_or_else(|| panic!("{key} is a list"));
    assert!(!list.is_empty(), "{key} has cases");
    list
}

fn s<'a>(case: &'a Value, key: &str) -> &'a str {
    case[key]
        .as_str()
        .unwrap_or_else(|| panic!("{key} is a string in {case}"))
}

fn strings(case: &Value, key: &str) -> Vec<String> {
    case[key]
        .as_array()
        .unwrap_or_else(|| panic!("{key} is a list in {case}"))
        .iter()
        .map(|v| v.as_str().expect("a string").to_string())
        .collect()
}

fn os(case: &Value) -> Os {
    s(case, "os").parse().expect("a known OS")
}

/// The case's environment as an `Env` closure's map.
fn env_map(case: &Value) -> BTreeMap<String, String> {
    case["env"]
        .as_object()
        .map(|m| {
            m.iter()
                .map(|(k, v)| {
                    (
                        k.clone(),
                        v.as_str().expect("env values are strings").into(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

fn error_name(err: &Error) -> &'static str {
    match err {
        Error::InvalidProfileName { .. } => "InvalidProfileName",
        Error::SixProfile { .. } => "SixProfile",
        Error::NoLocation { .. } => "NoLocation",
        Error::InvalidSnap { .. } => "InvalidSnap",
        Error::InvalidOrigin { .. } => "InvalidOrigin",
        Error::ConflictingSwitch { .. } => "ConflictingSwitch",
        Error::DebugBlocked { .. } => "DebugBlocked",
        Error::NoFreePort { .. } => "NoFreePort",
        Error::Preferences { .. } => "Preferences",
        _ => "other",
    }
}

/// Checks a result against a case's `dir` or `error`.
fn check_dir(case: &Value, result: Result<String, Error>) {
    match (case.get("error"), result) {
        (Some(want), Err(e)) => assert_eq!(error_name(&e), want, "{case}: {e}"),
        (Some(want), Ok(dir)) => panic!("{case}: wanted {want}, got {dir}"),
        (None, Ok(dir)) => assert_eq!(dir, s(case, "dir"), "{case}"),
        (None, Err(e)) => panic!("{case}: {e}"),
    }
}

#[test]
fn seven_profile_paths() {
    let g = golden();
    for case in cases(&g, "sevenProfiles") {
        let vars = env_map(case);
        let env = |k: &str| vars.get(k).cloned();
        let result = SevenProfile::named(cat(), os(case), s(case, "home"), &env, s(case, "name"));
        if let Ok(p) = &result {
            assert_eq!(p.name(), Some(s(case, "name")));
            assert_eq!(p.os(), os(case));
        }
        check_dir(case, result.map(|p| p.dir().to_string()));
    }
}

#[test]
fn snap_profile_paths() {
    let g = golden();
    for case in cases(&g, "snapProfiles") {
        let vars = env_map(case);
        let env = |k: &str| vars.get(k).cloned();
        let result = SevenProfile::snap(
            cat(),
            s(case, "home"),
            &env,
            s(case, "snap"),
            s(case, "name"),
        );
        check_dir(case, result.map(|p| p.dir().to_string()));
    }
}

#[test]
fn profiles_in_dirs_refuse_six() {
    let g = golden();
    for case in cases(&g, "dirProfiles") {
        let vars = env_map(case);
        let env = |k: &str| vars.get(k).cloned();
        let (os, home, dir) = (os(case), s(case, "home"), s(case, "dir"));
        let result = SevenProfile::in_dir(cat(), os, home, &env, dir);
        let six = launch::is_six_dir(cat(), os, home, &env, dir);
        match case.get("error").and_then(Value::as_str) {
            Some(want) => {
                let e = result.expect_err(&case.to_string());
                assert_eq!(error_name(&e), want, "{case}");
                assert_eq!(six, want == "SixProfile", "{case}");
            }
            None => {
                let p = result.unwrap_or_else(|e| panic!("{case}: {e}"));
                assert_eq!((p.dir(), p.name()), (dir, None));
                assert!(!six, "{case}");
            }
        }
    }
}

#[test]
fn six_profile_paths() {
    let g = golden();
    for case in cases(&g, "sixProfiles") {
        let vars = env_map(case);
        let env = |k: &str| vars.get(k).cloned();
        let port = u16::try_from(case["port"].as_u64().expect("a port")).expect("a u16 port");
        let six = SixProfile::for_port(cat(), os(case), s(case, "home"), &env, port)
            .unwrap_or_else(|e| panic!("{case}: {e}"));
        assert_eq!(six.dir(), s(case, "dir"), "{case}");
        assert_eq!(six.port(), port);
        assert_eq!(
            six.from_env(),
            case["fromEnv"].as_bool().expect("fromEnv"),
            "{case}"
        );
        // Every six dir is one of six's, so no seven profile can be made in it.
        assert!(launch::is_six_dir(
            cat(),
            os(case),
            s(case, "home"),
            &env,
            six.dir()
        ));
        assert!(SevenProfile::in_dir(cat(), os(case), s(case, "home"), &env, six.dir()).is_err());
    }
}

#[test]
fn launch_commands_per_os() {
    let g = golden();
    let mut seen = Vec::new();
    for case in cases(&g, "launches") {
        let vars = env_map(case);
        let env = |k: &str| vars.get(k).cloned();
        let exists_list = strings(case, "exists");
        let exists = |p: &str| exists_list.iter().any(|e| e == p);
        let (os, home) = (os(case), s(case, "home"));
        let browser = cat()
            .browser(s(case, "browser"))
            .expect("a catalog browser");
        let exe = resolve_executable(cat(), browser, os, home, &env, &exists);
        if case["notInstalled"].as_bool() == Some(true) {
            assert_eq!(exe, None, "{case}");
            continue;
        }
        let exe = exe.unwrap_or_else(|| panic!("{case}: not found"));
        assert_eq!(exe.browser, browser.id);
        assert_eq!(format!("{:?}", exe.via), s(case, "via"), "{case}");
        let profile = SevenProfile::for_executable(cat(), &exe, os, home, &env, s(case, "profile"))
            .unwrap_or_else(|e| panic!("{case}: {e}"));
        let options =
            ChromiumOptions::new().headless(case["headless"].as_bool().expect("headless"));
        let argv = chromium_args(cat(), profile.dir(), &options).expect("argv");
        assert_eq!(exe.command(&argv), strings(case, "command"), "{case}");
        seen.push(os);
    }
    for os in Os::ALL {
        assert!(seen.contains(os), "a launch case for {os}");
    }
}

#[test]
fn argv_merges_features_and_extra_switches() {
    let g = golden();
    for case in cases(&g, "argv") {
        let options = ChromiumOptions::new()
            .headless(case["headless"].as_bool().expect("headless"))
            .disabled_features(strings(case, "disabledFeatures"))
            .extra_args(strings(case, "extraArgs"));
        let result = chromium_args(cat(), s(case, "profileDir"), &options);
        match case.get("error").and_then(Value::as_str) {
            Some(want) => assert_eq!(error_name(&result.expect_err("an error")), want),
            None => {
                let argv = result.unwrap_or_else(|e| panic!("{case}: {e}"));
                assert_eq!(argv, strings(case, "argv"), "{case}");
                let merged = argv
                    .iter()
                    .filter(|a| a.starts_with("--disable-features="))
                    .count();
                assert_eq!(merged, 1, "one --disable-features switch");
            }
        }
    }
}

#[test]
fn electron_ports_and_blocked_apps() {
    let g = golden();
    for case in cases(&g, "electron") {
        let taken: Vec<u16> = case["taken"]
            .as_array()
            .expect("taken")
            .iter()
            .map(|p| u16::try_from(p.as_u64().expect("a port")).expect("a u16"))
            .collect();
        let result = electron_args(cat(), s(case, "app"), &|p| taken.contains(&p));
        match case.get("error").and_then(Value::as_str) {
            Some(want) => {
                let e = result.expect_err("an error");
                assert_eq!(error_name(&e), want);
                assert!(
                    e.to_string().contains(s(case, "app")),
                    "the error names the app: {e}"
                );
            }
            None => {
                let args = result.unwrap_or_else(|e| panic!("{case}: {e}"));
                assert_eq!(u64::from(args.port), case["port"].as_u64().expect("port"));
                assert_eq!(args.args, strings(case, "args"));
            }
        }
    }
}

#[test]
fn electron_port_runs_out() {
    let err = electron_args(cat(), "Slack", &|_| true).expect_err("every port taken");
    assert!(matches!(err, Error::NoFreePort { .. }), "{err}");
}

#[test]
fn installed_browsers_in_ranking_order() {
    let g = golden();
    for case in cases(&g, "installed") {
        let vars = env_map(case);
        let env = |k: &str| vars.get(k).cloned();
        let exists_list = strings(case, "exists");
        let exists = |p: &str| exists_list.iter().any(|e| e == p);
        let found = installed_executables(cat(), os(case), s(case, "home"), &env, &exists);
        let ids: Vec<String> = found.into_iter().map(|e| e.browser).collect();
        assert_eq!(ids, strings(case, "browsers"), "{case}");
    }
}

// ---- Preferences -------------------------------------------------------------------------

const NOW: u64 = 13_400_000_000_000_000;

/// A seven profile in a fresh temporary home (Linux layout, whatever this machine is).
fn temp_profile(home: &Path, name: &str) -> SevenProfile {
    let env = |_: &str| None;
    let home = home.to_str().expect("a UTF-8 temp dir");
    SevenProfile::named(cat(), Os::Linux, home, &env, name).expect("a seven profile")
}

fn prefs_path(profile: &SevenProfile) -> std::path::PathBuf {
    Path::new(profile.dir()).join("Default").join("Preferences")
}

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&fs::read(path).expect("read Preferences")).expect("Preferences is JSON")
}

fn at<'a>(value: &'a Value, path: &[String]) -> Option<&'a Value> {
    path.iter().try_fold(value, |v, k| v.get(k))
}

/// Every value the catalog merges is in `prefs`, and every site in both discard forms.
fn assert_merged(prefs: &Value, sites: &[&str]) {
    let seven = &cat().seven;
    assert!(!seven.prefs.is_empty() && !seven.clean_exit.is_empty());
    for pref in seven.prefs.iter().chain(&seven.clean_exit) {
        assert_eq!(at(prefs, &pref.path), Some(&pref.value), "{:?}", pref.path);
    }
    let forms: Vec<&str> = seven
        .discard_exceptions
        .iter()
        .map(|d| d.kind.as_str())
        .collect();
    assert!(
        forms.contains(&"list") && forms.contains(&"chrome-time-map"),
        "{forms:?}"
    );
    for exception in &seven.discard_exceptions {
        let value = at(prefs, &exception.path).expect("the exceptions exist");
        for site in sites {
            match exception.kind.as_str() {
                "list" => assert!(value.as_array().expect("a list").contains(&json!(site))),
                _ => {
                    let time = value[*site].as_str().expect("a time string");
                    assert!(time.parse::<u64>().is_ok(), "{time}");
                }
            }
        }
    }
}

#[test]
fn prepare_creates_preferences() {
    let home = tempfile::tempdir().expect("temp dir");
    let profile = temp_profile(home.path(), "fresh");
    let done = profile
        .prepare(
            cat(),
            // An origin with a trailing `/`; one with a path (`…:8443/x`, accepted before
            // extra origins had one reader) is refused, as the matcher refuses it
            // (tests/offline/extra_origins.rs).
            &["http://127.0.0.1:5710", "https://app.example.test:8443/"],
            NOW,
        )
        .expect("prepared");
    assert!(done.created && done.changed);
    assert_eq!(done.path, prefs_path(&profile));
    let prefs = read_json(&done.path);
    assert_merged(&prefs, &["[*.]sliccy.ai", "127.0.0.1", "app.example.test"]);
    let map = &prefs["performance_tuning"]["tab_discarding"]["exceptions_with_time"];
    assert_eq!(map["[*.]sliccy.ai"], json!(NOW.to_string()));
    let list = &prefs["performance_tuning"]["tab_discarding"]["exceptions"];
    assert_eq!(
        list,
        &json!(["[*.]sliccy.ai", "127.0.0.1", "app.example.test"])
    );
    // Nothing but the Preferences file is left in Default (no temporary file).
    let names: Vec<_> = fs::read_dir(done.path.parent().expect("Default"))
        .expect("list Default")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert_eq!(names, ["Preferences"]);
}

#[test]
fn prepare_keeps_existing_keys_and_is_idempotent() {
    let home = tempfile::tempdir().expect("temp dir");
    let profile = temp_profile(home.path(), "kept");
    let path = prefs_path(&profile);
    fs::create_dir_all(path.parent().expect("Default")).expect("mkdir");
    let before = json!({
        "zeta": {"keep": [1, 2, {"x": null}]},
        "profile": {"name": "Person 1", "exit_type": "Crashed", "exited_cleanly": false},
        "performance_tuning": {
            "tab_discarding": {
                "exceptions": ["example.test"],
                "exceptions_with_time": {"example.test": "123", "[*.]sliccy.ai": "456"}
            },
            "other": 7
        },
        "alpha": "last"
    });
    fs::write(&path, serde_json::to_string_pretty(&before).expect("text")).expect("write");

    let first = profile
        .prepare(cat(), &[] as &[&str], NOW)
        .expect("prepared");
    assert!(first.changed && !first.created);
    let after = read_json(&path);
    assert_merged(&after, &["[*.]sliccy.ai"]);
    // Every other key is kept, in its place.
    let keys: Vec<&String> = after.as_object().expect("object").keys().collect();
    assert_eq!(
        keys[..4],
        ["zeta", "profile", "performance_tuning", "alpha"]
    );
    assert_eq!(after["zeta"], before["zeta"]);
    assert_eq!(after["alpha"], json!("last"));
    assert_eq!(after["profile"]["name"], json!("Person 1"));
    assert_eq!(after["performance_tuning"]["other"], json!(7));
    let discard = &after["performance_tuning"]["tab_discarding"];
    assert_eq!(
        discard["exceptions"],
        json!(["example.test", "[*.]sliccy.ai"])
    );
    // A site already in the time map keeps its time.
    assert_eq!(
        discard["exceptions_with_time"],
        json!({"example.test": "123", "[*.]sliccy.ai": "456"})
    );

    let bytes = fs::read(&path).expect("read");
    let second = profile
        .prepare(cat(), &[] as &[&str], NOW + 1_000_000)
        .expect("again");
    assert!(!second.changed && !second.created);
    assert_eq!(
        fs::read(&path).expect("read"),
        bytes,
        "byte-identical after a second run"
    );
}

#[test]
fn prepare_adds_extra_origins_later() {
    let home = tempfile::tempdir().expect("temp dir");
    let profile = temp_profile(home.path(), "later");
    profile.prepare(cat(), &[] as &[&str], NOW).expect("first");
    let done = profile
        .prepare(cat(), &["http://localhost:5710"], NOW + 5)
        .expect("second");
    assert!(done.changed);
    let prefs = read_json(&done.path);
    let discard = &prefs["performance_tuning"]["tab_discarding"];
    assert_eq!(discard["exceptions"], json!(["[*.]sliccy.ai", "localhost"]));
    assert_eq!(
        discard["exceptions_with_time"],
        json!({"[*.]sliccy.ai": NOW.to_string(), "localhost": (NOW + 5).to_string()})
    );
}

#[test]
fn malformed_preferences_are_left_untouched() {
    let bad: &[(&str, &str)] = &[
        ("{\"profile\": {", "not JSON"),
        ("", "not JSON"),
        ("[1, 2]", "not a JSON object"),
        ("\"text\"", "not a JSON object"),
        (
            "{\"performance_tuning\": 5}",
            "/performance_tuning is a number",
        ),
        ("{\"profile\": []}", "/profile is a list"),
        (
            "{\"performance_tuning\": {\"tab_discarding\": {\"exceptions\": \"x\"}}}",
            "/performance_tuning/tab_discarding/exceptions is a string",
        ),
        (
            "{\"performance_tuning\": {\"tab_discarding\": {\"exceptions_with_time\": []}}}",
            "/performance_tuning/tab_discarding/exceptions_with_time is a list",
        ),
    ];
    let home = tempfile::tempdir().expect("temp dir");
    for (i, (text, message)) in bad.iter().enumerate() {
        let profile = temp_profile(home.path(), &format!("bad{i}"));
        let path = prefs_path(&profile);
        fs::create_dir_all(path.parent().expect("Default")).expect("mkdir");
        fs::write(&path, text).expect("write");
        let err = profile.prepare(cat(), &[] as &[&str], NOW).expect_err(text);
        let shown = err.to_string();
        assert!(matches!(err, Error::Preferences { .. }), "{text}: {shown}");
        assert!(shown.contains(message), "{text}: {shown}");
        assert!(
            shown.contains(&path.display().to_string()),
            "names the file: {shown}"
        );
        assert_eq!(fs::read_to_string(&path).expect("read"), *text, "untouched");
        let entries = fs::read_dir(path.parent().expect("Default"))
            .expect("list")
            .count();
        assert_eq!(entries, 1, "no temporary file left");
    }
}

#[test]
fn bad_extra_origin_is_refused_before_writing() {
    let home = tempfile::tempdir().expect("temp dir");
    let profile = temp_profile(home.path(), "origin");
    let err = profile
        .prepare(cat(), &["not an origin"], NOW)
        .expect_err("bad origin");
    assert!(matches!(err, Error::InvalidOrigin { .. }), "{err}");
    assert!(!prefs_path(&profile).exists());
}

#[test]
fn merge_is_pure_and_reports_changes() {
    let sites = vec!["[*.]sliccy.ai".to_string()];
    let mut prefs = json!({});
    assert!(merge_preferences(cat(), &mut prefs, &sites, NOW).expect("merged"));
    let once = prefs.clone();
    assert!(!merge_preferences(cat(), &mut prefs, &sites, NOW + 9).expect("merged"));
    assert_eq!(prefs, once);
    assert_merged(&prefs, &["[*.]sliccy.ai"]);
    let mut not_object = json!(3);
    assert!(merge_preferences(cat(), &mut not_object, &sites, NOW).is_err());
}

#[test]
fn six_env_dir_is_never_prepared() {
    let home = tempfile::tempdir().expect("temp dir");
    let home_str = home.path().to_str().expect("UTF-8").to_string();
    let seven = format!("{home_str}/.config/slicc/seven-profiles/demo");
    let env = |k: &str| (k == "SLICC_USER_DATA_DIR").then(|| format!("  {seven}\n"));
    let err = SevenProfile::named(cat(), Os::Linux, &home_str, &env, "demo").expect_err("six's");
    assert!(matches!(err, Error::SixProfile { .. }), "{err}");
}

#[cfg(unix)]
#[test]
fn symlink_into_six_profile_is_refused_on_prepare() {
    let home = tempfile::tempdir().expect("temp dir");
    let home_str = home.path().to_str().expect("UTF-8").to_string();
    let env = |_: &str| None;
    let six = SixProfile::for_port(cat(), Os::Linux, &home_str, &env, 5800).expect("six");
    fs::create_dir_all(six.dir()).expect("mkdir six");
    let link = home.path().join("looks-like-seven");
    std::os::unix::fs::symlink(six.dir(), &link).expect("symlink");
    let link = link.to_str().expect("UTF-8");
    // The path alone is not six's; resolved, it is.
    let profile = SevenProfile::in_dir(cat(), Os::Linux, &home_str, &env, link).expect("a dir");
    let err = profile
        .prepare(cat(), &[] as &[&str], NOW)
        .expect_err("refused");
    assert!(matches!(err, Error::SixProfile { .. }), "{err}");
    assert_eq!(
        fs::read_dir(six.dir()).expect("list six").count(),
        0,
        "six untouched"
    );
}
