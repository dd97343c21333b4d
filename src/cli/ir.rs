//! `bcast ir` (not built yet).

use super::{CliError, CliResult};

/// Arguments of `bcast ir`.
#[derive(clap::Args)]
pub struct IrArgs {}

pub fn main(_: IrArgs) -> CliResult {
    Err(CliError("`bcast ir` is not built yet".into()))
}
