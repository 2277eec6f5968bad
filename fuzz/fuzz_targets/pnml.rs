//! The PNML reader and everything built from the nets it accepts.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    if let Ok(net) = unfold::formats::pnml::parse(data, Path::new("fuzz.pnml")) {
        common::exercise_net(&net, common::seed_of(data));
    }
});
