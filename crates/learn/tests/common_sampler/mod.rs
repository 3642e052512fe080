//! Helpers of the sampler tests on a real CM oracle: the Kolmogorov–Smirnov helpers shared with
//! the sampler's own tests (one copy, in crates/sampler/tests/common) and exact laws of 1-D
//! releases with chi-square statistics ([`exact_law`]).
#![allow(dead_code)]
pub mod exact_law;
#[path = "../../../sampler/tests/common/mod.rs"]
mod ks;

pub use ks::*;
