//! A headless Chromium of the harness's own ([`Chromium`]): a temporary profile,
//! `--remote-debugging-port=0`, the stand-in's hosts mapped onto one loopback port, the flags
//! that keep it quiet and its background tabs at full speed, and its whole process group killed
//! (its profile removed) on drop or by [`kill_launched`]. The self-test, certify, the benches and
//! the tests that drive Chromium launch it from here; [`super::selftest`] re-exports it under its
//! 1.x paths.

use std::io;
use std::path::{Path, PathBuf};
use std::process::{Child, ExitStatus};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::runner::drive;
use crate::chromium_features::merge;
use crate::sys::running_as_root;

/// Debian's Chromium.
pub const CHROMIUM: &str = "/usr/bin/chromium";

/// The features the self-test's Chromium runs without: HTTPS upgrades (each `http://` host
/// would first get a TLS ClientHello), HTTPS-first modes, and the local-network-access checks
/// (every stand-in host resolves to 127.0.0.1), as seven's own launch does.
pub const DISABLED_FEATURES: [&str; 5] = [
    "HttpsUpgrades",
    "HttpsFirstBalancedModeAutoEnable",
    "HttpsFirstModeV2ForTypicallySecureUsers",
    "LocalNetworkAccessChecks",
    "LocalNetworkAccessChecksWebSockets",
];

/// The browser UI the harness's Chromium runs without: the omnibox popup's WebUI pages
/// (`chrome://omnibox-popup.top-chrome/` and its AI-mode page), which Chromium 156 preloads for
/// every browser context as two `browser_ui` targets in a renderer of their own. A headless
/// browser never shows them, and their start was about half of the CPU a guard-vector row
/// costs, since every leg runs in a new context (docs/performance.md). A test that wants the
/// browser as a user has it (a lived-in browser) enables them again: see
/// [`Chromium::launch_with`].
pub const BROWSER_UI_FEATURES: [&str; 2] = ["WebUIOmniboxPopup", "WebUIOmniboxAimPopup"];

/// Switches that keep background tabs and timers running at full speed (seven's own).
pub const BACKGROUND_FLAGS: [&str; 3] = [
    "--disable-background-timer-throttling",
    "--disable-backgrounding-occluded-windows",
    "--disable-renderer-backgrounding",
];

/// Switches that keep a headless Chromium quiet on a closed network.
pub const QUIET_FLAGS: [&str; 5] = [
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
];

const DISABLE_FEATURES: &str = "--disable-features=";
const ENABLE_FEATURES: &str = "--enable-features=";

/// The one `--disable-features=` switch of a launch with `flags`: the harness's features
/// without those `flags` enable, then those `flags` disable.
fn disable_features(flags: &[&str]) -> String {
    let listed = |prefix: &'static str| flags.iter().filter_map(move |f| f.strip_prefix(prefix));
    let enabled = merge(listed(ENABLE_FEATURES));
    let features = merge(
        DISABLED_FEATURES
            .into_iter()
            .chain(BROWSER_UI_FEATURES)
            .filter(|f| !enabled.iter().any(|e| e == f))
            .chain(listed(DISABLE_FEATURES)),
    );
    format!("{DISABLE_FEATURES}{}", features.join(","))
}

/// Why [`Chromium::launch`] gave no browser.
#[derive(Debug)]
#[non_exhaustive]
pub enum ChromiumError {
    /// The temporary profile directory could not be made.
    ProfileDir {
        /// The directory.
        dir: PathBuf,
        /// The system's error.
        source: io::Error,
    },
    /// The program could not be started.
    Spawn {
        /// The program.
        program: String,
        /// The system's error.
        source: io::Error,
    },
    /// The browser exited before it served CDP.
    Exited {
        /// The program.
        program: String,
        /// How it exited.
        status: ExitStatus,
    },
    /// The browser did not serve CDP within the wait.
    NoCdp {
        /// The program.
        program: String,
        /// The wait.
        waited: Duration,
    },
}

impl std::fmt::Display for ChromiumError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ChromiumError::ProfileDir { dir, source } => {
                write!(
                    f,
                    "cannot create the profile dir {}: {source}",
                    dir.display()
                )
            }
            ChromiumError::Spawn { program, source } => {
                write!(f, "cannot start {program}: {source}")
            }
            ChromiumError::Exited { program, status } => {
                write!(f, "{program} exited ({status}) before serving CDP")
            }
            ChromiumError::NoCdp { program, waited } => {
                write!(
                    f,
                    "{program} did not serve CDP within {}s",
                    waited.as_secs()
                )
            }
        }
    }
}

impl std::error::Error for ChromiumError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ChromiumError::ProfileDir { source, .. } | ChromiumError::Spawn { source, .. } => {
                Some(source)
            }
            ChromiumError::Exited { .. } | ChromiumError::NoCdp { .. } => None,
        }
    }
}

/// Callers that report errors as text (`?` into `Result<_, String>`) keep working.
impl From<ChromiumError> for String {
    fn from(e: ChromiumError) -> String {
        e.to_string()
    }
}

/// A headless Chromium in a temporary profile, killed (its whole process group) and its profile
/// removed on drop.
pub struct Chromium {
    child: Option<Child>,
    dir: PathBuf,
    ws_url: String,
}

impl std::fmt::Debug for Chromium {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Chromium")
            .field("pid", &self.child.as_ref().map(Child::id))
            .field("dir", &self.dir)
            .field("ws_url", &self.ws_url)
            .finish()
    }
}

impl Chromium {
    /// Launches `program` headless, with every host of `hosts` resolved to
    /// `127.0.0.1:<port>`, and waits (30 s at most) until it serves CDP. The profile is a new
    /// temporary folder, and so is the browser's `HOME` (inside it, with the `XDG_*` folders
    /// unset): its default downloads, caches and settings stay out of the user's.
    pub fn launch(program: &str, hosts: &[&str], port: u16) -> Result<Chromium, ChromiumError> {
        Chromium::launch_with(program, hosts, port, &[])
    }

    /// [`Chromium::launch`] with `flags` added to the browser's command line (after the
    /// harness's own, so that a flag given twice takes this value). Features are the
    /// exception, since Chromium reads only the last `--disable-features=`: the features of a
    /// `--disable-features=` in `flags` join the harness's ([`DISABLED_FEATURES`],
    /// [`BROWSER_UI_FEATURES`]) in its one switch, and a feature a `--enable-features=` in
    /// `flags` names is taken off that list (Chromium keeps a feature both lists name
    /// disabled).
    pub fn launch_with(
        program: &str,
        hosts: &[&str],
        port: u16,
        flags: &[&str],
    ) -> Result<Chromium, ChromiumError> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let dir = std::env::temp_dir().join(format!(
            "slicc-guard-selftest-{}-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed),
            drive::now_ms()
        ));
        // Made and registered under the lock, so that an interrupt ([`kill_launched`]) either
        // sees the folder or stops its making: none outlives the run.
        {
            let mut launched = crate::sys::lock(&LAUNCHED);
            if STOPPING.load(Ordering::SeqCst) {
                return Err(ChromiumError::ProfileDir {
                    dir,
                    source: io::Error::new(io::ErrorKind::Interrupted, "the run is being stopped"),
                });
            }
            std::fs::create_dir_all(&dir).map_err(|source| ChromiumError::ProfileDir {
                dir: dir.clone(),
                source,
            })?;
            launched.push((0, dir.clone()));
        }
        // From here on, dropping it (on any error below) removes the folder.
        let mut browser = Chromium {
            child: None,
            dir,
            ws_url: String::new(),
        };
        let dir = browser.dir.clone();
        let rules = hosts
            .iter()
            .map(|h| format!("MAP {h} 127.0.0.1:{port}"))
            .collect::<Vec<_>>()
            .join(",");
        let mut extra: Vec<String> = QUIET_FLAGS.iter().map(|s| s.to_string()).collect();
        extra.push(format!("--host-resolver-rules={rules}"));
        // The stand-in is plain HTTP; the protected origins are secure contexts in real life
        // (https), and permissions such as geolocation are only granted to secure contexts.
        let secure = hosts
            .iter()
            .map(|h| format!("http://{h}"))
            .collect::<Vec<_>>()
            .join(",");
        extra.push(format!(
            "--unsafely-treat-insecure-origin-as-secure={secure}"
        ));
        if running_as_root() {
            extra.push("--no-sandbox".into());
        }
        let mut argv: Vec<String> = [
            "--remote-debugging-port=0",
            "--no-first-run",
            "--no-default-browser-check",
            "--headless=new",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        argv.push(format!("--user-data-dir={}", dir.display()));
        argv.extend(BACKGROUND_FLAGS.iter().map(|s| s.to_string()));
        argv.push(disable_features(flags));
        argv.extend(extra);
        argv.extend(
            flags
                .iter()
                .filter(|f| !f.starts_with(DISABLE_FEATURES))
                .map(|f| f.to_string()),
        );
        // A home of its own inside the profile: Chromium's default download folder, its
        // `~/.config` and `~/.cache` (and an NSS database) are the user's otherwise, and a
        // download that lands after a client let go of the browser (Chromium then goes back
        // to its default, `~/Downloads` on Linux) would be written there.
        let home = dir.join("home");
        // And a temporary folder of its own: Chromium makes its singleton socket's folder
        // (`org.chromium.Chromium.*`) there, which a killed browser leaves behind.
        let tmp = dir.join("tmp");
        for made in [&home, &tmp] {
            std::fs::create_dir_all(made).map_err(|source| ChromiumError::ProfileDir {
                dir: made.clone(),
                source,
            })?;
        }
        let mut command = std::process::Command::new(program);
        command
            .args(&argv)
            .env("HOME", &home)
            .env("TMPDIR", &tmp)
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("XDG_CACHE_HOME")
            .env_remove("XDG_DATA_HOME")
            .env_remove("XDG_DOWNLOAD_DIR")
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            // Its own process group, so that the whole group can be killed at the end.
            command.process_group(0);
        }
        let child = command.spawn().map_err(|source| ChromiumError::Spawn {
            program: program.to_string(),
            source,
        })?;
        let pid = child.id();
        browser.child = Some(child);
        let interrupted = match crate::sys::lock(&LAUNCHED)
            .iter_mut()
            .find(|(_, d)| *d == dir)
        {
            Some(entry) => {
                entry.0 = pid;
                false
            }
            None => true,
        };
        if interrupted {
            // Stopped meanwhile: dropping `browser` kills this one and removes its folder.
            return Err(ChromiumError::ProfileDir {
                dir,
                source: io::Error::new(io::ErrorKind::Interrupted, "the run is being stopped"),
            });
        }
        browser.ws_url = browser.wait_for_cdp(program, Duration::from_secs(30))?;
        Ok(browser)
    }

    /// Waits until the profile's `DevToolsActivePort` names the browser's endpoint: its
    /// WebSocket URL. Fails when the browser exits first or `timeout` passes.
    fn wait_for_cdp(&mut self, program: &str, timeout: Duration) -> Result<String, ChromiumError> {
        let file = self.dir.join("DevToolsActivePort");
        let started = Instant::now();
        loop {
            let text = std::fs::read_to_string(&file).unwrap_or_default();
            if let Some(active) = crate::catalog::ActivePort::parse(&text) {
                return Ok(active.websocket_url());
            }
            if let Some(child) = self.child.as_mut() {
                if let Ok(Some(status)) = child.try_wait() {
                    return Err(ChromiumError::Exited {
                        program: program.to_string(),
                        status,
                    });
                }
            }
            if started.elapsed() >= timeout {
                return Err(ChromiumError::NoCdp {
                    program: program.to_string(),
                    waited: timeout,
                });
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The browser's temporary profile (its `--user-data-dir`), removed on drop.
    pub fn profile_dir(&self) -> &std::path::Path {
        &self.dir
    }

    /// The browser's CDP WebSocket URL.
    pub fn ws_url(&self) -> &str {
        &self.ws_url
    }

    /// The browser's DevTools HTTP endpoint, `http://127.0.0.1:<port>` (where `/json/version`
    /// is served).
    pub fn http_url(&self) -> String {
        let authority = self
            .ws_url
            .strip_prefix("ws://")
            .and_then(|rest| rest.split('/').next())
            .unwrap_or_default();
        format!("http://{authority}")
    }

    /// Kills the browser's process group and removes its profile (what drop does).
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            kill_group(child.id());
            let _ = child.kill();
            let _ = child.wait();
        }
        if !self.dir.as_os_str().is_empty() {
            crate::sys::lock(&LAUNCHED).retain(|(_, dir)| *dir != self.dir);
            remove_profile(&self.dir);
        }
    }
}

/// The browsers [`Chromium::launch`] started and nothing has killed yet: process group (0 while
/// the browser is being started) and profile dir.
static LAUNCHED: Mutex<Vec<(u32, PathBuf)>> = Mutex::new(Vec::new());

/// Set by [`kill_launched`]: no new profile is made after it.
static STOPPING: AtomicBool = AtomicBool::new(false);

/// Removes a profile folder, trying again for up to a second: the processes of a browser just
/// killed can still be writing into it, so one pass can leave a file (and the folder) behind.
fn remove_profile(dir: &Path) {
    for _ in 0..20 {
        let _ = std::fs::remove_dir_all(dir);
        if !dir.exists() {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Kills the process group `pid` leads: a browser started with `process_group(0)`, so its
/// renderers and zygotes go with it.
fn kill_group(pid: u32) {
    #[cfg(unix)]
    if let Some(group) = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    {
        // Already gone is fine: the group may have exited on its own.
        let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
    }
    #[cfg(not(unix))]
    let _ = pid;
}

/// Kills every browser [`Chromium::launch`] started in this process that is still running
/// (its process group) and removes its profile; returns how many. For a program about to exit
/// on a signal (Ctrl-C), where no destructor runs: each browser leads its own process group,
/// so the terminal's interrupt does not reach it.
pub fn kill_launched() -> usize {
    let launched = {
        let mut list = crate::sys::lock(&LAUNCHED);
        STOPPING.store(true, Ordering::SeqCst);
        std::mem::take(&mut *list)
    };
    for (pid, _) in &launched {
        kill_group(*pid);
    }
    for (_, dir) in &launched {
        remove_profile(dir);
    }
    launched.iter().filter(|(pid, _)| *pid != 0).count()
}

impl Drop for Chromium {
    fn drop(&mut self) {
        self.kill();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn features(switch: &str) -> Vec<&str> {
        switch
            .strip_prefix(DISABLE_FEATURES)
            .expect("the switch")
            .split(',')
            .collect()
    }

    #[test]
    fn the_harness_disables_its_features_and_the_browser_ui() {
        let all: Vec<&str> = DISABLED_FEATURES
            .into_iter()
            .chain(BROWSER_UI_FEATURES)
            .collect();
        assert_eq!(features(&disable_features(&[])), all);
        assert_eq!(
            features(&disable_features(&["--remote-allow-origins=*"])),
            all
        );
    }

    #[test]
    fn flags_enable_the_browser_ui_again_and_add_features_to_the_one_switch() {
        let ui = format!("{ENABLE_FEATURES}{}", BROWSER_UI_FEATURES.join(","));
        let got = disable_features(&[&ui, "--disable-features=Translate,HttpsUpgrades,"]);
        let mut want: Vec<&str> = DISABLED_FEATURES.to_vec();
        want.push("Translate");
        assert_eq!(features(&got), want);
        // One of the two alone: only that one is taken off.
        let one = disable_features(&["--enable-features=WebUIOmniboxAimPopup,Other"]);
        assert!(features(&one).contains(&"WebUIOmniboxPopup"));
        assert!(!features(&one).contains(&"WebUIOmniboxAimPopup"));
    }
}
