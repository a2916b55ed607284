//! Protected content a client's own ordinary page loads (the attack suite's `c7.image-*`,
//! `c7.*-hop*`):
//!
//! - **Images and media.** A page may show an image or a video from a protected origin, and
//!   the browser sends the user's cookies with it (same-site ones always: a page on
//!   `other.client.example` and the extra origin `client.example`; `SameSite=None` ones from
//!   any site). The web keeps the pixels from the page (a cross-origin image taints a canvas),
//!   but a capture reads them (`Page.captureScreenshot`, `startScreencast`, `printToPDF`, and
//!   `captureSnapshot`, whose MHTML holds the image's bytes). The policy's own `Fetch`
//!   patterns on every document session take images, media and `Other` requests (`<object>`
//!   and `<embed>` of an image) too, those whose URL may be off limits (`shown.rs`:
//!   a page's ordinary images never wait). A protected one goes on (the guard vectors'
//!   liveness: a guard leaves ordinary pages' subresources alone, `C5.new-url`, `E8.*`), with
//!   the client's header values taken out, and marks its page before it is sent, every redirect
//!   hop included. A page that already shows one when a session is made (the
//!   policy's own `Page.getResourceTree`, answered before the session's checks), or that
//!   shows one no interception paused (its `Network` response), is marked for life, and the
//!   pages holding it with it: captures of it are refused and its screencast frames withheld.
//! - **Ordinary URLs that redirect to a protected one.** A script (or any resource) a page
//!   loads through an ordinary redirect is named by the redirect's ordinary URL
//!   (`Debugger.scriptParsed` `url` and `embedderName`, the resource tree), not by the
//!   protected URL it came from (measured on Chromium 156; `CSS.styleSheetAdded` names the
//!   final URL). Each session remembers, from the policy's own `Network` domain, the URL every
//!   load began at and whether it ended on a protected origin; a script whose `http(s)` URL
//!   is not one the session saw load and end on an ordinary origin (nor a frame's document,
//!   nor the target's own URL) is withheld like a protected one, and so are pauses in it,
//!   and `Page.getResourceContent` and `Page.searchInResource` may name only such URLs. A
//!   script a page ran before the client's session is withheld too: nothing tells where it
//!   came from. `Network.loadNetworkResource` (which loads a URL with the page's
//!   credentials and follows redirects to any origin) is refused.
//! - **Opaque responses a page caches.** A page may put a response it cannot read (a
//!   `no-cors` fetch of a protected URL, with the user's cookies) into its own Cache Storage,
//!   and `CacheStorage.requestCachedResponse` returns its body (measured on Chromium 156); the
//!   entry names only the page's own key, and nothing in the answer says the response is
//!   opaque, so the command is refused (listing caches and entries is not).
//! - **Style sheets' rules in results and snapshots.** A rule of a protected style sheet
//!   matches the page's elements like an ordinary one, and `CSS.getMatchedStylesForNode` (and
//!   any `CSS` result) carries its selectors and declarations, which the web keeps from the
//!   page (a cross-origin sheet's `cssRules` throw); `Page.captureSnapshot` serializes every
//!   sheet's rules into the MHTML, a sheet loaded through an ordinary redirect under the
//!   redirect's URL. Rules, styles and keyframes of sheets reported as protected (and of
//!   sheets not known, once the session forgot a protected one) leave `CSS` results
//!   (scripts.rs), and MHTML parts from protected URLs, and style sheet parts under a
//!   URL the session did not see load and end on an ordinary origin, leave snapshots.

use std::collections::HashSet;

use serde_json::Value;

use super::command::ClientCommand;
use super::core::Core;
use super::refusal::Refusal;
use super::state::Session;
use super::table::Concern;

/// Request types whose content a page shows but cannot read: an image, a video or audio, an
/// `<object>` or `<embed>` of an image (`Other` in `Fetch`, `Image` in `Network`).
pub(super) fn rendered(rtype: &str) -> bool {
    matches!(rtype, "Image" | "Media" | "Other")
}

/// `url` without its fragment (a fragment changes nothing of what was loaded, and `Network`
/// requests carry none).
fn unfragmented(url: &str) -> &str {
    url.split('#').next().unwrap_or_default()
}

/// Whether `url` may be read as an `http:` or `https:` URL (what a load from a protected
/// origin is named by; `data:`, `blob:` and `about:` content is the page's own). The way a
/// URL parser reads it (WHATWG, Chromium's): leading spaces and control characters dropped,
/// tabs and newlines anywhere, any case, and no slashes needed (`http:host/x`,
/// `http:\\host\x`); such a spelling is then judged (and refused: it is no URL the session saw).
fn web_url(url: &str) -> bool {
    let scheme: String = url
        .trim_start_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .take(6)
        .map(|c| c.to_ascii_lowercase())
        .collect();
    scheme.starts_with("http:") || scheme.starts_with("https:")
}

/// A load of `url` the session saw, `bad` if it ended on a protected origin; a protected
/// one forgotten to make room is remembered as forgotten (`Loaded::forgot`).
fn note_load(s: &mut Session, url: String, bad: bool) {
    let mut forgot = false;
    s.loaded
        .urls
        .insert_forgetting(url, bad, |gone| forgot |= gone);
    s.loaded.forgot |= forgot;
}

impl Core {
    /// `Network.requestWillBeSent` and `Network.responseReceived` of any session (before
    /// anything else judges them): the URL each request began at, and whether its load ended
    /// on a protected origin; a protected image or media response (one the interception did
    /// not pause: a page's memory cache) marks the page as showing it.
    pub(super) fn track_load(&mut self, v: &Value, key: &str, method: &str) {
        let p = &v["params"];
        let Some(rid) = p["requestId"].as_str() else {
            return;
        };
        let rid = rid.to_string();
        match method {
            "Network.requestWillBeSent" => {
                let url = unfragmented(p["request"]["url"].as_str().unwrap_or_default());
                let bad = self.off_limits(url);
                let hop = p["redirectResponse"]["url"].as_str().map(unfragmented);
                let Some(s) = self.session_mut(key) else {
                    return;
                };
                if hop.is_none() {
                    s.loaded.starts.insert(rid, url.to_string());
                    return;
                }
                if bad {
                    // The URL it began at, else the hop it came from (a request under way
                    // when the session was made, or one whose start was forgotten: an
                    // earlier hop may be unknown, so nothing is read as seen-ordinary now).
                    let first = match s.loaded.starts.get(&rid) {
                        Some(first) => first.clone(),
                        None => {
                            s.loaded.forgot = true;
                            hop.unwrap_or_default().to_string()
                        }
                    };
                    note_load(s, first, true);
                }
            }
            "Network.responseReceived" => {
                let url = unfragmented(p["response"]["url"].as_str().unwrap_or_default());
                let bad = self.off_limits(url);
                let shown = bad && rendered(p["type"].as_str().unwrap_or_default());
                let Some(s) = self.session_mut(key) else {
                    return;
                };
                let first = s
                    .loaded
                    .starts
                    .get(&rid)
                    .cloned()
                    .unwrap_or_else(|| url.to_string());
                let was = s.loaded.urls.get(&first).copied().unwrap_or(false);
                note_load(s, first, bad || was);
                // The URL it ended at names it too (a document's scripts, after a redirect).
                if !bad && s.loaded.urls.get(&url.to_string()).is_none() {
                    note_load(s, url.to_string(), false);
                }
                if shown {
                    let target = s.target.clone();
                    self.mark_showing(&target);
                }
            }
            _ => {}
        }
    }

    /// Frames' documents (a frame tree the browser answered): loads of the session's pages.
    pub(super) fn learn_frames(&mut self, key: &str, tree: &Value) {
        let mut urls = Vec::new();
        let mut stack = vec![tree];
        while let Some(node) = stack.pop() {
            if let Some(u) = node["frame"]["url"].as_str() {
                urls.push(unfragmented(u).to_string());
            }
            if let Some(kids) = node["childFrames"].as_array() {
                stack.extend(kids.iter());
            }
        }
        let bad: Vec<bool> = urls.iter().map(|u| self.off_limits(u)).collect();
        let Some(s) = self.session_mut(key) else {
            return;
        };
        for (u, b) in urls.into_iter().zip(bad) {
            if u.is_empty() || s.loaded.urls.get(&u).is_some() {
                continue;
            }
            note_load(s, u, b);
        }
    }

    /// The answer to the policy's own `Page.getResourceTree` on a new document session: a
    /// protected image or media resource in any frame marks the page (fail closed on an
    /// error); the frames' documents are learnt.
    pub(super) fn resources_answer(&mut self, key: &str, v: &Value) {
        let Some(target) = self.session(key).map(|s| s.target.clone()) else {
            return;
        };
        let tree = &v["result"]["frameTree"];
        let mut shows = v.get("error").is_some();
        let mut stack = vec![tree];
        while let Some(node) = stack.pop() {
            if let Some(rs) = node["resources"].as_array() {
                shows |= rs.iter().any(|r| {
                    rendered(r["type"].as_str().unwrap_or_default())
                        && r["url"].as_str().is_some_and(|u| self.off_limits(u))
                });
            }
            if let Some(kids) = node["childFrames"].as_array() {
                stack.extend(kids.iter());
            }
        }
        self.learn_frames(key, tree);
        if shows {
            self.mark_showing(&target);
        }
    }

    /// A target shows a protected image: it and every page holding it (out-of-process frame
    /// hosts) are marked.
    pub(super) fn mark_showing(&mut self, target: &str) {
        if target.is_empty() {
            return;
        }
        let mut seen = HashSet::new();
        let mut at = target.to_string();
        for _ in 0..64 {
            self.targets.showing.insert(at.clone());
            seen.insert(at.clone());
            match self.targets.frame_hosts.get(&at) {
                Some(host) if !seen.contains(host) => at = host.clone(),
                _ => return,
            }
        }
    }

    /// Whether the page of session `key` shows a protected image.
    pub(super) fn shows_protected(&self, key: &str) -> bool {
        self.session(key)
            .is_some_and(|s| !s.target.is_empty() && self.targets.showing.contains(&s.target))
    }

    /// Whether `url` names a load this session saw begin there and end on an ordinary
    /// origin, a frame's document, or the target's own URL; URLs other than `http(s)` are not
    /// judged here.
    pub(super) fn readable(&self, key: &str, url: &str) -> bool {
        if !web_url(url) {
            return true;
        }
        let url = unfragmented(url);
        let Some(s) = self.session(key) else {
            return false;
        };
        match s.loaded.urls.get(&url.to_string()) {
            Some(true) => false,
            Some(false) if !s.loaded.forgot => true,
            _ => self
                .targets
                .map
                .get(&s.target)
                .and_then(|t| t.info["url"].as_str())
                .is_some_and(|u| unfragmented(u) == url && !self.off_limits(u)),
        }
    }

    /// Whether a `Debugger` event's script URLs (`url`, `embedderName`, anywhere in it) name
    /// a load the session did not see end on an ordinary origin.
    pub(super) fn unseen_script(&self, key: &str, v: &Value) -> bool {
        super::walk::any_string(v, |k, s| {
            matches!(k, Some("url" | "embedderName")) && !s.is_empty() && !self.readable(key, s)
        })
    }

    /// A client command reading a resource by URL, or capturing a page that shows a protected
    /// image: why it is refused, if it is.
    pub(super) fn load_command(&self, cmd: &ClientCommand) -> Option<Refusal<'static>> {
        match cmd.concern {
            Some(Concern::Resources) => {
                let url = cmd
                    .params
                    .get("url")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                (!self.readable(cmd.key, url)).then_some(Refusal::Unseen)
            }
            Some(Concern::Captures) if self.shows_protected(cmd.key) => Some(Refusal::Shows),
            _ => None,
        }
    }

    /// Why the answer to a capture (`method`) on session `key` is refused: its page shows a
    /// protected image or holds a protected frame in another process by the time the browser
    /// answered (marked after the command was judged: a race the client can tilt, by making
    /// the policy read the marking event late).
    pub(super) fn capture_answer(
        &self,
        key: &str,
        concern: Option<Concern>,
    ) -> Option<Refusal<'static>> {
        if concern != Some(Concern::Captures) {
            return None;
        }
        let target = self.session(key).map(|s| s.target.as_str())?;
        if target.is_empty() {
            return None;
        }
        if self.targets.hosting.contains(target) {
            Some(Refusal::TurnedHosting)
        } else if self.targets.showing.contains(target) {
            Some(Refusal::TurnedShowing)
        } else {
            None
        }
    }

    /// A `Page.captureSnapshot` result (MHTML): every part from a protected URL, and every
    /// style sheet part whose URL the session did not see load and end on an ordinary origin
    /// (an ordinary URL that redirected to a protected sheet names it: measured on Chromium
    /// 156), is taken out; the serializer writes a sheet's rules, which the web keeps from the
    /// page. Chromium's own error pages (`chrome-error://`) are taken out too: the one a
    /// blocked load leaves names the protected URL in full (its reload button's `data-url`,
    /// measured on Chromium 156), and the client is shown only that URL's origin. Returns
    /// whether it changed.
    pub(super) fn snapshot_response(&self, v: &mut Value, key: &str) -> bool {
        let Some(data) = v.pointer("/result/data").and_then(Value::as_str) else {
            return false;
        };
        let Some(boundary) = data
            .split("boundary=\"")
            .nth(1)
            .and_then(|b| b.split('"').next())
            .filter(|b| !b.is_empty())
        else {
            return false;
        };
        let delimiter = format!("--{boundary}");
        let parts: Vec<&str> = data.split(delimiter.as_str()).collect();
        let mut kept = Vec::with_capacity(parts.len());
        let mut changed = false;
        for (i, part) in parts.iter().enumerate() {
            // The preamble (the archive's own headers) and the closing `--` are no parts.
            if i == 0 || part.starts_with("--") {
                kept.push(*part);
                continue;
            }
            let head = part.split("\r\n\r\n").next().unwrap_or_default();
            let header = |name: &str| {
                head.lines().find_map(|l| {
                    let (n, val) = l.split_once(':')?;
                    n.trim().eq_ignore_ascii_case(name).then(|| val.trim())
                })
            };
            let location = header("Content-Location").unwrap_or_default();
            let sheet = header("Content-Type")
                .is_some_and(|t| t.to_ascii_lowercase().starts_with("text/css"));
            let error_page = location
                .get(..13)
                .is_some_and(|s| s.eq_ignore_ascii_case("chrome-error:"));
            let bad =
                error_page || self.off_limits(location) || (sheet && !self.readable(key, location));
            if bad {
                changed = true;
            } else {
                kept.push(*part);
            }
        }
        if changed {
            v["result"]["data"] = Value::String(kept.join(delimiter.as_str()));
        }
        changed
    }
}
