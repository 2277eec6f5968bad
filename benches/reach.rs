//! Explicit-state reachability speed (`explore_net`) on shared nets, in states per second.
//!
//! `cargo bench --bench reach`; needs `../shared/nets` beside the checkout (nets missing there
//! are skipped with a note).

use std::path::Path;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use unfold::explore::limits::Limits;
use unfold::explore::reach::explore_net;
use unfold::formats::read_net;

/// Nets of a few hundred thousand states at most, so that one iteration stays short.
const NETS: [&str; 5] = [
    "pnml/Philosophers-PT-000010.pnml",
    "pep/dpd_7.sync.ll_net",
    "pnml/Dekker-PT-010.pnml",
    "pnml/RefineWMG-PT-002002.pnml",
    "pep/furnace_3.ll_net",
];

fn reach_benches(c: &mut Criterion) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/nets");
    let mut group = c.benchmark_group("reach");
    group.sample_size(10);
    for file in NETS {
        let path = root.join(file);
        let Ok((net, _)) = read_net(&path) else {
            eprintln!("skipping {}: not readable", path.display());
            continue;
        };
        let first = explore_net(&net, &Limits::default(), &mut |_| {}).expect("no overflow");
        group.throughput(Throughput::Elements(first.states));
        group.bench_function(file, |b| {
            b.iter(|| {
                explore_net(std::hint::black_box(&net), &Limits::default(), &mut |_| {})
                    .expect("no overflow")
                    .states
            })
        });
    }
    group.finish();
}

criterion_group!(benches, reach_benches);
criterion_main!(benches);
