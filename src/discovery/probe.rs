//! Source §2.8: the port probe (slicc only).

use super::candidate::{Candidate, Check, LOOPBACK};
use super::output::Source;
use super::Context;

/// Each probe port that accepts a TCP connection on 127.0.0.1 becomes a candidate, listed
/// only if `/json/version` answers. The connection checks run as one batch, so a host can
/// make them concurrently.
pub(crate) fn collect(cx: &Context<'_>, ports: &[u16], out: &mut Vec<Candidate>) {
    let targets: Vec<(String, u16)> = ports.iter().map(|p| (LOOPBACK.to_string(), *p)).collect();
    let open = cx.host.connect_all(&targets);
    for (port, open) in ports.iter().zip(open) {
        if open {
            out.push(Candidate::new(
                Source::Probe,
                Check::Answered { port: *port },
            ));
        }
    }
}
