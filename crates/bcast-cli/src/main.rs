//! The `bcast` command line. Each subcommand lives in its own file under `src/cli/`.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod cli;

/// Tensor Broadcast in every mode inference runtimes use, and element-wise ops under
/// broadcast, on .npy files and OpenVINO IR models.
#[derive(Parser)]
#[command(name = "bcast", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Broadcast one .npy file to a target shape under a mode.
    Run(cli::run::RunArgs),
    /// Print the output shape of a broadcast without running it.
    Shape(cli::run::ShapeArgs),
    /// Broadcast several .npy files to their common shape.
    Multi(cli::run::MultiArgs),
    /// Run conformance case folders and report failures.
    Conformance(cli::conformance::ConformanceArgs),
    /// Measure the kernel against the fill and memcpy bounds of this machine.
    Bench(cli::bench::BenchArgs),
    /// Load and run an OpenVINO IR model of Broadcast, ShapeOf, Convert, element-wise and
    /// Select layers, or describe it.
    Ir(cli::ir::IrArgs),
    /// An element-wise op (add, multiply, less, logical_and, ...) on two .npy files under
    /// an auto-broadcast rule.
    Eltwise(cli::eltwise::EltwiseArgs),
    /// An expression of element-wise ops over named .npy files, run in one pass:
    /// "(x - m) * r * g + b", "maximum(x + b, 0)".
    Eval(cli::eval::EvalArgs),
    /// Select: COND ? THEN : ELSE element by element, under an auto-broadcast rule.
    Select(cli::eltwise::SelectArgs),
    /// Reduce a gradient back to the data's shape (the adjoint of a broadcast).
    Reduce(cli::reduce::ReduceArgs),
}

fn main() -> ExitCode {
    restore_sigpipe();
    cli::install_panic_hook();
    let parsed = match Cli::try_parse() {
        Ok(parsed) => parsed,
        Err(e) => return cli::report_clap_error(e),
    };
    let result = cli::run_guarded(|| match parsed.command {
        Command::Run(a) => cli::run::run(a),
        Command::Shape(a) => cli::run::shape(a),
        Command::Multi(a) => cli::run::multi(a),
        Command::Conformance(a) => cli::conformance::main(a),
        Command::Bench(a) => cli::bench::main(a),
        Command::Ir(a) => cli::ir::main(a),
        Command::Reduce(a) => cli::reduce::main(a),
        Command::Eltwise(a) => cli::eltwise::eltwise(a),
        Command::Select(a) => cli::eltwise::select(a),
        Command::Eval(a) => cli::eval::main(a),
    });
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

/// A closed pipe (`bcast conformance -v | head -1`) ends bcast quietly, as it ends `cat` or
/// `grep`: the default action of SIGPIPE (exit status 141 in a shell), which Rust's runtime
/// replaces with "ignore" so that every later write fails with EPIPE. Files are never
/// written through a pipe, so no output is left half-renamed.
fn restore_sigpipe() {
    #[cfg(target_os = "linux")]
    // SAFETY: `signal` with a valid signal number and SIG_DFL only changes the disposition of
    // SIGPIPE; it runs first thing in `main`, before any other thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
