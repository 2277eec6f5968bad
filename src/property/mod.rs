//! Properties of nets: the Model Checking Contest's property language (reachability,
//! upper bounds, LTL and CTL formulas) as one syntax tree ([`syntax`]), read from the
//! contest's XML ([`xml`]) or a text syntax for people ([`text`], which also prints formulas
//! back), from files or the command line ([`load`]), resolved against a net ([`resolve`])
//! and compiled to predicates over place and transition indices for the engines
//! ([`predicate`]); [`logic`] refuses, at the offending operator, a formula outside the
//! temporal logic its file or examination expects. Engines know a property only through [`predicate::Predicate`] and
//! [`predicate::Marking`].

pub mod load;
pub mod logic;
pub mod predicate;
pub mod resolve;
pub mod syntax;
pub mod text;
pub mod xml;

pub use load::{LoadError, ReadError, load, parse_cli_formula};
pub use logic::{Logic, refusal};
pub use predicate::{Linear, Marking, Predicate};
pub use resolve::{Names, ResolveError};
pub use syntax::{
    Ask, Cmp, Form, Formula, IntExpr, Name, Property, Query, ResolvedFormula, ResolvedQuery, Spans,
};
pub use text::{parse_file, parse_formula, show, show_query};
pub use xml::{parse_xml, to_xml};
