//! Fuzzes all four entry points of the protected-origin matcher: no panic, and the answers
//! hold together (the fast path agrees with the full parse, `explain` with `url`, a protected
//! URL stays protected as a target and as a storage key).
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use slicc_browsers::protected::{vectors, Matcher, Opener};

fn matcher() -> &'static Matcher {
    static MATCHER: OnceLock<Matcher> = OnceLock::new();
    MATCHER.get_or_init(|| {
        let cat = slicc_browsers::shared_catalog();
        Matcher::new(&cat.protected_origins, &vectors().origins).expect("the vectors' origins parse")
    })
}

fuzz_target!(|data: &[u8]| {
    let (flags, rest) = data.split_first().map_or((0, data), |(f, r)| (*f, r));
    let text = String::from_utf8_lossy(rest);
    let m = matcher();

    let url = m.url(&text);
    assert_eq!(url, m.url_parsed(&text), "the fast path disagrees on {text:?}");
    assert_eq!(url, m.explain(&text).is_some(), "explain disagrees on {text:?}");

    let opener = [Opener::None, Opener::Protected, Opener::Unprotected, Opener::Unknown][usize::from(flags & 3)];
    let target = m.target(&text, flags & 4 != 0, opener);
    assert!(!url || target, "a protected URL is a protected target: {text:?}");
    let _ = m.inherits(&text);

    let _ = m.cookie_domain(&text);

    let key = m.storage_key(&text);
    assert!(!url || text.contains('^') || key, "a key with no ^ is judged as its origin: {text:?}");
});
