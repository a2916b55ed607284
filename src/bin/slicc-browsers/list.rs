//! `slicc-browsers list [--json] [--cdp URL]... [--origin ORIGIN]...`: this machine's
//! browsers, ranked.
//!
//! `SLICC_DISCOVERY` narrows what is read, as slicc-cli's tests use it: `isolated` reads only
//! the `--cdp` URLs; `installed` adds the installed browsers; `home` adds the
//! DevToolsActivePort files under the home and config dirs from the environment, six's
//! profiles included. Unset, everything is read: also the process list and the probe ports.
//!
//! Each `--cdp` endpoint that does not answer is named on stderr; the list still prints.

use std::process::ExitCode;

use slicc_browsers::catalog::{Origin, Os};
use slicc_browsers::discovery::{
    discover, installed, parse_cdp, Entry, Options, Output, Sources, SystemHost,
};

use crate::args::Args;
use crate::output::{out, outln};

/// Discovers, ranks and prints: a table, or output schema 1 with `--json`.
pub fn run(mut args: Args) -> Result<ExitCode, String> {
    let json = args.flag("--json");
    let cdp = args.values("--cdp")?;
    let origins = args.values("--origin")?;
    args.finish()?;
    // Discovery leaves out a value it cannot read; on the command line that is a mistake
    // (a seven tab would go unmarked, an endpoint unlisted), so say so.
    if let Some(bad) = cdp.iter().find(|c| parse_cdp(c).is_none()) {
        return crate::args::usage(format!(
            "--cdp {bad:?} is not a CDP endpoint (a port, host:port, or an http, https, ws or wss URL)"
        ));
    }
    // Read as `check` and the proxy read them (`Origin::parse_extra`).
    for origin in &origins {
        if let Err(e) = Origin::parse_extra(origin) {
            return crate::args::usage(format!(
                "--origin {origin:?}: {e} (expected scheme://host[:port], such as \
                 http://127.0.0.1:5710)"
            ));
        }
    }
    let given_cdp = cdp.clone();
    let targets: Vec<_> = cdp.iter().filter_map(|c| parse_cdp(c)).collect();
    let os = Os::current().ok_or("list runs on macOS, Linux and Windows only")?;
    let host = SystemHost::new();
    let mut options = Options::new(os);
    options.cdp = cdp;
    options.origins = origins;
    let mode = std::env::var("SLICC_DISCOVERY").unwrap_or_default();
    let (sources, with_installed) = match mode.as_str() {
        "" => (Sources::ALL, true),
        "isolated" => (
            Sources {
                flag: true,
                ..Sources::NONE
            },
            false,
        ),
        "installed" => (
            Sources {
                flag: true,
                ..Sources::NONE
            },
            true,
        ),
        "home" => {
            let home = Sources {
                flag: true,
                user_data_dirs: true,
                seven_profiles: true,
                six: true,
                ..Sources::NONE
            };
            (home, true)
        }
        other => {
            return Err(format!(
                "SLICC_DISCOVERY={other:?} is not one of isolated, installed, home"
            ))
        }
    };
    options.sources = sources;
    if with_installed {
        options.installed = installed::scan(&host, os);
    }
    let output = discover(&host, &options);
    // Discovery lists what answered; an endpoint the user named that is not among them is said
    // on stderr (the list itself still prints: the other browsers are there).
    for (given, target) in given_cdp.iter().zip(&targets) {
        let listed = output
            .entries
            .iter()
            .filter_map(|e| e.endpoint.as_ref())
            .filter_map(|e| parse_cdp(&e.cdp))
            .any(|t| t.host == target.host && t.port == target.port);
        if !listed {
            eprintln!(
                "list: --cdp {}: no CDP endpoint answered at {}://{}:{} (is a browser running \
                 there with --remote-debugging-port={}?)",
                printable(given),
                target.scheme,
                if target.host.contains(':') {
                    format!("[{}]", printable(&target.host))
                } else {
                    printable(&target.host)
                },
                target.port,
                target.port
            );
        }
    }
    if json {
        let text = serde_json::to_string_pretty(&output).map_err(|e| e.to_string())?;
        outln!("{text}")?;
    } else {
        out!("{}", table(&output))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Where an entry was found: the source and dir of an endpoint, the path of an install.
fn found(entry: &Entry) -> String {
    if let Some(e) = &entry.endpoint {
        let mut text = format!("{} {}", e.source.as_str(), e.cdp);
        if let Some(dir) = e.user_data_dir.as_deref() {
            text.push_str(&format!(" ({dir})"));
        }
        if e.six {
            text.push_str(" [six]");
        }
        if e.ws_only {
            text.push_str(" [ws only]");
        }
        if e.seven_open {
            text.push_str(&format!(" [{} seven tab(s)]", e.seven_tabs.len()));
        }
        return text;
    }
    match &entry.installed {
        Some(i) => match &i.via {
            Some(via) => format!("{} ({via})", i.path),
            None => i.path.clone(),
        },
        None => String::new(),
    }
}

/// `text` with each control character written as a Rust escape (`\u{1b}`): what discovery
/// read from endpoints and the process list (a product name, a version, a dir) is any
/// process's to choose, and must not reach the terminal as escape sequences.
fn printable(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// The ranked list as an aligned table (control characters escaped: [`printable`]).
fn table(output: &Output) -> String {
    if output.entries.is_empty() {
        return "no browsers found\n".into();
    }
    let header = ["TIER", "ID", "NAME", "VERSION", "FOUND"].map(String::from);
    let rows: Vec<[String; 5]> = output
        .entries
        .iter()
        .map(|e| {
            [
                e.tier.to_string(),
                printable(&e.id),
                printable(&e.name),
                printable(e.version.as_deref().unwrap_or("-")),
                printable(&found(e)),
            ]
        })
        .collect();
    let mut widths = [0usize; 5];
    for row in std::iter::once(&header).chain(&rows) {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in std::iter::once(&header).chain(&rows) {
        let mut line = String::new();
        for (i, cell) in row.iter().enumerate() {
            if i + 1 == row.len() {
                line.push_str(cell);
            } else {
                line.push_str(&format!("{cell:<w$}  ", w = widths[i]));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}
