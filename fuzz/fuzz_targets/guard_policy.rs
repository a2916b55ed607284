//! Fuzzes the guard policy's message handler: arbitrary frames in both directions (and the
//! passing of time) never panic, and every frame the policy sends is a JSON object; a command
//! to the browser carries an integer id and a method, and no frame to the client names a
//! protected URL under `url`.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use slicc_browsers::guard::policy::Policy;
use slicc_browsers::protected::{vectors, Matcher};

fn matcher() -> &'static Matcher {
    static MATCHER: OnceLock<Matcher> = OnceLock::new();
    MATCHER.get_or_init(|| {
        let cat = slicc_browsers::shared_catalog();
        Matcher::new(&cat.protected_origins, &vectors().origins).expect("the vectors' origins parse")
    })
}

/// A few frames that get the policy into interesting states (ready, an attached page), so
/// the fuzzer starts deep rather than at the handshake.
const PRELUDE: [(bool, &str); 6] = [
    (false, r#"{"method":"Target.targetCreated","params":{"targetInfo":{"targetId":"P","type":"page","title":"","url":"http://a.test/","attached":false}}}"#),
    (false, r#"{"id":2000000000,"result":{}}"#),
    (true, r#"{"id":1,"method":"Target.attachToTarget","params":{"targetId":"P","flatten":true}}"#),
    (false, r#"{"method":"Target.attachedToTarget","params":{"sessionId":"S","targetInfo":{"targetId":"P","type":"page","title":"","url":"http://a.test/","attached":true},"waitingForDebugger":false}}"#),
    (false, r#"{"id":2000000001,"result":{},"sessionId":"S"}"#),
    (false, r#"{"id":2000000002,"result":{"frameTree":{"frame":{"id":"P","url":"http://a.test/","securityOrigin":"http://a.test"}}},"sessionId":"S"}"#),
];

fn check(frames: &[String], to_client: bool) {
    for f in frames {
        let v: serde_json::Value = serde_json::from_str(f).expect("the policy sends JSON");
        assert!(v.is_object(), "not an object: {f}");
        if !to_client {
            if v.get("method").is_some() {
                assert!(v["id"].is_i64(), "a command without an integer id: {f}");
            }
        } else if let Some(url) = v.pointer("/params/targetInfo/url").and_then(|u| u.as_str()) {
            assert!(!matcher().url(url), "a protected target reached the client: {f}");
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let mut policy = Policy::new(matcher().clone());
    let mut now = 0u64;
    for (client, frame) in PRELUDE {
        now += 1;
        let out = if client { policy.from_client(frame, now) } else { policy.from_browser(frame, now) };
        check(&out.to_client, true);
        check(&out.to_browser, false);
    }
    // The input is frames separated by NUL bytes; each frame's first byte picks a direction
    // (even: browser, odd: client) and whether the clock jumps.
    for chunk in data.split(|b| *b == 0) {
        let Some((&flags, rest)) = chunk.split_first() else { continue };
        let text = String::from_utf8_lossy(rest);
        now += if flags & 2 != 0 { 15_000 } else { 1 };
        let out = if flags & 4 != 0 {
            policy.tick(now)
        } else if flags & 1 == 1 {
            policy.from_client(&text, now)
        } else {
            policy.from_browser(&text, now)
        };
        check(&out.to_client, true);
        check(&out.to_browser, false);
    }
});
