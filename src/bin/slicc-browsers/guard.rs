//! `slicc-browsers guard <subcommand>`: the guard vectors' runner tools.
//!
//! Each subcommand is one arm of [`run`] and one function; add new ones the same way.

use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

use slicc_browsers::harness::fixture::{Fixture, FixtureOptions};

use crate::args::Args;

/// The `guard fixture` and `guard proxy` part of the usage text (`guard selftest`,
/// `guard run` and `guard certify` are in [`crate::guard_run::USAGE`]).
pub const USAGE: &str = "\
  guard fixture [--port P]
                      serve the guard vectors' stand-in (HTTP, every route on every host);
                      print its origin, then each request it logs as a JSON line
  guard proxy --upstream <cdp-url> [--listen 127.0.0.1:0] [--origin O]...
              [--protect PATTERN]... [--protect-file FILE]...
              [--protect-path DIR]... [--max-connections N] [--log FILE|-]
              [--remote-allow-origins O[,O...]] [--quiet] [--wait-for-browser]
                      a CDP relay in front of the browser at <cdp-url> (http://host:port or
                      its ws:// URL) that keeps browser control off the protected origins;
                      print its endpoint (cdp, webSocketDebuggerUrl) and serve until killed;
                      --protect: a site of yours to keep it off too: bank.example (the
                      host and every host under it, any port), *.corp.example (the hosts
                      under corp.example, not corp.example) or an origin https://host:port;
                      read as seven's origins are (every spelling a browser reads as such a
                      host); an IP address is given as an origin; --protect-file: one
                      pattern a line, blank lines and lines starting with # skipped; a bad
                      pattern is exit 2, naming it;
                      --protect-path: a local folder no command may name a file in (file
                      inputs, drops, downloads); the browser's user-data dir (and its cache
                      dir) when discovery finds it on this machine is protected too, and
                      named on stderr; pass it when it is not (another machine, a container);
                      at most N connections at once (default 64; more are answered 503);
                      stderr gets one line per refusal and per session the proxy cuts
                      (the method, what was protected, why); --quiet: not those;
                      --log: connections and refusals as JSON lines (- for stderr);
                      when the browser goes away the proxy says so and exits 1;
                      --wait-for-browser: it waits for the browser to come back instead;
                      as Chromium, a Host that is not an IP address or localhost is
                      refused (500), and so is a WebSocket from a page (an Origin header)
                      unless --remote-allow-origins lists its origin (* for any) (403)
";

/// The usage of `guard <sub>` alone, cut from `all` (the usage of every guard subcommand, each
/// block starting with a line `  guard <sub> `): `None` when `sub` is not one of them.
pub fn usage_of(sub: &str, all: &str) -> Option<String> {
    let start = format!("  guard {sub} ");
    let mut block = String::new();
    let mut inside = false;
    for line in all.lines() {
        if line.starts_with("  guard ") {
            inside = line.starts_with(&start);
        }
        if inside {
            block.push_str(line);
            block.push('\n');
        }
    }
    (!block.is_empty()).then(|| format!("usage: slicc-browsers guard {sub} [options]\n{block}"))
}

/// Dispatches `guard <subcommand>`.
pub fn run(mut args: Args) -> Result<ExitCode, String> {
    let Some(sub) = args.next_positional() else {
        return args.error("guard needs a subcommand");
    };
    match sub.as_str() {
        "fixture" => fixture(args),
        "proxy" => proxy(args),
        "selftest" => crate::guard_run::selftest(args),
        "run" => crate::guard_run::run(args),
        "certify" => crate::guard_run::certify(args),
        other => args.error(format!("unknown guard subcommand {other:?}")),
    }
}

/// `guard fixture [--port P]`: serves until killed (or until stdout is closed).
fn fixture(mut args: Args) -> Result<ExitCode, String> {
    let port = match args.value("--port")? {
        None => 0,
        Some(p) => p
            .parse::<u16>()
            .map_err(|_| format!("--port {p:?} is not a port number (0-65535)"))?,
    };
    args.finish()?;
    let fixture = Fixture::start(FixtureOptions {
        port,
        ..FixtureOptions::default()
    })
    .map_err(|e| format!("guard fixture: cannot serve on port {port}: {e}"))?;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if writeln!(out, "{}", fixture.origin())
        .and_then(|_| out.flush())
        .is_err()
    {
        return Ok(ExitCode::SUCCESS);
    }
    let mut next = 0;
    loop {
        let (first, entries) = fixture.wait_log(next, Duration::from_secs(60));
        next = first + entries.len();
        for entry in entries {
            let line = serde_json::to_string(&entry).map_err(|e| e.to_string())?;
            if writeln!(out, "{line}").is_err() {
                return Ok(ExitCode::SUCCESS);
            }
        }
        if out.flush().is_err() {
            return Ok(ExitCode::SUCCESS);
        }
    }
}

/// `guard proxy --upstream <cdp-url> [--listen ADDR] [--origin O]... [--protect PATTERN]...
/// [--protect-file FILE]... [--protect-path DIR]...
/// [--max-connections N] [--log FILE|-] [--remote-allow-origins O[,O...]]`: serves until
/// killed.
fn proxy(mut args: Args) -> Result<ExitCode, String> {
    use slicc_browsers::guard::proxy::{Proxy, ProxyLog, ProxyOptions};
    let upstream = args.required("--upstream", "<cdp-url> (http://host:port or ws://…)")?;
    let listen = args.value("--listen")?;
    let origins = args.values("--origin")?;
    let protect = crate::protect::take(&mut args)?;
    let mut protect_paths = args.values("--protect-path")?;
    let max_connections = args.value("--max-connections")?;
    let log = args.value("--log")?;
    let quiet = args.flag("--quiet");
    let wait_for_browser = args.flag("--wait-for-browser");
    let allow_origins: Vec<String> = args
        .values("--remote-allow-origins")?
        .iter()
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .filter(|o| !o.is_empty())
        .map(String::from)
        .collect();
    args.finish()?;
    let mut options = ProxyOptions::new(&upstream);
    if let Some(listen) = listen {
        for warning in listen_warnings(&listen)? {
            eprintln!("guard proxy: {warning}");
        }
        options.listen = listen;
    }
    options.origins = origins;
    if !protect.is_empty() {
        let names: Vec<String> = protect.iter().map(ToString::to_string).collect();
        eprintln!("guard proxy: protecting {} (--protect)", names.join(", "));
    }
    options.protect = protect;
    options.allow_origins = allow_origins;
    // The browser's own profile, when discovery finds it here: its files hold every site's
    // storage in the clear.
    for dir in browser_profile(&upstream) {
        if !protect_paths.contains(&dir) {
            eprintln!("guard proxy: protecting {dir} (the browser's profile, found by discovery)");
            protect_paths.push(dir);
        }
    }
    options.protect_paths = protect_paths;
    if let Some(n) = max_connections {
        options.max_connections = n.parse().ok().filter(|n: &usize| *n > 0).ok_or_else(|| {
            format!("guard proxy: --max-connections {n:?}: not a positive number")
        })?;
    }
    match log.as_deref() {
        None => {}
        Some("-") => options.log = Some(ProxyLog::new(std::io::stderr())),
        Some(path) => {
            let file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(|e| format!("guard proxy: --log {path}: {e}"))?;
            options.log = Some(ProxyLog::new(file));
        }
    }
    // The operator's lines, unless asked for quiet (or JSON lines already go to stderr).
    if !quiet && log.as_deref() != Some("-") {
        let human = ProxyLog::human(std::io::stderr());
        options.log = Some(match options.log.take() {
            Some(json) => json.and(human),
            None => human,
        });
    }
    let proxy = Proxy::start(options).map_err(|e| format!("guard proxy: {e}"))?;
    crate::output::outln!("cdp {}", proxy.endpoint())?;
    crate::output::outln!("webSocketDebuggerUrl {}", proxy.websocket_url())?;
    // Watch the browser: a proxy in front of nothing should say so, not wait silently.
    let second = Duration::from_secs(1);
    loop {
        std::thread::sleep(second);
        if proxy.upstream_alive(second) {
            continue;
        }
        eprintln!("guard proxy: the browser at {upstream} went away (its DevTools port no longer answers)");
        if !wait_for_browser {
            return Ok(ExitCode::from(1));
        }
        while !proxy.upstream_alive(second) {
            std::thread::sleep(second);
        }
        eprintln!("guard proxy: the browser at {upstream} answers again");
    }
}

/// Reads `--listen HOST:PORT`: a usage error saying what it wants when it is not that, else
/// the warnings to print: each address it names that is not loopback, where anyone who can
/// reach it drives the browser through the proxy.
fn listen_warnings(listen: &str) -> Result<Vec<String>, String> {
    use std::net::ToSocketAddrs;
    let wanted = || {
        crate::args::usage(format!(
            "--listen {listen:?}: expected HOST:PORT, such as 127.0.0.1:8931 (port 0 picks a \
             free port; [::1]:0 for IPv6)"
        ))
    };
    // A port alone, or a host alone, is the common slip: say the form, not the resolver's words.
    let Some((host, port)) = listen.rsplit_once(':') else {
        return wanted();
    };
    if host.is_empty() || port.parse::<u16>().is_err() {
        return wanted();
    }
    let addrs: Vec<_> = match listen.to_socket_addrs() {
        Ok(addrs) => addrs.collect(),
        Err(e) => {
            return crate::args::usage(format!(
                "--listen {listen:?}: cannot resolve {host}: {e} (expected HOST:PORT, such as \
                 127.0.0.1:8931)"
            ))
        }
    };
    Ok(addrs
        .iter()
        .filter(|a| !a.ip().is_loopback())
        .map(|a| {
            format!(
                "warning: --listen {listen} listens on {}, which is not loopback: anyone who can \
                 reach it can drive the browser (open tabs, read pages, run scripts) through \
                 this proxy; 127.0.0.1:PORT keeps it to this machine",
                a.ip()
            )
        })
        .collect())
}

/// The user-data dir of the browser at `upstream` as discovery finds it on this machine (the
/// process list, or a DevToolsActivePort in a browser's profile), and its cache dir where
/// Chromium keeps that elsewhere; empty when discovery does not find it (another machine, a
/// container, another user).
fn browser_profile(upstream: &str) -> Vec<String> {
    let Some(os) = slicc_browsers::catalog::Os::current() else {
        return Vec::new();
    };
    browser_profile_on(&slicc_browsers::discovery::SystemHost::new(), os, upstream)
}

/// [`browser_profile`] on `host`.
fn browser_profile_on(
    host: &dyn slicc_browsers::discovery::Host,
    os: slicc_browsers::catalog::Os,
    upstream: &str,
) -> Vec<String> {
    use slicc_browsers::discovery::{discover, parse_cdp, Options, Sources};
    let Some(want) = parse_cdp(upstream) else {
        return Vec::new();
    };
    let mut options = Options::new(os);
    // Not the flag (it knows no dir) nor the port probe: only sources that name the dir.
    options.sources = Sources {
        flag: false,
        probe: false,
        ..Sources::ALL
    };
    let found = discover(host, &options)
        .entries
        .into_iter()
        .filter_map(|e| e.endpoint)
        .find(|e| parse_cdp(&e.cdp).is_some_and(|t| t.host == want.host && t.port == want.port))
        .and_then(|e| e.user_data_dir);
    let Some(dir) = found else {
        return Vec::new();
    };
    let env = |name: &str| host.env(name).filter(|v| !v.is_empty());
    let mut dirs = vec![dir.clone()];
    dirs.extend(cache_dir(os, &dir, &env));
    dirs
}

/// Where Chromium keeps the disk cache of the user-data dir `dir` when not inside it: on Linux
/// a dir under `$XDG_CONFIG_HOME` (`~/.config`) caches under `$XDG_CACHE_HOME` (`~/.cache`), on
/// macOS one under `~/Library/Application Support` under `~/Library/Caches`, at the same
/// relative path (Chromium's `chrome::GetUserCacheDirectory`).
fn cache_dir(
    os: slicc_browsers::catalog::Os,
    dir: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Option<String> {
    use slicc_browsers::catalog::Os;
    use std::path::{Path, PathBuf};
    let home = PathBuf::from(env("HOME")?);
    let absolute = |v: Option<String>| v.map(PathBuf::from).filter(|p| p.is_absolute());
    let (config, cache) = match os {
        Os::Linux => (
            absolute(env("XDG_CONFIG_HOME")).unwrap_or_else(|| home.join(".config")),
            absolute(env("XDG_CACHE_HOME")).unwrap_or_else(|| home.join(".cache")),
        ),
        Os::Macos => (
            home.join("Library/Application Support"),
            home.join("Library/Caches"),
        ),
        _ => return None,
    };
    let rel = Path::new(dir).strip_prefix(&config).ok()?;
    Some(cache.join(rel).to_string_lossy().into_owned())
}

#[cfg(test)]
mod tests {
    use super::{browser_profile_on, cache_dir, listen_warnings};

    #[test]
    fn a_listen_address_off_loopback_is_warned_about() {
        assert!(listen_warnings("127.0.0.1:0").unwrap().is_empty());
        assert!(listen_warnings("[::1]:0").unwrap().is_empty());
        assert!(listen_warnings("localhost:0").unwrap().is_empty());
        for open in ["0.0.0.0:0", "[::]:0"] {
            let warnings = listen_warnings(open).unwrap();
            assert_eq!(warnings.len(), 1, "{open}");
            assert!(
                warnings[0].contains("not loopback: anyone who can reach it can drive the browser"),
                "{}",
                warnings[0]
            );
        }
        assert!(listen_warnings("8931").is_err());
        assert!(listen_warnings("127.0.0.1:65536").is_err());
    }
    use slicc_browsers::catalog::Os;
    use slicc_browsers::discovery::FakeHost;

    const VERSION: &str = r#"{"Browser":"Chrome/156.0.8078.114","Protocol-Version":"1.3","User-Agent":"Mozilla/5.0 Chrome/156.0.0.0","webSocketDebuggerUrl":"ws://127.0.0.1:5123/devtools/browser/abc"}"#;

    #[test]
    fn the_proxy_finds_the_profile_of_its_upstream() {
        // A browser started with --user-data-dir and port 0: the process list names the dir,
        // whose DevToolsActivePort names the port.
        let mut host = FakeHost::new(Os::Linux, "/home/u");
        host.set_env("HOME", "/home/u");
        host.set_processes(
            "  42 /usr/lib/chromium/chromium --remote-debugging-port=0 --user-data-dir=/tmp/p\n",
        );
        host.add_dir("/tmp/p");
        host.add_file("/tmp/p/DevToolsActivePort", "5123\n/devtools/browser/abc\n");
        host.add_server("127.0.0.1:5123", Some(VERSION), Some("[]"));
        assert_eq!(
            browser_profile_on(&host, Os::Linux, "http://localhost:5123"),
            vec!["/tmp/p".to_string()]
        );
        assert_eq!(
            browser_profile_on(&host, Os::Linux, "ws://127.0.0.1:5123/devtools/browser/abc"),
            vec!["/tmp/p".to_string()]
        );
        // Another port: nothing found, nothing guessed.
        assert!(browser_profile_on(&host, Os::Linux, "http://127.0.0.1:5124").is_empty());
        // The default profile (no flag): its DevToolsActivePort, and the cache beside it.
        let mut host = FakeHost::new(Os::Linux, "/home/u");
        host.set_env("HOME", "/home/u");
        host.add_dir("/home/u/.config/chromium");
        host.add_file(
            "/home/u/.config/chromium/DevToolsActivePort",
            "5123\n/devtools/browser/abc\n",
        );
        host.add_server("127.0.0.1:5123", Some(VERSION), Some("[]"));
        assert_eq!(
            browser_profile_on(&host, Os::Linux, "http://127.0.0.1:5123"),
            vec![
                "/home/u/.config/chromium".to_string(),
                "/home/u/.cache/chromium".to_string()
            ]
        );
    }

    #[test]
    fn a_profile_under_the_config_dir_caches_under_the_cache_dir() {
        let env = |v: &str| match v {
            "HOME" => Some("/home/u".to_string()),
            _ => None,
        };
        assert_eq!(
            cache_dir(Os::Linux, "/home/u/.config/chromium", &env).as_deref(),
            Some("/home/u/.cache/chromium")
        );
        assert_eq!(cache_dir(Os::Linux, "/tmp/profile", &env), None);
        let xdg = |v: &str| match v {
            "HOME" => Some("/home/u".to_string()),
            "XDG_CONFIG_HOME" => Some("/x/conf".to_string()),
            "XDG_CACHE_HOME" => Some("/x/cache".to_string()),
            _ => None,
        };
        assert_eq!(
            cache_dir(Os::Linux, "/x/conf/google-chrome", &xdg).as_deref(),
            Some("/x/cache/google-chrome")
        );
        assert_eq!(
            cache_dir(
                Os::Macos,
                "/home/u/Library/Application Support/Google/Chrome",
                &env
            )
            .as_deref(),
            Some("/home/u/Library/Caches/Google/Chrome")
        );
        assert_eq!(cache_dir(Os::Windows, "C:/x", &env), None);
    }
}
