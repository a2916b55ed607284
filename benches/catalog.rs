//! Reading the embedded catalog: `catalog()` (a fresh typed parse), `Catalog::parse`, and
//! `shared_catalog()` after its first call, beside one `serde_json::Value` parse of the same
//! text (with the crate's serde_json features), in one criterion group.

use criterion::{criterion_group, criterion_main, Criterion};
use slicc_browsers::{Catalog, CATALOG};
use std::hint::black_box;

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("catalog");
    group.bench_function("serde_json::from_str::<Value>", |b| {
        b.iter(|| serde_json::from_str::<serde_json::Value>(black_box(CATALOG)).unwrap())
    });
    group.bench_function("catalog()", |b| b.iter(slicc_browsers::catalog));
    group.bench_function("Catalog::parse", |b| {
        b.iter(|| Catalog::parse(black_box(CATALOG)).unwrap())
    });
    let _ = slicc_browsers::shared_catalog();
    group.bench_function("shared_catalog() after the first call", |b| {
        b.iter(|| black_box(slicc_browsers::shared_catalog()).browsers.len())
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
