//! The process around one run: the watchdog that holds `--timeout` and `--mem-limit` in every
//! phase, and the global allocator that checks the memory limit on the allocating thread.
//!
//! This folder knows nothing of commands or reports: it imports only the library. What is
//! printed when the watchdog ends a run is given to it by the caller ([`watchdog::StopReport`]).
//! The allocator calls the watchdog through hooks the watchdog installs ([`alloc::Hooks`]), so
//! the arrow runs one way: `watchdog` → `alloc`.

pub mod alloc;
pub mod watchdog;
