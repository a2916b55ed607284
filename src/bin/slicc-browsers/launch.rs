//! `slicc-browsers launch [--browser <id>] [--profile <name>] [--headless] [--json]`.

use std::process::ExitCode;

use slicc_browsers::catalog::Os;
use slicc_browsers::discovery::{self, installed, Entry, Installed, Options, Sources, SystemHost};
use slicc_browsers::launch::{self, Executable, LaunchRequest, Via};
use slicc_browsers::Catalog;

use crate::args::Args;

/// The seven profile used when `--profile` is not given.
const DEFAULT_PROFILE: &str = "default";

/// Launches a browser for seven and prints its endpoint.
pub fn run(mut args: Args) -> Result<ExitCode, String> {
    let browser = args.value("--browser")?;
    let profile = args
        .value("--profile")?
        .unwrap_or_else(|| DEFAULT_PROFILE.to_string());
    let headless = args.flag("--headless");
    let as_json = args.flag("--json");
    args.finish()?;

    let catalog = slicc_browsers::shared_catalog();
    let os = Os::current().ok_or("this OS is not one the catalog describes")?;
    let mut request = LaunchRequest::new(profile);
    request.executable = Some(choose(catalog, os, browser.as_deref())?);
    request.options.headless = headless;
    if running_as_root() {
        // Chromium refuses to start as root with its sandbox on.
        eprintln!("slicc-browsers: running as root: adding --no-sandbox");
        request.options.extra_args.push("--no-sandbox".into());
    }
    let launched = launch::launch(catalog, &request).map_err(|e| e.to_string())?;
    match &launched.child {
        Some(child) => eprintln!(
            "slicc-browsers: launched {} ({}, pid {}) in {}",
            launched.executable.browser,
            launched.executable.program,
            child.id(),
            launched.profile.dir()
        ),
        None => eprintln!(
            "slicc-browsers: {} already serves CDP in {}",
            launched.executable.browser,
            launched.profile.dir()
        ),
    }

    let entry = endpoint_entry(os, launched.active_port.port)?;
    let endpoint = entry.endpoint.as_ref().ok_or("an endpoint entry")?;
    if as_json {
        let text = serde_json::to_string_pretty(&entry).map_err(|e| e.to_string())?;
        println!("{text}");
    } else {
        println!("cdp {}", endpoint.cdp);
        println!("webSocketDebuggerUrl {}", endpoint.web_socket_debugger_url);
    }
    Ok(ExitCode::SUCCESS)
}

/// The browser to launch: `--browser`'s, else the best installed Chromium browser by the
/// ranking (Chrome, then the others in catalog priority order), from discovery's installed
/// scan. The launch module's resolution gives the command; an install only discovery finds
/// (through a desktop file, say) runs its recorded executable.
fn choose(catalog: &Catalog, os: Os, browser: Option<&str>) -> Result<Executable, String> {
    if let Some(id) = browser {
        if let Some(exe) = launch::find_executable(catalog, id).map_err(|e| e.to_string())? {
            return Ok(exe);
        }
    }
    let found = installed::scan(&SystemHost::new(), os);
    let ranked = discovery::rank(catalog, Vec::new(), &found);
    let record = ranked
        .entries
        .into_iter()
        .filter_map(|e| e.installed)
        .find(|r| {
            r.engine == "chromium"
                && catalog.browser(&r.id).is_some()
                && browser.is_none_or(|id| r.id == id)
        })
        .ok_or_else(|| match browser {
            Some(id) => format!("{id} is not installed"),
            None => "no Chromium browser of the catalog is installed".to_string(),
        })?;
    match launch::find_executable(catalog, &record.id).map_err(|e| e.to_string())? {
        Some(exe) => Ok(exe),
        None => Ok(from_record(&record, os)),
    }
}

/// The command of an installed record (its executable: a flatpak's is its exported launcher).
fn from_record(record: &Installed, os: Os) -> Executable {
    let via = match (record.via.as_deref(), os) {
        (Some("snap"), _) => Via::Snap,
        (Some("flatpak"), _) => Via::Flatpak,
        (_, Os::Macos) => Via::Bundle,
        (_, Os::Windows) => Via::WindowsRoot,
        (_, Os::Linux) => Via::Path,
    };
    Executable {
        browser: record.id.clone(),
        program: record.executable.clone(),
        args: Vec::new(),
        via,
    }
}

/// The launched browser's output-schema-1 entry, as discovery lists it from the seven
/// profile roots.
fn endpoint_entry(os: Os, port: u16) -> Result<Entry, String> {
    let mut options = Options::new(os);
    options.sources = Sources {
        seven_profiles: true,
        ..Sources::NONE
    };
    let id = format!("cdp:127.0.0.1:{port}");
    discovery::discover(&SystemHost::new(), &options)
        .entries
        .into_iter()
        .find(|e| e.id == id)
        .ok_or_else(|| format!("discovery does not list {id} in the seven profiles"))
}

/// Whether this process runs as root on Linux (effective uid 0, from `/proc/self/status`).
fn running_as_root() -> bool {
    if std::env::consts::OS != "linux" {
        return false;
    }
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else {
        return false;
    };
    status
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))
        .and_then(|ids| ids.split_whitespace().nth(1))
        == Some("0")
}
