//! Explorers: they know only the System trait.

