//! One module per subcommand.
pub mod demo;
pub mod mechanism;
pub mod score;
