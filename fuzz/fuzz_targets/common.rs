//! Shared driver of the net targets: what is built from a net the reader accepted.

use std::path::Path;

use unfold::formats::{self, Format};
use unfold::model::net::Net;
use unfold::model::net_system::NetSystem;
use unfold::system::{System, Transition};

/// Steps of the random walk fired on every accepted model.
const STEPS: usize = 32;

/// Fires up to [`STEPS`] transitions of `sys` from its initial state, picking among the enabled
/// ones by `seed`; an overflow ends the walk (it is an error the explorers report, not a bug).
pub fn walk<S: System>(sys: &S, mut seed: u64) {
    let mut state = vec![0u64; sys.state_words()];
    let mut next = state.clone();
    sys.initial_state(&mut state);
    let mut enabled: Vec<Transition> = Vec::new();
    for t in 0..sys.transition_count() as Transition {
        let _ = sys.transition_name(t);
        let _ = sys.footprint(t);
    }
    for _ in 0..STEPS {
        enabled.clear();
        sys.enabled(&state, &mut enabled);
        let _ = sys.is_deadlock(&state);
        let _ = sys.describe_state(&state);
        if enabled.is_empty() {
            return;
        }
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let t = enabled[(seed >> 33) as usize % enabled.len()];
        assert!(
            sys.is_enabled(&state, t),
            "enabled() and is_enabled() disagree"
        );
        if sys.fire(&state, t, &mut next).is_err() {
            return;
        }
        std::mem::swap(&mut state, &mut next);
    }
}

/// Everything built from an accepted net: structure queries, the packed system at the default
/// width and at every wider one, a walk on each, and a write/read round trip in both formats.
pub fn exercise_net(net: &Net, seed: u64) {
    let _ = net.structure();
    let _ = net.place_neighbours();
    let _ = net.arc_count();
    let _ = net.initial_tokens();
    let mut sys = NetSystem::new(net);
    loop {
        walk(&sys, seed);
        match sys.widened() {
            Some(wider) => sys = wider,
            None => break,
        }
    }
    for format in [Format::Pnml, Format::Pep] {
        let mut text = Vec::new();
        formats::write_net(net, format, &mut text).expect("writing to memory");
        let back = match format {
            Format::Pnml => formats::pnml::parse(&text, Path::new("roundtrip.pnml")),
            Format::Pep => formats::pep::parse(&text, Path::new("roundtrip.ll_net")),
            Format::Tsys => unreachable!("only net formats are written"),
        };
        let back = back.unwrap_or_else(|e| panic!("our own {format} output is refused: {e}"));
        assert_eq!(
            back.places.len(),
            net.places.len(),
            "{format} round trip: places"
        );
        assert_eq!(
            back.transitions.len(),
            net.transitions.len(),
            "{format} round trip: transitions"
        );
    }
}

/// A seed for the walk from the input bytes.
pub fn seed_of(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf29ce484222325u64, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x100000001b3)
    })
}
