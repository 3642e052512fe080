//! Evaluation for sosdp (MATH.md section 6): synthetic Gaussians and the adversaries that
//! corrupt them. Baselines and metrics join here as the learners land.
pub mod adversary;
pub mod synthetic;

pub use adversary::Adversary;
pub use synthetic::{gaussian_samples, CorruptedSample};
