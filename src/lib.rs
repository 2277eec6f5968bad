//! `unfold`: partial-order verification of concurrent systems.
//!
//! Data flows one way: file → [`formats`] → [`model`] → [`system::System`] → [`explore`] →
//! [`report`].

pub mod check;
pub mod explore;
pub mod formats;
pub mod mcc;
pub mod model;
pub mod modes;
pub mod property;
pub mod report;
pub mod rows;
pub mod structural;
pub mod system;
pub mod unfolding;
