//! Discovery benchmarks: the whole conformance corpus through the engine on fake hosts
//! (case runs per second), and `list` on this machine (installed scan plus every source).

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use slicc_browsers::catalog::Os;
use slicc_browsers::conformance;
use slicc_browsers::corpus::corpus;
use slicc_browsers::discovery::{discover, installed, Options, SystemHost};

fn corpus_run(c: &mut Criterion) {
    let cat = slicc_browsers::catalog();
    let corpus = corpus();
    let runs = conformance::run(&cat, &corpus, Os::ALL);
    assert!(runs.failures.is_empty(), "{}", runs.summary());
    let mut group = c.benchmark_group("corpus");
    group.throughput(Throughput::Elements(runs.passed as u64));
    group.bench_function("every case on every OS", |b| {
        b.iter(|| black_box(conformance::run(&cat, &corpus, Os::ALL)))
    });
    group.finish();
}

fn list(c: &mut Criterion) {
    let Some(os) = Os::current() else { return };
    let host = SystemHost::new();
    let mut group = c.benchmark_group("list");
    group.sample_size(10);
    group.bench_function("this machine", |b| {
        b.iter(|| {
            let mut options = Options::new(os);
            options.installed = installed::scan(&host, os);
            black_box(discover(&host, &options))
        })
    });
    group.finish();
}

criterion_group!(benches, corpus_run, list);
criterion_main!(benches);
