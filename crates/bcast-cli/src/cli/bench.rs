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
    /// Threads for every run, or a list (`1,2,4,8,16`: every case at every count, one
    /// result per case and count). Default: all cores.
    #[arg(long, value_name = "N[,N...]", value_delimiter = ',')]
    threads: Vec<usize>,
    /// Scale every case's output to about this many MiB, keeping its pattern (broadcasts:
    /// the largest broadcast axis; element-wise and fused cases: the output's leading axis;
    /// cases that measure a call's overhead keep their size).
    #[arg(long, value_name = "MIB")]
    mib: Option<f64>,
    /// Run only this group (repeatable; default: every group but `model`, which runs when
    /// named here or by one of its cases): `broadcast`, `reduce`, `eltwise` (one op into a
    /// reused output), `fused` (chains of ops: one fused pass beside the same ops one by one),
    /// `model` (nodes of real models, microseconds per call; its shapes are the
    /// architectures', `--mib` leaves them).
    #[arg(long = "group", value_name = "NAME", value_enum)]
    groups: Vec<Group>,
    /// Milliseconds of interleaved kernel/fill/memcpy rounds per case (the model group: of
    /// timed batches per case and thread count).
    #[arg(long, value_name = "MS", default_value_t = 1500)]
    budget_ms: u64,
    /// Print the model group's cases (name, model, op, shapes, dtype, rule, output, source)
    /// as JSON lines, the ones `--case` names or all, and measure nothing.
    #[arg(long)]
    list: bool,
}

/// The groups of `bcast bench`.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Group {
    /// Broadcasts against the fill and memcpy bounds.
    Broadcast,
    /// Reductions back to the data shape against the read bound.
    Reduce,
    /// One element-wise op into a reused output.
    Eltwise,
    /// Chains of element-wise ops, fused and op by op.
    Fused,
    /// The broadcasting and element-wise nodes of real models, microseconds per call.
    Model,
}

pub fn main(args: BenchArgs) -> CliResult {
    let (mut cases, mut reduce_cases) = select(&args.cases, args.mib)?;
    let runs = |g: Group| args.groups.is_empty() || args.groups.contains(&g);
    let model_names: Vec<String> = args
        .cases
        .iter()
        .filter(|n| bcast_cli::bench_model::find_model(n).is_some())
        .cloned()
        .collect();
    // The model group measures for minutes and reports another figure (microseconds per
    // call, no GB/s), so a plain `bcast bench` and the scripts that read its GB/s leave it
    // out; it runs when named, by its group or by one of its cases.
    let runs_model =
        args.groups.contains(&Group::Model) || (args.groups.is_empty() && !model_names.is_empty());
    if args.list {
        if !runs(Group::Model) {
            return Err(CliError(
                "--list prints the model group's cases: add --group model".into(),
            ));
        }
        let names = model_names;
        if !args.cases.is_empty() && names.is_empty() {
            return Err(CliError(
                "--list: no model case among the --case names".into(),
            ));
        }
        let mut stdout = std::io::stdout().lock();
        bcast_cli::bench_model::list(&names, &mut stdout)?;
        return Ok(ExitCode::SUCCESS);
    }
    if !runs(Group::Broadcast) {
        cases.clear();
    }
    if !runs(Group::Reduce) {
        reduce_cases.clear();
    }
    if args.threads.contains(&0) {
        return Err(CliError("--threads must be at least 1".into()));
    }
    let mut counts = args.threads.clone();
    if counts.is_empty() {
        counts.push(std::thread::available_parallelism().map_or(1, |n| n.get()));
    }
    // The model group makes its own threads; the other groups share these pools, started
    // only when one of them runs (idle pools would sit beside the model group's threads).
    let shared_pools = [
        Group::Broadcast,
        Group::Reduce,
        Group::Eltwise,
        Group::Fused,
    ]
    .into_iter()
    .any(runs)
        && (args.cases.is_empty() || model_names.len() < args.cases.len());
    let pools = counts
        .iter()
        .filter(|_| shared_pools)
        .map(|&n| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .map(|p| (n, p))
                .map_err(|e| CliError(format!("cannot start {n} threads: {e}")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let budget = Duration::from_millis(args.budget_ms);
    let mut stdout = std::io::stdout().lock();
    if !args.json {
        print_machine(&mut stdout)?;
    }
    if !args.json && !cases.is_empty() {
        print_header(&mut stdout)?;
    }
    if args.json {
        let line = serde_json::json!({ "machine": machine_line() });
        writeln!(stdout, "{line}").map_err(io_error)?;
    }
    for (case, (threads, pool)) in cases.iter().flat_map(|c| pools.iter().map(move |p| (c, p))) {
        let m = bench::measure(case, Parallelism::Pool(pool), *threads, budget)?;
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
    for (rc, (threads, pool)) in reduce_cases
        .iter()
        .flat_map(|c| pools.iter().map(move |p| (c, p)))
    {
        let m = bench::measure_reduce(rc, Parallelism::Pool(pool), *threads, budget)?;
        let line = if args.json {
            serde_json::to_string(&m).map_err(|e| CliError(e.to_string()))?
        } else {
            reduce_row(&m)
        };
        writeln!(stdout, "{line}").map_err(io_error)?;
        stdout.flush().map_err(io_error)?;
    }
    // `--mib` scales the element-wise and fused cases too (their leading axis).
    let scaled_bytes = args.mib.map(|m| (m * f64::from(1 << 20)) as usize);
    for (threads, pool) in pools.iter().filter(|_| runs(Group::Eltwise)) {
        bcast_cli::bench_eltwise::run_group(
            &args.cases,
            scaled_bytes,
            pool,
            *threads,
            budget,
            args.json,
            &mut stdout,
        )?;
    }
    for (threads, pool) in pools.iter().filter(|_| runs(Group::Fused)) {
        bcast_cli::bench_fused::run_group(
            &args.cases,
            scaled_bytes,
            pool,
            *threads,
            budget,
            args.json,
            &mut stdout,
        )?;
    }
    if runs_model && (args.cases.is_empty() || !model_names.is_empty()) {
        // The group makes its own threads for each count (`bench_model::team`), so that the
        // calls get them the one way the group defines.
        bcast_cli::bench_model::run_group(&model_names, &counts, budget, args.json, &mut stdout)?;
    }
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
fn select(names: &[String], mib: Option<f64>) -> Result<(Vec<Case>, Vec<ReduceCase>), CliError> {
    let all: Vec<Case> = match mib {
        Some(m) if m > 0.0 => bench::CASES
            .iter()
            .map(|c| c.scaled((m * f64::from(1 << 20)) as usize))
            .collect(),
        Some(_) => return Err(CliError("--mib must be positive".into())),
        None => bench::CASES.to_vec(),
    };
    let reduce = bench::reduce_cases_of(&all);
    let known = |n: &String| {
        bench::find(n).is_some()
            || reduce.iter().any(|r| &r.name == n)
            || bcast_cli::bench_eltwise::find_elt(n).is_some()
            || bcast_cli::bench_fused::find_fused(n).is_some()
            || bcast_cli::bench_model::find_model(n).is_some()
    };
    if let Some(unknown) = names.iter().find(|n| !known(n)) {
        let mut known_names: Vec<&str> = bench::CASES.iter().map(|c| c.name).collect();
        known_names.extend(reduce.iter().map(|r| r.name.as_str()));
        known_names.extend(bcast_cli::bench_eltwise::ELT_CASES.iter().map(|c| c.name));
        known_names.extend(bcast_cli::bench_fused::FUSED_CASES.iter().map(|c| c.name));
        known_names.extend(bcast_cli::bench_model::MODEL_CASES.iter().map(|c| c.name));
        return Err(CliError(format!(
            "unknown bench case '{unknown}' (known: {})",
            known_names.join(", ")
        )));
    }
    let wanted = |n: &str| names.is_empty() || names.iter().any(|x| x == n);
    let cases = all.into_iter().filter(|c| wanted(c.name)).collect();
    let reduce = reduce.into_iter().filter(|r| wanted(&r.name)).collect();
    Ok((cases, reduce))
}

/// The CPU's model name, from /proc/cpuinfo ("unknown CPU" where it cannot be read).
pub(crate) fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, m)| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into())
}

/// The CPU's model name, its vendor and the store strategies in force (with why the
/// environment's override was not taken, if it was not).
pub(crate) fn machine_line() -> String {
    let model = cpu_model();
    let strategy = bcast::exec::Strategy::for_process();
    let refused = match bcast::exec::Strategy::from_env() {
        Err(e) => format!(" (ignored: {e})"),
        Ok(_) => String::new(),
    };
    format!(
        "cpu: {model}; vendor {}; strategy {strategy}{refused}",
        bcast::exec::Vendor::get()
    )
}

/// The table's first lines: CPUs, load and the machine line.
fn print_machine(out: &mut impl Write) -> Result<(), CliError> {
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
    writeln!(out, "# {}", machine_line()).map_err(io_error)
}

fn print_header(out: &mut impl Write) -> Result<(), CliError> {
    writeln!(
        out,
        "{:<17} {:>10} {:>7} {:>11} {:>9} {:>11} {:>10} {:>10} {:>14} {:>10} {:>11} {:>12}",
        "case",
        "bytes",
        "threads",
        "kernel_GB/s",
        "fill_GB/s",
        "memcpy_GB/s",
        "alloc_GB/s",
        "fresh_GB/s",
        "allocfill_GB/s",
        "ratio_fill",
        "ratio_alloc",
        "ns_per_call"
    )
    .map_err(io_error)
}

fn table_row(m: &Measurement) -> String {
    format!(
        "{:<17} {:>10} {:>7} {:>11.2} {:>9.2} {:>11.2} {:>10.2} {:>10.2} {:>14.2} {:>10.2} {:>11.2} {:>12.0}",
        m.case,
        m.bytes,
        m.threads,
        m.kernel_gbps,
        m.fill_gbps,
        m.memcpy_gbps,
        m.alloc_gbps,
        m.fresh_gbps,
        m.alloc_fill_gbps,
        m.ratio_fill,
        m.ratio_alloc,
        m.ns_per_call
    )
}

fn io_error(e: std::io::Error) -> CliError {
    CliError(format!("cannot write the report: {e}"))
}
