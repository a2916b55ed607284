//! The corpus files and the harness API: `corpus.json` is current and parses, the typed
//! cases write back exactly what the files hold, and the fakes behave as corpus-format.md says.
#![cfg(feature = "corpus")]

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{json, Value};
use slicc_browsers::corpus::{
    self, corpus, Case, Corpus, FakeProcess, Input, Layout, Server, NEEDS, NEED_FLAG, NEED_PROCESS,
    NEED_PROFILES,
};

fn manifest_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The first differing line of two texts, with a little context, for a readable failure.
fn first_difference(committed: &str, built: &str) -> String {
    let (a, b): (Vec<&str>, Vec<&str>) = (committed.lines().collect(), built.lines().collect());
    let line = a
        .iter()
        .zip(&b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()));
    let show = |lines: &[&str]| {
        lines[line.saturating_sub(2)..(line + 3).min(lines.len())]
            .iter()
            .map(|l| format!("    {l}"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    format!(
        "first difference at line {} ({} lines committed, {} built)\ncommitted:\n{}\nbuilt from corpus/:\n{}",
        line + 1,
        a.len(),
        b.len(),
        show(&a),
        show(&b)
    )
}

#[test]
fn corpus_json_is_built_from_the_corpus_dir() {
    let built = corpus::build(manifest_dir()).expect("corpus/ builds");
    let committed =
        std::fs::read_to_string(manifest_dir().join("corpus.json")).expect("corpus.json");
    assert!(
        built == committed,
        "corpus.json is stale: run `cargo run --features cli -- corpus build`\n{}",
        first_difference(&committed, &built)
    );
}

#[test]
fn first_difference_points_at_the_changed_line() {
    let message = first_difference("a\nb\nc\n", "a\nB\nc\n");
    assert!(message.contains("line 2"), "{message}");
    assert!(message.contains("    B"), "{message}");
}

#[test]
fn build_sorts_cases_and_keeps_files_as_written() {
    let dir = tempfile::tempdir().unwrap();
    for (name, case) in [
        ("zeta", r#"{"needs":["flag"],"description":"z {home}"}"#),
        (
            "alpha",
            r#"{"description":"a","needs":["six"],"auto":null}"#,
        ),
    ] {
        let d = dir.path().join("corpus").join(name);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("case.json"), case).unwrap();
        std::fs::write(
            d.join("expected.json"),
            r#"{"schema":1,"minChromium":116,"entries":[]}"#,
        )
        .unwrap();
    }
    std::fs::write(dir.path().join("corpus").join("README.md"), "not a case").unwrap();
    let text = corpus::build(dir.path()).unwrap();
    assert!(text.ends_with("}\n"));
    assert!(text.starts_with("{\n  \"schema\": 1,\n  \"cases\": [\n"));
    let parsed: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(parsed["cases"][0]["name"], "alpha");
    assert_eq!(parsed["cases"][1]["name"], "zeta");
    // Member order and tokens are kept as written.
    let zeta = parsed["cases"][1]["case"].as_object().unwrap();
    assert_eq!(zeta.keys().collect::<Vec<_>>(), ["needs", "description"]);
    assert_eq!(zeta["description"], "z {home}");
    assert_eq!(parsed["cases"][0]["case"]["auto"], Value::Null);

    std::fs::remove_file(dir.path().join("corpus/zeta/expected.json")).unwrap();
    let err = corpus::build(dir.path()).unwrap_err().to_string();
    assert!(err.contains("corpus/zeta/expected.json"), "{err}");
}

#[test]
fn the_embedded_corpus_parses_and_round_trips() {
    let parsed = corpus();
    let raw: Value = serde_json::from_str(slicc_browsers::CORPUS).unwrap();
    assert_eq!(parsed.schema, 1);
    assert_eq!(parsed.cases.len(), raw["cases"].as_array().unwrap().len());
    for (case, raw) in parsed.cases.iter().zip(raw["cases"].as_array().unwrap()) {
        // Writing the typed case gives back the file: no `[]`, no `"self": false`, no
        // `"auto": null` outside the six cases, no `null` bodies.
        let written = serde_json::to_value(case).unwrap();
        assert_eq!(&written, raw, "case {} does not round-trip", case.name);
        for need in &case.input.needs {
            assert!(
                NEEDS.contains(&need.as_str()),
                "{}: unknown need {need}",
                case.name
            );
        }
    }
}

#[test]
fn parse_names_what_and_where() {
    let err = Corpus::parse("{\"schema\": 1,\n \"cases\": [{\"name\": 3}]}").unwrap_err();
    let text = err.to_string();
    assert!(text.starts_with("corpus.json: line 2"), "{text}");
    assert!(matches!(
        Corpus::parse("[]"),
        Err(slicc_browsers::Error::Invalid { .. })
    ));
    assert!(matches!(
        Corpus::parse("{}"),
        Err(slicc_browsers::Error::Schema { .. })
    ));
}

fn case(input: Value) -> Case {
    serde_json::from_value(json!({
        "name": "t",
        "case": input,
        "expected": {"schema": 1, "minChromium": 116, "entries": []}
    }))
    .unwrap()
}

#[test]
fn auto_has_three_states_and_absent_members_stay_absent() {
    let absent = case(json!({"description": "d", "needs": ["flag"]}));
    let null = case(json!({"description": "d", "needs": ["six"], "auto": null}));
    let id = case(json!({"description": "d", "needs": ["six"], "auto": "cdp:127.0.0.1:5"}));
    assert_eq!(absent.input.auto, None);
    assert_eq!(null.input.auto, Some(None));
    assert_eq!(id.input.auto, Some(Some("cdp:127.0.0.1:5".into())));
    assert_eq!(
        serde_json::to_value(&absent.input).unwrap(),
        json!({"description": "d", "needs": ["flag"]})
    );
    assert_eq!(
        serde_json::to_value(&null.input).unwrap()["auto"],
        Value::Null
    );

    let rows = vec![
        FakeProcess {
            pid: Some(7),
            self_: false,
            command: "a".into(),
        },
        FakeProcess {
            pid: None,
            self_: true,
            command: "b".into(),
        },
    ];
    assert_eq!(
        serde_json::to_value(&rows).unwrap(),
        json!([{"pid": 7, "command": "a"}, {"self": true, "command": "b"}])
    );
    let server = Server {
        version: None,
        list: Some(vec![]),
    };
    assert_eq!(serde_json::to_value(&server).unwrap(), json!({"list": []}));
    let input = Input {
        description: "d".into(),
        needs: vec!["flag".into()],
        ..Input::default()
    };
    assert_eq!(
        serde_json::to_value(&input).unwrap(),
        json!({"description": "d", "needs": ["flag"]})
    );
}

#[test]
fn runs_checks_os_and_needs() {
    let all = case(json!({"description": "d", "needs": ["flag", "process"]}));
    assert!(all.runs("darwin", &[NEED_FLAG, NEED_PROCESS]));
    assert!(all.runs("macos", &[NEED_FLAG, NEED_PROCESS, NEED_PROFILES]));
    assert!(!all.runs("linux", &[NEED_FLAG]));
    let windows = case(json!({"description": "d", "os": ["windows"], "needs": ["flag"]}));
    assert!(windows.runs("windows", &[NEED_FLAG]));
    assert!(!windows.runs("linux", &[NEED_FLAG]));
}

#[test]
fn fakes_answer_like_the_real_machine() {
    let cat = slicc_browsers::catalog();
    let c = case(json!({
        "description": "d",
        "needs": ["process", "flag"],
        "env": {"SLICC_USER_DATA_DIR": " {home}/six x "},
        "files": {"{home}/a/DevToolsActivePort": "5000\n/devtools/browser/x\n{home}"},
        "cdp": ["{home}/not-a-url", "localhost:5000"],
        "processes": [
            {"pid": 123, "command": "/usr/bin/chromium --user-data-dir={userData:chromium} --x"},
            {"self": true, "command": "slicc browsers"},
            {"pid": 1234567, "command": ""}
        ],
        "http": {
            "127.0.0.1:5000": {"version": {"Browser": "Chrome/150.0.1.2"}, "list": [{"id": "1"}]},
            "10.0.0.5:6000": {}
        }
    }));
    let env = |k: &str| c.input.env.get(k).cloned();
    let l = Layout {
        os: "linux",
        home: "/home/ada",
        env: &env,
        catalog: &cat,
    };

    assert_eq!(
        c.env(&l),
        BTreeMap::from([(
            "SLICC_USER_DATA_DIR".to_string(),
            " /home/ada/six x ".to_string()
        )])
    );
    assert_eq!(
        c.files(&l),
        vec![(
            "/home/ada/a/DevToolsActivePort".to_string(),
            "5000\n/devtools/browser/x\n{home}".to_string()
        )]
    );
    assert_eq!(
        c.cdp(&l),
        vec![
            "/home/ada/not-a-url".to_string(),
            "localhost:5000".to_string()
        ]
    );
    assert_eq!(
        c.ps_output(&l, 42),
        "   123 /usr/bin/chromium --user-data-dir=/home/ada/.config/chromium --x\n    42 slicc browsers\n1234567 \n"
    );
    let cim: Value = serde_json::from_str(&c.cim_output(&l, 42)).unwrap();
    assert_eq!(
        cim,
        json!([
            {"ProcessId": 4, "CommandLine": null},
            {"ProcessId": 123, "CommandLine": "/usr/bin/chromium --user-data-dir=/home/ada/.config/chromium --x"},
            {"ProcessId": 42, "CommandLine": "slicc browsers"},
            {"ProcessId": 1234567, "CommandLine": ""}
        ])
    );
    assert!(c
        .cim_output(&l, 42)
        .starts_with(r#"[{"ProcessId":4,"CommandLine":null},"#));

    for loopback in [
        "127.0.0.1:5000",
        "localhost:5000",
        "LOCALHOST:5000",
        "[::1]:5000",
        "::1:5000",
    ] {
        assert!(c.server(loopback).is_some(), "{loopback}");
    }
    assert!(c.server("127.0.0.1:5001").is_none());
    assert!(c.server("10.0.0.5:6000").is_some());
    assert!(
        c.server("127.0.0.1:6000").is_none(),
        "a non-loopback server is only on its own host"
    );
    assert_eq!(
        c.http_get("localhost:5000", "/json/version"),
        Some((200, r#"{"Browser":"Chrome/150.0.1.2"}"#.to_string()))
    );
    assert_eq!(
        c.http_get("127.0.0.1:5000", "/json/list"),
        Some((200, r#"[{"id":"1"}]"#.to_string()))
    );
    assert_eq!(
        c.http_get("127.0.0.1:5000", "/json"),
        Some((200, r#"[{"id":"1"}]"#.to_string()))
    );
    assert_eq!(
        c.http_get("127.0.0.1:5000", "/json/new"),
        Some((404, String::new()))
    );
    assert_eq!(
        c.http_get("10.0.0.5:6000", "/json/version"),
        Some((404, String::new()))
    );
    assert_eq!(
        c.http_get("10.0.0.5:6000", "/json/list"),
        Some((404, String::new()))
    );
    assert_eq!(c.http_get("127.0.0.1:5001", "/json/version"), None);
}

#[test]
fn expected_expands_string_values_not_keys() {
    let cat = slicc_browsers::catalog();
    let mut c = case(json!({"description": "d", "needs": ["flag"]}));
    c.expected =
        json!({"{home}": "{home}/x", "n": 1, "a": ["{config}", true, {"k": "{sixProfiles}/p"}]});
    let env = |_: &str| None;
    let l = Layout {
        os: "windows",
        home: r"C:\Users\ada",
        env: &env,
        catalog: &cat,
    };
    assert_eq!(
        c.expected(&l),
        json!({"{home}": r"C:\Users\ada\x", "n": 1, "a": [r"C:\Users\ada\AppData\Roaming", true, {"k": r"C:\Users\ada\AppData\Local\Slicc\profiles\p"}]})
    );
}

/// The Rust example of the spec's "Running the corpus", completed: it must compile and run.
#[test]
fn spec_harness_example_runs() {
    use slicc_browsers::corpus::{corpus, Layout, NEED_PROCESS, NEED_PROFILES};
    let tempdir = tempfile::tempdir().unwrap();
    let mut ran = 0;

    let cat = slicc_browsers::catalog();
    let os = match std::env::consts::OS {
        "macos" => "darwin",
        other => other,
    };
    for case in corpus().cases {
        if !case.runs(os, &[NEED_PROFILES, NEED_PROCESS]) {
            continue;
        }
        let home = tempdir.path().to_str().unwrap();
        let env = |k: &str| case.input.env.get(k).cloned();
        let layout = Layout {
            os,
            home,
            env: &env,
            catalog: &cat,
        };
        // write case.files(&layout); case.ps_output(&layout, std::process::id()) or case.cim_output(…);
        // answer HTTP with case.http_get(host_port, path) and TCP with case.server(host_port).is_some();
        // compare with case.expected(&layout)
        for (path, contents) in case.files(&layout) {
            let path = Path::new(&path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, contents).unwrap();
            assert!(path.starts_with(tempdir.path()) || !case.input.env.is_empty());
        }
        let _ = case.ps_output(&layout, std::process::id());
        assert_eq!(case.expected(&layout)["schema"], 1);
        ran += 1;
    }
    let _ = ran;
}

/// `corpus::dump` (what the Go module's cross-language test compares with): every case on
/// each of the three OSes, on the documented homes, with the helpers' own answers.
#[test]
fn dump_holds_every_case_on_every_os_with_the_helpers_answers() {
    let c = corpus();
    let cat = slicc_browsers::catalog();
    let dump = corpus::dump(&c, &cat);
    assert_eq!(dump["selfPid"], corpus::DUMP_SELF_PID);
    let cases = dump["cases"].as_array().expect("cases");
    assert_eq!(cases.len(), 3 * c.cases.len());
    for (entry, (case, (os, home))) in cases.iter().zip(
        c.cases
            .iter()
            .flat_map(|case| corpus::DUMP_HOMES.iter().map(move |h| (case, *h))),
    ) {
        assert_eq!(entry["name"], case.name.as_str());
        assert_eq!(
            (entry["os"].as_str(), entry["home"].as_str()),
            (Some(os), Some(home))
        );
        let env = |k: &str| case.input.env.get(k).cloned();
        let l = Layout {
            os,
            home,
            env: &env,
            catalog: &cat,
        };
        assert_eq!(entry["ps"], case.ps_output(&l, corpus::DUMP_SELF_PID));
        assert_eq!(entry["cim"], case.cim_output(&l, corpus::DUMP_SELF_PID));
        assert_eq!(entry["expected"], case.expected(&l).to_string());
        assert_eq!(entry["tokens"]["home"], home);
        assert_eq!(entry["tcp"]["127.0.0.1:1"], false);
        for h in entry["http"].as_array().unwrap() {
            let port: u32 = h["hostPort"]
                .as_str()
                .unwrap()
                .rsplit(':')
                .next()
                .unwrap()
                .parse()
                .unwrap();
            assert!(!(9222..=9229).contains(&port), "{h}");
        }
    }
}
