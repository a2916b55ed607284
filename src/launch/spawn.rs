//! The real-machine side of a launch (not on WASI): this machine's environment and file
//! system, free ports, starting the browser, waiting for its DevToolsActivePort and asking
//! its DevTools HTTP endpoint.

use std::net::{Ipv4Addr, TcpListener};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::catalog::Catalog;
use crate::catalog::{ActivePort, Os};
use crate::http::Request;

use super::{
    chromium_args, electron_args, installed_executables, resolve_executable, ChromiumOptions,
    ElectronArgs, Error, Executable, SevenProfile,
};

/// This process's environment variable `name` (`None` when unset or not Unicode).
pub fn system_env(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

/// This user's home dir: [`catalog::home_dir`](crate::catalog::home_dir) for this machine's
/// OS (`USERPROFILE` on Windows, `HOME` elsewhere), the same rule discovery's `SystemHost` uses.
pub fn system_home() -> Option<String> {
    crate::catalog::home_dir(Os::current().unwrap_or(Os::Linux), &system_env)
}

/// Whether `path` exists on this machine's file system.
pub fn path_exists(path: &str) -> bool {
    Path::new(path).exists()
}

/// `browser`'s executable on this machine ([`resolve_executable`] with the real environment
/// and file system), or `None` when it is not installed or the OS is not one the catalog knows.
pub fn find_executable(catalog: &Catalog, browser_id: &str) -> Result<Option<Executable>, Error> {
    let browser = catalog
        .browser(browser_id)
        .ok_or_else(|| Error::UnknownBrowser {
            id: browser_id.to_string(),
        })?;
    let (os, home) = machine()?;
    let env = system_env;
    Ok(resolve_executable(
        catalog,
        browser,
        os,
        &home,
        &env,
        &path_exists,
    ))
}

/// Every catalog browser installed on this machine, `rank.chromeId` first, then in catalog
/// priority order ([`installed_executables`] with the real environment and file system).
pub fn find_installed(catalog: &Catalog) -> Result<Vec<Executable>, Error> {
    let (os, home) = machine()?;
    let env = system_env;
    Ok(installed_executables(
        catalog,
        os,
        &home,
        &env,
        &path_exists,
    ))
}

/// The OS and home dir of this machine.
fn machine() -> Result<(Os, String), Error> {
    let os = Os::current().ok_or_else(|| Error::NoLocation {
        what: format!("a catalog OS for {}", std::env::consts::OS),
    })?;
    let home = system_home().ok_or_else(|| Error::NoLocation {
        what: "the home dir (HOME, or USERPROFILE on Windows, is not set)".into(),
    })?;
    Ok((os, home))
}

/// Whether a TCP port can be bound on `127.0.0.1` right now.
pub fn port_is_free(port: u16) -> bool {
    TcpListener::bind((Ipv4Addr::LOCALHOST, port)).is_ok()
}

/// [`electron_args`] for this machine: a port that is not reserved, not in `taken`, and that
/// binds on `127.0.0.1`.
pub fn electron_args_here(
    catalog: &Catalog,
    app_name: &str,
    taken: &[u16],
) -> Result<ElectronArgs, Error> {
    electron_args(catalog, app_name, &|p| {
        taken.contains(&p) || !port_is_free(p)
    })
}

/// Starts `command` (program first) detached from this process's terminal: no stdin, output
/// discarded, and on Unix in a process group of its own, so a Ctrl-C aimed at the caller does
/// not reach the browser.
pub fn spawn(command: &[String]) -> Result<Child, Error> {
    spawn_with(command, Stdio::null(), Stdio::null())
}

/// The file in a launched browser's profile that holds what it wrote to its standard output
/// and error (new at each launch): a browser that exits before serving CDP says why there
/// (`Missing X server or $DISPLAY`), and the launch error quotes its last lines.
pub const LAUNCH_LOG: &str = "slicc-launch.log";

/// [`spawn`], with the browser's standard output and error written to the file `log`
/// (created, or emptied first).
pub fn spawn_logged(command: &[String], log: &Path) -> Result<Child, Error> {
    let file = std::fs::File::create(log)
        .map_err(|e| Error::io(log.display().to_string(), "create", &e))?;
    let copy = file
        .try_clone()
        .map_err(|e| Error::io(log.display().to_string(), "open", &e))?;
    spawn_with(command, Stdio::from(file), Stdio::from(copy))
}

/// Starts `command` detached (see [`spawn`]) with the given standard output and error.
fn spawn_with(command: &[String], stdout: Stdio, stderr: Stdio) -> Result<Child, Error> {
    let Some((program, args)) = command.split_first() else {
        return Err(Error::Spawn {
            program: String::new(),
            message: "empty command".into(),
        });
    };
    let mut cmd = Command::new(program);
    cmd.args(args)
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(stderr);
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    cmd.spawn().map_err(|e| Error::Spawn {
        program: program.clone(),
        message: format!("cannot start: {e}"),
    })
}

/// The profile's live DevTools endpoint: its DevToolsActivePort, when the port answers
/// `/json/version` with a `webSocketDebuggerUrl` whose path is the file's path.
pub fn live_endpoint(
    catalog: &Catalog,
    profile_dir: &Path,
    timeout: Duration,
) -> Option<(ActivePort, Value)> {
    let file = profile_dir.join(&catalog.discovery.active_port_file);
    let text = std::fs::read_to_string(file).ok()?;
    let file = ActivePort::parse(&text)?;
    let version = get_json(file.port, "/json/version", timeout).ok()?;
    let ws = version.get("webSocketDebuggerUrl")?.as_str()?;
    (crate::http::ws_path(ws) == Some(file.path.as_str())).then_some((file, version))
}

/// Waits until the browser in `profile_dir` serves CDP: its DevToolsActivePort is written and
/// live (see [`live_endpoint`]). Fails when `child` exits first or `timeout` passes.
pub fn wait_for_endpoint(
    catalog: &Catalog,
    profile_dir: &Path,
    child: &mut Child,
    timeout: Duration,
) -> Result<(ActivePort, Value), Error> {
    let start = Instant::now();
    let file = profile_dir.join(&catalog.discovery.active_port_file);
    loop {
        if let Some(found) = live_endpoint(catalog, profile_dir, Duration::from_secs(2)) {
            return Ok(found);
        }
        if let Ok(Some(status)) = child.try_wait() {
            // The browser's own words first: they name the cause (no display, a locked
            // profile, a bad flag); without any, the likeliest one.
            let said = last_lines(&profile_dir.join(LAUNCH_LOG), 8);
            let message = if said.is_empty() {
                format!(
                    "exited ({status}) before serving CDP, saying nothing; another browser may \
                     already run in {}",
                    profile_dir.display()
                )
            } else {
                format!(
                    "exited ({status}) before serving CDP; its last words:\n  {}",
                    said.join("\n  ")
                )
            };
            return Err(Error::Spawn {
                program: format!("browser pid {}", child.id()),
                message,
            });
        }
        if start.elapsed() >= timeout {
            return Err(Error::Timeout {
                path: file.display().to_string(),
                waited_ms: u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX),
            });
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The last `n` lines of `file` that are not blank, control characters escaped (a browser's
/// output is not the terminal's to interpret); empty when it cannot be read.
fn last_lines(file: &Path, n: usize) -> Vec<String> {
    let bytes = std::fs::read(file).unwrap_or_default();
    let text = String::from_utf8_lossy(&bytes);
    let lines: Vec<String> = text
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            l.chars()
                .map(|c| match c.is_control() {
                    true => c.escape_default().to_string(),
                    false => c.to_string(),
                })
                .collect::<String>()
        })
        .collect();
    lines[lines.len().saturating_sub(n)..].to_vec()
}

/// The most a DevTools answer may hold: far more than any `/json/version` or `/json/list`.
const MAX_RESPONSE: usize = 16 << 20;

/// `GET http://127.0.0.1:<port><path>` and its body as JSON (status 200 only), through
/// discovery's HTTP client (which reads by length: Chromium keeps connections open).
pub fn get_json(port: u16, path: &str, timeout: Duration) -> Result<Value, Error> {
    let url = format!("http://127.0.0.1:{port}{path}");
    let fail = |message: String| Error::Endpoint {
        url: url.clone(),
        message,
    };
    let request = Request {
        host: Ipv4Addr::LOCALHOST.to_string(),
        port,
        path: path.to_string(),
        limit: MAX_RESPONSE,
    };
    crate::http::get_json(&request, timeout).map_err(|e| fail(e.to_string()))
}

/// A launch for seven on this machine: which browser, which profile, and how.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct LaunchRequest {
    /// The catalog browser id; `None` for `rank.chromeId` when installed, else the first
    /// installed browser in ranking order.
    pub browser: Option<String>,
    /// The executable to run, when the caller has chosen it (such as from discovery's installed
    /// scan); `None` resolves `browser` with [`find_executable`].
    pub executable: Option<Executable>,
    /// The seven profile name.
    pub profile: String,
    /// Chromium options: headless, extra features, extra switches.
    pub options: ChromiumOptions,
    /// Extra seven origins, whose hosts join the discard exceptions.
    pub extra_origins: Vec<String>,
    /// How long to wait for the browser to serve CDP.
    pub timeout: Duration,
}

impl LaunchRequest {
    /// A launch into the seven profile `profile`, of the default browser, with a 30 s timeout.
    pub fn new(profile: impl Into<String>) -> LaunchRequest {
        LaunchRequest {
            browser: None,
            executable: None,
            profile: profile.into(),
            options: ChromiumOptions::new(),
            extra_origins: Vec::new(),
            timeout: Duration::from_secs(30),
        }
    }
}

/// A browser serving CDP in a seven profile.
#[derive(Debug)]
pub struct Launched {
    /// What was run.
    pub executable: Executable,
    /// The profile it runs in.
    pub profile: SevenProfile,
    /// The full command line (empty when the browser was already running).
    pub command: Vec<String>,
    /// The started process; `None` when a browser already served this profile.
    pub child: Option<Child>,
    /// The profile's DevToolsActivePort.
    pub active_port: ActivePort,
    /// `/json/version`'s answer.
    pub version: Value,
}

/// Launches a browser for seven: resolves the executable, makes the seven profile (the snap
/// root for a snap), prepares its Preferences, starts the browser with [`chromium_args`] and
/// waits until its DevToolsActivePort is live. A browser already serving the profile is
/// returned as it is (`child: None`), not started twice.
pub fn launch(catalog: &Catalog, request: &LaunchRequest) -> Result<Launched, Error> {
    let (os, home) = machine()?;
    let env = system_env;
    let executable = match (&request.executable, &request.browser) {
        (Some(executable), _) => executable.clone(),
        (None, Some(id)) => find_executable(catalog, id)?.ok_or_else(|| Error::NotInstalled {
            browser: id.clone(),
        })?,
        (None, None) => {
            find_installed(catalog)?
                .into_iter()
                .next()
                .ok_or_else(|| Error::NotInstalled {
                    browser: "any catalog browser".into(),
                })?
        }
    };
    let profile =
        SevenProfile::for_executable(catalog, &executable, os, &home, &env, &request.profile)?;
    let dir = Path::new(profile.dir());
    if let Some((active_port, version)) = live_endpoint(catalog, dir, Duration::from_secs(2)) {
        return Ok(Launched {
            executable,
            profile,
            command: Vec::new(),
            child: None,
            active_port,
            version,
        });
    }
    profile.prepare_now(catalog, &request.extra_origins)?;
    // A stale file from an earlier run would be read before the browser writes its own.
    let stale = dir.join(&catalog.discovery.active_port_file);
    match std::fs::remove_file(&stale) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(Error::io(stale.display().to_string(), "remove", &e)),
    }
    let argv = chromium_args(catalog, profile.dir(), &request.options)?;
    let command = executable.command(&argv);
    let mut child = spawn_logged(&command, &dir.join(LAUNCH_LOG))?;
    match wait_for_endpoint(catalog, dir, &mut child, request.timeout) {
        Ok((active_port, version)) => Ok(Launched {
            executable,
            profile,
            command,
            child: Some(child),
            active_port,
            version,
        }),
        Err(e) => {
            let _ = child.kill();
            let _ = child.wait();
            Err(e)
        }
    }
}

/// The browser to launch on this machine: [`choose_executable`](super::choose_executable)
/// over discovery's installed scan of this machine and the launch module's own resolution.
pub fn choose_here(catalog: &Catalog, browser: Option<&str>) -> Result<Executable, Error> {
    let (os, _) = machine()?;
    let installed = crate::discovery::installed::scan(&crate::discovery::SystemHost::new(), os);
    let resolve = |id: &str| find_executable(catalog, id).ok().flatten();
    super::choose_executable(catalog, os, browser, &installed, &resolve)
}

/// The output schema 1 entry (`docs/rules.md` §1.3) discovery lists for a browser launched in a seven profile on
/// `port` (discovery's seven-profile source only, on this machine).
pub fn listed_entry(os: Os, port: u16) -> Result<crate::discovery::Entry, Error> {
    use crate::discovery::{discover, Options, Sources, SystemHost};
    let mut options = Options::new(os);
    options.sources = Sources {
        seven_profiles: true,
        ..Sources::NONE
    };
    let id = format!("cdp:127.0.0.1:{port}");
    discover(&SystemHost::new(), &options)
        .entries
        .into_iter()
        .find(|e| e.id == id)
        .ok_or_else(|| Error::Endpoint {
            url: format!("http://127.0.0.1:{port}"),
            message: format!("discovery does not list {id} in the seven profiles"),
        })
}

/// Whether this process runs as root on Linux (effective uid 0, from `/proc/self/status`):
/// Chromium refuses to start as root with its sandbox on, so a caller adds `--no-sandbox`.
pub fn running_as_root() -> bool {
    crate::sys::running_as_root()
}
