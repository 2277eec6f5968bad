//! The Model Checking Contest's vocabulary: every string of the BenchKit protocol (input file
//! names, environment variables, examination names, techniques, answer lines) lives here.
//!
//! Sources for the formats (checked against published answers, not guessed):
//! - `STATE_SPACE STATES|TRANSITIONS|MAX_TOKEN_IN_PLACE|MAX_TOKEN_PER_MARKING <n> TECHNIQUES …`:
//!   the MCC 2021 oracle files (`yanntm/pnmcc-models-2021`, branch `gh-pages`,
//!   `oracle.tar.gz`, e.g. `oracle/ERK-PT-000001-SS.out`), the same files `ORACLES.tsv` cites.
//! - Global properties (`ReachabilityDeadlock`, `OneSafe`, `QuasiLiveness`, `StableMarking`,
//!   `Liveness`) are answered `FORMULA <Examination> TRUE|FALSE TECHNIQUES …`: the formula id is
//!   the examination name itself since MCC 2021 (same oracle archive, e.g.
//!   `oracle/ERK-PT-000001-RD.out` reads `FORMULA ReachabilityDeadlock FALSE TECHNIQUES …`;
//!   ITS-Tools prints its global verdicts the same way). Before 2021 the deadlock formula was
//!   named `<Model>-ReachabilityDeadlock-0`; that form is not produced.
//! - `DO_NOT_COMPETE` (the tool does not take part: coloured nets, other examinations) and
//!   `CANNOT_COMPUTE` (it takes part but has no answer), as printed by the BenchKit scripts of
//!   earlier participants (Cunf, TAPAAL, LTSmin); a formula without an answer is
//!   `FORMULA <id> CANNOT_COMPUTE`.

use std::fmt;

/// The model file of an MCC instance folder.
pub const MODEL_FILE: &str = "model.pnml";
/// The file telling whether the instance is coloured (`TRUE`) or P/T (`FALSE`).
pub const ISCOLORED_FILE: &str = "iscolored";
/// The content of [`ISCOLORED_FILE`] for a coloured net.
pub const COLORED_TRUE: &str = "TRUE";
/// The environment variable naming the examination.
pub const ENV_EXAMINATION: &str = "BK_EXAMINATION";
/// The environment variable giving the time budget, in seconds.
pub const ENV_TIME: &str = "BK_TIME_CONFINEMENT";
/// The environment variable giving the memory budget, in MiB.
pub const ENV_MEMORY: &str = "BK_MEMORY_CONFINEMENT";

/// The answer of a tool that does not take part in an examination.
pub const DO_NOT_COMPETE: &str = "DO_NOT_COMPETE";
/// The answer of a tool that takes part but could not compute an answer.
pub const CANNOT_COMPUTE: &str = "CANNOT_COMPUTE";

/// The examinations `unfold mcc` answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Examination {
    /// Reachable markings, reachability-graph edges and token bounds.
    StateSpace,
    /// Whether a reachable marking enables no transition.
    ReachabilityDeadlock,
    /// Whether no reachable marking puts two tokens on a place.
    OneSafe,
    /// Whether every transition is enabled in some reachable marking.
    QuasiLiveness,
    /// Whether some place has the same number of tokens in every reachable marking.
    StableMarking,
    /// Whether every transition can be enabled again from every reachable marking.
    Liveness,
    /// 16 formulas `EF φ` / `AG φ` over token counts (`ReachabilityCardinality.xml`).
    ReachabilityCardinality,
    /// 16 formulas `EF φ` / `AG φ` over fireability (`ReachabilityFireability.xml`).
    ReachabilityFireability,
    /// 16 bounds of token counts over the reachable markings (`UpperBounds.xml`).
    UpperBounds,
    /// 16 LTL formulas `A φ` over token counts (`LTLCardinality.xml`).
    LtlCardinality,
    /// 16 LTL formulas `A φ` over fireability (`LTLFireability.xml`).
    LtlFireability,
    /// 16 CTL formulas over token counts (`CTLCardinality.xml`).
    CtlCardinality,
    /// 16 CTL formulas over fireability (`CTLFireability.xml`).
    CtlFireability,
}

impl Examination {
    /// Every examination answered.
    pub const ALL: [Examination; 13] = [
        Examination::StateSpace,
        Examination::ReachabilityDeadlock,
        Examination::OneSafe,
        Examination::QuasiLiveness,
        Examination::StableMarking,
        Examination::Liveness,
        Examination::ReachabilityCardinality,
        Examination::ReachabilityFireability,
        Examination::UpperBounds,
        Examination::LtlCardinality,
        Examination::LtlFireability,
        Examination::CtlCardinality,
        Examination::CtlFireability,
    ];

    /// The contest's name (`BK_EXAMINATION`, and the formula id of global properties).
    pub fn name(self) -> &'static str {
        match self {
            Examination::StateSpace => "StateSpace",
            Examination::ReachabilityDeadlock => "ReachabilityDeadlock",
            Examination::OneSafe => "OneSafe",
            Examination::QuasiLiveness => "QuasiLiveness",
            Examination::StableMarking => "StableMarking",
            Examination::Liveness => "Liveness",
            Examination::ReachabilityCardinality => "ReachabilityCardinality",
            Examination::ReachabilityFireability => "ReachabilityFireability",
            Examination::UpperBounds => "UpperBounds",
            Examination::LtlCardinality => "LTLCardinality",
            Examination::LtlFireability => "LTLFireability",
            Examination::CtlCardinality => "CTLCardinality",
            Examination::CtlFireability => "CTLFireability",
        }
    }

    /// The file of the instance folder holding the examination's formulas, for the
    /// examinations that have one (`ReachabilityCardinality.xml`, …).
    pub fn formula_file(self) -> Option<String> {
        match self {
            Examination::ReachabilityCardinality
            | Examination::ReachabilityFireability
            | Examination::UpperBounds
            | Examination::LtlCardinality
            | Examination::LtlFireability
            | Examination::CtlCardinality
            | Examination::CtlFireability => Some(format!("{}.xml", self.name())),
            _ => None,
        }
    }

    /// The logic of the examination's formulas (the formula examinations), which a formula of
    /// its file must be written in ([`crate::property::logic`]).
    pub fn logic(self) -> Option<crate::property::Logic> {
        use crate::property::Logic;
        match self {
            Examination::ReachabilityCardinality | Examination::ReachabilityFireability => {
                Some(Logic::Reachability)
            }
            Examination::UpperBounds => Some(Logic::Bounds),
            Examination::LtlCardinality | Examination::LtlFireability => Some(Logic::Ltl),
            Examination::CtlCardinality | Examination::CtlFireability => Some(Logic::Ctl),
            _ => None,
        }
    }

    /// The examination whose formula file has this name (`CTLFireability.xml`), if one has.
    pub fn of_formula_file(name: &str) -> Option<Examination> {
        Examination::ALL
            .into_iter()
            .find(|e| e.formula_file().as_deref() == Some(name))
    }

    /// The examination of a contest name; `None` for unknown names.
    pub fn from_name(name: &str) -> Option<Examination> {
        Examination::ALL.into_iter().find(|e| e.name() == name)
    }
}

impl fmt::Display for Examination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Techniques named in answer lines (the contest's keywords).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Technique {
    /// Explicit enumeration of markings (`unfold reach` and the global-property pass).
    Explicit,
    /// Net unfoldings (the saturation prefix, the unfolding DPOR).
    NetUnfolding,
    /// One thread of computation.
    SequentialProcessing,
    /// A SAT or SMT solver.
    SatSmt,
    /// Structural facts: invariants, the net's graph.
    Topological,
    /// Partial-order reduction by stubborn sets.
    StubbornSets,
    /// The net reduced by rules that preserve the question before the engine ran.
    StructuralReduction,
}

impl Technique {
    /// The contest's keyword.
    pub fn keyword(self) -> &'static str {
        match self {
            Technique::Explicit => "EXPLICIT",
            Technique::NetUnfolding => "NET_UNFOLDING",
            Technique::SequentialProcessing => "SEQUENTIAL_PROCESSING",
            Technique::SatSmt => "SAT_SMT",
            Technique::Topological => "TOPOLOGICAL",
            Technique::StubbornSets => "STUBBORN_SETS",
            Technique::StructuralReduction => "STRUCTURAL_REDUCTION",
        }
    }
}

fn techniques(list: &[Technique]) -> String {
    let words: Vec<&str> = list.iter().map(|t| t.keyword()).collect();
    format!("TECHNIQUES {}", words.join(" "))
}

/// The four answers of the StateSpace examination.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StateSpaceAnswer {
    /// Reachable markings.
    pub states: u64,
    /// Edges of the reachability graph.
    pub transitions: u64,
    /// The most tokens on one place in a reachable marking.
    pub max_token_in_place: u64,
    /// The most tokens in one reachable marking.
    pub max_token_per_marking: u64,
}

/// The four `STATE_SPACE` lines.
pub fn state_space_lines(answer: &StateSpaceAnswer, by: &[Technique]) -> Vec<String> {
    let t = techniques(by);
    vec![
        format!("STATE_SPACE STATES {} {t}", answer.states),
        format!("STATE_SPACE TRANSITIONS {} {t}", answer.transitions),
        format!(
            "STATE_SPACE MAX_TOKEN_IN_PLACE {} {t}",
            answer.max_token_in_place
        ),
        format!(
            "STATE_SPACE MAX_TOKEN_PER_MARKING {} {t}",
            answer.max_token_per_marking
        ),
    ]
}

/// The answer line of one formula of a formula examination: `TRUE`/`FALSE` or a bound, or
/// `CANNOT_COMPUTE` for `None`.
pub fn property_line(id: &str, value: Option<&str>, by: &[Technique]) -> String {
    match value {
        Some(v) => format!("FORMULA {id} {v} {}", techniques(by)),
        None => format!("FORMULA {id} {CANNOT_COMPUTE}"),
    }
}

/// The answer line of a global property: its verdict, or `CANNOT_COMPUTE` for `None`.
pub fn formula_line(exam: Examination, verdict: Option<bool>, by: &[Technique]) -> String {
    match verdict {
        Some(v) => format!(
            "FORMULA {} {} {}",
            exam.name(),
            if v { "TRUE" } else { "FALSE" },
            techniques(by)
        ),
        None => format!("FORMULA {} {CANNOT_COMPUTE}", exam.name()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for e in Examination::ALL {
            assert_eq!(Examination::from_name(e.name()), Some(e));
        }
        assert_eq!(
            Examination::from_name("LTLCardinality"),
            Some(Examination::LtlCardinality)
        );
        assert_eq!(Examination::from_name("ReachabilityComputeBounds"), None);
        assert_eq!(Examination::from_name("stateSpace"), None);
    }

    #[test]
    fn lines_have_the_oracle_shape() {
        // The shape of `oracle/ERK-PT-000001-SS.out` and `-RD.out` (MCC 2021).
        let by = [Technique::Explicit];
        let lines = state_space_lines(
            &StateSpaceAnswer {
                states: 13,
                transitions: 30,
                max_token_in_place: 1,
                max_token_per_marking: 5,
            },
            &by,
        );
        assert_eq!(
            lines,
            [
                "STATE_SPACE STATES 13 TECHNIQUES EXPLICIT",
                "STATE_SPACE TRANSITIONS 30 TECHNIQUES EXPLICIT",
                "STATE_SPACE MAX_TOKEN_IN_PLACE 1 TECHNIQUES EXPLICIT",
                "STATE_SPACE MAX_TOKEN_PER_MARKING 5 TECHNIQUES EXPLICIT",
            ]
        );
        assert_eq!(
            formula_line(Examination::ReachabilityDeadlock, Some(false), &by),
            "FORMULA ReachabilityDeadlock FALSE TECHNIQUES EXPLICIT"
        );
        assert_eq!(
            formula_line(Examination::Liveness, None, &by),
            "FORMULA Liveness CANNOT_COMPUTE"
        );
    }
}
