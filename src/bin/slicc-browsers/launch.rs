//! `slicc-browsers launch [--browser <id>] [--profile <name>] [--headless] [--json]`.

use std::process::ExitCode;

use slicc_browsers::catalog::Os;
use slicc_browsers::launch::{self, LaunchRequest};

use crate::args::Args;
use crate::output::outln;

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
    request.executable =
        Some(launch::choose_here(catalog, browser.as_deref()).map_err(|e| e.to_string())?);
    request.options.headless = headless;
    if launch::running_as_root() {
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

    let entry = launch::listed_entry(os, launched.active_port.port).map_err(|e| e.to_string())?;
    let endpoint = entry.endpoint.as_ref().ok_or("an endpoint entry")?;
    if as_json {
        let text = serde_json::to_string_pretty(&entry).map_err(|e| e.to_string())?;
        outln!("{text}")?;
    } else {
        outln!("cdp {}", endpoint.cdp)?;
        outln!("webSocketDebuggerUrl {}", endpoint.web_socket_debugger_url)?;
    }
    Ok(ExitCode::SUCCESS)
}
