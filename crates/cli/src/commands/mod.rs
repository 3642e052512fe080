//! One module per subcommand.
pub mod demo;
pub mod score;
