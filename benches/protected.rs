//! `Matcher::url` over a realistic mix of 100,000 URLs, beside a bare `url::Url::parse` of the
//! same mix: mostly ordinary https pages, some protected, some inner schemes and odd forms.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use slicc_browsers::protected::Matcher;
use std::hint::black_box;

/// SplitMix64, so the mix is the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

const HOSTS: &[&str] = &[
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
const PATHS: &[&str] = &[
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

/// The mix: 85% ordinary https pages, 5% plain http, 5% protected, 5% inner schemes and odd forms.
fn mix() -> Vec<String> {
    let mut rng = Rng(0x00be_ec4e_5eed);
    (0..100_000)
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

fn bench(c: &mut Criterion) {
    let urls = mix();
    let cat = slicc_browsers::shared_catalog();
    let matcher = Matcher::new(&cat.protected_origins, &["http://127.0.0.1:5710"]).unwrap();
    let protected = urls.iter().filter(|u| matcher.url(u)).count();
    println!("mix: {} URLs, {protected} protected", urls.len());

    let mut group = c.benchmark_group("protected-100k");
    group.throughput(Throughput::Elements(urls.len() as u64));
    group.sample_size(20);
    group.bench_function("url::Url::parse", |b| {
        b.iter(|| {
            urls.iter()
                .filter(|u| url::Url::parse(black_box(u)).is_ok())
                .count()
        })
    });
    group.bench_function("Matcher::url", |b| {
        b.iter(|| urls.iter().filter(|u| matcher.url(black_box(u))).count())
    });
    group.bench_function("Matcher::url_parsed (no fast path)", |b| {
        b.iter(|| {
            urls.iter()
                .filter(|u| matcher.url_parsed(black_box(u)))
                .count()
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
