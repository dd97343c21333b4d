//! `bcast ir --time`: one JSON line per mode (fused, layer by layer) with the median seconds
//! per run, on the threads `--threads` asks for, and nothing written; bad values are one
//! `error:` line and exit 2.

mod common;

use std::path::PathBuf;
use std::process::Output;

use common::{bcast_command, repo, scratch};

fn case(file: &str) -> PathBuf {
    repo("conformance/fused/batchnorm_relu6_f32").join(file)
}

/// `bcast ir` on the f32 BatchNorm chain, in `dir`, with `extra` arguments.
fn time_in(dir: &std::path::Path, extra: &[&str]) -> Output {
    bcast_command()
        .current_dir(dir)
        .arg("ir")
        .arg(case("model.xml"))
        .arg("--input")
        .arg(case("inputs/x.npy"))
        .args(extra)
        .output()
        .expect("the bcast binary runs")
}

fn json_lines(o: &Output) -> Vec<serde_json::Value> {
    assert!(
        o.status.success(),
        "exit {:?}: {}",
        o.status.code(),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout.clone())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l:?}: {e}")))
        .collect()
}

/// Exit 2, one `error:` line containing `want`, nothing on stdout.
fn refused(o: &Output, want: &str) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("error: ") && err.contains(want), "{err}");
    assert!(
        o.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
}

#[test]
fn time_prints_the_median_of_each_mode_on_the_threads_asked_for() {
    for threads in [1, 2] {
        let dir = scratch("ir_time", &format!("threads_{threads}"));
        let got = json_lines(&time_in(
            &dir,
            &["--time", "3", "--threads", &threads.to_string()],
        ));
        let modes: Vec<&str> = got.iter().map(|l| l["mode"].as_str().unwrap()).collect();
        assert_eq!(modes, ["fused", "layer_by_layer"], "{got:?}");
        for line in &got {
            let seconds = line["seconds_per_run"].as_f64().unwrap();
            let reps = line["runs_per_round"].as_u64().unwrap();
            assert!(seconds > 0.0 && seconds.is_finite(), "{line}");
            // A round repeats the run for at least 50 ms; the tiny model runs in well under
            // that, so a round is many runs (slack for a loaded machine).
            assert!(reps > 1 && reps as f64 * seconds >= 0.01, "{line}");
            assert_eq!(line["rounds"], 3, "{line}");
            assert_eq!(line["threads"], threads, "{line}");
            assert!(!line["cpu"].as_str().unwrap().is_empty(), "{line}");
            assert_eq!(line["model"], "batchnorm_relu6_f32", "{line}");
        }
        let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
        assert!(left.is_empty(), "--time wrote {left:?}");
    }
}

#[test]
fn bad_time_and_threads_values_are_one_line_errors() {
    let dir = scratch("ir_time", "bad_values");
    for (args, want) in [
        (vec!["--time", "0"], "--time"),
        (vec!["--time", "x"], "--time"),
        (vec!["--time", "-1"], "--time"),
        (vec!["--time", "1.5"], "--time"),
        (vec!["--time", "99999999999"], "--time"),
        (vec!["--time", "2", "--threads", "0"], "--threads"),
        (vec!["--time", "2", "--threads", "two"], "--threads"),
        (vec!["--time", "2", "--threads", "-2"], "--threads"),
        (vec!["--time", "2", "--out-dir", "out"], "--out-dir"),
        (vec!["--time", "2", "--no-fuse"], "--no-fuse"),
    ] {
        let o = time_in(&dir, &args);
        refused(&o, want);
    }
    // Without its input the model cannot run: an error, not a timing.
    let o = bcast_command()
        .current_dir(&dir)
        .args(["ir", case("model.xml").to_str().unwrap(), "--time", "2"])
        .output()
        .unwrap();
    refused(&o, "x");
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert!(left.is_empty(), "a refused call wrote {left:?}");
}

#[test]
fn threads_also_runs_the_model_to_the_same_outputs() {
    let dir = scratch("ir_time", "threads_run");
    for threads in ["1", "2"] {
        let out = dir.join(threads);
        let o = time_in(
            &dir,
            &["--threads", threads, "--out-dir", out.to_str().unwrap()],
        );
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let got = bcast::npy::read(out.join("y.npy")).unwrap();
        let want = bcast::npy::read(case("expected/y.npy")).unwrap();
        assert!(got.bit_equal(&want), "--threads {threads}");
    }
}
