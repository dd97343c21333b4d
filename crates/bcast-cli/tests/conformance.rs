//! The conformance suite in `conformance/`, run through the same runner as
//! `bcast conformance`, and tests of the runner itself on cases written here.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

use bcast::Tensor;
use bcast_cli::conformance::{find_cases, run_case, run_dirs, ConformanceError, Verdict};
use ndarray::{array, ArrayD, IxDyn};

fn suite() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../conformance")
}

#[test]
fn the_whole_suite_passes() {
    let report = run_dirs(&[suite()]).expect("the suite has cases");
    let failures: Vec<String> = report.failures().map(|f| f.to_string()).collect();
    assert!(
        failures.is_empty(),
        "{} failing case(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
    // The issue asks for at least 400 cases; fewer means cases went missing.
    assert!(report.passed() >= 400, "only {} cases", report.passed());
}

#[test]
fn every_case_group_and_mode_is_present() {
    let cases = find_cases(&[suite().join("cases")]).unwrap();
    let mut modes = std::collections::BTreeSet::new();
    let mut errors = std::collections::BTreeSet::new();
    for dir in &cases {
        let text = fs::read_to_string(dir.join("case.json")).unwrap();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        let mode = v["mode"].as_str().unwrap().to_string();
        if v.get("error") == Some(&serde_json::Value::Bool(true)) {
            errors.insert(mode.clone());
        }
        modes.insert(mode);
    }
    let all: Vec<&str> = vec![
        "axes",
        "bidirectional",
        "explicit",
        "multi",
        "numpy",
        "pdpd",
    ];
    assert_eq!(modes.iter().map(String::as_str).collect::<Vec<_>>(), all);
    assert_eq!(errors.iter().map(String::as_str).collect::<Vec<_>>(), all);
}

#[test]
fn the_eltwise_group_is_present_and_covers_every_op_and_rule() {
    let cases = find_cases(&[suite().join("eltwise")]).unwrap();
    assert!(cases.len() >= 400, "only {} eltwise cases", cases.len());
    let mut ops = std::collections::BTreeSet::new();
    let mut rules = std::collections::BTreeSet::new();
    for dir in &cases {
        let text = fs::read_to_string(dir.join("case.json")).unwrap();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        let op = v["op"].as_str().unwrap();
        ops.insert(if op == "select" {
            "select".to_string()
        } else {
            v["eltwise"].as_str().unwrap().to_string()
        });
        // The ops that broadcast by their own rule (ONNX's, PRelu) have no auto_broadcast.
        if let Some(rule) = v.get("auto_broadcast") {
            rules.insert(rule.as_str().unwrap().to_string());
        }
    }
    // Every op of the table has cases, and no case names an op the table lacks.
    let table: std::collections::BTreeSet<String> = bcast::EltwiseOp::ALL
        .iter()
        .map(|op| op.name().to_string())
        .collect();
    assert_eq!(ops, table);
    assert_eq!(
        rules.into_iter().collect::<Vec<_>>(),
        ["none", "numpy", "pdpd"]
    );
    // The whole-suite test above runs them; this checks they run as eltwise cases.
    let report = run_dirs(&[suite().join("eltwise")]).unwrap();
    assert_eq!(report.failed(), 0, "{}", report.summary());
}

/// A fresh folder under the target dir's scratch space.
fn scratch(tag: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "conformance-{tag}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

fn write_npy(path: &Path, t: &Tensor) {
    fs::write(path, bcast::npy::to_bytes(t).unwrap()).unwrap();
}

/// Writes a case folder: `case.json` from `json`, then each (file, tensor).
fn case(dir: &Path, json: &str, files: &[(&str, Tensor)]) -> PathBuf {
    fs::create_dir_all(dir).unwrap();
    fs::write(dir.join("case.json"), json).unwrap();
    for (name, t) in files {
        write_npy(&dir.join(name), t);
    }
    dir.to_path_buf()
}

fn t<T>(a: ArrayD<T>) -> Tensor
where
    Tensor: From<ArrayD<T>>,
{
    Tensor::from(a)
}

fn row() -> Tensor {
    t(array![1i32, 2, 3].into_dyn())
}

fn rows() -> Tensor {
    t(array![[1i32, 2, 3], [1, 2, 3]].into_dyn())
}

const NUMPY_2X3: &str = r#"{"name": "row", "mode": "numpy", "target_shape": [2, 3],
    "inputs": ["in0.npy"], "outputs": ["out0.npy"]}"#;

fn reason(dir: &Path) -> String {
    match run_case(dir).verdict {
        Verdict::Fail(r) => r,
        Verdict::Pass => panic!("{} passed but must fail", dir.display()),
    }
}

#[test]
fn a_correct_case_passes() {
    let dir = case(
        &scratch("ok"),
        NUMPY_2X3,
        &[("in0.npy", row()), ("out0.npy", rows())],
    );
    assert_eq!(run_case(&dir).verdict, Verdict::Pass);
}

#[test]
fn a_wrong_value_fails_naming_the_index() {
    let wrong = t(array![[1i32, 2, 3], [1, 2, 4]].into_dyn());
    let dir = case(
        &scratch("value"),
        NUMPY_2X3,
        &[("in0.npy", row()), ("out0.npy", wrong)],
    );
    assert_eq!(
        reason(&dir),
        "out0.npy: 1 of 6 elements differ; first at index [1,2]: expected 4, got 3"
    );
}

#[test]
fn a_wrong_dtype_or_shape_fails() {
    let as_i64 = t(array![[1i64, 2, 3], [1, 2, 3]].into_dyn());
    let dir = case(
        &scratch("dtype"),
        NUMPY_2X3,
        &[("in0.npy", row()), ("out0.npy", as_i64)],
    );
    assert_eq!(
        reason(&dir),
        "out0.npy: dtype differs: expected i64, got i32"
    );
    let flat = t(array![1i32, 2, 3, 1, 2, 3].into_dyn());
    let dir = case(
        &scratch("shape"),
        NUMPY_2X3,
        &[("in0.npy", row()), ("out0.npy", flat)],
    );
    assert_eq!(
        reason(&dir),
        "out0.npy: shape differs: expected [6], got [2,3]"
    );
}

#[test]
fn an_error_case_that_is_rejected_passes() {
    let dir = case(
        &scratch("rejected"),
        r#"{"name": "e", "mode": "numpy", "target_shape": [2, 4], "inputs": ["in0.npy"],
            "error": true}"#,
        &[("in0.npy", row())],
    );
    assert_eq!(run_case(&dir).verdict, Verdict::Pass);
}

#[test]
fn an_error_case_that_is_accepted_fails() {
    let dir = case(
        &scratch("accepted"),
        r#"{"name": "e", "mode": "numpy", "target_shape": [2, 3], "inputs": ["in0.npy"],
            "error": true}"#,
        &[("in0.npy", row())],
    );
    assert_eq!(
        reason(&dir),
        "expected a rejection, but the broadcast was accepted and gave output shape [2,3]"
    );
}

#[test]
fn a_rejected_case_that_expects_outputs_fails() {
    let dir = case(
        &scratch("refused"),
        r#"{"name": "r", "mode": "numpy", "target_shape": [2, 4], "inputs": ["in0.npy"],
            "outputs": ["out0.npy"]}"#,
        &[("in0.npy", row()), ("out0.npy", rows())],
    );
    assert!(reason(&dir).starts_with(
        "expected outputs, but the broadcast was rejected: numpy broadcast: data dim 3"
    ));
}

#[test]
fn out_of_range_values_are_inputs_to_reject_not_malformed_cases() {
    for (tag, fields) in [
        (
            "negaxis",
            r#""mode": "explicit", "target_shape": [2, 3], "axes_mapping": [-1]"#,
        ),
        ("negdim", r#""mode": "numpy", "target_shape": [2, -3]"#),
        (
            "hugedim",
            r#""mode": "numpy", "target_shape": [18446744073709551615]"#,
        ),
        (
            "hugeaxis",
            r#""mode": "pdpd", "target_shape": [2, 3], "axis": 18446744073709551615"#,
        ),
        (
            "minaxis",
            r#""mode": "pdpd", "target_shape": [2, 3], "axis": -9223372036854775808"#,
        ),
        (
            "negnew",
            r#""mode": "axes", "target_shape": [2, 3], "broadcast_axes": [-2]"#,
        ),
    ] {
        let json =
            format!(r#"{{"name": "{tag}", {fields}, "inputs": ["in0.npy"], "error": true}}"#);
        let dir = case(&scratch(tag), &json, &[("in0.npy", row())]);
        assert_eq!(run_case(&dir).verdict, Verdict::Pass, "{tag}");
    }
}

#[test]
fn malformed_cases_fail_with_a_reason_and_do_not_crash() {
    let bad: [(&str, &str, &str); 12] = [
        ("nojson", "{not json", "malformed case: case.json is not valid JSON"),
        ("array", "[1, 2]", "malformed case: case.json must hold a JSON object"),
        (
            "noname",
            r#"{"mode": "numpy", "target_shape": [3], "inputs": ["in0.npy"], "error": true}"#,
            "malformed case: missing \"name\"",
        ),
        (
            "nomode",
            r#"{"name": "x", "target_shape": [3], "inputs": ["in0.npy"], "error": true}"#,
            "malformed case: missing \"mode\"",
        ),
        (
            "notarget",
            r#"{"name": "x", "mode": "numpy", "inputs": ["in0.npy"], "error": true}"#,
            "malformed case: missing \"target_shape\"",
        ),
        (
            "float",
            r#"{"name": "x", "mode": "numpy", "target_shape": [2.5], "inputs": ["in0.npy"], "error": true}"#,
            "malformed case: \"target_shape\" entry 0 must be an integer, not 2.5",
        ),
        (
            "noexpect",
            r#"{"name": "x", "mode": "numpy", "target_shape": [3], "inputs": ["in0.npy"]}"#,
            "malformed case: missing \"outputs\" (or \"error\": true)",
        ),
        (
            "both",
            r#"{"name": "x", "mode": "numpy", "target_shape": [3], "inputs": ["in0.npy"], "outputs": ["o.npy"], "error": true}"#,
            "malformed case: a case has either \"outputs\" or \"error\": true, not both",
        ),
        (
            "wrongarg",
            r#"{"name": "x", "mode": "numpy", "axis": 1, "target_shape": [3], "inputs": ["in0.npy"], "error": true}"#,
            "malformed case: \"axis\" is not an argument of mode numpy",
        ),
        (
            "escape",
            r#"{"name": "x", "mode": "numpy", "target_shape": [3], "inputs": ["../in0.npy"], "error": true}"#,
            "malformed case: \"inputs\" entry '../in0.npy' must be a file name inside the case folder",
        ),
        (
            "twoin",
            r#"{"name": "x", "mode": "numpy", "target_shape": [3], "inputs": ["in0.npy", "in0.npy"], "error": true}"#,
            "malformed case: mode numpy takes exactly one input, the case lists 2",
        ),
        (
            "multiout",
            r#"{"name": "x", "mode": "multi", "inputs": ["in0.npy"], "outputs": ["a.npy", "b.npy"]}"#,
            "malformed case: mode multi has one output per input, but the case lists 1 input(s) and 2 output(s)",
        ),
    ];
    for (tag, json, want) in bad {
        let dir = case(&scratch(tag), json, &[("in0.npy", row())]);
        let got = reason(&dir);
        assert!(got.starts_with(want), "{tag}: {got}");
    }
}

#[test]
fn missing_input_and_expected_files_are_failures() {
    let dir = case(&scratch("noinput"), NUMPY_2X3, &[("out0.npy", rows())]);
    assert!(reason(&dir).starts_with("input in0.npy: "));
    let dir = case(&scratch("nooutput"), NUMPY_2X3, &[("in0.npy", row())]);
    assert!(reason(&dir).starts_with("expected output out0.npy: "));
}

#[test]
fn an_unknown_op_is_a_failure() {
    let dir = case(
        &scratch("op"),
        r#"{"name": "g", "op": "transpose", "mode": "numpy", "target_shape": [2, 3],
            "inputs": ["in0.npy"], "outputs": ["out0.npy"]}"#,
        &[("in0.npy", rows()), ("out0.npy", row())],
    );
    assert_eq!(reason(&dir), "unknown op 'transpose'");
}

#[test]
fn a_reduce_case_sums_the_gradient_back_to_the_data_shape() {
    // grad [[1,2,3],[4,5,6]] of numpy [3] -> [2,3] sums over axis 0: [5,7,9].
    let grad = ArrayD::from_shape_vec(IxDyn(&[2, 3]), vec![1i32, 2, 3, 4, 5, 6]).unwrap();
    let want = ArrayD::from_shape_vec(IxDyn(&[3]), vec![5i32, 7, 9]).unwrap();
    let spec = r#"{"name": "r", "op": "reduce", "mode": "numpy", "target_shape": [2, 3],
        "data_shape": [3], "inputs": ["in0.npy"], "outputs": ["out0.npy"]}"#;
    let dir = case(
        &scratch("reduce-ok"),
        spec,
        &[("in0.npy", grad.clone().into()), ("out0.npy", want.into())],
    );
    assert_eq!(run_case(&dir).verdict, Verdict::Pass);
    let wrong = ArrayD::from_shape_vec(IxDyn(&[3]), vec![5i32, 7, 10]).unwrap();
    let dir = case(
        &scratch("reduce-wrong"),
        spec,
        &[("in0.npy", grad.into()), ("out0.npy", wrong.into())],
    );
    assert!(!run_case(&dir).passed());
}

#[test]
fn reduce_floats_pass_within_tolerance_and_fail_beyond_it() {
    let grad = ArrayD::from_shape_vec(IxDyn(&[2, 2]), vec![0.5f32, 0.25, 0.5, 0.25]).unwrap();
    let near = ArrayD::from_shape_vec(IxDyn(&[2]), vec![1.0001f32, 0.5]).unwrap();
    let spec = |tol: &str| {
        format!(
            r#"{{"name": "r", "op": "reduce", "mode": "numpy", "target_shape": [2, 2],
            "data_shape": [2], "inputs": ["in0.npy"], "outputs": ["out0.npy"], {tol}}}"#
        )
    };
    let files = || {
        [
            ("in0.npy", Tensor::from(grad.clone())),
            ("out0.npy", Tensor::from(near.clone())),
        ]
    };
    let loose = case(
        &scratch("reduce-loose"),
        &spec(r#""rtol": 1e-3, "atol": 0"#),
        &files(),
    );
    assert_eq!(run_case(&loose).verdict, Verdict::Pass);
    let tight = case(
        &scratch("reduce-tight"),
        &spec(r#""rtol": 1e-6, "atol": 1e-6"#),
        &files(),
    );
    assert!(!run_case(&tight).passed());
}

#[test]
fn unknown_keys_are_ignored_and_op_broadcast_is_the_default() {
    let dir = case(
        &scratch("keys"),
        r#"{"name": "row", "op": "broadcast", "mode": "NUMPY", "target_shape": [2, 3],
            "inputs": ["in0.npy"], "outputs": ["out0.npy"], "note": "x", "source": {"a": 1}}"#,
        &[("in0.npy", row()), ("out0.npy", rows())],
    );
    assert_eq!(run_case(&dir).verdict, Verdict::Pass);
}

#[test]
fn nan_payloads_and_negative_zero_are_compared_by_bits() {
    let nan = f32::from_bits(0x7fc0_0123);
    let data = t(array![nan, -0.0].into_dyn());
    let json = r#"{"name": "f", "mode": "numpy", "target_shape": [2, 2],
        "inputs": ["in0.npy"], "outputs": ["out0.npy"]}"#;
    let good = t(array![[nan, -0.0], [nan, -0.0]].into_dyn());
    let dir = case(
        &scratch("nan"),
        json,
        &[("in0.npy", data.clone()), ("out0.npy", good)],
    );
    assert_eq!(run_case(&dir).verdict, Verdict::Pass);
    let other_nan = t(array![[nan, -0.0], [f32::NAN, -0.0]].into_dyn());
    let dir = case(
        &scratch("nan"),
        json,
        &[("in0.npy", data.clone()), ("out0.npy", other_nan)],
    );
    assert!(reason(&dir).contains("first at index [1,0]"));
    let plus_zero = t(array![[nan, -0.0], [nan, 0.0]].into_dyn());
    let dir = case(
        &scratch("zero"),
        json,
        &[("in0.npy", data), ("out0.npy", plus_zero)],
    );
    assert!(reason(&dir).contains("first at index [1,1]"));
}

#[test]
fn strings_compare_by_value_whatever_the_npy_width() {
    let dir = scratch("strings");
    let data = t(array!["a".to_string(), "bé".into()].into_dyn());
    case(
        &dir,
        r#"{"name": "s", "mode": "bidirectional", "target_shape": [2, 1],
            "inputs": ["in0.npy"], "outputs": ["out0.npy"]}"#,
        &[("in0.npy", data)],
    );
    // The expected output written as `<U7`, wider than any of its strings.
    let mut npy = b"\x93NUMPY\x01\x00".to_vec();
    let header = "{'descr': '<U7', 'fortran_order': False, 'shape': (2, 2), }";
    npy.extend_from_slice(&((header.len() + 1) as u16).to_le_bytes());
    npy.extend_from_slice(header.as_bytes());
    npy.push(b'\n');
    for s in ["a", "bé", "a", "bé"] {
        let mut chars: Vec<u32> = s.chars().map(u32::from).collect();
        chars.resize(7, 0);
        for c in chars {
            npy.extend_from_slice(&c.to_le_bytes());
        }
    }
    fs::write(dir.join("out0.npy"), npy).unwrap();
    assert_eq!(run_case(&dir).verdict, Verdict::Pass);
}

#[test]
fn multi_cases_broadcast_every_input_with_its_own_dtype() {
    let col = t(array![[1u8], [2]].into_dyn());
    let strs = t(array!["x".to_string(), "y".into(), "z".into()].into_dyn());
    let dir = case(
        &scratch("multi"),
        r#"{"name": "m", "mode": "multi", "inputs": ["a.npy", "b.npy"],
            "outputs": ["ao.npy", "bo.npy"]}"#,
        &[
            ("a.npy", col),
            ("b.npy", strs),
            ("ao.npy", t(array![[1u8, 1, 1], [2, 2, 2]].into_dyn())),
            (
                "bo.npy",
                t(array![
                    ["x".to_string(), "y".into(), "z".into()],
                    ["x".into(), "y".into(), "z".into()]
                ]
                .into_dyn()),
            ),
        ],
    );
    assert_eq!(run_case(&dir).verdict, Verdict::Pass);
    let none = case(
        &scratch("multinone"),
        r#"{"name": "n", "mode": "multi", "inputs": [], "error": true}"#,
        &[],
    );
    assert_eq!(run_case(&none).verdict, Verdict::Pass);
}

#[test]
fn a_folder_with_no_case_is_an_error() {
    let dir = scratch("empty");
    fs::create_dir_all(dir.join("a/b")).unwrap();
    assert!(matches!(
        run_dirs(std::slice::from_ref(&dir)),
        Err(ConformanceError::NoCases(p)) if p == dir
    ));
    assert!(matches!(
        run_dirs(&[dir.join("missing")]),
        Err(ConformanceError::NotAFolder(_))
    ));
    assert!(matches!(run_dirs(&[]), Err(ConformanceError::NoFolders)));
}

#[test]
fn folders_are_searched_recursively_in_order_and_each_case_counted_once() {
    let root = scratch("walk");
    for sub in ["b/two", "a/one", "a/one/inner"] {
        case(
            &root.join(sub),
            NUMPY_2X3,
            &[("in0.npy", row()), ("out0.npy", rows())],
        );
    }
    let found = find_cases(&[root.clone(), root.join("a")]).unwrap();
    // a/one is a case, so a/one/inner is not searched; a/one is found once.
    assert_eq!(found, vec![root.join("a/one"), root.join("b/two")]);
    let report = run_dirs(&[root]).unwrap();
    assert_eq!(report.summary(), "2 passed, 0 failed");
}

fn bcast(args: &[&Path]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_bcast"))
        .arg("conformance")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn cli_prints_failures_then_the_count_alone_on_the_last_line() {
    let root = scratch("cli");
    case(
        &root.join("good"),
        NUMPY_2X3,
        &[("in0.npy", row()), ("out0.npy", rows())],
    );
    case(
        &root.join("bad"),
        NUMPY_2X3,
        &[
            ("in0.npy", row()),
            ("out0.npy", t(ArrayD::<i32>::zeros(IxDyn(&[2, 3])))),
        ],
    );
    let (code, stdout, stderr) = bcast(&[&root]);
    assert_eq!(code, 1, "{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    assert!(lines[0].starts_with("FAIL ") && lines[0].contains("bad (row): out0.npy: 6 of 6"));
    assert_eq!(lines[1], "1 passed, 1 failed");

    fs::remove_dir_all(root.join("bad")).unwrap();
    let (code, stdout, _) = bcast(&[&root]);
    assert_eq!((code, stdout.as_str()), (0, "1 passed, 0 failed\n"));
}

#[test]
fn cli_refuses_a_folder_with_no_case() {
    let root = scratch("clinone");
    let (code, stdout, stderr) = bcast(&[&root]);
    assert_eq!(code, 2);
    assert!(stdout.is_empty());
    assert_eq!(stderr.lines().count(), 1);
    assert!(stderr.starts_with("error: ") && stderr.contains("no case folder"));
}
