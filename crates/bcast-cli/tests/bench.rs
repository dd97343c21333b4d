//! `bcast bench` as a user runs it: with `--json`, a first object naming the machine (CPU and
//! store strategy), then one object per case with the documented keys; one `error:` line with
//! exit code 2 for bad arguments.
mod common;

fn bcast(args: &[&str]) -> std::process::Output {
    common::bcast(args)
}

#[test]
fn json_has_one_object_per_case_with_every_key() {
    let out = bcast(&[
        "bench",
        "--json",
        "--case",
        "tiny_f32",
        "--threads",
        "2",
        "--budget-ms",
        "20",
    ]);
    assert!(out.status.success(), "{:?}", out);
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    let machine: serde_json::Value = serde_json::from_str(lines[0]).unwrap();
    let machine = machine["machine"].as_str().unwrap();
    assert!(
        machine.starts_with("cpu: ") && machine.contains("; strategy fill="),
        "{machine}"
    );
    let v: serde_json::Value = serde_json::from_str(lines[1]).unwrap();
    for key in [
        "case",
        "bytes",
        "threads",
        "kernel_gbps",
        "fill_gbps",
        "memcpy_gbps",
        "alloc_gbps",
        "fresh_gbps",
        "alloc_fill_gbps",
        "ratio_fill",
        "ratio_alloc",
        "ns_per_call",
    ] {
        assert!(v.get(key).is_some(), "missing {key} in {text}");
    }
    assert_eq!(v["case"], "tiny_f32");
    assert_eq!(v["bytes"], 48);
    assert_eq!(v["threads"], 2);
    assert!(v["ns_per_call"].as_f64().unwrap() > 0.0);
}

#[test]
fn reduce_cases_report_their_ratio_to_the_read_bound() {
    let out = bcast(&[
        "bench",
        "--json",
        "--case",
        "reduce_pixel_u8",
        "--budget-ms",
        "5",
    ]);
    assert!(out.status.success(), "{:?}", out);
    let text = String::from_utf8(out.stdout).unwrap();
    let last = text.lines().last().unwrap();
    let v: serde_json::Value = serde_json::from_str(last).unwrap();
    for key in [
        "case",
        "bytes",
        "threads",
        "reduce_gbps",
        "read_gbps",
        "ratio_read",
        "ns_per_call",
    ] {
        assert!(v.get(key).is_some(), "missing {key} in {text}");
    }
    assert_eq!(v["case"], "reduce_pixel_u8");
    assert_eq!(v["bytes"], 2048 * 2048 * 3);
    let ratio = v["ratio_read"].as_f64().unwrap();
    let (reduce, read) = (
        v["reduce_gbps"].as_f64().unwrap(),
        v["read_gbps"].as_f64().unwrap(),
    );
    assert!(reduce > 0.0 && read > 0.0);
    assert!((ratio - reduce / read).abs() < 1e-9 * ratio.max(1.0));
}

#[test]
fn the_reduce_group_is_every_large_summable_case_reversed() {
    let names: Vec<String> = bcast_cli::bench::reduce_cases()
        .into_iter()
        .map(|r| r.name)
        .collect();
    assert!(names.contains(&"reduce_channel_bias_f32".to_string()));
    assert!(names.contains(&"reduce_mid_f16".to_string()));
    assert!(!names
        .iter()
        .any(|n| n.contains("strings") || n.contains("tiny")));
}

#[test]
fn an_unknown_case_is_one_error_line_and_exit_2() {
    let out = bcast(&["bench", "--case", "nope"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("error: unknown bench case 'nope'"), "{err}");
    assert!(err.contains("pixel_u8"), "{err}");
}

#[test]
fn zero_threads_is_an_error() {
    let out = bcast(&["bench", "--threads", "0", "--case", "tiny_f32"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.starts_with("error: --threads must be at least 1"),
        "{err}"
    );
}

#[test]
fn the_model_group_lists_its_cases_and_reports_microseconds() {
    // `--list`: the one table the peers' scripts read, one object per case.
    let out = bcast(&["bench", "--group", "model", "--list"]);
    assert!(out.status.success(), "{:?}", out);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.lines().count() >= 25, "{text}");
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        for key in [
            "case",
            "model",
            "op",
            "c_code",
            "shapes",
            "dtype",
            "rule",
            "out_shape",
            "source",
        ] {
            assert!(v.get(key).is_some(), "missing {key} in {line}");
        }
    }
    // A plain `bcast bench` leaves the group out; naming one of its cases runs it alone.
    let out = bcast(&[
        "bench",
        "--json",
        "--case",
        "llama_decode_residual_f16",
        "--threads",
        "1,2",
        "--budget-ms",
        "20",
    ]);
    assert!(out.status.success(), "{:?}", out);
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(lines[0]["machine"].is_string(), "{text}");
    for (v, threads) in lines[1..].iter().zip([1, 2]) {
        assert_eq!(v["group"], "model");
        assert_eq!(v["case"], "llama_decode_residual_f16");
        assert_eq!(v["threads"], threads);
        assert_eq!(v["bytes"], 8192);
        assert!(v["us_per_call"].as_f64().unwrap() > 0.0, "{text}");
    }
    let out = bcast(&["bench", "--group", "eltwise", "--list"]);
    assert_eq!(out.status.code(), Some(2));
}
