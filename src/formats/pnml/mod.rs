//! PNML reader ([`parse`], in `read`) and writer ([`write()`], in `write`) for place/transition
//! nets, as the Model Checking Contest publishes them.
//!
//! The reader streams over the (possibly memory-mapped) bytes with quick-xml, borrowing
//! identifiers from the input where it can. Elements are matched by their local name, so the
//! PNML namespace may be the default one, bound to a prefix, or absent. Pages are flattened,
//! reference nodes resolved, and arcs collected and resolved once the whole net is read, so
//! they may come before their endpoints. Every error is a
//! [`ReadError::Parse`](super::ReadError::Parse) with a position.
//!
//! Read arcs have no standard PNML encoding: the writer encodes one as a pair of arcs p→t and
//! t→p, both marked with `<toolspecific tool="unfold" version="1"><read/></toolspecific>`, and
//! the reader turns such a marked pair back into one read arc. Tina's `<type value="test"/>`
//! arcs (place → transition) are read as read arcs too.
//!
//! What the writer does not preserve: leading and trailing white space of labels (the reader
//! trims text), and the NUPN block's declared sizes, which are those of the written net. The
//! NUPN units are written back as read (root, units, their places and subunits, `safe`) when
//! they still cover every place of the written net once; otherwise (a reduced net) the block is
//! the trivial valid NUPN of the written net: one unit per place, `safe` copied, `false` when
//! unknown.

mod read;
mod write;

pub use read::{parse, parse_coloured};
pub use write::write;

/// The PNML 2009 grammar namespace.
const PNML_NS: &str = "http://www.pnml.org/version-2009/grammar/pnml";
/// The PNML 2009 P/T net type.
const PTNET_TYPE: &str = "http://www.pnml.org/version-2009/grammar/ptnet";
/// Our tool name in `<toolspecific>` (read-arc marker).
const TOOL: &str = "unfold";
