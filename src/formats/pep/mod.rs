//! PEP low-level nets (`.ll_net`): reader ([`parse`], in `read`) and writer ([`write()`], in
//! `write`).
//!
//! # What is read
//!
//! A PEP net file is a header followed by sections, each introduced by a keyword at the start of
//! a line:
//!
//! ```text
//! PEP                    % the magic word
//! PTNet                  % the net type: PTNet, PetriBox, or another word
//! FORMAT_N2              % FORMAT_N, FORMAT_N2, or another FORMAT_ word
//! DPT w1                 % optional one-line defaults: DBL, DPL, DTR, DPT (in this order)
//! BL                     % optional blocks (skipped)
//! PL                     % places (required)
//! 1"p1"M1                %   number, quoted name, attributes (M<n>: initial marking)
//! 2"p2"
//! TR                     % transitions (required)
//! 1"t1"
//! PTR                    % optional phantom transitions (skipped)
//! TP                     % transition→place arcs (required): t<p
//! 1<2
//! PT                     % place→transition arcs (required): p>t
//! 1>1w2                  %   w<n>: weight
//! RA                     % optional read arcs: t<p, transition t reads place p
//! PTP                    % optional phantom arcs (skipped)
//! PPT                    % optional phantom arcs (skipped)
//! TX                     % optional texts: the rest of the file is skipped
//! ```
//!
//! Sections must appear in the order above, each at most once; `PL`, `TR`, `TP` and `PT` are
//! required. `%` starts a comment that runs to the end of the line, except inside quoted strings
//! (PEP writes `%` inside transition meanings). Quoted strings are delimited by `"` or `'` and
//! have no escapes; they cannot span lines.
//!
//! Place and transition lines are: an optional number, a quoted name, then attributes in any
//! order. An attribute is a letter followed by a number (`v65`), a coordinate pair (`n10@-9`)
//! or a quoted string (`b"<a=1>"`); the flags `e`, `x`, `S` and `r` stand alone; a bare pair
//! `x@y` is the node's position. Only `M<n>` (initial marking, the last one wins) is used; the
//! rest is layout and meaning for PEP's editor and is skipped. Arc lines are two numbers joined
//! by `<` (TP, RA) or `>` (PT) (`@` is also accepted, as PEP's own reader does), followed by
//! attributes, of which only `w<n>` (weight, at least 1) is used; the default weight is the
//! `w` of the `DPT` line, else 1.
//!
//! # Numbering
//!
//! Places and transitions have separate number ranges, and arcs name their place and transition
//! by these numbers (which end of an arc is which is given by the section). A line without a
//! number gets the next number in sequence (1, 2, 3, … within its section) as long as every
//! earlier line of the section was numbered that way; a line without a number after explicitly
//! numbered ones out of sequence is an error. Explicit numbers may be in any order and may
//! leave gaps, so files whose places and transitions share one range (places 1..38,
//! transitions 39..) read as they should.
//!
//! The model gets place identifiers `p<number>` and transition identifiers `t<number>`, labels
//! from the quoted names (the identifier when the name is empty), nodes in file order, and the
//! file stem as the net's name.
//!
//! # What is written
//!
//! [`write()`] emits `PEP`, `PTNet`, `FORMAT_N2`, then `PL` with the places numbered 1..n in model
//! order (`1"label"M2`, the marking only when positive), `TR` with the transitions numbered
//! 1..m in model order (a range of its own, also from 1), `TP` (`t<p`), `PT` (`p>t`), and `RA`
//! (`t<p`) only when the net has read arcs; weights (`w<n>`) only when above 1. Arcs are written
//! transition by transition in model order, each transition's arcs by place. Cunf, Mole and
//! Punf read this numbering; keeping the model order of transitions matters because the Parikh
//! tie-break of adequate orders depends on it. A quoted name cannot contain `"` or a line
//! break, so the writer replaces `"` by `'` and carriage returns and line feeds by spaces.

mod read;
mod write;

pub use read::parse;
pub use write::write;
