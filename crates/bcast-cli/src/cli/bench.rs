//! `bcast bench`: the kernel against the fill and memcpy bounds of this machine.
//!
//! The cases and the measuring live in the library (`bcast_cli::bench`) so the criterion benches
//! run the same table; this file only parses arguments and prints.

use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

use bcast::Parallelism;
use bcast_cli::bench::{self, Case, Measurement, ReduceCase, ReduceMeasurement};

use super::{CliError, CliResult};

/// Arguments of `bcast bench`.
#[derive(clap::Args)]
pub struct BenchArgs {
    /// Print one JSON object per case per line instead of a table.
    #[arg(long)]
    json: bool,
    /// Run only this case (repeatable; default: every case).
    #[arg(long = "case", value_name = "NAME")]
    cases: Vec<String>,
    /// Threads for every run (default: all cores).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// Milliseconds of interleaved kernel/fill/memcpy rounds per case.
    #[arg(long, value_name = "MS", default_value_t = 1500)]
    budget_ms: u64,
}

pub fn main(args: BenchArgs) -> CliResult {
    let (cases, reduce_cases) = select(&args.cases)?;
    let threads = match args.threads {
        Some(0) => return Err(CliError("--threads must be at least 1".into())),
        Some(n) => n,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| CliError(format!("cannot start {threads} threads: {e}")))?;
    let budget = Duration::from_millis(args.budget_ms);
    let mut stdout = std::io::stdout().lock();
    if !args.json && !cases.is_empty() {
        print_header(&mut stdout)?;
    }
    for case in cases {
        let m = bench::measure(case, Parallelism::Pool(&pool), threads, budget)?;
        let line = if args.json {
            serde_json::to_string(&m).map_err(|e| CliError(e.to_string()))?
        } else {
            table_row(&m)
        };
        writeln!(stdout, "{line}").map_err(io_error)?;
        stdout.flush().map_err(io_error)?;
    }
    if !args.json && !reduce_cases.is_empty() {
        print_reduce_header(&mut stdout)?;
    }
    for rc in &reduce_cases {
        let m = bench::measure_reduce(rc, Parallelism::Pool(&pool), threads, budget)?;
        let line = if args.json {
            serde_json::to_string(&m).map_err(|e| CliError(e.to_string()))?
        } else {
            reduce_row(&m)
        };
        writeln!(stdout, "{line}").map_err(io_error)?;
        stdout.flush().map_err(io_error)?;
    }
    bcast_cli::bench_eltwise::run_group(
        &args.cases,
        &pool,
        threads,
        budget,
        args.json,
        &mut stdout,
    )?;
    Ok(ExitCode::SUCCESS)
}

/// The reduce group's header: gradient bytes read against the in-process read bound.
fn print_reduce_header(out: &mut impl Write) -> Result<(), CliError> {
    writeln!(
        out,
        "# reduce: gradient summed back to the data shape; GB/s of gradient read, medians"
    )
    .map_err(io_error)?;
    writeln!(
        out,
        "{:<25} {:>10} {:>7} {:>11} {:>9} {:>10} {:>12}",
        "case", "bytes", "threads", "reduce_GB/s", "read_GB/s", "ratio_read", "ns_per_call"
    )
    .map_err(io_error)
}

fn reduce_row(m: &ReduceMeasurement) -> String {
    format!(
        "{:<25} {:>10} {:>7} {:>11.2} {:>9.2} {:>10.2} {:>12.0}",
        m.case, m.bytes, m.threads, m.reduce_gbps, m.read_gbps, m.ratio_read, m.ns_per_call
    )
}

/// The broadcast and reduce cases named on the command line, in table order; all of them
/// when none is named.
fn select(names: &[String]) -> Result<(Vec<&'static Case>, Vec<ReduceCase>), CliError> {
    let reduce = bench::reduce_cases();
    let known = |n: &String| {
        bench::find(n).is_some()
            || reduce.iter().any(|r| &r.name == n)
            || bcast_cli::bench_eltwise::find_elt(n).is_some()
    };
    if let Some(unknown) = names.iter().find(|n| !known(n)) {
        let mut all: Vec<&str> = bench::CASES.iter().map(|c| c.name).collect();
        all.extend(reduce.iter().map(|r| r.name.as_str()));
        all.extend(bcast_cli::bench_eltwise::ELT_CASES.iter().map(|c| c.name));
        return Err(CliError(format!(
            "unknown bench case '{unknown}' (known: {})",
            all.join(", ")
        )));
    }
    let wanted = |n: &str| names.is_empty() || names.iter().any(|x| x == n);
    let cases = bench::CASES.iter().filter(|c| wanted(c.name)).collect();
    let reduce = reduce.into_iter().filter(|r| wanted(&r.name)).collect();
    Ok((cases, reduce))
}

fn print_header(out: &mut impl Write) -> Result<(), CliError> {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let load = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| {
            let fields: Vec<&str> = l.split_whitespace().take(3).collect();
            (fields.len() == 3).then(|| fields.join(" "))
        })
        .unwrap_or_else(|| "unknown".into());
    writeln!(
        out,
        "# {cpus} cpus, load average {load}; GB/s = 10^9 bytes of output per second, medians"
    )
    .map_err(io_error)?;
    writeln!(
        out,
        "{:<17} {:>10} {:>7} {:>11} {:>9} {:>11} {:>10} {:>10} {:>10} {:>12}",
        "case",
        "bytes",
        "threads",
        "kernel_GB/s",
        "fill_GB/s",
        "memcpy_GB/s",
        "alloc_GB/s",
        "fresh_GB/s",
        "ratio_fill",
        "ns_per_call"
    )
    .map_err(io_error)
}

fn table_row(m: &Measurement) -> String {
    format!(
        "{:<17} {:>10} {:>7} {:>11.2} {:>9.2} {:>11.2} {:>10.2} {:>10.2} {:>10.2} {:>12.0}",
        m.case,
        m.bytes,
        m.threads,
        m.kernel_gbps,
        m.fill_gbps,
        m.memcpy_gbps,
        m.alloc_gbps,
        m.fresh_gbps,
        m.ratio_fill,
        m.ns_per_call
    )
}

fn io_error(e: std::io::Error) -> CliError {
    CliError(format!("cannot write the report: {e}"))
}
