//! Placeholders and legs: the runner's origin map, a leg's variables, `{name}` expansion, the
//! stand-in's redirect URLs, a leg's steps with their refusal names, and the unguarded reads a
//! leg's checks need. No I/O.
//!
//! One file per concern: `origins.rs` (the origin map), `vars.rs` (variables and expansion),
//! `urls.rs` (URL builders), `leg.rs` (legs and phases), `steps.rs` (a leg's steps) and
//! `checks.rs` (a leg's checks and the observer's reads).
//!
//! ```
//! use slicc_browsers::harness::runner::expand::{Leg, Origins, Vars};
//! let origins = Origins::from_json(r#"{
//!     "ordinary": "http://ordinary.test:8080", "ordinary-same-site": null,
//!     "seven": "http://seven.sliccy.ai:8080", "vault": "http://vault.sliccy.ai:8080",
//!     "vault-x": "http://pr-1.vault.sliccy.ai:8080", "apex": "http://sliccy.ai:8080",
//!     "own": "http://client.test:8080", "client": "http://client.test:8080"
//! }"#).unwrap();
//! let vars = Vars::for_leg(&origins, Leg::Guarded, "seven", "t1", "c1");
//! assert_eq!(vars.expand_str("{target}/doc?n=dest-{tag}"), "http://seven.sliccy.ai:8080/doc?n=dest-t1");
//! // the control leg's target is {plain}, which defaults to {ordinary}
//! let control = Vars::for_leg(&origins, Leg::Control, "seven", "t0", "c0");
//! assert_eq!(control.get("target"), Some("http://ordinary.test:8080"));
//! // a null origin is never substituted: the row skips
//! assert_eq!(vars.null_reason_in_str("{ordinary-same-site}/doc"), Some("ordinary-same-site".into()));
//! ```

mod checks;
mod leg;
mod origins;
mod steps;
mod urls;
mod vars;

pub use checks::{judged_names, leg_checks, leg_reads, read_for, ExpandedChecks, LegChecks};
pub use leg::{Leg, Phase};
pub use origins::{
    host_of, is_origin_name, origin_of, Origins, OPTIONAL_ORIGINS, REQUIRED_ORIGINS,
};
pub use steps::{leg_steps, refusal_names, LegStep};
pub use urls::{chain_start, chain_urls, encode_uri_component, hop_url, url_ref_urls};
pub use vars::{tokens, Vars};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_skip_js_braces() {
        let found: Vec<&str> = tokens("x {a-b} {1} {} {{c}} {d e} {f}")
            .map(|(_, _, n)| n)
            .collect();
        assert_eq!(found, ["a-b", "c", "f"]);
    }

    #[test]
    fn encode_matches_js() {
        assert_eq!(
            encode_uri_component("http://a.b:1/x?y=1&z=é ~*'()!"),
            "http%3A%2F%2Fa.b%3A1%2Fx%3Fy%3D1%26z%3D%C3%A9%20~*'()!"
        );
    }

    #[test]
    fn hosts_and_origins() {
        assert_eq!(origin_of("http://a.b:8/x?y"), Some("http://a.b:8"));
        assert_eq!(origin_of("http://a.b"), Some("http://a.b"));
        assert_eq!(origin_of("nope"), None);
        assert_eq!(host_of("http://a.b:8/x"), Some("a.b"));
        assert_eq!(host_of("http://[::1]:8/x"), Some("[::1]"));
    }
}
