//! The integration tests, as one test binary (`cargo test --test integration`): one link of the
//! library instead of one per file, which was most of the suite's build time. Each file of
//! `tests/` is a module here; run one with `cargo test --test integration MODULE::` (e.g.
//! `cargo test --release --test integration mcc_ltl::`). Cargo's automatic discovery of
//! `tests/*.rs` is off (`autotests = false`), so a new file must be listed below:
//! `every_test_file_is_a_module` fails when one is not.

mod common;

mod assertion_cli;
mod bad_input_pep;
mod bad_input_pnml;
mod batch_cli;
mod batch_mcc;
mod check_ctl;
mod check_dpor;
mod check_explicit;
mod check_ltl;
mod check_prefix_sat;
mod check_properties_cli;
mod check_reduced;
mod check_seek_equation;
mod closed_pipe;
mod coloured;
mod coloured_partitions;
mod contextual;
mod contextual_cli;
mod convert_nupn;
mod convert_roundtrip;
mod deadlock_equation;
mod docs_cli;
mod dot_refusal;
mod dot_style;
mod edpor;
mod edpor_cli;
mod error_messages;
mod fuzz_regressions;
mod global_props;
mod independence;
mod json_markings;
mod json_reports;
mod layers;
mod limits;
mod ltl_lassos;
mod ltl_unfolding;
mod mcc;
mod mcc_ctl;
mod mcc_global;
mod mcc_ltl;
mod mcc_properties;
mod oracles;
mod packed_markings;
mod pep_shared;
mod pnml_shared;
mod prefix_cli;
mod prefix_linear;
mod prefix_mci;
mod prefix_oracles;
mod prefix_phases;
mod property_logic;
mod property_readers;
mod reach_cli;
mod reduce;
mod reduce_liveness;
mod state_equation;
mod stop_statistics;
mod structural;
mod tsemiflows;
mod tsys;
mod udpor_brute;
mod udpor_cache;
mod udpor_cli;
mod udpor_cutoff_order;
mod udpor_oracles;

/// A file of `tests/` that is not declared above would never run: fail instead.
#[test]
fn every_test_file_is_a_module() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let declared = include_str!("main.rs");
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("tests/ is readable") {
        let path = entry.expect("tests/ entry").path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        let Some(module) = name.strip_suffix(".rs") else {
            continue;
        };
        if module != "main" && !declared.contains(&format!("\nmod {module};\n")) {
            missing.push(name.to_owned());
        }
    }
    assert!(
        missing.is_empty(),
        "tests/main.rs does not declare {missing:?}"
    );
}
