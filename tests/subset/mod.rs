//! The representative subset of the guard vectors that CI runs in headless Chromium (the
//! no-guard self-test and the proxy's certification): one vector of each family and
//! sub-family.

/// One vector per sub-family: C1 to C6 (C4 both same-site and cross-site), E1, E2, E3, E5, E6
/// (there is no E4), and B rows over the browser session, Fetch and cookies.
pub const SUBSET: [&str; 16] = [
    "C1.script-nav",
    "C2.302",
    "C3.auto-attach-wait",
    "C4.static-cross-site",
    "C5.fetch",
    "C5.guessed-id.fulfill",
    "C6.write-cookie",
    "C6.dom-storage-read",
    "E1.onload",
    "E2.binding",
    "E3.bypass-csp",
    "E5.console",
    "E6.extra-headers",
    "B1.create-target",
    "B2.headers",
    "B4.request-cookies",
];
