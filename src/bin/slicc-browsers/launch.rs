//! `slicc-browsers launch [--browser <id>] [--profile <name>] [--headless] [--json]`.

use std::process::ExitCode;
use std::time::Duration;

use serde_json::{json, Value};
use slicc_browsers::launch::{self, LaunchRequest, Launched};
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
    let mut request = LaunchRequest::new(profile);
    // The default browser is rank.chromeId when installed, else the first installed browser in
    // catalog priority order (launch::find_installed), which is how installed Chromium browsers
    // rank; switch to discovery's installed list once it lands.
    request.browser = browser;
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
    let entry = endpoint_entry(catalog, &launched);
    if as_json {
        let text = serde_json::to_string_pretty(&entry).map_err(|e| e.to_string())?;
        println!("{text}");
    } else {
        let endpoint = &entry["endpoint"];
        println!("cdp {}", endpoint["cdp"].as_str().unwrap_or_default());
        println!(
            "webSocketDebuggerUrl {}",
            endpoint["webSocketDebuggerUrl"]
                .as_str()
                .unwrap_or_default()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The launched browser as an output-schema-1 endpoint entry (source
/// `devtools-active-port`, found in a seven profile).
fn endpoint_entry(catalog: &Catalog, launched: &Launched) -> Value {
    let port = launched.active_port.port;
    let version = &launched.version;
    let text = |key: &str| {
        version
            .get(key)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
    };
    let product = text("Browser");
    let user_agent = text("User-Agent");
    let names = &catalog.discovery.names;
    let name = if user_agent.is_some_and(|ua| ua.contains(&names.electron_user_agent)) {
        names.electron.clone()
    } else if let Some(product) = product {
        let token = product.split('/').next().unwrap_or(product);
        names
            .products
            .get(token)
            .cloned()
            .unwrap_or_else(|| token.to_string())
    } else {
        names.fallback.clone()
    };
    let browser_version = product
        .and_then(|p| p.split_once('/'))
        .map(|(_, v)| v)
        .filter(|v| !v.is_empty());
    let seven_tabs = seven_tabs(catalog, port);
    let seven_open = !seven_tabs.is_empty();

    let mut endpoint = json!({
        "cdp": format!("http://127.0.0.1:{port}"),
        "webSocketDebuggerUrl": text("webSocketDebuggerUrl").map_or_else(
            || launched.active_port.websocket_url(),
            str::to_string,
        ),
        "name": name,
    });
    let fields = endpoint.as_object_mut().expect("a JSON object");
    if let Some(v) = browser_version {
        fields.insert("version".into(), json!(v));
    }
    if let Some(p) = product {
        fields.insert("product".into(), json!(p));
    }
    if let Some(ua) = user_agent {
        fields.insert("userAgent".into(), json!(ua));
    }
    fields.insert("source".into(), json!("devtools-active-port"));
    fields.insert("userDataDir".into(), json!(launched.profile.dir()));
    if let Some(profile) = launched.profile.name() {
        fields.insert("profile".into(), json!(profile));
    }
    fields.insert("sevenOpen".into(), json!(seven_open));
    fields.insert("sevenTabs".into(), Value::Array(seven_tabs));

    let tiers = &catalog.rank.tiers;
    let mut entry = json!({
        "id": format!("cdp:127.0.0.1:{port}"),
        "kind": "endpoint",
        "tier": if seven_open { tiers.seven_open } else { tiers.endpoint },
        "name": name,
    });
    let fields = entry.as_object_mut().expect("a JSON object");
    if let Some(v) = browser_version {
        fields.insert("version".into(), json!(v));
    }
    fields.insert("endpoint".into(), endpoint);
    entry
}

/// The page targets on a seven origin, from `/json/list` (none when it does not answer).
fn seven_tabs(catalog: &Catalog, port: u16) -> Vec<Value> {
    let Ok(Value::Array(targets)) = launch::get_json(port, "/json/list", Duration::from_secs(2))
    else {
        return Vec::new();
    };
    let none: &[&str] = &[];
    targets
        .iter()
        .filter(|t| t.get("type").and_then(Value::as_str) == Some("page"))
        .filter_map(|t| {
            let url = t.get("url")?.as_str()?;
            catalog.is_seven_origin(url, none).then(|| {
                json!({
                    "id": t.get("id").cloned().unwrap_or(Value::Null),
                    "url": url,
                    "title": t.get("title").cloned().unwrap_or(json!("")),
                })
            })
        })
        .collect()
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
