//! What a policy remembers for its connection, counted ([`Policy::footprint`]): how the
//! bounds of [`Config`](super::config::Config) can be checked from outside.

use super::core::Core;
use super::state::Session;

/// Counts of what a [`Policy`](super::Policy) remembers (entries, and bytes where it keeps messages). Every
/// one is bounded: by a [`Config`](super::config::Config) limit, or by what is alive in the browser
/// (targets, sessions), and forgotten when the browser reports it gone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct Footprint {
    /// Live targets known.
    pub targets: usize,
    /// Destroyed targets remembered (for openers; at most [`Config::gone`](super::config::Config::gone)).
    pub gone: usize,
    /// Sessions known (the root not counted).
    pub sessions: usize,
    /// Entries the sessions remember (request, script, style sheet, history, paused request
    /// and object ids), summed over sessions; each kind at most
    /// [`Config::per_session`](super::config::Config::per_session) per session (object ids 8 times
    /// that).
    pub session_entries: usize,
    /// Client commands forwarded and not answered (at most
    /// [`Config::max_pending`](super::config::Config::max_pending)).
    pub in_flight: usize,
    /// The policy's own commands not answered.
    pub own: usize,
    /// Holds: messages kept back for the policy's checks.
    pub holds: usize,
    /// Client frames kept while the discovery starts, and their bytes.
    pub queued: usize,
    /// Bytes of [`Footprint::queued`].
    pub queued_bytes: usize,
    /// Client-bound frames waiting behind a session's checks (their places included).
    pub held: usize,
    /// Bytes of [`Footprint::held`].
    pub held_bytes: usize,
    /// Out-of-process frames and the pages hosting them (and protected ones, or showing
    /// protected images) remembered.
    pub frames: usize,
    /// Download folders the client chose (per browser context, at most 256, and every one at
    /// most 1,024), downloads the policy cancelled (at most
    /// [`Config::per_session`](super::config::Config::per_session)) and paths handed to pages (at
    /// most 1,024; past it, no new download folder is chosen).
    pub downloads: usize,
}

impl Session {
    /// The entries this session remembers.
    fn entries(&self) -> usize {
        self.fetch.paused.len()
            + self.network.requests.len()
            + self.history.len()
            + self.code.scripts.len()
            + self.code.sheets.len()
            + self.network.navigations.len()
            + self.code.objects.len()
            + self.loaded.starts.len()
            + self.loaded.urls.len()
    }
}

impl Footprint {
    /// What `core` remembers, with `queued` client frames of `queued_bytes` kept while the
    /// policy starts and `downloads` entries.
    pub(super) fn of(
        core: &Core,
        queued: usize,
        queued_bytes: usize,
        downloads: usize,
    ) -> Footprint {
        let (held, held_bytes) = core.checks.order.held();
        Footprint {
            targets: core.targets.map.len(),
            gone: core.targets.gone.len(),
            sessions: core.sessions.map.len(),
            session_entries: core.sessions.root.entries()
                + core
                    .sessions
                    .map
                    .values()
                    .map(Session::entries)
                    .sum::<usize>(),
            in_flight: core.sessions.pending.len(),
            own: core.ids.own.len(),
            holds: core.checks.holds.len(),
            queued,
            queued_bytes,
            held,
            held_bytes,
            frames: core.targets.frame_hosts.len()
                + core.targets.hosting.len()
                + core.targets.showing.len(),
            downloads,
        }
    }
}
