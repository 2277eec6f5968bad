//! How long the LTL engine's counterexamples are: the lasso rebuilt short
//! (`LassoShape::Shortest`, the default) against the lasso the search found
//! (`LassoShape::AsFound`), on the LTL formulas of P/T instances of ../shared/mcc, both
//! measured in the same run. Ignored (it measures, it does not test); run it with
//!
//! ```text
//! cargo test --release --test integration ltl_lassos:: -- --ignored --nocapture
//! ```
//!
//! `LASSO_SECONDS` (default 1) bounds each check; `LASSO_ALL=1` takes every P/T instance
//! instead of those of `tests/mcc_ltl.rs`. It fails, never skips, when ../shared/mcc is
//! missing; it also fails if a verdict depends on the lasso's shape or a short lasso is
//! longer than the one found (the search falls back to the found one only at a limit).

use crate::common;

use std::time::{Duration, Instant};

use unfold::check::ltl::{self, LassoShape, LtlOptions};
use unfold::explore::limits::Limits;
use unfold::property::{Ask, Names, load};

/// The instances of `tests/mcc_ltl.rs`: answered within seconds in release.
use crate::mcc_ltl::INSTANCES;

/// Sums over the lassos of one shape.
#[derive(Default)]
struct Sums {
    prefix: usize,
    cycle: usize,
    longest: usize,
    time: Duration,
}

impl Sums {
    fn add(&mut self, prefix: usize, cycle: usize, time: Duration) {
        self.prefix += prefix;
        self.cycle += cycle;
        self.longest = self.longest.max(prefix + cycle);
        self.time += time;
    }

    fn line(&self, name: &str, n: usize) {
        let mean = |x: usize| x as f64 / n.max(1) as f64;
        println!(
            "{name:<9} mean stem {:>8.2}  mean cycle {:>7.2}  mean lasso {:>8.2}  longest {:>6}  \
             check time {:>7.2} s",
            mean(self.prefix),
            mean(self.cycle),
            mean(self.prefix + self.cycle),
            self.longest,
            self.time.as_secs_f64()
        );
    }
}

#[test]
#[ignore = "a measurement: run with --ignored --nocapture"]
fn lasso_lengths_before_and_after() {
    let root = common::shared_mcc();
    let seconds: f64 = std::env::var("LASSO_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1.0);
    let instances: Vec<String> = if std::env::var("LASSO_ALL").is_ok_and(|v| v == "1") {
        let mut all: Vec<String> = std::fs::read_dir(&root)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| {
                std::fs::read_to_string(p.join("iscolored")).is_ok_and(|s| s.trim() == "FALSE")
            })
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        all.sort();
        all
    } else {
        INSTANCES.iter().map(|s| s.to_string()).collect()
    };
    let (mut found, mut short) = (Sums::default(), Sums::default());
    let (mut lassos, mut formulas, mut shorter) = (0usize, 0usize, 0usize);
    for instance in &instances {
        let dir = root.join(instance);
        let (net, _) = unfold::formats::read_net(&dir.join("model.pnml")).unwrap();
        let names = Names::of(&net);
        for exam in ["LTLCardinality", "LTLFireability"] {
            for q in load(&dir.join(format!("{exam}.xml"))).unwrap() {
                formulas += 1;
                let Ok(r) = names.resolve(&q) else { continue };
                let Ask::Holds(f) = &r.ask else { continue };
                let run = |lasso| {
                    let limits = Limits::new(Some(Duration::from_secs_f64(seconds)), None);
                    let options = LtlOptions {
                        lasso,
                        ..LtlOptions::default()
                    };
                    let started = Instant::now();
                    let out = ltl::check(&net, f, &limits, options).unwrap();
                    (out, started.elapsed())
                };
                let (a, ta) = run(LassoShape::AsFound);
                let (b, tb) = run(LassoShape::Shortest);
                if a.verdict.is_none() || b.verdict.is_none() {
                    continue;
                }
                assert_eq!(a.verdict, b.verdict, "{}", q.id);
                let (Some(la), Some(lb)) = (&a.counterexample, &b.counterexample) else {
                    continue;
                };
                let (na, nb) = (
                    la.prefix.len() + la.cycle.len(),
                    lb.prefix.len() + lb.cycle.len(),
                );
                assert!(nb <= na, "{}: {nb} > {na}", q.id);
                shorter += usize::from(nb < na);
                lassos += 1;
                found.add(la.prefix.len(), la.cycle.len(), ta);
                short.add(lb.prefix.len(), lb.cycle.len(), tb);
            }
        }
    }
    println!(
        "{} instances, {formulas} LTL formulas, {lassos} decided by a lasso under both shapes \
         ({seconds} s per check), {shorter} of them shorter",
        instances.len()
    );
    found.line("as found", lassos);
    short.line("shortest", lassos);
    let total = |s: &Sums| (s.prefix + s.cycle) as f64;
    println!(
        "mean lasso ratio shortest / as found: {:.3}",
        total(&short) / total(&found).max(1.0)
    );
    assert!(lassos > 0, "no lasso to measure");
}
