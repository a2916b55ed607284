//! Hostile input: no panic and bounded time for bad DevToolsActivePort files, HTTP servers that
//! never answer, answer slowly, answer too much or answer no JSON, garbage process lists,
//! symlink loops and unreadable dirs. Servers are local listeners on port 0 that this test
//! starts; files live in a temporary home.
#![cfg(all(unix, feature = "discovery"))]

use crate::discovery_support;

use std::fs;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use discovery_support::{path_str, version_body, MixedHost};
use slicc_browsers::catalog::Os;
use slicc_browsers::discovery::{discover, FakeHost, Options, Output, Sources};

fn os() -> Os {
    Os::current().expect("a Unix test machine is macOS or Linux")
}

/// Runs discovery on another thread and fails the test if it does not finish in a minute
/// (it takes well under a second): the "bounded time" half of each test.
fn discover_bounded(host: MixedHost, options: Options) -> Output {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let _ = tx.send(discover(&host, &options));
    });
    rx.recv_timeout(Duration::from_secs(60))
        .expect("discovery finished (without panicking) in bounded time")
}

fn ids(out: &Output) -> Vec<String> {
    out.entries.iter().map(|e| e.id.clone()).collect()
}

fn options(sources: Sources) -> Options {
    let mut o = Options::new(os());
    o.sources = sources;
    o.probe_ports.clear();
    o
}

/// The default user-data dir of catalog browser `id` under `home`.
fn user_data_dir(home: &Path, id: &str) -> String {
    let cat = slicc_browsers::shared_catalog();
    let env = |_: &str| None;
    cat.user_data_dirs(cat.browser(id).unwrap(), os(), &path_str(home), &env)
        .into_iter()
        .next()
        .unwrap()
}

fn seven_root(home: &Path) -> String {
    let env = |_: &str| None;
    slicc_browsers::shared_catalog()
        .seven_profiles_root(os(), &path_str(home), &env)
        .unwrap()
}

fn write_active_port(dir: &str, contents: &[u8]) {
    fs::create_dir_all(dir).unwrap();
    fs::write(Path::new(dir).join("DevToolsActivePort"), contents).unwrap();
}

#[test]
fn bad_active_port_files_are_ignored() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let mut huge = b"5501\n/devtools/browser/huge\n".to_vec();
    huge.resize(8 * 1024 * 1024, b'x');
    write_active_port(&user_data_dir(home, "chrome"), &huge);
    let binary: Vec<u8> = (0..4096u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    write_active_port(&user_data_dir(home, "edge"), &binary);
    write_active_port(
        &user_data_dir(home, "brave"),
        b"5503\n/devtools/browser/\xff\xfe\n",
    );
    write_active_port(
        &user_data_dir(home, "chromium"),
        b"5504\n/devtools/browser/good\n",
    );
    // A FIFO named DevToolsActivePort: opening it would block forever.
    let fifo_dir = format!("{}/fifo", seven_root(home));
    fs::create_dir_all(&fifo_dir).unwrap();
    let fifo = format!("{fifo_dir}/DevToolsActivePort");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success());
    if !made {
        eprintln!("mkfifo unavailable: the FIFO part of this test is skipped");
    }

    let mut net = FakeHost::new(os(), &path_str(home));
    for (port, path) in [
        (5501, "/devtools/browser/huge"),
        (5503, "/devtools/browser/\u{fffd}\u{fffd}"),
        (5504, "/devtools/browser/good"),
    ] {
        net.add_server(
            &format!("127.0.0.1:{port}"),
            Some(&version_body(port, path)),
            Some("[]"),
        );
    }
    let host = MixedHost::new(home, &[], net);
    let out = discover_bounded(host, options(Sources::ALL));
    assert_eq!(
        ids(&out),
        vec!["cdp:127.0.0.1:5504"],
        "only the well-formed file counts"
    );
}

/// A listener on a free loopback port, each connection handled by `serve` on its own thread.
fn server(serve: fn(TcpStream)) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            thread::spawn(move || serve(stream));
        }
    });
    port
}

fn read_request(stream: &mut TcpStream) {
    let mut buf = [0u8; 4096];
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    let _ = stream.read(&mut buf);
}

fn never_answers(mut s: TcpStream) {
    read_request(&mut s);
    thread::sleep(Duration::from_secs(30));
}

fn answers_slowly(mut s: TcpStream) {
    read_request(&mut s);
    let _ = s.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n{");
    for _ in 0..600 {
        thread::sleep(Duration::from_millis(50));
        if s.write_all(b" ").is_err() {
            return;
        }
    }
}

fn answers_enormously(mut s: TcpStream) {
    read_request(&mut s);
    let _ =
        s.write_all(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{\"Browser\":\"");
    let chunk = vec![b'a'; 64 * 1024];
    for _ in 0..4096 {
        if s.write_all(&chunk).is_err() {
            return;
        }
    }
}

fn endless_headers(mut s: TcpStream) {
    read_request(&mut s);
    let _ = s.write_all(b"HTTP/1.1 200 OK\r\n");
    for _ in 0..100_000 {
        if s.write_all(b"X-Padding: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n")
            .is_err()
        {
            return;
        }
    }
}

fn answers_no_json(mut s: TcpStream) {
    read_request(&mut s);
    let _ = s.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 15\r\n\r\n<html>hi</html>");
}

fn answers_garbage(mut s: TcpStream) {
    read_request(&mut s);
    let _ = s.write_all(b"\x00\x01SSH-2.0 nonsense\r\n\r\n\xff\xfe");
}

/// Each bad server is reached through a `--cdp` flag (dropped: a flag needs an answer) and
/// a DevToolsActivePort (listed `wsOnly`: the port is open without a usable answer).
#[test]
fn bad_json_version_servers_are_bounded() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let servers: [fn(TcpStream); 6] = [
        never_answers,
        answers_slowly,
        answers_enormously,
        endless_headers,
        answers_no_json,
        answers_garbage,
    ];
    let mut options = options(Sources {
        flag: true,
        seven_profiles: true,
        ..Sources::NONE
    });
    let mut expected = Vec::new();
    for (i, serve) in servers.into_iter().enumerate() {
        let port = server(serve);
        options.cdp.push(format!("127.0.0.1:{port}"));
        write_active_port(
            &format!("{}/p{i}", seven_root(home)),
            format!("{port}\n/devtools/browser/x\n").as_bytes(),
        );
        expected.push(format!("cdp:127.0.0.1:{port}"));
    }
    expected.sort_by_key(|id| id.rsplit(':').next().unwrap().parse::<u16>().unwrap());
    let mut host = MixedHost::new(home, &[], FakeHost::new(os(), &path_str(home)));
    host.real_net = true;
    host.files = host
        .files
        .with_timeouts(Duration::from_millis(300), Duration::from_millis(800));
    let out = discover_bounded(host, options);
    assert_eq!(ids(&out), expected);
    for e in &out.entries {
        let ep = e.endpoint.as_ref().unwrap();
        assert!(ep.ws_only, "{e:?}");
        assert!(ep.profile.is_some() && ep.version.is_none() && ep.seven_tabs.is_empty());
    }
}

#[test]
fn garbage_process_lists_are_survived() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let mut garbage = String::new();
    garbage.push_str("  PID COMMAND\n\n   \t \n");
    garbage.push_str("99999999999999999999999 /opt/chrome --remote-debugging-port=5601\n");
    garbage.push_str("   12 \"/opt/unterminated quote --remote-debugging-port=5602\n");
    garbage.push_str("   13 /opt/chrome --remote-debugging-port=999999999999999999999999\n");
    garbage
        .push_str("   14 /opt/chrome --user-data-dir=\"unterminated --remote-debugging-port=0\n");
    garbage.push_str("   15 --remote-debugging-port=5603\n");
    garbage.push_str("   16 /opt/chrome --remote-debugging-port=\n");
    garbage.push_str("   17 /opt/chrome --remote-debugging-port 0 --user-data-dir\n");
    garbage.push_str("   18 /opt/chrome --remote-debugging-port=5604 --user-data-dir='\n");
    garbage.push_str(&format!(
        "   19 /opt/{} --remote-debugging-port=5605\n",
        "x".repeat(200_000)
    ));
    garbage.push_str("\u{0}\u{1}\u{7f}\u{fffd}💥 --remote-debugging-port=5606\n");
    garbage.push_str("   20 ünïcödé --remote-debugging-port=５６０７ --user-data-dir=ü\n");
    let mut net = FakeHost::new(os(), &path_str(home));
    net.set_processes(&garbage);
    for port in 5601..=5607u16 {
        net.add_server(
            &format!("127.0.0.1:{port}"),
            Some(&version_body(port, "/devtools/browser/p")),
            None,
        );
    }
    let host = MixedHost::new(home, &[], net);
    let out = discover_bounded(
        host,
        options(Sources {
            process: true,
            ..Sources::NONE
        }),
    );
    assert_eq!(
        ids(&out),
        vec!["cdp:127.0.0.1:5602", "cdp:127.0.0.1:5604", "cdp:127.0.0.1:5605"],
        "rows with a pid that parses, an executable and a port in range are kept, whatever else they hold"
    );

    for cim in ["", "{not json", "[1, null, \"x\", {\"ProcessId\": -1, \"CommandLine\": \"a --remote-debugging-port=5601\"}]", "{\"ProcessId\": \"7\", \"CommandLine\": 7}"] {
        let mut net = FakeHost::new(Os::Windows, r"C:\Users\me");
        net.set_processes(cim);
        net.add_server("127.0.0.1:5601", Some(&version_body(5601, "/x")), None);
        let mut o = Options::new(Os::Windows);
        o.sources = Sources { process: true, ..Sources::NONE };
        assert!(discover(&net, &o).entries.is_empty(), "{cim}");
    }
}

#[test]
fn symlink_loops_in_a_profile_root_end() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let root = seven_root(home);
    fs::create_dir_all(&root).unwrap();
    let root_path = Path::new(&root);
    std::os::unix::fs::symlink(root_path.join("loop"), root_path.join("loop")).unwrap();
    std::os::unix::fs::symlink(root_path.join("b"), root_path.join("a")).unwrap();
    std::os::unix::fs::symlink(root_path.join("a"), root_path.join("b")).unwrap();
    std::os::unix::fs::symlink(root_path, root_path.join("up")).unwrap();
    write_active_port(&format!("{root}/good"), b"5701\n/devtools/browser/g\n");
    let mut net = FakeHost::new(os(), &path_str(home));
    net.add_server(
        "127.0.0.1:5701",
        Some(&version_body(5701, "/devtools/browser/g")),
        None,
    );
    let host = MixedHost::new(home, &[], net);
    let out = discover_bounded(host, options(Sources::ALL));
    assert_eq!(ids(&out), vec!["cdp:127.0.0.1:5701"]);
    assert_eq!(
        out.entries[0].endpoint.as_ref().unwrap().profile.as_deref(),
        Some("good")
    );
}

#[test]
fn unreadable_dirs_are_skipped() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let root = seven_root(home);
    let locked = format!("{root}/locked");
    write_active_port(&locked, b"5801\n/devtools/browser/l\n");
    let six = {
        let env = |_: &str| None;
        slicc_browsers::shared_catalog()
            .six_root(os(), &path_str(home), &env)
            .unwrap()
    };
    write_active_port(
        &format!("{six}/browser-coding-agent-chrome"),
        b"5802\n/devtools/browser/s\n",
    );
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o000)).unwrap();
    fs::set_permissions(&six, fs::Permissions::from_mode(0o000)).unwrap();
    // A privileged user (root in a container) reads through mode 000: then both are found.
    let privileged = fs::read_dir(&six).is_ok();
    let mut net = FakeHost::new(os(), &path_str(home));
    net.add_server(
        "127.0.0.1:5801",
        Some(&version_body(5801, "/devtools/browser/l")),
        None,
    );
    net.add_server(
        "127.0.0.1:5802",
        Some(&version_body(5802, "/devtools/browser/s")),
        None,
    );
    let host = MixedHost::new(home, &[], net);
    let out = discover_bounded(host, options(Sources::ALL));
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o755)).unwrap();
    fs::set_permissions(&six, fs::Permissions::from_mode(0o755)).unwrap();
    if privileged {
        eprintln!("running privileged: mode 000 does not stop reads, so both dirs are read");
        assert_eq!(ids(&out), vec!["cdp:127.0.0.1:5801", "cdp:127.0.0.1:5802"]);
    } else {
        assert!(out.entries.is_empty(), "{out:?}");
    }
}

#[test]
fn no_limit_timeouts_do_not_panic() {
    // `SystemHost::with_timeouts(Duration::MAX, Duration::MAX)`, "no limit": the response
    // deadline `Instant::now() + timeout` overflowed, a panic. Now it is a century away.
    use slicc_browsers::discovery::{Host, Http, Request, SystemHost};
    fn answers_json(mut s: TcpStream) {
        read_request(&mut s);
        let _ = s.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}");
    }
    let port = server(answers_json);
    let host = SystemHost::new().with_timeouts(Duration::MAX, Duration::MAX);
    let got = host.http_get(&Request {
        host: "127.0.0.1".into(),
        port,
        path: "/json/version".into(),
        limit: 1024,
    });
    assert!(matches!(got, Http::Response { status: 200, .. }), "{got:?}");
    // A zero connect timeout connects nowhere, as `with_timeouts` says.
    let host = SystemHost::new().with_timeouts(Duration::ZERO, Duration::MAX);
    let got = host.http_get(&Request {
        host: "127.0.0.1".into(),
        port,
        path: "/json/version".into(),
        limit: 1024,
    });
    assert_eq!(got, Http::Refused);
}
