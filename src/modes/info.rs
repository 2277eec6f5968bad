//! `info`: a net's sizes, arcs, weights and structural class.

use std::path::Path;
use std::time::Duration;

use serde_json::Value;

use super::{Report, head, tail};
use crate::formats::Format;
use crate::model::net::Net;
use crate::report::stats::Stats;

/// The description of `net`, read from `file` in `format`, `elapsed` after the run started.
pub fn report(net: &Net, format: Format, file: &Path, elapsed: Duration) -> Report {
    let s = net.structure();
    let mut stats = Stats::new();
    head(&mut stats, file, "info", true);
    stats.add("format", "format", format.to_string());
    stats.add("name", "name", net.name.clone());
    stats.add("places", "places", net.places.len());
    stats.add("transitions", "transitions", net.transitions.len());
    stats.add("arcs", "arcs", net.arc_count());
    stats.add("read_arcs", "read arcs", net.read_arc_count());
    stats.add("max_weight", "largest arc weight", net.max_weight());
    stats.add("weighted", "weights above 1", net.max_weight() > 1);
    stats.add("initial_tokens", "initial tokens", net.initial_tokens());
    stats.add(
        "nupn_safe",
        "NUPN safe flag",
        net.nupn
            .as_ref()
            .and_then(|n| n.safe)
            .map_or(Value::Null, Value::Bool),
    );
    if let Some(f) = &net.folding {
        // The net is the unfolding of a coloured net: its own sizes and what unfolding did.
        let (c, u) = (&f.coloured, &f.stats);
        stats.add("coloured_places", "coloured places", c.places);
        stats.add(
            "coloured_transitions",
            "coloured transitions",
            c.transitions,
        );
        stats.add("coloured_arcs", "coloured arcs", c.arcs);
        stats.add("coloured_variables", "coloured variables", c.variables);
        stats.add(
            "unfolded_places",
            "places before dead ones dropped",
            u.places_before,
        );
        stats.add(
            "unfolded_transitions",
            "transitions before dead ones dropped",
            u.transitions_before,
        );
        stats.add("bindings_tried", "bindings tried", u.bindings_tried);
        stats.add("bindings_kept", "bindings kept", u.bindings_kept);
        stats.add("unfolding_rounds", "unfolding rounds", u.rounds);
        stats.add(
            "unfolding_seconds",
            "unfolding time (s)",
            u.micros as f64 / 1e6,
        );
    }
    stats.add("ordinary", "ordinary", s.ordinary);
    stats.add("free_choice", "free-choice", s.free_choice);
    stats.add("state_machine", "state machine", s.state_machine);
    stats.add("marked_graph", "marked graph", s.marked_graph);
    tail(&mut stats, elapsed);
    Report {
        stats,
        notes: Vec::new(),
        found: false,
        complete: true,
    }
}
