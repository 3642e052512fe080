//! One module per subcommand.
pub mod demo;
pub mod mean;
pub mod mechanism;
pub mod score;
