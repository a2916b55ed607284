//! The command line over the protected origins: `check`, `check --json-lines` and
//! `conformance protected`.
#![cfg(feature = "cli")]

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn cli(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_slicc-browsers"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

#[test]
fn check_says_protected_or_allowed_with_the_reason() {
    let o = cli(
        &[
            "check",
            "--origin",
            "http://127.0.0.1:5710",
            "https://Seven.Sliccy.AI/x",
            "https://example.test/",
            "http://0x7f.1:5710/",
        ],
        "",
    );
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert!(
        lines[0].starts_with(
            "protected  https://Seven.Sliccy.AI/x  (host seven.sliccy.ai is under sliccy.ai)"
        ),
        "{out}"
    );
    assert_eq!(lines[1], "allowed    https://example.test/");
    assert!(
        lines[2].contains("origin http://127.0.0.1:5710 is an extra origin"),
        "{out}"
    );
    assert_eq!(o.status.code(), Some(1), "a protected URL exits 1");

    let o = cli(&["check", "https://example.test/"], "");
    assert_eq!(o.status.code(), Some(0));
    // Without --origin, the extra origin is not protected.
    let o = cli(&["check", "http://127.0.0.1:5710/"], "");
    assert!(stdout(&o).starts_with("allowed"), "{}", stdout(&o));
}

#[test]
fn check_rejects_a_bad_origin_and_no_urls() {
    let o = cli(
        &[
            "check",
            "--origin",
            "localhost:5710",
            "https://example.test/",
        ],
        "",
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("extra origin 0"));
    assert_eq!(cli(&["check"], "").status.code(), Some(2));
}

#[test]
fn json_lines_answer_in_order_with_tabs_and_newlines() {
    let urls = [
        "https://seven.sli\tccy.ai/",
        "https://example.test/",
        "https://seven.sli\nccy.ai/",
        "",
        "wss://sliccy.ai",
    ];
    let input: String = urls
        .iter()
        .map(|u| serde_json::to_string(u).unwrap() + "\n")
        .collect();
    let o = cli(&["check", "--json-lines"], &input);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let answers: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // `wss:` is not in `schemes`: rule 3 does not apply (Matcher::cookie_url would).
    let expected = [true, false, true, false, false];
    assert_eq!(answers.len(), urls.len());
    for ((answer, url), protected) in answers.iter().zip(urls).zip(expected) {
        assert_eq!(
            answer,
            &serde_json::json!({ "url": url, "protected": protected })
        );
    }
    let o = cli(
        &["check", "--json-lines"],
        "\"https://example.test/\"\nnot json\n",
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("line 2"));
}

#[test]
fn conformance_protected_passes_on_the_shipped_file() {
    let o = cli(&["conformance", "protected"], "");
    let out = stdout(&o);
    let last = out.lines().last().unwrap_or_default();
    assert!(last.ends_with(" passed, 0 failed"), "{out}");
    let passed: usize = last.split(' ').next().unwrap().parse().unwrap();
    let v = slicc_browsers::protected::vectors();
    assert_eq!(
        passed,
        v.urls.len() + v.targets.len() + v.cookie_domains.len() + v.storage_keys.len()
    );
    assert!(o.status.success());
}

#[test]
fn conformance_protected_reports_each_failure() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("protected.json");
    let mut v = slicc_browsers::protected::vectors();
    v.urls[0].protected = !v.urls[0].protected;
    v.cookie_domains[0].protected = !v.cookie_domains[0].protected;
    std::fs::write(&file, serde_json::to_string(&v).unwrap()).unwrap();
    let o = cli(&["conformance", "protected", file.to_str().unwrap()], "");
    let out = stdout(&o);
    assert_eq!(
        out.lines().filter(|l| l.starts_with("FAIL ")).count(),
        2,
        "{out}"
    );
    assert!(out.trim_end().ends_with(" passed, 2 failed"), "{out}");
    assert_eq!(o.status.code(), Some(1));
    // A target whose opener is none of the format's three names cannot be asked: it fails.
    let mut v = slicc_browsers::protected::vectors();
    v.targets[0].opener = Some("none".into());
    std::fs::write(&file, serde_json::to_string(&v).unwrap()).unwrap();
    let o = cli(&["conformance", "protected", file.to_str().unwrap()], "");
    let out = stdout(&o);
    assert!(out.contains("cannot be asked"), "{out}");
    assert!(out.trim_end().ends_with(" passed, 1 failed"), "{out}");
    assert_eq!(o.status.code(), Some(1));
    let o = cli(&["conformance", "nothing"], "");
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn json_lines_answers_each_url_before_the_next_is_written() {
    // A coprocess writes one URL and waits for its answer. The answers sat in an 8 KiB buffer
    // until standard input ended, so such a caller waited forever (here: the hang guard).
    use std::io::{BufRead, BufReader};
    use std::sync::mpsc;
    let mut child = Command::new(env!("CARGO_BIN_EXE_slicc-browsers"))
        .args(["check", "--json-lines"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut stdin = child.stdin.take().unwrap();
    let (tx, rx) = mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if tx.send(line.unwrap()).is_err() {
                return;
            }
        }
    });
    // A hang guard only: nothing here depends on how fast the answer comes.
    let hang_guard = std::time::Duration::from_secs(60);
    for (url, protected) in [
        ("https://seven.sliccy.ai/", true),
        ("https://example.test/", false),
    ] {
        writeln!(stdin, "{}", serde_json::to_string(url).unwrap()).unwrap();
        stdin.flush().unwrap();
        let answer = rx
            .recv_timeout(hang_guard)
            .unwrap_or_else(|_| panic!("no answer for {url} while standard input stays open"));
        let answer: serde_json::Value = serde_json::from_str(&answer).unwrap();
        assert_eq!(
            answer,
            serde_json::json!({ "url": url, "protected": protected })
        );
    }
    drop(stdin);
    assert!(child.wait().unwrap().success());
}

#[test]
fn check_refuses_what_is_not_an_absolute_url_and_reads_a_bare_host_as_https() {
    // These used to print `allowed` and exit 0: an answer for something that is no URL.
    for bad in ["not a url", "", " ", "/path/only", "//", "http://"] {
        let o = cli(&["check", "https://example.test/", bad], "");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{bad:?}: {err}");
        assert!(
            o.stdout.is_empty(),
            "nothing judged before the error: {bad:?}"
        );
        assert!(
            err.contains("not an absolute URL") && err.contains("https://"),
            "says what it expected: {err}"
        );
    }
    // A bare host (and port) is judged as https://<host>/, and said so.
    for (bare, judged) in [
        ("seven.sliccy.ai", "https://seven.sliccy.ai/"),
        ("Seven.Sliccy.AI/x?y", "https://seven.sliccy.ai/x?y"),
        ("seven.sliccy.ai:443", "https://seven.sliccy.ai/"),
    ] {
        let o = cli(&["check", bare], "");
        assert_eq!(o.status.code(), Some(1), "{bare}: protected");
        assert!(
            stdout(&o).starts_with(&format!("protected  {judged}  (")),
            "{}",
            stdout(&o)
        );
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(&format!("judged as {judged}")), "{err}");
    }
    let o = cli(&["check", "localhost:5710"], "");
    assert_eq!(stdout(&o), "allowed    https://localhost:5710/\n");
    // An absolute URL of any scheme is judged as it is.
    let o = cli(&["check", "about:blank"], "");
    assert_eq!(o.status.code(), Some(0));
    assert!(o.stderr.is_empty());
}

#[test]
fn check_protects_the_users_sites_and_says_which_pattern() {
    let o = cli(
        &[
            "check",
            "--protect",
            "bank.example",
            "--protect=*.corp.example",
            "--protect",
            "https://nas.example:5001",
            "https://login.bank.example/",
            "https://ＬＯＧＩＮ.%62ank.example.:8443/x",
            "https://wiki.corp.example/",
            "https://corp.example/",
            "https://nas.example:5001/",
            "https://bank.example.evil.test/",
        ],
        "",
    );
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines,
        [
            "protected  https://login.bank.example/  (host login.bank.example is under the \
             protected pattern bank.example)",
            "protected  https://ＬＯＧＩＮ.%62ank.example.:8443/x  (host login.bank.example is \
             under the protected pattern bank.example)",
            "protected  https://wiki.corp.example/  (host wiki.corp.example is under the \
             protected pattern *.corp.example)",
            "allowed    https://corp.example/",
            "protected  https://nas.example:5001/  (origin https://nas.example:5001 is \
             protected by the pattern https://nas.example:5001)",
            "allowed    https://bank.example.evil.test/",
        ],
        "{out}"
    );
    assert_eq!(o.status.code(), Some(1));
    // Without the pattern the bank is an ordinary site.
    let o = cli(&["check", "https://login.bank.example/"], "");
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    // --json-lines takes the patterns too.
    let o = cli(
        &["check", "--protect", "bank.example", "--json-lines"],
        "\"http://x.BANK.example/\"\n\"http://bank.test/\"\n",
    );
    assert_eq!(
        stdout(&o),
        "{\"url\":\"http://x.BANK.example/\",\"protected\":true}\n\
         {\"url\":\"http://bank.test/\",\"protected\":false}\n"
    );
}

#[test]
fn check_reads_a_protect_file_and_names_a_bad_pattern() {
    let dir = std::env::temp_dir().join(format!("slicc-protect-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("good.txt");
    std::fs::write(&good, "# my sites\n\nbank.example\n   *.corp.example  \n").unwrap();
    let good = good.to_str().unwrap();
    let o = cli(
        &[
            "check",
            "--protect-file",
            good,
            "https://a.bank.example/",
            "https://b.corp.example/",
        ],
        "",
    );
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stdout(&o).matches("protected  ").count(),
        2,
        "{}",
        stdout(&o)
    );

    let bad = dir.join("bad.txt");
    std::fs::write(&bad, "bank.example\n# fine\nbank.example:8443\n").unwrap();
    let o = cli(
        &[
            "check",
            "--protect-file",
            bad.to_str().unwrap(),
            "https://x.test/",
        ],
        "",
    );
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("line 3") && err.contains("\"bank.example:8443\""),
        "{err}"
    );
    assert!(o.stdout.is_empty(), "nothing judged");
    let _ = std::fs::remove_dir_all(&dir);

    for bad in [
        "",
        "*",
        "a.*.example",
        "bank.example/login",
        "10.0.0.1",
        "xn--a.example",
        "https://bank.example/login",
        "https:bank.example",
    ] {
        let o = cli(&["check", "--protect", bad, "https://x.test/"], "");
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert_eq!(o.status.code(), Some(2), "{bad:?}: {err}");
        assert!(err.contains("--protect"), "{bad:?}: {err}");
        if !bad.is_empty() {
            assert!(err.contains(&format!("{bad:?}")), "{bad:?}: {err}");
        }
        assert!(o.stdout.is_empty(), "{bad:?}");
    }
}

#[cfg(feature = "cli-full")]
#[test]
fn guard_proxy_refuses_a_bad_pattern_before_it_starts() {
    // No browser listens on port 1: the pattern is read (and refused) first.
    let o = cli(
        &[
            "guard",
            "proxy",
            "--upstream",
            "http://127.0.0.1:1",
            "--protect",
            "*bank.example",
        ],
        "",
    );
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("\"*bank.example\"") && err.contains("usage: slicc-browsers guard proxy"),
        "{err}"
    );
    // A good pattern gets as far as the browser.
    let o = cli(
        &[
            "guard",
            "proxy",
            "--upstream",
            "http://127.0.0.1:1",
            "--protect",
            "bank.example",
        ],
        "",
    );
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(err.contains("protecting bank.example (--protect)"), "{err}");
    assert_ne!(o.status.code(), Some(0), "{err}");
}
