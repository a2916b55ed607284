//! A real launch: Debian's Chromium, headless, in a fresh seven profile in a temporary home,
//! with the crate's argv. Skipped (with the reason printed) where /usr/bin/chromium is absent.
#![cfg(all(feature = "launch", unix))]

use crate::needs;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use slicc_browsers::catalog::{ActivePort, Os};
use slicc_browsers::launch::{
    self, chromium_args, resolve_executable, ChromiumOptions, SevenProfile, Via,
};

const CHROMIUM: &str = "/usr/bin/chromium";

/// What this machine needs besides the crate's argv: root in a container (no sandbox), no GPU,
/// and no calls home from a test.
const MACHINE_FLAGS: [&str; 5] = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
];

/// Kills the browser if the test ends before it quits.
struct Browser(Option<Child>);

impl Drop for Browser {
    fn drop(&mut self) {
        if let Some(child) = &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

#[test]
fn chromium_serves_cdp_and_keeps_the_merged_prefs() {
    if needs::missing(CHROMIUM, Path::new(CHROMIUM).exists()) {
        return;
    }
    let cat = slicc_browsers::shared_catalog();
    let home = tempfile::tempdir().expect("temp home");
    let home_str = home.path().to_str().expect("UTF-8 temp dir");
    let env = |k: &str| (k == "PATH").then(|| "/usr/local/bin:/usr/bin:/bin".to_string());

    let browser = cat.browser("chromium").expect("chromium is in the catalog");
    let exe = resolve_executable(
        cat,
        browser,
        Os::Linux,
        home_str,
        &env,
        &launch::path_exists,
    )
    .expect("chromium resolves on PATH");
    assert_eq!((exe.program.as_str(), exe.via), (CHROMIUM, Via::Path));

    let profile = SevenProfile::for_executable(cat, &exe, Os::Linux, home_str, &env, "cdp-test")
        .expect("a seven profile");
    assert!(profile.dir().starts_with(home_str));
    let prepared = profile
        .prepare_now(cat, &["http://127.0.0.1:5710"])
        .expect("prepared");
    assert!(prepared.created);

    let options = ChromiumOptions::new()
        .headless(true)
        .extra_args(MACHINE_FLAGS);
    let argv = chromium_args(cat, profile.dir(), &options).expect("argv");
    let command = exe.command(&argv);
    let child = Command::new(&command[0])
        .args(&command[1..])
        .env("HOME", home_str)
        // Chromium makes its singleton socket's folder in TMPDIR; a killed one leaves it.
        .env("TMPDIR", home_str)
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_CACHE_HOME")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromium starts");
    let mut browser = Browser(Some(child));
    let child = browser.0.as_mut().expect("a child");

    let dir = Path::new(profile.dir());
    let (active, version) = launch::wait_for_endpoint(cat, dir, child, Duration::from_secs(60))
        .expect("chromium serves CDP");
    let file = std::fs::read_to_string(dir.join("DevToolsActivePort")).expect("the file");
    assert_eq!(ActivePort::parse(&file).as_ref(), Some(&active));
    let ws = version["webSocketDebuggerUrl"]
        .as_str()
        .expect("a websocket URL");
    assert_eq!(
        ws,
        active.websocket_url(),
        "/json/version answers on the file's port"
    );
    let again = launch::get_json(active.port, "/json/version", Duration::from_secs(5))
        .expect("/json/version answers");
    assert!(
        again["Browser"].as_str().is_some_and(|b| b.contains('/')),
        "{again}"
    );
    println!("chromium {} on port {}", again["Browser"], active.port);

    // Quit the way a user would (Browser.close), so Chromium writes its prefs and exits.
    browser_close(active.port, &active.path);
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "chromium did not quit"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    browser.0 = None;
    println!("chromium quit with {status} after {:?}", start.elapsed());

    let prefs: Value = serde_json::from_slice(&std::fs::read(&prepared.path).expect("read"))
        .expect("Chromium left JSON");
    let mut missing = Vec::new();
    for pref in cat.seven.prefs.iter().chain(&cat.seven.clean_exit) {
        let found = pref.path.iter().try_fold(&prefs, |v, k| v.get(k));
        if found != Some(&pref.value) {
            missing.push(format!(
                "{:?} = {:?}, found {found:?}",
                pref.path, pref.value
            ));
        }
    }
    for exception in &cat.seven.discard_exceptions {
        let found = exception.path.iter().try_fold(&prefs, |v, k| v.get(k));
        for site in ["[*.]sliccy.ai", "127.0.0.1"] {
            let present = match found {
                Some(Value::Array(list)) => list.iter().any(|v| v == site),
                Some(Value::Object(map)) => map.contains_key(site),
                _ => false,
            };
            if !present {
                missing.push(format!("{site} in {:?}", exception.path));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "Chromium dropped merged values: {missing:#?}"
    );
}

/// Sends `Browser.close` over the browser's CDP websocket (a minimal RFC 6455 client: the
/// handshake, then one masked text frame).
fn browser_close(port: u16, path: &str) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    let handshake = format!(
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n\
         Connection: Upgrade\r\nSec-WebSocket-Key: c2xpY2MtYnJvd3NlcnMtdGU=\r\n\
         Sec-WebSocket-Version: 13\r\n\r\n"
    );
    stream.write_all(handshake.as_bytes()).expect("handshake");
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        stream.read_exact(&mut byte).expect("handshake answer");
        head.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&head);
    assert!(
        head.starts_with("HTTP/1.1 101"),
        "websocket upgrade: {head}"
    );
    let payload = br#"{"id":1,"method":"Browser.close"}"#;
    let mask = [0x5a, 0x1c, 0x33, 0x7e];
    let mut frame = vec![
        0x81,
        0x80 | u8::try_from(payload.len()).expect("short payload"),
    ];
    frame.extend_from_slice(&mask);
    frame.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
    stream.write_all(&frame).expect("send Browser.close");
}
