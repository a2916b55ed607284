//! [`SystemHost`]: the real machine, with std only.

use std::collections::BTreeMap;
use std::fs;
use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::host::{DirEntry, FileKind, Host};
use crate::http::{Http, Request};

/// How many requests or connection checks run at once.
const PARALLEL: usize = 32;

/// The largest command output read (the process list of a busy machine included).
const OUTPUT_LIMIT: u64 = 64 * 1024 * 1024;

/// The real machine: its files, its process list, its network.
///
/// [`SystemHost::new`] reads the real environment and home dir. [`SystemHost::isolated`]
/// sees only the home dir and variables it is given, while files, processes and the network
/// stay real: what a test needs to find a browser it started itself and nothing else.
///
/// Every network operation is bounded: a connection attempt by the connect timeout, a whole
/// response by the response timeout, a body by the request's limit.
#[derive(Debug, Clone)]
pub struct SystemHost {
    home: Option<String>,
    env: Option<BTreeMap<String, String>>,
    connect_timeout: Duration,
    response_timeout: Duration,
    command_timeout: Duration,
}

impl Default for SystemHost {
    fn default() -> Self {
        SystemHost::new()
    }
}

impl SystemHost {
    /// The real machine, with the real environment and home dir
    /// ([`catalog::home_dir`](crate::catalog::home_dir): `USERPROFILE` on Windows, `HOME`
    /// elsewhere).
    pub fn new() -> SystemHost {
        let home = crate::catalog::home_dir(
            crate::catalog::Os::current().unwrap_or(crate::catalog::Os::Linux),
            &|name| std::env::var(name).ok(),
        );
        SystemHost {
            home,
            env: None,
            connect_timeout: Duration::from_millis(300),
            response_timeout: Duration::from_millis(1500),
            command_timeout: Duration::from_secs(10),
        }
    }

    /// The real machine seen through this home dir and only these variables.
    pub fn isolated(home: impl Into<String>, env: BTreeMap<String, String>) -> SystemHost {
        SystemHost {
            home: Some(home.into()),
            env: Some(env),
            ..SystemHost::new()
        }
    }

    /// Sets the connect timeout (per address) and the time a whole response may take.
    /// `Duration::MAX` means no limit in effect (a deadline a century away). A zero connect
    /// timeout connects nowhere (`TcpStream::connect_timeout` refuses a zero duration), so
    /// every port reads as [`Http::Refused`](crate::discovery::Http::Refused).
    pub fn with_timeouts(mut self, connect: Duration, response: Duration) -> SystemHost {
        self.connect_timeout = connect;
        self.response_timeout = response;
        self
    }

    /// Runs a command with a timeout, returning its standard output when it succeeds.
    fn command(&self, argv: &[String]) -> Option<String> {
        let (program, args) = argv.split_first()?;
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        let mut stdout = child.stdout.take()?;
        let reader = std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = stdout.by_ref().take(OUTPUT_LIMIT).read_to_end(&mut buf);
            buf
        });
        let deadline = Instant::now() + self.command_timeout;
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break status,
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(5))
                }
                _ => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return None;
                }
            }
        };
        let out = reader.join().ok()?;
        status
            .success()
            .then(|| String::from_utf8_lossy(&out).into_owned())
    }
}

/// Runs `f` over `items` with at most [`PARALLEL`] threads at a time, keeping the order.
fn parallel<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    if items.len() <= 1 {
        return items.iter().map(&f).collect();
    }
    let mut out = Vec::with_capacity(items.len());
    for batch in items.chunks(PARALLEL) {
        std::thread::scope(|s| {
            let handles: Vec<_> = batch.iter().map(|item| s.spawn(|| f(item))).collect();
            for h in handles {
                // A worker only panics on a bug in this crate: pass such a panic on unchanged.
                out.push(h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)));
            }
        });
    }
    out
}

impl Host for SystemHost {
    fn home(&self) -> Option<String> {
        self.home.clone()
    }

    fn env(&self, name: &str) -> Option<String> {
        match &self.env {
            Some(env) => env.get(name).cloned(),
            None => std::env::var(name).ok(),
        }
    }

    fn read_file(&self, path: &str, limit: usize) -> Option<Vec<u8>> {
        // Checked before opening, so a FIFO or device is never opened (that could block).
        let meta = fs::metadata(path).ok()?;
        if !meta.is_file() || meta.len() > limit as u64 {
            return None;
        }
        let mut buf = Vec::new();
        fs::File::open(path)
            .ok()?
            .take(limit as u64 + 1)
            .read_to_end(&mut buf)
            .ok()?;
        (buf.len() <= limit).then_some(buf)
    }

    fn list_dir(&self, path: &str) -> Vec<DirEntry> {
        let Ok(entries) = fs::read_dir(path) else {
            return Vec::new();
        };
        let mut out: Vec<DirEntry> = entries
            .filter_map(|e| {
                let e = e.ok()?;
                let name = e.file_name().into_string().ok()?;
                // metadata follows symlinks; a loop or a broken link is not a dir.
                let is_dir = fs::metadata(e.path()).is_ok_and(|m| m.is_dir());
                Some(DirEntry { name, is_dir })
            })
            .collect();
        out.sort_by(|a, b| a.name.cmp(&b.name));
        out
    }

    fn kind(&self, path: &str) -> Option<FileKind> {
        let meta = fs::metadata(path).ok()?;
        if meta.is_dir() {
            Some(FileKind::Dir)
        } else if meta.is_file() {
            Some(FileKind::File)
        } else {
            None
        }
    }

    fn resolve(&self, path: &str) -> Option<String> {
        let resolved = fs::canonicalize(path)
            .ok()?
            .into_os_string()
            .into_string()
            .ok()?;
        // Windows gives verbatim paths (\\?\C:\...); the rest of discovery uses plain ones.
        Some(match resolved.strip_prefix(r"\\?\") {
            Some(plain) if !plain.starts_with("UNC\\") => plain.to_string(),
            _ => resolved,
        })
    }

    fn self_pid(&self) -> Option<u32> {
        Some(std::process::id())
    }

    fn process_list(&self, command: &[String]) -> Option<String> {
        self.command(command)
    }

    fn run(&self, argv: &[String]) -> Option<String> {
        self.command(argv)
    }

    fn http_get(&self, request: &Request) -> Http {
        crate::http::get(request, self.connect_timeout, self.response_timeout)
    }

    fn http_get_all(&self, requests: &[Request]) -> Vec<Http> {
        parallel(requests, |r| self.http_get(r))
    }

    fn connect(&self, host: &str, port: u16) -> bool {
        crate::http::connect(host, port, self.connect_timeout).is_some()
    }

    fn connect_all(&self, targets: &[(String, u16)]) -> Vec<bool> {
        parallel(targets, |(h, p)| self.connect(h, *p))
    }
}
