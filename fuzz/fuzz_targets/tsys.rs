//! The `.tsys` reader, the program compiler (`ProgramSystem`) and a walk on what it builds.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use unfold::model::program_system::ProgramSystem;

#[path = "common.rs"]
#[allow(dead_code)] // the net half of the driver
mod common;

fuzz_target!(|data: &[u8]| {
    if let Ok(program) = unfold::formats::tsys::parse(data, Path::new("fuzz.tsys"))
        && let Ok(sys) = ProgramSystem::new(&program)
    {
        common::walk(&sys, common::seed_of(data));
        let state = {
            let mut s = vec![0u64; unfold::system::System::state_words(&sys)];
            unfold::system::System::initial_state(&sys, &mut s);
            s
        };
        let _ = sys.assertion_failed(&state);
        for i in 0..sys.instances().len() {
            let _ = sys.status(&state, i as _);
        }
    }
});
