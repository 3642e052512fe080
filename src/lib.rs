//! sosdp: pure differentially private, robust learning of high-dimensional Gaussians with the
//! sum-of-squares exponential mechanism (Hopkins–Kamath–Majid–Narayanan 2023).
//!
//! This facade re-exports the workspace crates; see `docs/` and `../shared/design/MATH.md`.
pub use sosdp_cli as cli;
pub use sosdp_eval as eval;
pub use sosdp_learn as learn;
pub use sosdp_sampler as sampler;
pub use sosdp_score as score;
pub use sosdp_sdp as sdp;
