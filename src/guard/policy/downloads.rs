//! Downloads: where the browser writes what a page downloads is the client's choice
//! (`Browser.setDownloadBehavior`), and a download runs with the user's cookies from any
//! frame of the browser, a popup of the client's page the client never attaches included. A
//! protected download in the client's folder is the protected response on a disk the client's
//! pages read back (a file input, a dropped folder: the suite's `c7.download-path-popup`).
//!
//! So every `Browser.setDownloadBehavior` goes to the browser with `eventsEnabled` on (the
//! client's own choice kept for what it is shown), and a download whose
//! `Browser.downloadWillBegin` names a protected or browser-internal URL, or a frame that is
//! not a target the client may see (a protected page, or a frame the policy cannot place), is
//! cancelled by the policy (`Browser.cancelDownload`) and withheld, with its progress. The
//! cancel races the download (a small file may be written before it arrives, measured on
//! Chromium 156), and a page may already hold the folder (a drop made before: a dropped
//! folder is read when the page walks it, not when it is dropped), so the folders the client
//! chooses for downloads and the paths it hands its pages are kept apart from the start: no
//! file input, drop or app launch names a download folder, a file in one or a folder above
//! one (nor the file the browser reports it wrote for a cancelled download), and no download
//! folder is chosen in or above a path a page was handed.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{json, Value};

use super::command::{ClientCommand, Step};
use super::core::{Core, ROOT};
use super::local_paths::{each_path, LocalPaths, Protected, Use};
use super::output::Output;
use super::refusal::Refusal;
use super::state::Own;

/// Browser contexts' download folders remembered at most (the client names them).
const MAX_FOLDERS: usize = 256;

/// What the policy knows of downloads on its connection.
#[derive(Debug)]
pub(super) struct Downloads {
    /// The policy asked the browser for download events (a client `setDownloadBehavior` went
    /// through with `eventsEnabled` on).
    pub(super) on: bool,
    /// The client's last `Browser.setDownloadBehavior` asked for events itself (Chromium keeps
    /// one switch per session, the last call's).
    client_events: bool,
    /// The folder the client chose, by browser context (empty: the call named none).
    folders: HashMap<String, String>,
    /// Downloads the policy cancelled: their progress is withheld.
    cancelled: super::state::Bounded<String, ()>,
    /// Every download folder the client chose (kept from pages).
    dirs: Protected,
    /// Every path the client handed a page (no download folder in or above one).
    offered: Protected,
    /// More paths were handed to pages than `offered` keeps.
    offered_full: bool,
}

impl Downloads {
    pub(super) fn new(cap: usize, local: Option<Arc<dyn LocalPaths>>) -> Downloads {
        Downloads {
            on: false,
            client_events: false,
            folders: HashMap::new(),
            cancelled: super::state::Bounded::new(cap),
            dirs: Protected::new(&[], local.clone()),
            offered: Protected::new(&[], local),
            offered_full: false,
        }
    }

    /// Entries remembered (folders and cancelled downloads).
    pub(super) fn entries(&self) -> usize {
        self.folders.len() + self.cancelled.len() + self.dirs.added() + self.offered.added()
    }

    /// Why a client command is refused for mixing download folders and paths handed to
    /// pages; the paths it hands a page are remembered when it is not.
    pub(super) fn overlap(&mut self, method: &str, params: &Value) -> Option<Refusal<'static>> {
        let mut found = None;
        let mut offers = Vec::new();
        each_path(method, params, &mut |s, use_| {
            if use_ == Use::Offer {
                if self.dirs.any() && self.dirs.judge(s, Use::Offer).is_some() {
                    found = Some(Refusal::OfferedDownloads);
                }
                offers.push(s.to_string());
            }
        });
        if found.is_none() {
            for o in offers {
                // Past its bound, no new download folder is chosen (see `folder_overlaps`).
                if !self.offered.add(&o) {
                    self.offered_full = true;
                }
            }
        }
        found
    }

    /// Whether download folder `folder` is in or above a path a page was handed; else it is
    /// remembered.
    fn folder_overlaps(&mut self, folder: &str) -> bool {
        if self.offered_full
            || (self.offered.any() && self.offered.judge(folder, Use::Offer).is_some())
        {
            return true;
        }
        // Past its bound, the folder is not remembered: refused (the safe side).
        !self.dirs.add(folder)
    }
}

impl Downloads {
    /// A client's `Browser.setDownloadBehavior` or `Page.setDownloadBehavior` on session
    /// `key`: the first goes with `eventsEnabled` on; the second, to a folder, only once the
    /// policy watches downloads.
    pub(super) fn on_command(&mut self, core: &Core, cmd: &ClientCommand) -> Step {
        let (key, method, params, v) = (cmd.key, cmd.method, cmd.params, cmd.v);
        let behavior = params.get("behavior").and_then(Value::as_str);
        let folder = params
            .get("downloadPath")
            .and_then(Value::as_str)
            .filter(|_| matches!(behavior, Some("allow" | "allowAndName")));
        if folder.is_some_and(|f| self.folder_overlaps(f)) {
            return Step::Refuse(Refusal::DownloadOverlap);
        }
        if method == "Page.setDownloadBehavior" {
            if folder.is_none() {
                return Step::Go(None);
            }
            if !self.on {
                return Step::Refuse(Refusal::PageDownloads);
            }
            let context = core
                .session(key)
                .and_then(|s| core.targets.map.get(&s.target))
                .and_then(|t| t.context()?.as_str())
                .unwrap_or_default()
                .to_string();
            self.remember_folder(context, folder);
            return Step::Go(None);
        }
        let context = params
            .get("browserContextId")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        self.remember_folder(context, folder);
        self.client_events = params
            .get("eventsEnabled")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        self.on = true;
        let mut nv = v.clone();
        nv["params"]["eventsEnabled"] = Value::Bool(true);
        Step::Go(Some(nv))
    }

    fn remember_folder(&mut self, context: String, folder: Option<&str>) {
        match folder {
            Some(f) => {
                // Past the bound a context's folder is not remembered here (only where cancels
                // go: to every context then); it is kept from pages all the same.
                if self.folders.len() < MAX_FOLDERS || self.folders.contains_key(&context) {
                    self.folders.insert(context, f.to_string());
                }
            }
            None => {
                self.folders.remove(&context);
            }
        }
    }

    /// A `Browser.downloadWillBegin` or `Browser.downloadProgress`: `Some(why)` when it is
    /// withheld.
    pub(super) fn on_event(
        &mut self,
        core: &mut Core,
        v: &Value,
        method: &str,
        out: &mut Output,
    ) -> Option<&'static str> {
        let params = &v["params"];
        let guid = params["guid"].as_str().unwrap_or_default().to_string();
        if method == "Browser.downloadProgress" {
            if self.cancelled.contains(&guid) {
                // The cancel lost the race: the file the browser wrote is kept from pages too
                // (in the client's folder it is already; in the user's, not otherwise).
                if let Some(path) = params.get("filePath").and_then(Value::as_str) {
                    self.dirs.add(path);
                }
                return Some("a download the guard cancelled");
            }
            return (!self.client_events).then_some("download events the client did not ask for");
        }
        let frame = params["frameId"].as_str().unwrap_or_default();
        let url = params["url"].as_str().unwrap_or_default();
        let known = core.targets.map.contains_key(frame);
        if !core.off_limits(url) && known && !core.hidden(frame) {
            return (!self.client_events).then_some("download events the client did not ask for");
        }
        // The download's browser context, when its frame is a target the policy knows; else
        // every context the client chose a folder for, and the default one.
        let mut contexts: Vec<Option<String>> = match core
            .targets
            .map
            .get(frame)
            .and_then(|t| t.context()?.as_str())
        {
            Some(c) => vec![Some(c.to_string())],
            None => self
                .folders
                .keys()
                .filter(|c| !c.is_empty())
                .map(|c| Some(c.clone()))
                .chain(std::iter::once(None))
                .collect(),
        };
        contexts.dedup();
        for context in contexts {
            let mut p = json!({"guid": guid});
            if let Some(c) = context {
                p["browserContextId"] = Value::String(c);
            }
            let msg = core.own_command(ROOT, "Browser.cancelDownload", p, Own::Ignore);
            out.to_browser.push(msg);
        }
        // Whatever the cancel does not stop lands in a download folder, which no page is
        // handed (see `overlap`); choosing the folder again is harmless (Playwright sets one
        // folder for every context it makes).
        self.cancelled.insert(guid, ());
        Some("a protected download, cancelled")
    }
}
