//! `bcast conformance` (not built yet).

use super::{CliError, CliResult};

/// Arguments of `bcast conformance`.
#[derive(clap::Args)]
pub struct ConformanceArgs {}

pub fn main(_: ConformanceArgs) -> CliResult {
    Err(CliError("`bcast conformance` is not built yet".into()))
}
