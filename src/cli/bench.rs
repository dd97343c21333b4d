//! `bcast bench` (not built yet).

use super::{CliError, CliResult};

/// Arguments of `bcast bench`.
#[derive(clap::Args)]
pub struct BenchArgs {}

pub fn main(_: BenchArgs) -> CliResult {
    Err(CliError("`bcast bench` is not built yet".into()))
}
