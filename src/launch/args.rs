//! The command-line arguments of a launch for seven: Chromium's and an Electron app's.

use crate::catalog::Catalog;

use super::Error;

/// What the caller adds to a Chromium launch.
///
/// ```
/// use slicc_browsers::launch::{chromium_args, ChromiumOptions};
/// let cat = slicc_browsers::shared_catalog();
/// let options = ChromiumOptions::new().headless(true).extra_args(["--no-sandbox"]);
/// let argv = chromium_args(cat, "/tmp/p", &options).unwrap();
/// assert_eq!(argv[0], "--remote-debugging-port=0");
/// assert!(argv.contains(&"--user-data-dir=/tmp/p".to_string()));
/// assert_eq!(argv[argv.len() - 2], "--headless=new");
/// assert_eq!(argv[argv.len() - 1], "--no-sandbox");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ChromiumOptions {
    /// Add `launch.headless` (`--headless=new`).
    pub headless: bool,
    /// Features to disable besides the catalog's `seven.disabledFeatures`.
    pub disabled_features: Vec<String>,
    /// Switches appended after the catalog's; any `--disable-features=` among them is merged
    /// into the one such switch.
    pub extra_args: Vec<String>,
}

impl ChromiumOptions {
    /// No headless, no extra features, no extra switches.
    pub fn new() -> ChromiumOptions {
        ChromiumOptions::default()
    }

    /// Sets whether the launch is headless.
    pub fn headless(mut self, headless: bool) -> ChromiumOptions {
        self.headless = headless;
        self
    }

    /// Adds features to disable (each may be a comma-separated list).
    pub fn disabled_features<I, S>(mut self, features: I) -> ChromiumOptions
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.disabled_features
            .extend(features.into_iter().map(Into::into));
        self
    }

    /// Adds switches to append after the catalog's.
    pub fn extra_args<I, S>(mut self, args: I) -> ChromiumOptions
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.extra_args.extend(args.into_iter().map(Into::into));
        self
    }
}

/// The argv (without the program) of a Chromium browser in `profile_dir`, for seven.
///
/// In order: `launch.chromiumArgs` with `{profile}` replaced by the dir, `seven.switches`,
/// one `launch.disableFeaturesFlag` switch with `seven.disabledFeatures` and the caller's
/// features merged (first occurrence kept, in that order), `launch.headless` when asked, then
/// the caller's other switches. A caller's switch that `chromiumArgs` already sets is dropped
/// when it is the same, and refused with [`Error::ConflictingSwitch`] when its value differs
/// (another profile or debugging port): Chromium would take the last one.
pub fn chromium_args(
    catalog: &Catalog,
    profile_dir: &str,
    options: &ChromiumOptions,
) -> Result<Vec<String>, Error> {
    let launch = &catalog.launch;
    let features_flag = launch.disable_features_flag.as_str();
    let own: Vec<String> = launch
        .chromium_args
        .iter()
        .map(|a| a.replace("{profile}", profile_dir))
        .collect();

    let mut extra = Vec::new();
    let mut caller_features: Vec<&str> = options
        .disabled_features
        .iter()
        .map(String::as_str)
        .collect();
    for arg in &options.extra_args {
        if let Some(list) = arg.strip_prefix(features_flag) {
            caller_features.push(list);
        } else if own.contains(arg) {
            // The same switch with the same value: already there.
        } else if own.iter().any(|a| switch_name(a) == switch_name(arg)) {
            return Err(Error::ConflictingSwitch { arg: arg.clone() });
        } else {
            extra.push(arg.clone());
        }
    }

    let mut argv = own;
    argv.extend(catalog.seven.switches.iter().cloned());
    let features = merge_features(
        catalog
            .seven
            .disabled_features
            .iter()
            .map(String::as_str)
            .chain(caller_features),
    );
    if !features.is_empty() {
        argv.push(format!("{features_flag}{}", features.join(",")));
    }
    if options.headless {
        argv.push(launch.headless.clone());
    }
    argv.extend(extra);
    Ok(argv)
}

/// Feature names from comma-separated lists, trimmed, without empty names and duplicates,
/// in the order first seen.
///
/// ```
/// let merged = slicc_browsers::launch::merge_features(["A,B", " B , C,", "A"]);
/// assert_eq!(merged, ["A", "B", "C"]);
/// ```
pub fn merge_features<'a, I>(lists: I) -> Vec<String>
where
    I: IntoIterator<Item = &'a str>,
{
    crate::chromium_features::merge(lists)
}

/// The switch a command-line argument sets: `--name` of `--name=value`.
fn switch_name(arg: &str) -> &str {
    arg.split_once('=').map_or(arg, |(name, _)| name)
}

/// An Electron app's launch: its debugging port and the arguments that set it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ElectronArgs {
    /// The port the app will serve CDP on.
    pub port: u16,
    /// `launch.electron.portFlag` with the port filled in.
    pub args: Vec<String>,
}

/// The arguments of the Electron app `app_name`: `launch.electron.portFlag` with the first port
/// from `minPort` up that is neither in `reservedPorts` nor `taken(port)`.
///
/// An app in `electron.debugBlocked` is refused with [`Error::DebugBlocked`]. This pure form
/// asks the caller which ports are taken; `launch::free_electron_port` (not on WASI) also
/// checks with a bind on `127.0.0.1`.
///
/// ```
/// use slicc_browsers::launch::{electron_args, Error};
/// let cat = slicc_browsers::shared_catalog();
/// let free = electron_args(cat, "Slack", &|_| false).unwrap();
/// assert!(!cat.launch.electron.reserved_ports.contains(&free.port));
/// assert!(matches!(electron_args(cat, "1Password", &|_| false), Err(Error::DebugBlocked { .. })));
/// ```
pub fn electron_args(
    catalog: &Catalog,
    app_name: &str,
    taken: &dyn Fn(u16) -> bool,
) -> Result<ElectronArgs, Error> {
    if catalog.electron.is_debug_blocked(app_name) {
        return Err(Error::DebugBlocked {
            app: app_name.to_string(),
        });
    }
    let port = first_free_port(catalog, taken)?;
    let flag = catalog
        .launch
        .electron
        .port_flag
        .replace("{port}", &port.to_string());
    Ok(ElectronArgs {
        port,
        args: vec![flag],
    })
}

/// The first port from `launch.electron.minPort` up that is not reserved nor `taken`.
pub fn first_free_port(catalog: &Catalog, taken: &dyn Fn(u16) -> bool) -> Result<u16, Error> {
    let electron = &catalog.launch.electron;
    (electron.min_port..=u16::MAX)
        .find(|p| *p != 0 && !electron.reserved_ports.contains(p) && !taken(*p))
        .ok_or(Error::NoFreePort {
            min_port: electron.min_port,
        })
}
