//! `bcast run`, `bcast shape` and `bcast multi`, run as the built binary.
//!
//! Inputs are numpy-written fixtures (`tests/data/make_npy.py`). Expected outputs come from a
//! naive index loop below, written from each mode's rule (output axis of every data axis),
//! or from literal values of the spec examples; never from bcast itself. Outputs are read
//! back with `bcast::npy::read`, which `tests/npy.rs` checks against numpy.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

use bcast::npy;
use bcast::Tensor;
use serde_json::Value;

// ---------------------------------------------------------------------------------------
// Harness

fn fixture(name: &str) -> PathBuf {
    common::repo("tests/data/npy").join(name)
}

/// A fresh, empty folder for one test.
fn scratch(test: &str) -> PathBuf {
    common::scratch("cli", test)
}

use common::bcast;

fn p(path: &Path) -> &str {
    path.to_str().expect("test paths are UTF-8")
}

#[track_caller]
fn assert_success(out: &Output) {
    assert!(
        out.status.success() && out.stderr.is_empty(),
        "exit {:?}, stderr: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Exit code 2 and exactly one stderr line, `error: ...`, containing every `needle`.
#[track_caller]
fn assert_error(out: &Output, needles: &[&str]) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "stderr: {stderr}");
    assert!(
        out.stdout.is_empty(),
        "stdout: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "not one line: {stderr:?}");
    assert!(lines[0].starts_with("error: "), "{stderr:?}");
    for n in needles {
        assert!(lines[0].contains(n), "{stderr:?} does not mention {n:?}");
    }
    stderr
}

/// File names in `dir`, sorted: shows stray temporary files too.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .expect("listable")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// The header dictionary of an npy file, as text.
fn header_text(path: &Path) -> String {
    let bytes = fs::read(path).expect("output exists");
    assert_eq!(&bytes[..6], b"\x93NUMPY", "{}", path.display());
    let (len, start) = match bytes[6] {
        1 => (usize::from(u16::from_le_bytes([bytes[8], bytes[9]])), 10),
        _ => (
            u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize,
            12,
        ),
    };
    String::from_utf8(bytes[start..start + len].to_vec()).expect("ASCII header")
}

/// C order, little-endian, the given dtype: what every bcast output must say.
#[track_caller]
fn assert_c_order_little_endian(path: &Path, descr: &str) {
    let h = header_text(path);
    assert!(h.contains("'fortran_order': False"), "{h}");
    assert!(h.contains(&format!("'descr': '{descr}'")), "{h}");
}

// ---------------------------------------------------------------------------------------
// The reference: a naive loop over output indices, from the modes' rules

/// Values of a tensor in logical order; floats as their bits, as in `expected.json`.
fn flat(t: &Tensor) -> Vec<Value> {
    match t {
        Tensor::Bool(a) => a.iter().map(|&v| Value::from(v)).collect(),
        Tensor::I8(a) => a.iter().map(|&v| Value::from(v)).collect(),
        Tensor::I16(a) => a.iter().map(|&v| Value::from(v)).collect(),
        Tensor::I32(a) => a.iter().map(|&v| Value::from(v)).collect(),
        Tensor::I64(a) => a.iter().map(|&v| Value::from(v)).collect(),
        Tensor::U8(a) => a.iter().map(|&v| Value::from(v)).collect(),
        Tensor::U16(a) => a.iter().map(|&v| Value::from(v)).collect(),
        Tensor::U32(a) => a.iter().map(|&v| Value::from(v)).collect(),
        Tensor::U64(a) => a.iter().map(|&v| Value::from(v)).collect(),
        Tensor::F16(a) => a.iter().map(|v| Value::from(v.to_bits())).collect(),
        Tensor::F32(a) => a.iter().map(|v| Value::from(v.to_bits())).collect(),
        Tensor::F64(a) => a.iter().map(|v| Value::from(v.to_bits())).collect(),
        Tensor::String(a) => a.iter().map(|v| Value::from(v.as_str())).collect(),
        Tensor::BF16(_) => panic!("npy has no bf16"),
    }
}

/// Broadcasts `data` (row-major, `data_shape`) to `out_shape`, where data axis `i` lies on
/// output axis `axis_of[i]` (`None`: it has no output axis, so its dim must be 1). A data dim
/// of 1 reads index 0 whatever the output index; every other output axis is repeated.
fn naive<T: Clone>(
    data: &[T],
    data_shape: &[usize],
    out_shape: &[usize],
    axis_of: &[Option<usize>],
) -> Vec<T> {
    assert_eq!(data_shape.len(), axis_of.len());
    let count: usize = out_shape.iter().product();
    let mut out = Vec::with_capacity(count);
    for flat_index in 0..count {
        // Row-major multi-index of the output element.
        let mut idx = vec![0; out_shape.len()];
        let mut rest = flat_index;
        for k in (0..out_shape.len()).rev() {
            idx[k] = rest % out_shape[k];
            rest /= out_shape[k];
        }
        let mut source = 0;
        for (i, &d) in data_shape.iter().enumerate() {
            let at = match axis_of[i] {
                Some(k) if d != 1 => {
                    assert_eq!(
                        d, out_shape[k],
                        "data axis {i} does not fit output axis {k}"
                    );
                    idx[k]
                }
                _ => {
                    assert_eq!(d, 1, "unplaced data axis {i}");
                    0
                }
            };
            source = source * d + at;
        }
        out.push(data[source].clone());
    }
    out
}

/// numpy and bidirectional: right-aligned.
fn right_aligned(data_rank: usize, out_rank: usize) -> Vec<Option<usize>> {
    (0..data_rank)
        .map(|i| Some(out_rank - data_rank + i))
        .collect()
}

/// Runs `bcast run` with `args` on `input` into `dir/out.npy`, expects success, and checks
/// the output against the naive loop.
#[track_caller]
fn run_and_check(
    dir: &Path,
    input: &str,
    args: &[&str],
    out_shape: &[usize],
    axis_of: &[Option<usize>],
) -> Tensor {
    let out_path = dir.join("out.npy");
    let mut all: Vec<&str> = vec!["run"];
    all.extend_from_slice(args);
    let in_path = fixture(input);
    all.push(p(&in_path));
    all.push(p(&out_path));
    let out = bcast(&all);
    assert_success(&out);
    let data = npy::read(&in_path).expect("fixture");
    let got = npy::read(&out_path).expect("output is npy");
    assert_eq!(got.dtype(), data.dtype(), "output dtype is the input dtype");
    assert_eq!(got.shape(), out_shape);
    let want = naive(&flat(&data), data.shape(), out_shape, axis_of);
    assert_eq!(flat(&got), want);
    assert_eq!(listing(dir), vec!["out.npy"], "stray files");
    got
}

// ---------------------------------------------------------------------------------------
// bcast run: the five forms

#[test]
fn numpy_mode_puts_16x1x1_on_the_channels_of_1x16x50x50() {
    let dir = scratch("numpy_16x1x1");
    let args = ["--mode", "numpy", "--target-shape", "1,16,50,50"];
    let got = run_and_check(
        &dir,
        "cli_f32_16x1x1.npy",
        &args,
        &[1, 16, 50, 50],
        &right_aligned(3, 4),
    );
    // Literal check from the spec example: channel c holds 1.5 * c everywhere.
    let Tensor::F32(a) = got else { panic!("f32") };
    for c in 0..16 {
        assert!(a
            .index_axis(ndarray::Axis(1), c)
            .iter()
            .all(|&v| v == 1.5 * c as f32));
    }
    assert_c_order_little_endian(&dir.join("out.npy"), "<f4");
}

#[test]
fn bidirectional_mode_expands_3x1_with_2x1x6_to_2x3x6() {
    let dir = scratch("bidirectional");
    let args = ["--mode", "bidirectional", "--target-shape", "2,1,6"];
    let got = run_and_check(
        &dir,
        "cli_i32_3x1.npy",
        &args,
        &[2, 3, 6],
        &right_aligned(2, 3),
    );
    // ONNX Expand example: row r of every block is the data's row r, six times.
    let want: Vec<i32> = [7, -8, 9]
        .iter()
        .flat_map(|&v| [v; 6])
        .cycle()
        .take(36)
        .collect();
    let Tensor::I32(a) = got else { panic!("i32") };
    assert_eq!(a.iter().copied().collect::<Vec<_>>(), want);
}

#[test]
fn explicit_mode_maps_a_16_bias_to_axis_1() {
    let dir = scratch("explicit");
    let args = [
        "--mode",
        "explicit",
        "--target-shape",
        "1,16,50,50",
        "--axes-mapping",
        "1",
    ];
    let got = run_and_check(&dir, "cli_f32_16.npy", &args, &[1, 16, 50, 50], &[Some(1)]);
    let Tensor::F32(a) = got else { panic!("f32") };
    assert_eq!(a[[0, 5, 49, 0]], 0.25f32 * 5.0 - 1.0);
}

#[test]
fn none_is_the_ir_name_of_explicit() {
    let dir = scratch("none");
    let args = [
        "--mode",
        "none",
        "--target-shape",
        "[2,16,3]",
        "--axes-mapping",
        "[1]",
    ];
    run_and_check(&dir, "cli_f32_16.npy", &args, &[2, 16, 3], &[Some(1)]);
}

#[test]
fn explicit_without_axes_mapping_broadcasts_a_scalar() {
    let dir = scratch("explicit_scalar");
    let args = ["--mode", "explicit", "--target-shape", "2,3"];
    run_and_check(&dir, "cli_i32_scalar.npy", &args, &[2, 3], &[]);
    // ... and only a scalar: a rank-1 input needs a mapping.
    let out = bcast([
        "run",
        "--mode",
        "explicit",
        "--target-shape",
        "2,4",
        p(&fixture("cli_i32_4.npy")),
        p(&dir.join("out2.npy")),
    ]);
    assert_error(&out, &["explicit broadcast", "axes_mapping"]);
}

#[test]
fn pdpd_mode_lays_3x1_on_axis_1_of_2x3x4x5() {
    let dir = scratch("pdpd_axis1");
    let args = ["--mode", "pdpd", "--target-shape", "2,3,4,5", "--axis", "1"];
    run_and_check(
        &dir,
        "cli_i32_3x1.npy",
        &args,
        &[2, 3, 4, 5],
        &[Some(1), Some(2)],
    );
}

#[test]
fn pdpd_axis_defaults_to_minus_one_and_accepts_it_spelled_out() {
    for (name, extra) in [
        ("pdpd_default", &[][..]),
        ("pdpd_minus1", &["--axis", "-1"][..]),
    ] {
        let dir = scratch(name);
        let mut args = vec!["--mode", "pdpd", "--target-shape", "2,3,4"];
        args.extend_from_slice(extra);
        run_and_check(&dir, "cli_i32_4.npy", &args, &[2, 3, 4], &[Some(2)]);
    }
    let dir = scratch("pdpd_minus2");
    let out = bcast([
        "run",
        "--mode",
        "pdpd",
        "--target-shape",
        "2,3,4",
        "--axis",
        "-2",
        p(&fixture("cli_i32_4.npy")),
        p(&dir.join("out.npy")),
    ]);
    assert_error(&out, &["pdpd broadcast", "axis -2"]);
}

#[test]
fn axes_mode_adds_broadcast_axis_0() {
    let dir = scratch("axes");
    let args = [
        "--mode",
        "axes",
        "--target-shape",
        "2,3",
        "--broadcast-axes",
        "0",
    ];
    let got = run_and_check(&dir, "cli_u16_3.npy", &args, &[2, 3], &[Some(1)]);
    let Tensor::U16(a) = got else { panic!("u16") };
    assert_eq!(
        a.iter().copied().collect::<Vec<_>>(),
        vec![1, 500, 65535, 1, 500, 65535]
    );
}

#[test]
fn axes_mode_keeps_the_data_between_new_axes() {
    let dir = scratch("axes_middle");
    let args = [
        "--mode",
        "axes",
        "--target-shape",
        "2,3,2",
        "--broadcast-axes",
        "0,2",
    ];
    run_and_check(&dir, "cli_u16_3.npy", &args, &[2, 3, 2], &[Some(1)]);
}

#[test]
fn a_rank_0_target_is_given_as_brackets_or_an_empty_string() {
    for (name, target) in [("rank0_brackets", "[]"), ("rank0_empty", "")] {
        let dir = scratch(name);
        let args = ["--mode", "numpy", "--target-shape", target];
        run_and_check(&dir, "scalar_f8.npy", &args, &[], &[]);
        assert!(header_text(&dir.join("out.npy")).contains("'shape': ()"));
    }
}

#[test]
fn every_npy_dtype_goes_through_run_and_keeps_its_dtype() {
    // For each valid fixture: broadcast to [2, ...shape]; the output holds the values numpy
    // was given, twice, in the same dtype, C order, little-endian.
    let text = fs::read_to_string(fixture("expected.json")).expect("expected.json");
    let json: Value = serde_json::from_str(&text).expect("JSON");
    let dir = scratch("every_dtype");
    let mut seen = std::collections::BTreeSet::new();
    for (name, want) in json["valid"].as_object().expect("valid") {
        let shape: Vec<usize> = want["shape"]
            .as_array()
            .expect("shape")
            .iter()
            .map(|d| d.as_u64().expect("dim") as usize)
            .collect();
        let target: Vec<String> = std::iter::once(2)
            .chain(shape.iter().copied())
            .map(|d| d.to_string())
            .collect();
        let out_path = dir.join("out.npy");
        let out = bcast([
            "run",
            "--mode",
            "numpy",
            "--target-shape",
            &target.join(","),
            p(&fixture(name)),
            p(&out_path),
        ]);
        assert_success(&out);
        let got = npy::read(&out_path).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(got.dtype().name(), want["dtype"], "{name}");
        assert_eq!(got.shape()[1..], shape[..], "{name}");
        let key = if want.get("bits").is_some() {
            "bits"
        } else {
            "values"
        };
        let once = want[key].as_array().expect("values").clone();
        let twice: Vec<Value> = once.iter().chain(once.iter()).cloned().collect();
        assert_eq!(flat(&got), twice, "{name}");
        let h = header_text(&out_path);
        assert!(h.contains("'fortran_order': False"), "{name}: {h}");
        assert!(!h.contains("'>"), "{name}: big-endian output {h}");
        seen.insert(got.dtype().name());
    }
    assert_eq!(
        seen.len(),
        13,
        "every npy dtype (bool, 8 ints, 3 floats, string): {seen:?}"
    );
    assert_eq!(listing(&dir), vec!["out.npy"]);
}

#[test]
fn fortran_and_big_endian_inputs_give_c_order_little_endian_outputs() {
    let cases = [
        ("cli_f_u1_2x3.npy", "|u1", vec![2, 2, 3]),
        ("f_be_f8.npy", "<f8", vec![4, 3, 2]),
        ("cli_be_i4_3.npy", "<i4", vec![2, 3]),
        ("be_U3.npy", "<U3", vec![2, 3]),
        ("be_f2.npy", "<f2", vec![3, 10]),
        ("f_U.npy", "<U3", vec![2, 2, 2]),
    ];
    for (input, descr, target) in cases {
        let dir = scratch(&format!("layout_{}", input.trim_end_matches(".npy")));
        let target_text: Vec<String> = target.iter().map(|d| d.to_string()).collect();
        let data_rank = npy::read(fixture(input)).expect("fixture").shape().len();
        run_and_check(
            &dir,
            input,
            &["--mode", "numpy", "--target-shape", &target_text.join(",")],
            &target,
            &right_aligned(data_rank, target.len()),
        );
        assert_c_order_little_endian(&dir.join("out.npy"), descr);
    }
}

#[test]
fn a_zero_size_input_gives_a_zero_size_output() {
    let dir = scratch("zero_size");
    let args = ["--mode", "bidirectional", "--target-shape", "4,1,1,3"];
    run_and_check(
        &dir,
        "empty_i4_2x0x3.npy",
        &args,
        &[4, 2, 0, 3],
        &right_aligned(3, 4),
    );
}

#[test]
fn success_replaces_an_existing_output_and_leaves_no_temporary_file() {
    let dir = scratch("replace");
    fs::write(dir.join("out.npy"), b"previous contents").expect("write");
    run_and_check(
        &dir,
        "cli_i32_4.npy",
        &["--mode", "numpy", "--target-shape", "2,4"],
        &[2, 4],
        &right_aligned(1, 2),
    );
}

#[test]
fn the_output_may_overwrite_the_input() {
    let dir = scratch("in_place");
    let path = dir.join("data.npy");
    fs::copy(fixture("cli_u16_3.npy"), &path).expect("copy");
    let out = bcast([
        "run",
        "--mode",
        "numpy",
        "--target-shape",
        "2,3",
        p(&path),
        p(&path),
    ]);
    assert_success(&out);
    let got = npy::read(&path).expect("npy");
    assert_eq!(
        flat(&got),
        [1, 500, 65535, 1, 500, 65535]
            .iter()
            .map(|&v| Value::from(v))
            .collect::<Vec<_>>()
    );
}

// ---------------------------------------------------------------------------------------
// bcast run: errors

/// Runs `bcast run ARGS IN OUT` where OUT already exists, expects an error mentioning
/// `needles`, and checks OUT is untouched and nothing else appeared.
#[track_caller]
fn run_fails_leaving_output_alone(test: &str, args: &[&str], input: &Path, needles: &[&str]) {
    let dir = scratch(test);
    let out_path = dir.join("out.npy");
    fs::write(&out_path, b"keep me").expect("write");
    let mut all = vec!["run"];
    all.extend_from_slice(args);
    all.push(p(input));
    all.push(p(&out_path));
    assert_error(&bcast(&all), needles);
    assert_eq!(fs::read(&out_path).expect("still there"), b"keep me");
    assert_eq!(listing(&dir), vec!["out.npy"], "stray files");
}

#[test]
fn a_broken_rule_is_exit_2_naming_the_rule() {
    run_fails_leaving_output_alone(
        "err_rule",
        &["--mode", "numpy", "--target-shape", "2,4"],
        &fixture("cli_be_i4_3.npy"),
        &["numpy broadcast", "[3]", "[2,4]"],
    );
    run_fails_leaving_output_alone(
        "err_rule_explicit",
        &[
            "--mode",
            "explicit",
            "--target-shape",
            "1,16,50,50",
            "--axes-mapping",
            "2",
        ],
        &fixture("cli_f32_16.npy"),
        &["explicit broadcast", "[16]", "[1,16,50,50]"],
    );
}

#[test]
fn an_unknown_flag_is_exit_2() {
    run_fails_leaving_output_alone(
        "err_flag",
        &["--mode", "numpy", "--target-shape", "2,3", "--frobnicate"],
        &fixture("cli_u16_3.npy"),
        &["--frobnicate"],
    );
}

#[test]
fn an_unknown_mode_is_exit_2() {
    run_fails_leaving_output_alone(
        "err_mode",
        &["--mode", "max", "--target-shape", "2,3"],
        &fixture("cli_u16_3.npy"),
        &["max", "numpy, bidirectional"],
    );
}

#[test]
fn a_mode_flag_on_the_wrong_mode_is_exit_2_naming_flag_and_mode() {
    let cases: [(&[&str], &[&str]); 5] = [
        (&["--mode", "numpy", "--axis", "1"], &["--axis", "numpy"]),
        (
            &["--mode", "pdpd", "--axes-mapping", "1"],
            &["--axes-mapping", "pdpd"],
        ),
        (
            &["--mode", "explicit", "--broadcast-axes", "0"],
            &["--broadcast-axes", "explicit"],
        ),
        (
            &["--mode", "bidirectional", "--axis", "-1"],
            &["--axis", "bidirectional"],
        ),
        (
            &["--mode", "axes", "--axes-mapping", "1"],
            &["--axes-mapping", "axes"],
        ),
    ];
    for (i, (flags, needles)) in cases.iter().enumerate() {
        let mut args = flags.to_vec();
        args.extend_from_slice(&["--target-shape", "2,3"]);
        run_fails_leaving_output_alone(
            &format!("err_wrong_flag_{i}"),
            &args,
            &fixture("cli_u16_3.npy"),
            needles,
        );
    }
}

#[test]
fn a_malformed_or_negative_shape_is_exit_2_naming_the_flag() {
    for (i, (flag, value)) in [
        ("--target-shape", "2,x"),
        ("--target-shape", "-2,3"),
        ("--target-shape", "2,,3"),
        ("--axes-mapping", "-1"),
    ]
    .into_iter()
    .enumerate()
    {
        let mut args = vec!["--mode", "explicit", flag, value];
        if flag != "--target-shape" {
            args.extend_from_slice(&["--target-shape", "2,3"]);
        }
        run_fails_leaving_output_alone(
            &format!("err_shape_{i}"),
            &args,
            &fixture("cli_u16_3.npy"),
            &[flag],
        );
    }
}

#[test]
fn missing_arguments_are_exit_2_naming_them() {
    let out = bcast(["run", "--mode", "numpy"]);
    assert_error(&out, &["--target-shape", "IN.npy", "OUT.npy"]);
}

#[test]
fn a_truncated_npy_is_exit_2_naming_the_file() {
    run_fails_leaving_output_alone(
        "err_truncated",
        &["--mode", "numpy", "--target-shape", "2,2,3"],
        &fixture("bad_truncated_data.npy"),
        &["bad_truncated_data.npy: truncated npy"],
    );
    run_fails_leaving_output_alone(
        "err_empty_file",
        &["--mode", "numpy", "--target-shape", "2,2,3"],
        &fixture("bad_zero_length.npy"),
        &["bad_zero_length.npy: truncated npy", "empty"],
    );
}

#[test]
fn an_unsupported_dtype_is_exit_2_naming_file_and_dtype() {
    for (file, descr) in [
        ("bad_complex64.npy", "<c8"),
        ("bad_object.npy", "|O"),
        ("bad_datetime64.npy", "M8"),
        ("bad_structured.npy", "structured"),
    ] {
        run_fails_leaving_output_alone(
            &format!("err_dtype_{}", file.trim_end_matches(".npy")),
            &["--mode", "numpy", "--target-shape", "2,2"],
            &fixture(file),
            &[file, "unsupported npy dtype", descr],
        );
    }
}

#[test]
fn other_malformed_npy_files_are_exit_2_naming_the_file() {
    for file in [
        "bad_magic.npy",
        "bad_version_4.npy",
        "bad_header_lies_shape.npy",
        "bad_header_missing_key.npy",
        "bad_bool_byte_2.npy",
        "bad_unicode_surrogate.npy",
    ] {
        run_fails_leaving_output_alone(
            &format!("err_{}", file.trim_end_matches(".npy")),
            &["--mode", "numpy", "--target-shape", "2,2"],
            &fixture(file),
            &[file],
        );
    }
}

#[test]
fn a_missing_input_file_is_exit_2_naming_it() {
    run_fails_leaving_output_alone(
        "err_missing_input",
        &["--mode", "numpy", "--target-shape", "2,3"],
        &fixture("no_such_input.npy"),
        &["no_such_input.npy", "cannot read"],
    );
}

#[test]
fn an_output_path_that_is_a_folder_is_exit_2() {
    let dir = scratch("err_out_is_dir");
    let target = dir.join("sub");
    fs::create_dir(&target).expect("mkdir");
    let out = bcast([
        "run",
        "--mode",
        "numpy",
        "--target-shape",
        "2,3",
        p(&fixture("cli_u16_3.npy")),
        p(&target),
    ]);
    assert_error(&out, &["sub", "folder"]);
    assert_eq!(listing(&dir), vec!["sub"]);
    assert!(listing(&target).is_empty());
}

#[test]
fn a_missing_output_folder_is_exit_2_and_is_not_created() {
    let dir = scratch("err_out_folder");
    let target = dir.join("missing").join("out.npy");
    let out = bcast([
        "run",
        "--mode",
        "numpy",
        "--target-shape",
        "2,3",
        p(&fixture("cli_u16_3.npy")),
        p(&target),
    ]);
    assert_error(&out, &["missing", "does not exist"]);
    assert!(listing(&dir).is_empty());
}

// ---------------------------------------------------------------------------------------
// bcast shape

#[track_caller]
fn shape_prints(args: &[&str], want: &str) {
    let mut all = vec!["shape"];
    all.extend_from_slice(args);
    let out = bcast(&all);
    assert_success(&out);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("{want}\n"),
        "{args:?}"
    );
}

#[test]
fn shape_prints_the_output_shape_without_spaces() {
    shape_prints(
        &[
            "--mode",
            "numpy",
            "--target-shape",
            "2,3",
            "--data-shape",
            "3",
        ],
        "[2,3]",
    );
    shape_prints(
        &[
            "--mode",
            "numpy",
            "--target-shape",
            "[2, 3]",
            "--data-shape",
            "[1,3]",
        ],
        "[2,3]",
    );
    shape_prints(
        &[
            "--mode",
            "numpy",
            "--target-shape",
            "1,16,50,50",
            "--data-shape",
            "16,1,1",
        ],
        "[1,16,50,50]",
    );
}

#[test]
fn shape_of_rank_0_is_brackets() {
    shape_prints(
        &[
            "--mode",
            "numpy",
            "--target-shape",
            "[]",
            "--data-shape",
            "",
        ],
        "[]",
    );
    shape_prints(
        &[
            "--mode",
            "bidirectional",
            "--target-shape",
            "",
            "--data-shape",
            "[]",
        ],
        "[]",
    );
    shape_prints(
        &[
            "--mode",
            "numpy",
            "--target-shape",
            "2,3",
            "--data-shape",
            "",
        ],
        "[2,3]",
    );
}

#[test]
fn shape_in_bidirectional_mode_is_the_bidirectional_shape() {
    shape_prints(
        &[
            "--mode",
            "bidirectional",
            "--target-shape",
            "2,1,6",
            "--data-shape",
            "3,1",
        ],
        "[2,3,6]",
    );
    // The data may have the larger rank, and a 1 against a 0 gives 0.
    shape_prints(
        &[
            "--mode",
            "bidirectional",
            "--target-shape",
            "1",
            "--data-shape",
            "4,0,1",
        ],
        "[4,0,1]",
    );
    shape_prints(
        &[
            "--mode",
            "bidirectional",
            "--target-shape",
            "0,5",
            "--data-shape",
            "1,1",
        ],
        "[0,5]",
    );
}

#[test]
fn shape_takes_the_mode_flags() {
    shape_prints(
        &[
            "--mode",
            "explicit",
            "--target-shape",
            "1,16,50,50",
            "--axes-mapping",
            "1",
            "--data-shape",
            "16",
        ],
        "[1,16,50,50]",
    );
    shape_prints(
        &[
            "--mode",
            "none",
            "--target-shape",
            "2,3",
            "--data-shape",
            "",
        ],
        "[2,3]",
    );
    shape_prints(
        &[
            "--mode",
            "pdpd",
            "--target-shape",
            "2,3,4,5",
            "--axis",
            "1",
            "--data-shape",
            "3,1",
        ],
        "[2,3,4,5]",
    );
    shape_prints(
        &[
            "--mode",
            "axes",
            "--target-shape",
            "2,3",
            "--broadcast-axes",
            "0",
            "--data-shape",
            "3",
        ],
        "[2,3]",
    );
}

#[test]
fn shape_errors_are_exit_2() {
    let cases: [(&[&str], &[&str]); 4] = [
        (
            &[
                "--mode",
                "numpy",
                "--target-shape",
                "2,4",
                "--data-shape",
                "3",
            ],
            &["numpy broadcast"],
        ),
        (
            &[
                "--mode",
                "numpy",
                "--axis",
                "0",
                "--target-shape",
                "2,3",
                "--data-shape",
                "3",
            ],
            &["--axis", "numpy"],
        ),
        (
            &[
                "--mode",
                "numpy",
                "--target-shape",
                "2,3",
                "--data-shape",
                "3,a",
            ],
            &["--data-shape"],
        ),
        (
            &["--mode", "numpy", "--target-shape", "2,3"],
            &["--data-shape"],
        ),
    ];
    for (args, needles) in cases {
        let mut all = vec!["shape"];
        all.extend_from_slice(args);
        assert_error(&bcast(&all), needles);
    }
}

// ---------------------------------------------------------------------------------------
// bcast multi

/// Common shape by the N-ary rule: right-aligned; per axis all dims that are not 1 agree.
fn common_shape(shapes: &[&[usize]]) -> Vec<usize> {
    let rank = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    (0..rank)
        .map(|k| {
            let dims: Vec<usize> = shapes
                .iter()
                .filter_map(|s| (k + s.len()).checked_sub(rank).map(|i| s[i]))
                .filter(|&d| d != 1)
                .collect();
            assert!(dims.windows(2).all(|w| w[0] == w[1]), "clash at axis {k}");
            dims.first().copied().unwrap_or(1)
        })
        .collect()
}

#[test]
fn multi_writes_each_input_broadcast_to_the_common_shape() {
    let dir = scratch("multi");
    let inputs = ["cli_i32_3x1.npy", "cli_i32_4.npy", "cli_i32_scalar.npy"];
    let mut args = vec!["multi".to_string()];
    args.extend(inputs.iter().map(|i| p(&fixture(i)).to_string()));
    args.extend(["--out-dir".to_string(), p(&dir).to_string()]);
    assert_success(&bcast(&args));
    assert_eq!(listing(&dir), vec!["out0.npy", "out1.npy", "out2.npy"]);
    let data: Vec<Tensor> = inputs
        .iter()
        .map(|i| npy::read(fixture(i)).expect("fixture"))
        .collect();
    let shapes: Vec<&[usize]> = data.iter().map(|t| t.shape()).collect();
    let common = common_shape(&shapes);
    assert_eq!(common, vec![3, 4]);
    for (i, t) in data.iter().enumerate() {
        let out_path = dir.join(format!("out{i}.npy"));
        let got = npy::read(&out_path).expect("output");
        assert_eq!(got.shape(), &common[..]);
        let want = naive(
            &flat(t),
            t.shape(),
            &common,
            &right_aligned(t.shape().len(), 2),
        );
        assert_eq!(flat(&got), want, "out{i}");
        assert_c_order_little_endian(&out_path, "<i4");
    }
}

#[test]
fn multi_mixes_byte_orders_of_one_dtype() {
    let dir = scratch("multi_byte_order");
    let out = bcast([
        "multi",
        p(&fixture("cli_be_i4_3.npy")),
        p(&fixture("cli_i32_3x1.npy")),
        "--out-dir",
        p(&dir),
    ]);
    assert_success(&out);
    let got = npy::read(dir.join("out0.npy")).expect("out0");
    // [1, -2, 70000] as rows of a [3,3].
    let Tensor::I32(a) = got else { panic!("i32") };
    assert_eq!(
        a.iter().copied().collect::<Vec<_>>(),
        [1, -2, 70000].repeat(3)
    );
    assert_c_order_little_endian(&dir.join("out0.npy"), "<i4");
}

#[test]
fn multi_of_one_input_copies_it() {
    let dir = scratch("multi_one");
    assert_success(&bcast([
        "multi",
        p(&fixture("le_U.npy")),
        "--out-dir",
        p(&dir),
    ]));
    let got = npy::read(dir.join("out0.npy")).expect("out0");
    assert!(got.bit_equal(&npy::read(fixture("le_U.npy")).expect("fixture")));
}

/// Runs `bcast multi` expecting an error; DIR holds a previous out0.npy that must survive.
#[track_caller]
fn multi_fails_leaving_dir_alone(test: &str, inputs: &[&str], needles: &[&str]) {
    let dir = scratch(test);
    fs::write(dir.join("out0.npy"), b"keep me").expect("write");
    let mut args = vec!["multi".to_string()];
    args.extend(inputs.iter().map(|i| p(&fixture(i)).to_string()));
    args.extend(["--out-dir".to_string(), p(&dir).to_string()]);
    assert_error(&bcast(&args), needles);
    assert_eq!(listing(&dir), vec!["out0.npy"], "stray files");
    assert_eq!(fs::read(dir.join("out0.npy")).expect("kept"), b"keep me");
}

#[test]
fn multi_refuses_inputs_of_different_dtypes() {
    multi_fails_leaving_dir_alone(
        "multi_dtypes",
        &["cli_i32_4.npy", "cli_f32_16.npy"],
        &["cli_f32_16.npy", "f32", "i32", "cli_i32_4.npy"],
    );
}

#[test]
fn multi_names_the_input_whose_shape_clashes() {
    // [4] and [3,1] agree on [3,4]; the third input, [3], does not.
    multi_fails_leaving_dir_alone(
        "multi_clash",
        &["cli_i32_4.npy", "cli_i32_3x1.npy", "cli_be_i4_3.npy"],
        &["cli_be_i4_3.npy", "multi broadcast", "incompatible"],
    );
}

#[test]
fn multi_with_a_bad_input_writes_nothing() {
    multi_fails_leaving_dir_alone(
        "multi_bad_input",
        &["cli_i32_4.npy", "bad_truncated_header.npy"],
        &["bad_truncated_header.npy", "truncated npy"],
    );
    multi_fails_leaving_dir_alone(
        "multi_missing_input",
        &["cli_i32_4.npy", "no_such_input.npy"],
        &["no_such_input.npy", "cannot read"],
    );
}

#[test]
fn multi_creates_a_missing_out_dir_and_removes_it_when_the_call_fails() {
    let dir = scratch("multi_no_dir");
    let missing = dir.join("new/missing");
    let out = bcast([
        "multi",
        p(&fixture("cli_i32_4.npy")),
        p(&fixture("cli_f32_16.npy")),
        "--out-dir",
        p(&missing),
    ]);
    assert_error(&out, &["element type"]);
    assert!(
        !dir.join("new").exists(),
        "the folders made for a failed call are left"
    );
    let out = bcast([
        "multi",
        p(&fixture("cli_i32_4.npy")),
        "--out-dir",
        p(&missing),
    ]);
    assert_success(&out);
    assert_eq!(listing(&missing), ["out0.npy"]);
}

#[test]
fn multi_refuses_to_leave_older_outputs_beside_new_ones() {
    let dir = scratch("multi_stale");
    let input = fixture("cli_i32_4.npy");
    let three = [p(&input), p(&input), p(&input)];
    let mut args = vec!["multi"];
    args.extend_from_slice(&three);
    args.extend_from_slice(&["--out-dir", p(&dir)]);
    assert_success(&bcast(&args));
    assert_eq!(listing(&dir), ["out0.npy", "out1.npy", "out2.npy"]);
    let out = bcast(["multi", three[0], "--out-dir", p(&dir)]);
    assert_error(&out, &["out1.npy, out2.npy", "earlier call", "remove them"]);
    assert_eq!(listing(&dir), ["out0.npy", "out1.npy", "out2.npy"]);
    fs::remove_file(dir.join("out2.npy")).unwrap();
    fs::remove_file(dir.join("out1.npy")).unwrap();
    fs::write(dir.join("out01.npy"), b"not ours").unwrap();
    assert_success(&bcast(["multi", three[0], "--out-dir", p(&dir)]));
}

#[test]
fn control_characters_from_a_file_are_escaped_in_the_error_line() {
    let dir = scratch("escape");
    let descr = "<f4\u{1b}[2J\r\u{0}\u{9b}";
    let dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': (1,), }}");
    // Version 3.0: a UTF-8 header, which can hold the C1 control U+009B too.
    let mut bytes = b"\x93NUMPY\x03\x00".to_vec();
    bytes.extend_from_slice(&((dict.len() + 1) as u32).to_le_bytes());
    bytes.extend_from_slice(dict.as_bytes());
    bytes.push(b'\n');
    bytes.extend_from_slice(&[0; 4]);
    let input = dir.join("evil.npy");
    fs::write(&input, bytes).unwrap();
    let out = bcast([
        "run",
        "--mode",
        "numpy",
        "--target-shape",
        "2",
        p(&input),
        p(&dir.join("out.npy")),
    ]);
    let err = assert_error(&out, &["\\x1b[2J\\r\\0\\u{9b}"]);
    assert!(!err.chars().any(|c| c.is_control() && c != '\n'), "{err:?}");
}

#[test]
fn shape_lists_follow_one_strict_grammar() {
    // `bcast shape` reads partial shapes (`?`, intervals), so its refusals are worded by the
    // partial-shape parser; every form the strict grammar refuses is still refused.
    for (text, needle) in [
        ("+3,4", "('+3')"),
        ("[3,4", "brackets"),
        ("3,4]", "brackets"),
        ("3,,4", "dimension 1 is empty"),
        ("3,4,", "dimension 2 is empty"),
        ("99999999999999999999", "does not fit"),
    ] {
        let out = bcast([
            "shape",
            "--mode",
            "numpy",
            "--target-shape",
            text,
            "--data-shape",
            "4",
        ]);
        assert_error(&out, &["--target-shape", needle]);
    }
    for text in ["[3, 4]", " 3,4 ", "[ 3 , 4 ]"] {
        let out = bcast([
            "shape",
            "--mode",
            "numpy",
            "--target-shape",
            text,
            "--data-shape",
            "4",
        ]);
        assert_success(&out);
        assert_eq!(String::from_utf8_lossy(&out.stdout), "[3,4]\n");
    }
}

#[test]
fn rule_messages_read_right_and_print_axes_like_shapes() {
    let out = bcast([
        "shape",
        "--mode",
        "numpy",
        "--target-shape",
        "2,1",
        "--data-shape",
        "3",
    ]);
    let err = assert_error(&out, &["cannot become 1 (only a data dim of 1 can)"]);
    assert!(!err.contains("must be 1 or 1"), "{err}");
    let out = bcast([
        "shape",
        "--mode",
        "explicit",
        "--target-shape",
        "2,3",
        "--data-shape",
        "3,2",
        "--axes-mapping",
        "1,0",
    ]);
    assert_error(&out, &["axes [1,0] must be strictly increasing"]);
}

#[test]
fn shape_takes_n_shapes_and_prints_json() {
    let out = bcast(["shape", "--multi", "2,1", "3", "4,1,1"]);
    assert_success(&out);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "[4,2,3]\n");
    let out = bcast(["shape", "--json", "--multi", "2,1", "[]"]);
    assert_success(&out);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "{\"shape\":[2,1]}\n");
    let out = bcast([
        "shape",
        "--mode",
        "numpy",
        "--target-shape",
        "2,3",
        "--data-shape",
        "3",
        "--json",
    ]);
    assert_success(&out);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "{\"shape\":[2,3]}\n");
    let out = bcast(["shape", "--multi", "2", "3"]);
    assert_error(&out, &["incompatible"]);
    let out = bcast(["shape", "--multi", "2", "--data-shape", "3"]);
    assert_error(&out, &["--multi", "--data-shape"]);
}

#[test]
fn conformance_verbose_prints_pass_lines_without_a_reason() {
    let suite = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../conformance/cases/spec");
    let out = bcast(["conformance", "-v", p(&suite)]);
    assert_success(&out);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let first = stdout.lines().next().unwrap();
    assert!(
        first.starts_with("PASS ") && !first.ends_with(": pass"),
        "{first}"
    );
}

#[test]
fn multi_refuses_an_out_dir_that_is_a_file() {
    let dir = scratch("multi_dir_is_file");
    let file = dir.join("file");
    fs::write(&file, b"x").expect("write");
    let out = bcast(["multi", p(&fixture("cli_i32_4.npy")), "--out-dir", p(&file)]);
    assert_error(&out, &["--out-dir", "not a folder"]);
    assert_eq!(fs::read(&file).expect("kept"), b"x");
}

#[test]
fn multi_when_one_output_cannot_be_written_writes_none() {
    // out1.npy is a folder: out0 must not appear either.
    let dir = scratch("multi_partial");
    fs::create_dir(dir.join("out1.npy")).expect("mkdir");
    let out = bcast([
        "multi",
        p(&fixture("cli_i32_4.npy")),
        p(&fixture("cli_i32_3x1.npy")),
        "--out-dir",
        p(&dir),
    ]);
    assert_error(&out, &["out1.npy", "folder"]);
    assert_eq!(listing(&dir), vec!["out1.npy"]);
}

#[test]
fn multi_needs_at_least_one_input() {
    let dir = scratch("multi_none");
    assert_error(&bcast(["multi", "--out-dir", p(&dir)]), &["IN.npy"]);
}

#[test]
fn reduce_names_a_gradient_of_the_wrong_shape_and_can_take_the_shape_from_it() {
    let dir = scratch("reduce_grad");
    let grad: Tensor =
        ndarray::ArrayD::from_shape_fn(ndarray::IxDyn(&[2, 3]), |i| (i[0] * 3 + i[1]) as f32)
            .into();
    let gp = dir.join("grad.npy");
    npy::write_atomic(&gp, &grad).unwrap();
    let out = bcast([
        "reduce",
        "--mode",
        "numpy",
        "--target-shape",
        "4,3",
        "--data-shape",
        "3",
        p(&gp),
        p(&dir.join("out.npy")),
    ]);
    let err = assert_error(&out, &["grad.npy", "the gradient has shape [2,3]", "[4,3]"]);
    assert!(!err.contains("output array"), "{err}");
    // No --target-shape: the gradient's shape is the broadcast's output shape.
    let out = bcast([
        "reduce",
        "--mode",
        "numpy",
        "--data-shape",
        "3",
        p(&gp),
        p(&dir.join("out.npy")),
    ]);
    assert_success(&out);
    let got = npy::read(dir.join("out.npy")).unwrap();
    assert!(got.bit_equal(&ndarray::arr1(&[3.0f32, 5.0, 7.0]).into_dyn().into()));
    let out = bcast([
        "reduce",
        "--mode",
        "numpy",
        "--data-shape",
        "3",
        p(&gp),
        "-",
    ]);
    assert_success(&out);
    assert_eq!(out.stdout, npy::to_bytes(&got).unwrap());
}
