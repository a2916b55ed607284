//! Judged by reach: a command is refused when anything protected lies within what it touches
//! when Chromium runs it (its [`Reach`] in the table), not only when the session it is sent on
//! is protected.
//!
//! - **Page**: every frame and worker of the session's tab. Refused when the tab's page, or any
//!   target between the session's and it (the frames and pages hosting it), is protected or
//!   belongs to a protected page (belonging.rs).
//! - **Process**: Blink and V8 apply it to the whole renderer process (the ICU time zone and
//!   locale, the virtual clock, the network state, a crash, a purge of the JavaScript heap), so
//!   to every page that shares it: pages of the same site, and documents with no origin of their
//!   own (`about:blank`, `about:srcdoc`, `data:`, `blob:`) made by one. Refused when that site is
//!   a protected origin's; otherwise the session is marked, and may not load a document on such
//!   a site later (fetch.rs), where the process-wide state would follow it.
//! - **Browser**: every tab (screens, the browser's life): refused while a protected tab is
//!   open.
//! - **Context** (a wipe, a permission reset, a context's disposal) is judged by each command's
//!   own concern (client.rs, compat.rs); **host** (cookies) by the parameters' judges, which
//!   read a URL by its host (deny.rs).

use super::command::ClientCommand;
use super::core::Core;
use super::refusal::Refusal;
use super::table::Reach;

/// How far a chain of hosts or openers is followed (a bound, not a depth Chromium reaches).
const CHAIN: usize = 64;

impl Core {
    /// Whether anything protected lies within `reach` of command `cmd` (and the refusal that
    /// says so); a process-wide command that passes marks its session.
    pub(super) fn reach_judge(
        &mut self,
        cmd: &ClientCommand,
        reach: Reach,
    ) -> Option<Refusal<'static>> {
        match reach {
            Reach::Page => self.tab_protected(cmd.key).then_some(Refusal::Tab),
            Reach::Process => {
                if self.shares_renderer(cmd.key) {
                    return Some(Refusal::Shared);
                }
                if let Some(s) = self.session_mut(cmd.key) {
                    s.renderer_wide = true;
                }
                None
            }
            Reach::Browser => self.closes_protected(None).then_some(Refusal::Browser),
            Reach::Target | Reach::Context | Reach::Host => None,
        }
    }

    /// The target whose document holds session `key`'s target: its host (the page or frame
    /// whose session attached it), else its `parentId` (an iframe target).
    fn holder(&self, target: &str) -> Option<&str> {
        self.targets
            .frame_hosts
            .get(target)
            .map(String::as_str)
            .or_else(|| self.targets.map.get(target).and_then(|t| t.parent()))
    }

    /// Whether session `key`'s tab holds its target under a protected one: the target itself,
    /// or any frame or page above it, is protected (or was never seen).
    fn tab_protected(&self, key: &str) -> bool {
        let Some(s) = self.session(key) else {
            return false;
        };
        let mut at = s.target.as_str();
        for _ in 0..CHAIN {
            if at.is_empty() {
                return false;
            }
            if self.hidden(at) {
                return true;
            }
            match self.holder(at) {
                Some(h) => at = h,
                None => return false,
            }
        }
        true
    }

    /// Whether session `key`'s renderer process may hold a protected page: its document is
    /// same-site with a protected origin, or has no origin of its own and was made by a
    /// document that is (followed through hosts and openers).
    fn shares_renderer(&self, key: &str) -> bool {
        let Some(s) = self.session(key) else {
            return false;
        };
        let mut at = s.target.clone();
        for _ in 0..CHAIN {
            let Some(t) = self.targets.map.get(&at) else {
                return false;
            };
            let url = t.url();
            if self.rules.m.shares_site(url) || self.hidden(&at) {
                return true;
            }
            if has_own_host(url) {
                return false;
            }
            // No origin of its own: the process is its maker's.
            let maker = self.holder(&at).or_else(|| t.opener()).map(str::to_string);
            match maker {
                Some(m) => at = m,
                None => return false,
            }
        }
        true
    }
}

/// Whether `url` has a host of its own (an `http:`, `https:`, `ws:` or `file:`-like URL with
/// an authority), so that its document's site is its own.
fn has_own_host(url: &str) -> bool {
    url::Url::parse(url)
        .ok()
        .is_some_and(|u| u.host_str().is_some_and(|h| !h.is_empty()))
}

#[cfg(test)]
mod tests {
    use super::has_own_host;

    #[test]
    fn own_hosts() {
        assert!(has_own_host("http://other.client.example/x"));
        assert!(!has_own_host("about:blank"));
        assert!(!has_own_host("about:srcdoc"));
        assert!(!has_own_host("data:text/html,x"));
        assert!(!has_own_host("blob:http://client.example/1"));
        assert!(!has_own_host(""));
    }
}
