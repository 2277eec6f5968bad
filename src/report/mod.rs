//! Reports: statistics (human and JSON), DOT, CSV.

