//! Structural analysis of nets: facts that hold of every reachable marking, found from the
//! net's graph and incidence matrix without exploring any state.
pub mod state_equation;
