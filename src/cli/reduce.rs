//! `bcast reduce` (not built yet).

use super::{CliError, CliResult};

/// Arguments of `bcast reduce`.
#[derive(clap::Args)]
pub struct ReduceArgs {}

pub fn main(_: ReduceArgs) -> CliResult {
    Err(CliError("`bcast reduce` is not built yet".into()))
}
