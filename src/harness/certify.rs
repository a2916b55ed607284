//! `slicc-browsers guard certify` (features `guard-runner` and `guard-proxy`, not on
//! `wasm32-wasip1`): the crate's own guard, [`Proxy`], certified on the guard vectors.
//!
//! Each parallel slot launches its own headless Chromium exactly as the self-test does
//! ([`selftest`](super::selftest): temporary profile, `--remote-debugging-port=0`, every
//! stand-in host mapped to one [`Fixture`](super::fixture::Fixture), process group killed at the
//! end) and starts a [`Proxy`] in front of it that protects the catalog's origins and the
//! client's own, [`OWN_ORIGIN`]. Every leg's client connects to the proxy; its unguarded
//! observer connects straight to the same Chromium. The rows are judged as any guard's are and
//! summed up by [`summarize`] into `GUARD-PASS slicc-browsers-proxy@<version> (vectors
//! slicc-browsers@<setVersion>)` or `GUARD-FAIL …`.

use std::time::Duration;

use super::runner::drive::RowResult;
use super::runner::summary::{summarize, Summary, SummaryInput};
use super::selftest::{
    run_in_chromium, Chromium, ChromiumError, SelfTestError, SelfTestOptions, OWN_ORIGIN,
};
use crate::guard::proxy::{Proxy, ProxyError, ProxyOptions};
use crate::vectors::Vectors;

/// The name the certification line gives the proxy.
pub const GUARD_NAME: &str = "slicc-browsers-proxy";

/// The transport rows name: the proxy speaks CDP.
pub const TRANSPORT: &str = "cdp";

/// One slot's browser and the proxy in front of it. The proxy goes first when the slot is
/// dropped, then the browser (its process group killed).
struct Guarded {
    proxy: Proxy,
    chromium: Chromium,
}

impl Drop for Guarded {
    fn drop(&mut self) {
        self.proxy.close();
        self.chromium.kill();
    }
}

/// Why a slot has no browser with a proxy in front of it (a leg then fails with
/// `connect: <why>`).
#[derive(Debug)]
enum SlotError {
    /// The browser did not start.
    Chromium(ChromiumError),
    /// The proxy did not start.
    Proxy(ProxyError),
}

impl std::fmt::Display for SlotError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SlotError::Chromium(e) => e.fmt(f),
            SlotError::Proxy(e) => write!(f, "guard proxy: {e}"),
        }
    }
}

impl std::error::Error for SlotError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SlotError::Chromium(e) => Some(e),
            SlotError::Proxy(e) => Some(e),
        }
    }
}

/// The client's own origin the proxy protects besides the catalog's: the origin map's `own`
/// (else its `client`), or [`OWN_ORIGIN`] without a map.
fn own_origin(options: &SelfTestOptions) -> String {
    options
        .origins
        .as_ref()
        .and_then(|o| o.get("own").or_else(|| o.get("client")))
        .unwrap_or(OWN_ORIGIN)
        .to_string()
}

/// What a certification run found.
#[derive(Debug, Clone)]
pub struct CertifyReport {
    /// Every row, in set order, with what its legs recorded.
    pub rows: Vec<RowResult>,
    /// The summary and its `GUARD-PASS` / `GUARD-FAIL` line.
    pub summary: Summary,
    /// How long it took.
    pub elapsed: Duration,
}

/// Runs `set`'s vectors through the proxy (a text vector's rows are `not-run`) (the targets, variants, ids and slots of
/// `options`, which are the self-test's), calling `on_row` as each row is judged.
///
/// A run limited by targets, variants or ids misses rows and so ends in `GUARD-FAIL`, as any
/// partial certification does.
pub fn certify(
    set: &Vectors,
    options: &SelfTestOptions,
    on_row: &(dyn Fn(&RowResult) + Sync),
) -> Result<CertifyReport, SelfTestError> {
    certify_protecting(set, options, &[], on_row)
}

/// [`certify`] with a proxy that also protects the user's `patterns` (`guard proxy
/// --protect`, `guard certify --protect`): with an origin map that puts `seven`, `vault`,
/// `vault-x` and `apex` on a site the catalog does not name (`http://seven.bank.example`, …)
/// and `--protect bank.example`, the guard vectors hold the proxy to that site as they hold it
/// to seven's.
pub fn certify_protecting(
    set: &Vectors,
    options: &SelfTestOptions,
    patterns: &[crate::protected::ProtectPattern],
    on_row: &(dyn Fn(&RowResult) + Sync),
) -> Result<CertifyReport, SelfTestError> {
    let patterns = patterns.to_vec();
    let (rows, elapsed) = run_in_chromium(
        set,
        options,
        move |program: &str, hosts: &[String], port: u16, options: &SelfTestOptions| {
            let hosts: Vec<&str> = hosts.iter().map(String::as_str).collect();
            let chromium = Chromium::launch(program, &hosts, port).map_err(SlotError::Chromium)?;
            let mut proxy_options = ProxyOptions::new(&chromium.http_url());
            proxy_options.origins = vec![own_origin(options)];
            proxy_options.protect = patterns.clone();
            // The slot's profile, as slicc-cli protects the user-data dir it discovered.
            proxy_options.protect_paths = vec![chromium.profile_dir().display().to_string()];
            let proxy = Proxy::start(proxy_options).map_err(SlotError::Proxy)?;
            Ok::<_, SlotError>(Guarded { proxy, chromium })
        },
        |g: &Guarded| (g.proxy.websocket_url(), g.chromium.ws_url().to_string()),
        TRANSPORT,
        on_row,
    )?;
    Ok(CertifyReport {
        summary: summary(set, options, &rows),
        rows,
        elapsed,
    })
}

/// The summary of a certification of `set` with `options` whose rows are `rows`, as
/// [`certify`] sums its own up: for a caller that changes a report's rows (one that runs some
/// rows again and keeps their second result) and needs the line to say what they now say.
pub fn summary(set: &Vectors, options: &SelfTestOptions, rows: &[RowResult]) -> Summary {
    let judged: Vec<_> = rows.iter().map(|r| r.row.clone()).collect();
    let variants = (!options.variants.is_empty()).then_some(options.variants.as_slice());
    summarize(SummaryInput {
        guard: GUARD_NAME,
        sha: env!("CARGO_PKG_VERSION"),
        set,
        scope: None,
        variants,
        transports: &[TRANSPORT.to_string()],
        rows: &judged,
    })
}
