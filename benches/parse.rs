//! Parse throughput of the PNML and PEP readers on large generated nets (dining philosophers
//! from `tools/gen_net.py`), in MB/s.
//!
//! `cargo bench --bench parse`; the nets are generated into a temporary directory first.

use std::path::{Path, PathBuf};
use std::process::Command;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use unfold::formats::{pep, pnml};

/// Runs `tools/gen_net.py philosophers N --format FORMAT` into `dir` and returns the file.
fn generate(dir: &Path, n: usize, format: &str) -> PathBuf {
    let out = dir.join(format!("philosophers-{n}.{format}"));
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/gen_net.py");
    let status = Command::new("python3")
        .arg(script)
        .args(["philosophers", &n.to_string(), "--format", format, "-o"])
        .arg(&out)
        .status()
        .expect("python3 runs tools/gen_net.py");
    assert!(status.success(), "gen_net.py failed");
    out
}

fn parse_benches(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    for n in [1_000, 10_000] {
        for format in ["pnml", "pep"] {
            let path = generate(dir.path(), n, format);
            let bytes = std::fs::read(&path).expect("the generated net");
            let parse: fn(&[u8], &Path) -> bool = match format {
                "pnml" => |b, p| pnml::parse(b, p).is_ok(),
                _ => |b, p| pep::parse(b, p).is_ok(),
            };
            assert!(parse(&bytes, &path), "{} does not parse", path.display());
            let mut group = c.benchmark_group(format!("parse-{format}"));
            group.throughput(Throughput::Bytes(bytes.len() as u64));
            group.sample_size(if n >= 10_000 { 20 } else { 50 });
            group.bench_function(format!("philosophers-{n}"), |b| {
                b.iter(|| parse(std::hint::black_box(&bytes), &path))
            });
            group.finish();
        }
    }
}

criterion_group!(benches, parse_benches);
criterion_main!(benches);
