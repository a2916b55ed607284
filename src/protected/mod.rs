//! Protected origins: what browser control must never reach.
//!
//! With feature `protected`, [`Matcher`] implements the rules of the catalog's
//! `protectedOrigins` (the spec's "Protected origins" section) for URLs, CDP targets, cookie
//! domains and storage keys. With feature `corpus`, `vectors()` gives the shipped
//! `protected.json` vectors that every implementation runs.
//!
//! ```
//! # #[cfg(feature = "protected")] {
//! use slicc_browsers::protected::{Matcher, Opener};
//! let cat = slicc_browsers::shared_catalog();
//! let m = Matcher::new(&cat.protected_origins, &["http://127.0.0.1:5710"]).unwrap();
//! assert!(m.url("https:\\\\Seven.SLICCY.ai:8443/x"));
//! assert!(m.url("blob:https://seven.sliccy.ai/0b7c"));
//! assert!(m.url("http://0x7f.1:5710/"));
//! assert!(!m.url("https://sliccy.ai.evil.test/"));
//! assert!(m.target("about:blank", false, Opener::Unknown));
//! assert!(m.cookie_domain(".SLICCY.AI"));
//! assert!(m.storage_key("https://evil.test/^0https://seven.sliccy.ai"));
//! assert_eq!(m.refusal(), "slicc: refused: target is on seven's origin");
//! # }
//! ```
//!
//! # The rules
//!
//! A URL is parsed with WHATWG rules (the `url` crate). While its scheme is an inner scheme
//! (`blob`, `filesystem`, `view-source`), the rest after `<scheme>:` replaces it, at most 8
//! times. A scheme in `anySchemes` (`devtools`) is always protected. A scheme in `schemes`
//! (`https`, `http`) is protected when its host, lower-cased and without one trailing dot, is
//! one of `hosts`, or one of `domains` or under one, on any port. Any other URL is protected when
//! `scheme://host[:port]` (without the default port) is one of the extra origins. A URL that
//! does not parse is not protected, except where Chromium loads it (below). These are the
//! spec's rules as written; `url`, `target`, `cookie_domain` and `storage_key` answer as they
//! do, plus the amendments of `docs/protected-amendments.md` (A1-A6): where Chromium reaches a
//! protected origin, cookie or storage through input the rules allow, proven in Chromium by
//! `tests/browser/protected_chromium.rs`. [`Matcher::strict`] adds readings without such evidence
//! (marked "strict" below), and [`Matcher::cookie_url`] judges the URLs of cookie commands.
//!
//! # Where parsers differ, the matcher fails closed
//!
//! The `url` crate is not Chromium. Where the two disagree on a host, the matcher answers
//! "protected" when Chromium loads the URL on a protected origin. Each of these has vectors in
//! `protected.json` (the strict ones in `tests/data/protected-strict.json`), and [`Reason`]
//! names it ([`Divergence`]):
//!
//! - **Invalid `xn--` labels** ([`Divergence::RejectedHost`]): the `url` crate rejects an
//!   ASCII host with a label that is not valid Punycode (`https://xn--a.sliccy.ai/`,
//!   `https://xn--.sliccy.ai/`; servo/rust-url#1135). Chromium does no IDNA on an all-ASCII
//!   host and loads it, and the URL Standard now passes such labels through.
//! - **Spaces in hosts** ([`Divergence::RejectedHost`]): Chromium escapes a space in a host
//!   (`a b` or `a%20b` becomes `a%20b`; `kEsc` in `url/url_canon_host.cc`, crbug.com/1416013)
//!   where the URL Standard fails: `https://a b.sliccy.ai/` loads a `sliccy.ai` host in Chromium.
//! - **Percent signs from IDNA** ([`Divergence::RejectedHost`]): Chromium unescapes the host a
//!   second time after IDNA (`DoIDNHost` in `url/url_canon_host.cc`), so full-width `％`
//!   (U+FF05) and small `﹪` (U+FE6A), which UTS 46 maps to `%`, make escapes:
//!   `https://seven.sliccy.％61i/` is `seven.sliccy.ai` in Chromium (WPT cases the `url` crate
//!   lists in `expected_failures_chromium.txt`).
//! - **Deviation characters** (strict; [`Divergence::Transitional`]): Chromium opened ICU's UTS 46 with
//!   only `UIDNA_CHECK_BIDI` (`url/url_idna_icu.cc`): transitional processing, no CONTEXTJ
//!   check. So `ß` becomes `ss`, `ς` becomes `σ` and ZWJ/ZWNJ vanish
//!   (`https://se\u{200D}ven.sliccy.ai/`), where the `url` crate keeps or rejects them. Capital
//!   `ẞ` (U+1E9E) mapped to `ss` in UTS 46 tables before Unicode 15.1 and is treated the same
//!   way. Both forms are judged, and either being protected is enough. Chromium 156 has moved
//!   to nontransitional processing with CONTEXTJ and the current table (`straße` and `STRAẞE`
//!   are both `xn--strae-oqa` there), so these readings are strict only, for the older
//!   Chromium builds a guard may drive and for readers with older tables (see "Which Unicode
//!   version" below).
//! - **Code points a parser does not know** ([`Divergence::RejectedHost`]): the Unicode
//!   versions of IDNA tables differ. The `url` crate maps Unicode 16's outlined letters
//!   (U+1CCE8 is `s`) that Node 20 rejects; a newer ICU in Chromium may map code points the
//!   `url` crate rejects. When the `url` crate rejects a host, each character it cannot map on
//!   its own (or that needs a context) is read as "any text", and the host is protected if it
//!   could then be a protected host.
//! - **`devtools:` hosts** ([`Divergence::RejectedHost`]): Chromium registers `devtools` as a
//!   standard scheme and reads its host leniently, where the `url` crate fails an opaque host
//!   (`devtools://a b/`); a `devtools:` URL is protected even when the `url` crate rejects it.
//! - **Rejected IP literals** ([`Divergence::NumericHost`]): when the `url` crate rejects a
//!   host made only of IPv4 number characters, or an IPv6 literal, and an extra origin with
//!   the same scheme and port has an IP host, the URL is protected.
//! - **IPv6 literals made by unescaping and IDNA** ([`Divergence::NumericHost`]): Chromium
//!   splits host and port at the last `:` after the last `]` (`ParseServerInfo`), and looks
//!   for an IP address only after unescaping and IDNA, so `http://%5B::1%5D:5712/`,
//!   `http://\u{AD}[::1]:5712/`, `http://[::1]\u{AD}:5712/` and `http://［::1］:5712/`
//!   (full-width or small `[`, `]`, `:`, which UTS 46 maps to ASCII) are all
//!   `http://[::1]:5712/` in Chromium 156, where the URL Standard and the `url` crate fail
//!   them. A rejected URL is read both ways, and a host that then is an IP address is
//!   compared with the IP extra origins.
//! - **Controls before an inner URL** ([`Divergence::InnerTrim`]): Chromium trims C0
//!   controls and spaces before a `filesystem:` URL's inner URL, so
//!   `filesystem:\u{1}https://seven.sliccy.ai/temporary/` has seven's origin; the `url`
//!   crate percent-encodes them into the opaque path (`%01https:…`), which does not parse.
//!   Such an inner URL is read from the text as given, without them (for every inner scheme).
//! - **Standard schemes as extra origins** ([`Divergence::StandardScheme`]): Chromium
//!   registers schemes like `chrome-extension` as standard and parses their URLs like special
//!   ones (`chrome-extension:id/`, `chrome-extension:\\id/`, `chrome-extension://%69d/`
//!   and a full-width `ｉd` all have the host `id`, and a port is dropped), where the `url`
//!   crate keeps them opaque. A URL whose scheme is a non-special extra origin's is also read
//!   as an `http:` URL and matches that extra origin by host, on any port.
//! - **Nesting** (strict; [`Divergence::Nesting`]): inner schemes nested more than 8 deep are
//!   protected rather than judged by the scheme left after 8.
//! - **WebSocket URLs** (strict and [`Matcher::cookie_url`]; [`Divergence::WebSocket`]): `ws:`
//!   and `wss:` are not in `schemes`,
//!   but Chromium's cookie store takes them like `http:` and `https:`
//!   (`kDefaultCookieableSchemes` in `net/cookies/cookie_monster.cc`), and CDP's
//!   `Network.getCookies`/`setCookie`/`deleteCookies` take such URLs, so they are judged as
//!   those too: `wss://seven.sliccy.ai/` is protected, `ftp://seven.sliccy.ai/` (FTP is gone
//!   from Chromium and has no cookies) is not.
//!
//! Ports are not a divergence: Chromium and the URL Standard both refuse a port that is not
//! all ASCII digits or is above 65535, so such a URL is not protected whatever its host.
//!
//! Targets: `about:blank/` inherits its origin (`GURL::IsAboutPath` in `url/gurl.cc` allows
//! the slash; amendment A6). The strict matcher also reads `about:srcdoc/`, any case, escapes and
//! whitespace as inheriting, takes every leading and trailing dot and whitespace off a cookie
//! domain (an empty one is protected), matches an IPv6 extra origin's host with and without
//! brackets, and judges every `^` part of a storage key that is a URL (the opaque top-level
//! site's precursor `^6`).
//!
//! - **Cookie domains are URL authorities to CDP** (amendment A5): `Network.setCookie` and
//!   `Storage.setCookies` build `http://<domain>` and set a host-only cookie on that URL's
//!   host (`MakeCookieFromProtocolValues` in `network_handler.cc`). So in Chromium 156 the
//!   domain `x@sliccy.ai`, `sliccy.ai:443`, `sliccy.ai/x` or `seven.sliccy.％61i` sets a
//!   cookie on a `sliccy.ai` host, and `127.1`, `2130706433` or `[0::1]` on an IP extra
//!   origin's host. A cookie domain is therefore judged by its name and also as that URL's
//!   host (with the same fail-closed readings as URLs, on any port).
//!
//! # Which Unicode version's UTS 46 table
//!
//! The default reading maps hosts by the UTS 46 table of the `url` crate's `idna` (1.x, whose
//! Unicode back end is ICU4X 2 through `idna_adapter` 1.2, the lockfile's choice: Unicode 17
//! or later), which is the table Chromium 156 applies (its bundled ICU 78, Unicode 17):
//! the guard drives a current Chromium, so the answer that matters is the one that Chromium's
//! canonicalizer gives. Readers with older tables answer otherwise on the characters whose
//! mapping changed, and for each such character the matcher and the vectors do one of two
//! things:
//!
//! - a character an older table does not have (Unicode 16's outlined letters U+1CCD6..U+1CCF9,
//!   which Node 20's `URL` rejects) is read as "any text" by the rejected-host reading
//!   (amendment A1), so a reader with an older table fails closed and every reader gives the
//!   vectors' answers;
//! - a character an older table maps to other text is not in `protected.json`, because no
//!   answer suits every reader. There is one among the vectors' characters: capital `ẞ`,
//!   `ss` before Unicode 15.1 (Node 20's `URL`, whose ada has its own older tables) and `ß`
//!   since (the `url` crate, Chromium 156). `https://STRAẞE.example.test:8443/` is on the
//!   extra origin `https://strasse.example.test:8443` by the old table and on
//!   `xn--strae-oqa.example.test` by the current one, so the default reading does not protect
//!   it, and the strict reading, which also reads `ẞ` as `ss`, does; the vector is in
//!   `tests/data/protected-strict.json`. `tests/browser/protected_mjs_chromium.rs` compares every
//!   character of the vectors as Chromium and Node read it, and fails on a vector whose answer
//!   depends on the table.

// The matcher's layers, lowest first; each module uses only those above it in this list (checked
// by scripts/module-cycles.py):
//
//   reason, syntax     what a finding says; URL text split the WHATWG and Chromium ways
//   host, pattern      hosts, IPs and extra origins; host patterns with unknown parts
//   protect            the user's sites, host patterns and origins (`--protect`), read once
//   rules              the compiled protectedOrigins and the questions asked of them
//   fast, divergence   the byte-level fast paths; every fail-closed divergence judgment
//   matcher            Matcher, the public face: rules 1 to 4 (`judge`) and the target,
//                      cookie and storage-key rules
#[cfg(feature = "protected")]
mod divergence;
#[cfg(feature = "protected")]
mod fast;
#[cfg(feature = "protected")]
mod host;
#[cfg(feature = "protected")]
mod matcher;
#[cfg(feature = "protected")]
mod pattern;
#[cfg(feature = "protected")]
mod protect;
#[cfg(feature = "protected")]
mod reason;
#[cfg(feature = "protected")]
mod rules;
#[cfg(feature = "protected")]
mod syntax;
#[cfg(all(test, feature = "protected"))]
mod tests;
#[cfg(feature = "corpus")]
mod vectors;

#[cfg(feature = "protected")]
pub use matcher::Matcher;
#[cfg(feature = "protected")]
pub use protect::{BadPattern, ProtectPattern};
#[cfg(feature = "protected")]
pub use reason::{Divergence, Reason, Rule};
#[cfg(feature = "corpus")]
pub use vectors::{
    vectors, CookieDomainVector, StorageKeyVector, TargetVector, UrlVector, Vectors,
    OPENER_PROTECTED, OPENER_UNKNOWN, OPENER_UNPROTECTED,
};

/// How many times an inner scheme (`blob:`, `filesystem:`, `view-source:`) is unwrapped.
pub const MAX_INNER: usize = 8;

/// The opener of a CDP target whose URL inherits its origin (`about:blank`, the empty URL).
///
/// In `protected.json` the three named states are the strings `protected`, `unprotected` and
/// `unknown`; [`Opener::None`] is a target vector without `opener`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Opener {
    /// The target has no opener (`openerId` and `openerFrameId` are absent).
    #[default]
    None,
    /// The opener is a protected target.
    Protected,
    /// The opener is a target that is not protected.
    Unprotected,
    /// The opener was already gone when the program first looked: treated as protected.
    Unknown,
}

impl Opener {
    /// The opener of a vector's `opener` member: `None` for an absent member, `None` (the
    /// `Option`) for a name that is not one of the three.
    ///
    /// ```
    /// use slicc_browsers::protected::Opener;
    /// assert_eq!(Opener::from_name(Some("unknown")), Some(Opener::Unknown));
    /// assert_eq!(Opener::from_name(None), Some(Opener::None));
    /// assert_eq!(Opener::from_name(Some("none")), None);
    /// ```
    pub fn from_name(name: Option<&str>) -> Option<Opener> {
        match name {
            None => Some(Opener::None),
            Some("protected") => Some(Opener::Protected),
            Some("unprotected") => Some(Opener::Unprotected),
            Some("unknown") => Some(Opener::Unknown),
            Some(_) => None,
        }
    }

    /// The name `protected.json` uses, `None` for [`Opener::None`].
    pub fn name(self) -> Option<&'static str> {
        match self {
            Opener::None => None,
            Opener::Protected => Some("protected"),
            Opener::Unprotected => Some("unprotected"),
            Opener::Unknown => Some("unknown"),
        }
    }

    /// Whether an inheriting document opened by this opener counts as protected.
    pub fn passes_on_protection(self) -> bool {
        matches!(self, Opener::Protected | Opener::Unknown)
    }
}
