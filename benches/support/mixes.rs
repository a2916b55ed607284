//! The two URL mixes `benches/protected.rs` measures `Matcher::url` on, generated from fixed
//! seeds so every run (and `tests/offline/protected.rs`, which holds the fast paths equal to the full
//! parse on them) sees the same URLs.
//!
//! - [`ordinary`]: what a browser's targets look like: 85% ordinary https pages, 5% plain http
//!   with a port, 5% protected URLs, 5% inner schemes and odd forms.
//! - [`hostile`]: the same hosts and paths, each URL with one to three of the forms an attacker
//!   would use to slip past a matcher: mixed-case schemes, backslashes, `%2E` for a dot,
//!   full-width and ideographic dots, soft hyphens, tabs and newlines, leading and trailing
//!   controls, and `xn--` labels (valid and invalid Punycode). One in five is built on a
//!   protected host.
#![allow(dead_code)]

/// SplitMix64, so a mix is the same on every run.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    pub fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

/// The seed of [`ordinary`].
pub const ORDINARY_SEED: u64 = 0x00be_ec4e_5eed;
/// The seed of [`hostile`].
pub const HOSTILE_SEED: u64 = 0x0005_1ecc_7a11;

/// The extra origin both mixes are judged with.
pub const EXTRA_ORIGINS: &[&str] = &["http://127.0.0.1:5710"];

pub const HOSTS: &[&str] = &[
    "www.example.com",
    "docs.rs",
    "github.com",
    "news.ycombinator.com",
    "en.wikipedia.org",
    "mail.google.com",
    "www.youtube.com",
    "stackoverflow.com",
    "developer.mozilla.org",
    "cdn.jsdelivr.net",
    "api.example.org",
    "login.microsoftonline.com",
    "www.bbc.co.uk",
    "static.example.net",
    "shop.example.de",
    "localhost",
];
pub const PATHS: &[&str] = &[
    "/",
    "/index.html",
    "/search?q=rust+url+parser&hl=en",
    "/wiki/Uniform_Resource_Locator",
    "/a/b/c/d.js",
    "/questions/12345/how-to-parse-a-url",
    "/static/app.3f9a1c.css",
    "/watch?v=dQw4w9WgXcQ&t=42s",
    "/api/v2/items?page=3&per_page=50#results",
    "/user/settings",
    "/favicon.ico",
    "/img/logo@2x.png",
];
const PROTECTED: &[&str] = &[
    "https://seven.sliccy.ai/",
    "https://sliccy.ai/docs",
    "https://vault.sliccy.ai/unlock",
    "https://www.sliccy.ai/?ref=x",
    "http://127.0.0.1:5710/app",
];
const ODD: &[&str] = &[
    "blob:https://www.example.com/6f1c2d3e-0a4b-4c5d-9e8f-1a2b3c4d5e6f",
    "blob:https://seven.sliccy.ai/0b7c",
    "view-source:https://github.com/",
    "about:blank",
    "data:text/html,<h1>hi</h1>",
    "https://bücher.example/",
    "HTTPS://WWW.EXAMPLE.COM/UPPER",
    "https://user:pass@www.example.com:8443/x",
    "https:\\\\www.example.com\\x",
    "javascript:void(0)",
    "devtools://devtools/bundled/inspector.html",
    "filesystem:https://www.example.com/temporary/x",
    "https://xn--a.sliccy.ai/",
    "https://seven.sliccy.ai./",
    "wss://www.example.com/socket",
];

/// `n` URLs of the ordinary mix: 85% ordinary https pages, 5% plain http with a port, 5%
/// protected, 5% inner schemes and odd forms.
pub fn ordinary(n: usize) -> Vec<String> {
    let mut rng = Rng(ORDINARY_SEED);
    (0..n)
        .map(|_| match rng.below(100) {
            0..=84 => format!("https://{}{}", rng.pick(HOSTS), rng.pick(PATHS)),
            85..=89 => format!(
                "http://{}:{}{}",
                rng.pick(HOSTS),
                8000 + rng.below(100),
                rng.pick(PATHS)
            ),
            90..=94 => rng.pick(PROTECTED).to_string(),
            _ => rng.pick(ODD).to_string(),
        })
        .collect()
}

/// Hosts the hostile mix builds on a fifth of the time: seven's, the vault's, the apex and the
/// extra origin's IP.
const PROTECTED_HOSTS: &[&str] = &[
    "seven.sliccy.ai",
    "vault.sliccy.ai",
    "sliccy.ai",
    "www.sliccy.ai",
    "127.0.0.1:5710",
];

/// `xn--` labels put in front of a host: valid Punycode (`bücher`, `пример`, `例え`) and
/// labels the `url` crate rejects.
const XN_LABELS: &[&str] = &[
    "xn--bcher-kva",
    "xn--e1afmkfd",
    "xn--r8jz45g",
    "xn--a",
    "xn--",
    "XN--BCHER-KVA",
];

/// What stands for a dot in a host: `%2E`, `%2e`, full-width `．`, ideographic `。`, halfwidth
/// ideographic `｡`.
const DOTS: &[&str] = &["%2E", "%2e", "\u{FF0E}", "\u{3002}", "\u{FF61}"];

/// What goes between `scheme:` and the host in place of `//`.
const SLASHES: &[&str] = &["\\\\", "/\\", "\\/", "\\\\\\", "///", "\\", ""];

/// Whitespace the URL Standard removes: tabs and newlines anywhere, controls and spaces at
/// either end.
const BLANKS: &[&str] = &["\t", "\n", "\r", "\t\t"];

/// `n` URLs of the hostile mix.
pub fn hostile(n: usize) -> Vec<String> {
    let mut rng = Rng(HOSTILE_SEED);
    (0..n).map(|_| hostile_one(&mut rng)).collect()
}

fn hostile_one(rng: &mut Rng) -> String {
    let (scheme, host) = if rng.below(5) == 0 {
        let host = rng.pick(PROTECTED_HOSTS);
        (
            if host.starts_with("127.") {
                "http"
            } else {
                "https"
            },
            host,
        )
    } else {
        (
            if rng.below(10) == 0 { "http" } else { "https" },
            rng.pick(HOSTS),
        )
    };
    let mut scheme = scheme.to_string();
    let mut slashes = "//".to_string();
    let mut host = host.to_string();
    let mut path = rng.pick(PATHS).to_string();
    let mut ends = (String::new(), String::new());
    let forms = 1 + rng.below(3);
    for _ in 0..forms {
        match rng.below(7) {
            // Mixed-case scheme.
            0 => {
                scheme = scheme
                    .chars()
                    .map(|c| {
                        if rng.below(2) == 0 {
                            c.to_ascii_uppercase()
                        } else {
                            c
                        }
                    })
                    .collect();
                if !scheme.bytes().any(|b| b.is_ascii_uppercase()) {
                    scheme[..1].make_ascii_uppercase();
                }
            }
            // Backslashes after the scheme and in the path.
            1 => {
                slashes = rng.pick(SLASHES).to_string();
                if rng.below(2) == 0 {
                    path = path.replace('/', "\\");
                }
            }
            // A dot in the host written as an escape or a wide dot.
            2 | 3 => {
                let dots: Vec<usize> = host.match_indices('.').map(|(i, _)| i).collect();
                if dots.is_empty() {
                    host.push_str(rng.pick(DOTS));
                } else {
                    let at = dots[rng.below(dots.len())];
                    host.replace_range(at..at + 1, rng.pick(DOTS));
                }
            }
            // A soft hyphen in the host.
            4 => {
                let at = char_boundary(&host, rng.below(host.len() + 1));
                host.insert(at, '\u{AD}');
            }
            // Tabs and newlines inside, controls and spaces around.
            5 => {
                let blank = rng.pick(BLANKS);
                match rng.below(4) {
                    0 => {
                        let at = 1 + rng.below(scheme.len() - 1);
                        scheme.insert_str(at, blank);
                    }
                    1 => {
                        let at = char_boundary(&host, rng.below(host.len() + 1));
                        host.insert_str(at, blank);
                    }
                    2 => path.insert_str(rng.below(path.len() + 1), blank),
                    _ => {
                        ends = (
                            [" ", "\u{1}", "\t ", ""][rng.below(4)].to_string(),
                            [" ", "\u{0}", "\n", " \u{1F}"][rng.below(4)].to_string(),
                        )
                    }
                }
            }
            // An `xn--` label in front.
            _ => host = format!("{}.{host}", rng.pick(XN_LABELS)),
        }
    }
    format!("{}{scheme}:{slashes}{host}{path}{}", ends.0, ends.1)
}

fn char_boundary(s: &str, mut at: usize) -> usize {
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    at
}
