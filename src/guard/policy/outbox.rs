//! The outbox: client-bound frames waiting behind held ones, in Chromium's order (the
//! ordering itself is order.rs).

use std::collections::VecDeque;

/// One place in the outbox.
#[derive(Debug)]
pub(super) enum Slot {
    /// Frames ready for the client.
    Ready(String),
    /// Where a held session's frames go when its hold settles.
    Held(u64),
}

/// The ordering state: the outbox, the holds placed in this call and the settled holds'
/// frames not yet put in their place.
#[derive(Debug, Default)]
pub(super) struct Order {
    pub(super) outbox: VecDeque<Slot>,
    /// `(index in this call's to_client, hold)`: where a hold's place was taken.
    pub(super) marks: Vec<(usize, u64)>,
    /// Holds that have a place in the outbox (or are marked in this call).
    pub(super) placed: std::collections::HashSet<u64>,
    /// Settled holds' frames, by hold.
    pub(super) filled: std::collections::HashMap<u64, Vec<String>>,
    /// Bytes of the frames waiting: in the outbox and in `filled`.
    pub(super) bytes: usize,
}

impl Order {
    /// Frames (and places) waiting, and their bytes.
    pub(super) fn held(&self) -> (usize, usize) {
        let filled: usize = self.filled.values().map(Vec::len).sum();
        (self.outbox.len() + filled, self.bytes)
    }
}
