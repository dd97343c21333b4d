//! `bcast run`, `bcast shape`, `bcast multi` (issue 3: not built yet).

use super::{CliError, CliResult};

/// Arguments of `bcast run`.
#[derive(clap::Args)]
pub struct RunArgs {}
/// Arguments of `bcast shape`.
#[derive(clap::Args)]
pub struct ShapeArgs {}
/// Arguments of `bcast multi`.
#[derive(clap::Args)]
pub struct MultiArgs {}

pub fn run(_: RunArgs) -> CliResult {
    Err(CliError("`bcast run` is not built yet".into()))
}
pub fn shape(_: ShapeArgs) -> CliResult {
    Err(CliError("`bcast shape` is not built yet".into()))
}
pub fn multi(_: MultiArgs) -> CliResult {
    Err(CliError("`bcast multi` is not built yet".into()))
}
