//! `Matcher::url` on two mixes of 100,000 URLs each, beside a bare `url::Url::parse` of the same
//! URLs, in one criterion group: the ordinary mix (mostly plain https pages) and the hostile mix
//! (mixed-case schemes, backslashes, `%2E`, wide dots, soft hyphens, tabs, `xn--` labels). The
//! mixes come from `benches/support/mixes.rs`, generated from fixed seeds.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use slicc_browsers::protected::Matcher;
use std::hint::black_box;

#[path = "support/mixes.rs"]
mod mixes;

const N: usize = 100_000;

fn bench(c: &mut Criterion) {
    let cat = slicc_browsers::shared_catalog();
    let matcher = Matcher::new(&cat.protected_origins, mixes::EXTRA_ORIGINS).unwrap();
    let sets = [
        ("ordinary", mixes::ordinary(N)),
        ("hostile", mixes::hostile(N)),
    ];

    let mut group = c.benchmark_group("protected-100k");
    group.throughput(Throughput::Elements(N as u64));
    group.sample_size(10);
    for (name, urls) in &sets {
        let protected = urls.iter().filter(|u| matcher.url(u)).count();
        let parsed = urls.iter().filter(|u| url::Url::parse(u).is_ok()).count();
        println!(
            "{name} mix: {} URLs, {protected} protected, {parsed} parse",
            urls.len()
        );
        group.bench_function(format!("{name}/url::Url::parse"), |b| {
            b.iter(|| {
                urls.iter()
                    .filter(|u| url::Url::parse(black_box(u)).is_ok())
                    .count()
            })
        });
        group.bench_function(format!("{name}/Matcher::url"), |b| {
            b.iter(|| urls.iter().filter(|u| matcher.url(black_box(u))).count())
        });
        group.bench_function(format!("{name}/Matcher::url_parsed (no fast path)"), |b| {
            b.iter(|| {
                urls.iter()
                    .filter(|u| matcher.url_parsed(black_box(u)))
                    .count()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
