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
              [--max-connections N] [--log FILE|-]
                      a CDP relay in front of the browser at <cdp-url> (http://host:port or
                      its ws:// URL) that keeps browser control off the protected origins;
                      print its endpoint (cdp, webSocketDebuggerUrl) and serve until killed;
                      at most N connections at once (default 64; more are answered 503);
                      --log: connections and refusals as JSON lines (- for stderr)
";

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

/// `guard proxy --upstream <cdp-url> [--listen ADDR] [--origin O]... [--max-connections N]
/// [--log FILE|-]`: serves until killed.
fn proxy(mut args: Args) -> Result<ExitCode, String> {
    use slicc_browsers::guard::proxy::{Proxy, ProxyLog, ProxyOptions};
    let upstream = args.required("--upstream", "<cdp-url> (http://host:port or ws://…)")?;
    let listen = args.value("--listen")?;
    let origins = args.values("--origin")?;
    let max_connections = args.value("--max-connections")?;
    let log = args.value("--log")?;
    args.finish()?;
    let mut options = ProxyOptions::new(&upstream);
    if let Some(listen) = listen {
        options.listen = listen;
    }
    options.origins = origins;
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
    let proxy = Proxy::start(options).map_err(|e| format!("guard proxy: {e}"))?;
    println!("cdp {}", proxy.endpoint());
    println!("webSocketDebuggerUrl {}", proxy.websocket_url());
    let _ = std::io::stdout().flush();
    loop {
        std::thread::park();
    }
}
