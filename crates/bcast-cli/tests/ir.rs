//! OpenVINO IR models: every model under `conformance/ir/` must give OpenVINO's outputs (numpy's
//! where OpenVINO is lossy or fails, as each case.json says) bit for bit, through the library
//! and through `bcast ir`; every model under `conformance/ir_bad/` must be refused with the
//! message in its error.txt. The expected files were written by conformance/ir/generate.py.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use bcast::ir::{IrError, Model};
use bcast::{DType, Tensor};

fn conformance(dir: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../conformance")
        .join(dir)
}

/// Case folders (those with a model.xml), sorted.
fn cases(dir: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(conformance(dir))
        .unwrap_or_else(|e| panic!("conformance/{dir}: {e}"))
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("model.xml").exists())
        .collect();
    out.sort();
    out
}

fn npy_files(dir: &Path) -> Vec<(String, PathBuf)> {
    let mut out: Vec<(String, PathBuf)> = match std::fs::read_dir(dir) {
        Ok(entries) => entries
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "npy"))
            .map(|p| (p.file_stem().unwrap().to_string_lossy().into_owned(), p))
            .collect(),
        Err(_) => Vec::new(),
    };
    out.sort();
    out
}

fn read_inputs(model: &Model, case: &Path) -> HashMap<String, Tensor> {
    npy_files(&case.join("inputs"))
        .into_iter()
        .map(|(name, path)| {
            let t = bcast::npy::read(&path).unwrap();
            let want = model
                .inputs()
                .iter()
                .find(|i| i.name == name)
                .map(|i| i.dtype);
            let t = match want {
                Some(dtype) => bcast::ir::bf16_from_npy_bits(t, dtype),
                None => t,
            };
            (name, t)
        })
        .collect()
}

fn expected(case: &Path) -> Vec<(String, Tensor)> {
    npy_files(&case.join("expected"))
        .into_iter()
        .map(|(name, path)| (name, bcast::npy::read(&path).unwrap()))
        .collect()
}

fn case_name(case: &Path) -> String {
    case.file_name().unwrap().to_string_lossy().into_owned()
}

/// A fresh folder under the target's scratch space.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("ir").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Fails the test with the command's stderr unless it exited 0.
fn assert_succeeded(run: &std::process::Output) {
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
}

fn bcast_cli() -> Command {
    Command::new(env!("CARGO_BIN_EXE_bcast"))
}

#[test]
fn the_suite_has_every_kind_of_case_the_issue_asks_for() {
    let names: Vec<String> = cases("ir").iter().map(|c| case_name(c)).collect();
    for want in [
        "v1_numpy",
        "v1_explicit_written_none",
        "v1_pdpd_axis1",
        "v3_numpy",
        "v3_explicit",
        "v3_bidirectional",
        "v3_pdpd_axis1",
        "v3_shapeof_i32_target",
        "v1_shapeof_target_explicit",
        "chain_two_broadcasts",
        "several_results",
        "spec_example_1_numpy",
        "spec_example_2_explicit",
        "spec_example_3_explicit",
        "spec_example_4_bidirectional",
        "ir_v10_explicit",
    ] {
        assert!(names.iter().any(|n| n == want), "missing case {want}");
    }
    for t in DType::ALL {
        let want = format!("dtype_{}", t.name());
        assert!(names.contains(&want), "missing case {want}");
    }
    assert!(cases("ir_bad").len() >= 30);
}

#[test]
fn every_model_gives_openvinos_outputs_through_the_library() {
    let mut failures = Vec::new();
    for case in cases("ir") {
        let name = case_name(&case);
        let model = match Model::load(case.join("model.xml"), None) {
            Ok(m) => m,
            Err(e) => {
                failures.push(format!("{name}: load: {e}"));
                continue;
            }
        };
        let outputs = match model.run(&read_inputs(&model, &case)) {
            Ok(o) => o,
            Err(e) => {
                failures.push(format!("{name}: run: {e}"));
                continue;
            }
        };
        let want = expected(&case);
        let got_names: Vec<&str> = outputs.iter().map(|(n, _)| n.as_str()).collect();
        let mut sorted = got_names.clone();
        sorted.sort_unstable();
        let want_names: Vec<&str> = want.iter().map(|(n, _)| n.as_str()).collect();
        if sorted != want_names {
            failures.push(format!(
                "{name}: outputs {got_names:?}, expected {want_names:?}"
            ));
            continue;
        }
        for (out_name, tensor) in outputs {
            let (_, expected) = want.iter().find(|(n, _)| *n == out_name).unwrap();
            let info = model.outputs().iter().find(|o| o.name == out_name).unwrap();
            if info.dtype != tensor.dtype() || !info.shape.accepts(tensor.shape()) {
                failures.push(format!(
                    "{name}/{out_name}: described as {} {}, computed {} {:?}",
                    info.dtype,
                    info.shape,
                    tensor.dtype(),
                    tensor.shape()
                ));
            }
            let tensor = bcast::ir::bf16_to_npy_bits(tensor);
            if !tensor.bit_equal(expected) {
                failures.push(format!(
                    "{name}/{out_name}: got {:?}\nexpected {:?}",
                    tensor, expected
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_model_gives_openvinos_outputs_through_the_cli() {
    let mut failures = Vec::new();
    for case in cases("ir") {
        let name = case_name(&case);
        let out_dir = scratch(&format!("cli_{name}"));
        let mut cmd = bcast_cli();
        cmd.arg("ir")
            .arg(case.join("model.xml"))
            .arg("--out-dir")
            .arg(&out_dir);
        for (param, path) in npy_files(&case.join("inputs")) {
            cmd.arg("--input")
                .arg(format!("{param}={}", path.display()));
        }
        let run = cmd.output().unwrap();
        if !run.status.success() {
            failures.push(format!(
                "{name}: exit {:?}: {}",
                run.status.code(),
                String::from_utf8_lossy(&run.stderr)
            ));
            continue;
        }
        let want = expected(&case);
        let written = npy_files(&out_dir);
        if written.len() != want.len() {
            failures.push(format!("{name}: wrote {written:?}"));
        }
        for (out_name, expected) in want {
            match bcast::npy::read(out_dir.join(format!("{out_name}.npy"))) {
                Ok(got) if got.bit_equal(&expected) => {}
                Ok(got) => failures.push(format!("{name}/{out_name}: got {got:?}")),
                Err(e) => failures.push(format!("{name}/{out_name}: {e}")),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn bad_case_error(case: &Path) -> Result<(), IrError> {
    let model = Model::load(case.join("model.xml"), None)?;
    model.run(&read_inputs(&model, case)).map(|_| ())
}

#[test]
fn every_bad_model_is_refused_with_its_message() {
    let mut failures = Vec::new();
    for case in cases("ir_bad") {
        let name = case_name(&case);
        let want = std::fs::read_to_string(case.join("error.txt")).unwrap();
        let want = want.trim();
        assert!(!want.is_empty(), "{name}: empty error.txt");
        match bad_case_error(&case) {
            Ok(()) => failures.push(format!("{name}: accepted")),
            Err(e) if e.to_string().contains(want) => {}
            Err(e) => failures.push(format!("{name}: '{e}' does not contain '{want}'")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_bad_model_is_one_error_line_and_exit_2_from_the_cli() {
    let mut failures = Vec::new();
    for case in cases("ir_bad") {
        let name = case_name(&case);
        let want = std::fs::read_to_string(case.join("error.txt")).unwrap();
        let out_dir = scratch(&format!("bad_{name}"));
        let mut cmd = bcast_cli();
        cmd.arg("ir")
            .arg(case.join("model.xml"))
            .arg("--out-dir")
            .arg(&out_dir);
        for (param, path) in npy_files(&case.join("inputs")) {
            cmd.arg("--input")
                .arg(format!("{param}={}", path.display()));
        }
        let run = cmd.output().unwrap();
        let stderr = String::from_utf8_lossy(&run.stderr);
        let one_line = stderr.lines().count() == 1 && stderr.starts_with("error: ");
        if run.status.code() != Some(2) || !one_line || !stderr.contains(want.trim()) {
            failures.push(format!(
                "{name}: exit {:?}, stderr {stderr:?}",
                run.status.code()
            ));
        }
        if !npy_files(&out_dir).is_empty() {
            failures.push(format!("{name}: wrote outputs although it failed"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn describe_lists_inputs_outputs_and_layers_in_run_order() {
    let run = bcast_cli()
        .args(["ir", "--describe"])
        .arg(conformance("ir/v1_explicit_written_none/model.xml"))
        .output()
        .unwrap();
    assert_succeeded(&run);
    let text = String::from_utf8(run.stdout).unwrap();
    // Expected from the .xml, which OpenVINO wrote: layer ids, names, the mode it wrote as
    // "none", the constants' values and the shapes of the ports.
    let expected = "\
model 'broadcast1_explicit', IR version 11, 5 layers
inputs:
  x: f32 [3,1]
outputs:
  y: f32 [2,3,1]
layers, in run order:
  0 Parameter 'x' (opset1) -> f32 [3,1]
  1 Const 'target_shape' (opset1) -> i64 [3] = [2,3,1]
  2 Const 'axes_mapping' (opset1) -> i64 [2] = [1,2]
  3 Broadcast 'broadcast' (opset1, explicit): data 0:0, target_shape 1:0, axes_mapping 2:0 -> f32 [2,3,1]
  4 Result 'y' (opset1): 3:3 -> f32 [2,3,1]
";
    assert_eq!(text, expected);
    let xml =
        std::fs::read_to_string(conformance("ir/v1_explicit_written_none/model.xml")).unwrap();
    assert!(
        xml.contains("mode=\"none\""),
        "OpenVINO writes explicit as none"
    );
}

#[test]
fn one_parameter_takes_a_bare_input_file() {
    let case = conformance("ir/v3_numpy");
    let out_dir = scratch("bare_input");
    let run = bcast_cli()
        .arg("ir")
        .arg(case.join("model.xml"))
        .arg("--input")
        .arg(case.join("inputs/x.npy"))
        .arg("--out-dir")
        .arg(&out_dir)
        .output()
        .unwrap();
    assert_succeeded(&run);
    let got = bcast::npy::read(out_dir.join("y.npy")).unwrap();
    let want = bcast::npy::read(case.join("expected/y.npy")).unwrap();
    assert!(got.bit_equal(&want));
}

#[test]
fn weights_may_live_elsewhere() {
    let case = conformance("ir/v3_numpy");
    let dir = scratch("weights_elsewhere");
    std::fs::copy(case.join("model.xml"), dir.join("m.xml")).unwrap();
    // No m.bin beside m.xml: the default is missing, --weights names the real one.
    let model = Model::load(dir.join("m.xml"), Some(&case.join("model.bin"))).unwrap();
    assert_eq!(model.inputs()[0].name, "x");
    let e = Model::load(dir.join("m.xml"), None).unwrap_err();
    assert!(
        e.to_string()
            .contains("(Const): cannot read its weights file")
            && e.to_string().contains("m.bin"),
        "{e}"
    );
    let out_dir = dir.join("out");
    let run = bcast_cli()
        .arg("ir")
        .arg(dir.join("m.xml"))
        .arg("--weights")
        .arg(case.join("model.bin"))
        .arg("--input")
        .arg(case.join("inputs/x.npy"))
        .arg("--out-dir")
        .arg(&out_dir)
        .output()
        .unwrap();
    assert_succeeded(&run);
    assert!(out_dir.join("y.npy").exists());
}

#[test]
fn cli_input_mistakes_are_one_line_errors() {
    let two = conformance("ir/v3_shapeof_i32_target");
    let x = two.join("inputs/x.npy");
    let cases: [(Vec<String>, &str); 4] = [
        (
            vec!["--input".into(), x.display().to_string()],
            "needs the form NAME=FILE.npy: the model has 2 Parameters (x, like)",
        ),
        (
            vec!["--input".into(), format!("nope={}", x.display())],
            "the model has no Parameter 'nope' (it has: x, like)",
        ),
        (
            vec![
                "--input".into(),
                format!("x={}", x.display()),
                "--input".into(),
                format!("x={}", x.display()),
            ],
            "--input 'x' is given twice",
        ),
        (
            vec!["--input".into(), "x=/nonexistent/x.npy".into()],
            "--input 'x': /nonexistent/x.npy",
        ),
    ];
    for (args, want) in cases {
        let run = bcast_cli()
            .arg("ir")
            .arg(two.join("model.xml"))
            .args(&args)
            .arg("--out-dir")
            .arg(scratch("input_mistakes"))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{args:?}");
        assert!(
            stderr.starts_with("error: ") && stderr.contains(want),
            "{stderr}"
        );
    }
    let run = bcast_cli()
        .arg("ir")
        .arg(two.join("model.xml"))
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&run.stderr).contains("--out-dir is required"));
}

/// Loads `xml` (with `bin`) and runs it on `inputs`, for the hand-written models below.
fn run_xml(
    xml: &str,
    bin: &[u8],
    inputs: Vec<(&str, Tensor)>,
) -> Result<Vec<(String, Tensor)>, IrError> {
    let model = Model::from_xml(xml, bin)?;
    model.run(
        &inputs
            .into_iter()
            .map(|(n, t)| (n.to_string(), t))
            .collect(),
    )
}

fn dims(list: &str) -> String {
    list.split(',')
        .filter(|d| !d.is_empty())
        .map(|d| format!("<dim>{d}</dim>"))
        .collect()
}

/// A Parameter `x` (shape attribute `x_shape`, port dims `x_dims`), a Const i64 `target` of
/// three values, a Broadcast with `<data {attrs}/>` whose output is declared `out_dims`,
/// and a Result `y`. An opset1 Broadcast gets the third, unused u8 input OpenVINO writes.
fn pdpd_model(version: &str, attrs: &str, x_shape: &str, x_dims: &str, out_dims: &str) -> String {
    let (x_dims, out_dims) = (dims(x_dims), dims(out_dims));
    let (third, third_port, third_edge) = if version == "opset1" {
        (
            r#"<layer id="4" name="unused" type="Const" version="opset1"><data element_type="u8" shape="" offset="24" size="1"/><output><port id="0" precision="U8"/></output></layer>"#,
            r#"<port id="5" precision="U8"/>"#,
            r#"<edge from-layer="4" from-port="0" to-layer="2" to-port="5"/>"#,
        )
    } else {
        ("", "", "")
    };
    format!(
        r#"<net name="p" version="11"><layers>
<layer id="0" name="x" type="Parameter" version="opset1"><data shape="{x_shape}" element_type="f32"/><output><port id="0" precision="FP32">{x_dims}</port></output></layer>
<layer id="1" name="target" type="Const" version="opset1"><data element_type="i64" shape="3" offset="0" size="24"/><output><port id="0" precision="I64"><dim>3</dim></port></output></layer>
{third}
<layer id="2" name="b" type="Broadcast" version="{version}"><data {attrs}/><input><port id="0" precision="FP32">{x_dims}</port><port id="1" precision="I64"><dim>3</dim></port>{third_port}</input><output><port id="2" precision="FP32">{out_dims}</port></output></layer>
<layer id="3" name="y" type="Result" version="opset1"><input><port id="0" precision="FP32">{out_dims}</port></input></layer>
</layers><edges>
<edge from-layer="0" from-port="0" to-layer="2" to-port="0"/>
<edge from-layer="1" from-port="0" to-layer="2" to-port="1"/>
{third_edge}
<edge from-layer="2" from-port="2" to-layer="3" to-port="0"/>
</edges></net>"#
    )
}

fn target_bin(target: [i64; 3]) -> Vec<u8> {
    let mut bin: Vec<u8> = target.iter().flat_map(|v| v.to_le_bytes()).collect();
    bin.push(0);
    bin
}

fn f32_tensor(shape: &[usize], values: &[f32]) -> Tensor {
    Tensor::F32(ndarray::ArrayD::from_shape_vec(shape, values.to_vec()).unwrap())
}

#[test]
fn pdpd_axis_is_read_under_openvinos_names_and_the_short_ones() {
    // [2] laid at axis 1 of [3,2,4]: out[i,j,k] = x[j].
    let x = || vec![("x", f32_tensor(&[2], &[5.0, 7.0]))];
    let want = |t: &Tensor| {
        let Tensor::F32(a) = t else { return false };
        a.shape() == [3, 2, 4] && a.indexed_iter().all(|(ix, &v)| v == [5.0, 7.0][ix[1]])
    };
    for (version, attrs) in [
        ("opset3", r#"mode="pdpd" mode.mode.axis="1""#),
        ("opset3", r#"mode="pdpd" axis="1""#),
        ("opset3", r#"mode="pdpd" axis="1" mode.mode.axis="1""#),
        ("opset1", r#"mode="pdpd" mode.auto_broadcast_axis="1""#),
        ("opset1", r#"mode="pdpd" auto_broadcast_axis="1""#),
    ] {
        let xml = pdpd_model(version, attrs, "2", "2", "3,2,4");
        let out = run_xml(&xml, &target_bin([3, 2, 4]), x()).unwrap();
        assert!(want(&out[0].1), "{version} {attrs}: {:?}", out[0].1);
    }
    let e = Model::from_xml(
        &pdpd_model(
            "opset3",
            r#"mode="pdpd" axis="1" mode.mode.axis="0""#,
            "2",
            "2",
            "3,2,4",
        ),
        &target_bin([3, 2, 4]),
    )
    .unwrap_err();
    assert!(
        e.to_string()
            .ends_with("attribute 'axis' is 1 but 'mode.mode.axis' is 0"),
        "{e}"
    );
}

#[test]
fn absent_pdpd_axis_is_zero_as_openvino_reads_it() {
    // [3] at axis 0 of [3,2,1]: out[i,j,k] = x[i]; with -1 it would start at axis 2 and fail.
    let out = run_xml(
        &pdpd_model("opset3", r#"mode="pdpd""#, "3", "3", "3,2,1"),
        &target_bin([3, 2, 1]),
        vec![("x", f32_tensor(&[3], &[1.0, 2.0, 3.0]))],
    )
    .unwrap();
    assert_eq!(
        out[0].1,
        f32_tensor(&[3, 2, 1], &[1.0, 1.0, 2.0, 2.0, 3.0, 3.0])
    );
}

#[test]
fn opset1_with_three_inputs_and_no_mode_must_say_its_mode() {
    let xml = pdpd_model("opset1", "", "2", "2", "3,2,4");
    let e = Model::from_xml(&xml, &target_bin([3, 2, 4])).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("layer 2 'b' (Broadcast): attribute 'mode' is missing"),
        "{e}"
    );
}

#[test]
fn dynamic_rank_ports_accept_what_runs_through_them() {
    // As OpenVINO writes it: a Parameter of any rank has a port with no dims.
    let xml = pdpd_model("opset3", r#"mode="bidirectional""#, "...", "", "");
    let model = Model::from_xml(&xml, &target_bin([1, 2, 1])).unwrap();
    assert_eq!(model.inputs()[0].shape.to_string(), "[...]");
    let out = model
        .run(&HashMap::from([(
            "x".to_string(),
            f32_tensor(&[3, 1, 1, 4], &[0.0; 12]),
        )]))
        .unwrap();
    assert_eq!(out[0].1.shape(), &[3, 1, 2, 4]);
    // A static model's port with no dims is rank 0, and must be.
    let e = Model::from_xml(
        &pdpd_model("opset3", r#"mode="bidirectional""#, "2", "", "3,2,1"),
        &target_bin([1, 2, 1]),
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "layer 0 'x' (Parameter): output port 0 is declared [] in the .xml, but bcast computes [2]"
    );
}

#[test]
fn unknown_input_names_are_refused_with_the_known_ones() {
    let model = Model::load(conformance("ir/v3_numpy/model.xml"), None).unwrap();
    let e = model
        .run(&HashMap::from([
            ("x".to_string(), f32_tensor(&[3, 1], &[0.0; 3])),
            ("typo".to_string(), f32_tensor(&[3, 1], &[0.0; 3])),
        ]))
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "input 'typo' does not name a Parameter of the model (its Parameters are: x)"
    );
}

#[test]
fn a_model_runs_again_with_other_inputs() {
    let model = Model::load(conformance("ir/dynamic_input_dim/model.xml"), None).unwrap();
    assert_eq!(model.outputs()[0].shape.to_string(), "[2,?,4]");
    for rows in [1usize, 3, 5] {
        let x = f32_tensor(&[rows, 1], &vec![1.0; rows]);
        let out = model.run(&HashMap::from([("x".to_string(), x)])).unwrap();
        assert_eq!(out[0].1.shape(), &[2, rows, 4]);
    }
}

/// A small deterministic generator, so the damage below is the same on every run.
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
}

/// Loads and, when its outputs are small and known, runs a damaged model: it may fail, it
/// must not panic. (Damaged target shapes can ask for terabytes; those are not run.)
fn try_damaged(xml: &str, bin: &[u8]) {
    let Ok(model) = Model::from_xml(xml, bin) else {
        return;
    };
    let small = model.outputs().iter().all(|o| {
        o.shape
            .to_static()
            .and_then(|s| bcast::checked_len(&s).ok())
            .is_some_and(|n| n <= 1 << 16)
    });
    if small {
        let _ = model.run(&HashMap::new());
    }
}

#[test]
fn damaged_files_give_errors_never_panics() {
    let mut rng = Lcg(0x1b0a_dca5);
    for name in [
        "v1_numpy",
        "string_const",
        "const_data_every_type",
        "several_results",
    ] {
        let case = conformance(&format!("ir/{name}"));
        let xml = std::fs::read_to_string(case.join("model.xml")).unwrap();
        let bin = std::fs::read(case.join("model.bin")).unwrap();
        // Every truncation of the weights.
        for len in 0..bin.len() {
            try_damaged(&xml, &bin[..len]);
        }
        // Random bytes of the weights changed.
        for _ in 0..200 {
            let mut b = bin.clone();
            if !b.is_empty() {
                let i = rng.next() as usize % b.len();
                b[i] = rng.next() as u8;
            }
            try_damaged(&xml, &b);
        }
        // Digits in the .xml changed (ids, ports, dims, offsets, sizes, shapes).
        let digits: Vec<usize> = xml
            .char_indices()
            .filter(|(_, c)| c.is_ascii_digit())
            .map(|(i, _)| i)
            .collect();
        for _ in 0..300 {
            let mut x = xml.clone().into_bytes();
            let at = digits[rng.next() as usize % digits.len()];
            x[at] = b"0123456789-"[rng.next() as usize % 11];
            let x = String::from_utf8(x).unwrap();
            try_damaged(&x, &bin);
        }
    }
}

#[test]
fn layers_may_come_in_any_order_in_the_xml() {
    let case = conformance("ir/chain_two_broadcasts");
    let xml = std::fs::read_to_string(case.join("model.xml")).unwrap();
    let bin = std::fs::read(case.join("model.bin")).unwrap();
    // Cut out the <layer> elements and write them back last first: readers before writers.
    let start = xml.find("<layer ").unwrap();
    let end = xml.rfind("</layer>").unwrap() + "</layer>".len();
    let layers: Vec<String> = xml[start..end]
        .split_inclusive("</layer>")
        .map(|l| l.trim().to_string())
        .collect();
    assert_eq!(layers.len(), 7);
    let reversed: Vec<String> = layers.into_iter().rev().collect();
    let shuffled = format!("{}{}{}", &xml[..start], reversed.join("\n"), &xml[end..]);
    assert!(shuffled.find("type=\"Result\"") < shuffled.find("type=\"Parameter\""));
    let model = Model::from_xml(&shuffled, &bin).unwrap();
    let outputs = model.run(&read_inputs(&model, &case)).unwrap();
    let (_, want) = &expected(&case)[0];
    assert!(outputs[0].1.bit_equal(want));
}

#[test]
fn a_bf16_parameter_needs_its_bits_as_uint16() {
    let run = bcast_cli()
        .arg("ir")
        .arg(conformance("ir/dtype_bf16/model.xml"))
        .arg("--input")
        .arg(conformance("ir/dtype_f32/inputs/x.npy"))
        .arg("--out-dir")
        .arg(scratch("bf16_as_f32"))
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&run.stderr),
        "error: --input 'x': the Parameter is bf16, which .npy cannot hold: give its bit patterns as a uint16 .npy (this file is f32)\n"
    );
}

#[test]
fn a_result_name_that_is_not_a_file_name_is_refused_before_running() {
    let case = conformance("ir/v3_numpy");
    let dir = scratch("unsafe_result_name");
    let xml = std::fs::read_to_string(case.join("model.xml"))
        .unwrap()
        .replace(r#"name="y" type="Result""#, r#"name="../y" type="Result""#);
    std::fs::write(dir.join("model.xml"), xml).unwrap();
    std::fs::copy(case.join("model.bin"), dir.join("model.bin")).unwrap();
    let run = bcast_cli()
        .arg("ir")
        .arg(dir.join("model.xml"))
        .arg("--input")
        .arg(case.join("inputs/x.npy"))
        .arg("--out-dir")
        .arg(dir.join("out"))
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&run.stderr),
        "error: Result name '../y' cannot be used as a file name in --out-dir\n"
    );
    assert!(!dir.join("y.npy").exists() && !dir.join("out").exists());
}

#[test]
fn several_results_are_written_all_or_none() {
    // The last Result's file name is too long for any file system: nothing may be written,
    // and the --out-dir made for the call is removed again.
    let case = conformance("ir/several_results");
    let dir = scratch("all_or_none");
    let long = "r".repeat(300);
    let xml = std::fs::read_to_string(case.join("model.xml"))
        .unwrap()
        .replace(
            r#"name="x_again" type="Result""#,
            &format!(r#"name="{long}" type="Result""#),
        );
    std::fs::write(dir.join("model.xml"), xml).unwrap();
    std::fs::copy(case.join("model.bin"), dir.join("model.bin")).unwrap();
    let out_dir = dir.join("new/out");
    let run = bcast_cli()
        .arg("ir")
        .arg(dir.join("model.xml"))
        .arg("--input")
        .arg(case.join("inputs/x.npy"))
        .arg("--out-dir")
        .arg(&out_dir)
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(
        err.contains("304 bytes") && err.lines().count() == 1,
        "{err}"
    );
    assert!(
        !dir.join("new").exists(),
        "the folder made for the call is left"
    );
    // A write that fails after the model ran: a folder where an output must go.
    let out_dir = dir.join("out");
    std::fs::create_dir_all(out_dir.join("b.npy")).unwrap();
    let xml = std::fs::read_to_string(case.join("model.xml")).unwrap();
    std::fs::write(dir.join("model.xml"), xml).unwrap();
    let run = bcast_cli()
        .arg("ir")
        .arg(dir.join("model.xml"))
        .arg("--input")
        .arg(case.join("inputs/x.npy"))
        .arg("--out-dir")
        .arg(&out_dir)
        .output()
        .unwrap();
    assert_eq!(
        run.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let left: Vec<_> = std::fs::read_dir(&out_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, ["b.npy"], "outputs or temporary files were left");
}

#[test]
fn a_parameter_named_with_an_equals_sign_can_be_fed() {
    let case = conformance("ir/target_from_parameter");
    let dir = scratch("equals_name");
    let xml = std::fs::read_to_string(case.join("model.xml"))
        .unwrap()
        .replace(
            r#"name="x" type="Parameter""#,
            r#"name="a=b" type="Parameter""#,
        );
    std::fs::write(dir.join("model.xml"), xml).unwrap();
    let run = bcast_cli()
        .arg("ir")
        .arg(dir.join("model.xml"))
        .arg("--input")
        .arg(format!("a=b={}", case.join("inputs/x.npy").display()))
        .arg("--input")
        .arg(format!("shape={}", case.join("inputs/shape.npy").display()))
        .arg("--out-dir")
        .arg(dir.join("out"))
        .output()
        .unwrap();
    assert_succeeded(&run);
    let got = bcast::npy::read(dir.join("out/y.npy")).unwrap();
    let want = bcast::npy::read(case.join("expected/y.npy")).unwrap();
    assert!(got.bit_equal(&want));
}

#[test]
fn describe_prints_json_on_request() {
    let case = conformance("ir/spec_example_2_explicit");
    let run = bcast_cli()
        .arg("ir")
        .arg(case.join("model.xml"))
        .args(["--describe", "--json"])
        .output()
        .unwrap();
    assert_succeeded(&run);
    let v: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(v["ir_version"], 11);
    assert_eq!(v["inputs"][0]["name"], "data");
    assert_eq!(v["inputs"][0]["shape"], "[16]");
    assert_eq!(v["outputs"][0]["shape"], "[1,16,50,50]");
    assert_eq!(v["layers"][1]["values"], "[1,16,50,50]");
    assert_eq!(v["layers"][3]["version"], "opset3");
    assert_eq!(v["layers"][3]["attributes"], "explicit");
}

/// A ShapeOf needs only its input's shape: a Broadcast to [2^20, 2^20] (a terabyte) that
/// feeds only a ShapeOf is planned, never materialised.
#[test]
fn shapeof_never_materialises_its_input() {
    let xml = r#"<net name="lazy" version="11"><layers>
  <layer id="0" name="x" type="Parameter" version="opset1">
    <data shape="1" element_type="u8"/>
    <output><port id="0" precision="U8"><dim>1</dim></port></output></layer>
  <layer id="1" name="target" type="Const" version="opset1">
    <data element_type="i64" shape="2" offset="0" size="16"/>
    <output><port id="0" precision="I64"><dim>2</dim></port></output></layer>
  <layer id="2" name="b" type="Broadcast" version="opset3">
    <data mode="numpy"/>
    <input><port id="0"><dim>1</dim></port><port id="1"><dim>2</dim></port></input>
    <output><port id="2" precision="U8"><dim>1048576</dim><dim>1048576</dim></port></output></layer>
  <layer id="3" name="s" type="ShapeOf" version="opset3">
    <data output_type="i64"/>
    <input><port id="0"><dim>1048576</dim><dim>1048576</dim></port></input>
    <output><port id="1" precision="I64"><dim>2</dim></port></output></layer>
  <layer id="4" name="y" type="Result" version="opset1">
    <input><port id="0"><dim>2</dim></port></input></layer>
</layers><edges>
  <edge from-layer="0" from-port="0" to-layer="2" to-port="0"/>
  <edge from-layer="1" from-port="0" to-layer="2" to-port="1"/>
  <edge from-layer="2" from-port="2" to-layer="3" to-port="0"/>
  <edge from-layer="3" from-port="1" to-layer="4" to-port="0"/>
</edges></net>"#;
    let weights: Vec<u8> = [1i64 << 20, 1 << 20]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let model = Model::from_xml(xml, &weights).unwrap();
    let x = Tensor::from(ndarray::ArrayD::from_elem(ndarray::IxDyn(&[1]), 7u8));
    let out = model.run(&HashMap::from([("x".to_string(), x)])).unwrap();
    let want = Tensor::from(ndarray::arr1(&[1i64 << 20, 1 << 20]).into_dyn());
    assert!(out[0].1.bit_equal(&want), "{:?}", out[0].1);
}

#[test]
fn empty_constants_saved_by_openvino_with_a_size_of_one_are_read() {
    let names: Vec<String> = cases("ir").iter().map(|c| case_name(c)).collect();
    for t in DType::ALL {
        let want = format!("empty_const_{}", t.name());
        assert!(names.contains(&want), "missing case {want}");
    }
    let xml = std::fs::read_to_string(conformance("ir/empty_const_i64/model.xml")).unwrap();
    assert!(xml.contains(r#"shape="0" offset="16" size="1""#) || xml.contains(r#"size="1""#));
}

/// A Parameter `x` (shape attribute `x_shape`), a Const f32 `c` of shape [3,1] (ones), an Add
/// (numpy) of the two declared `add_dims`, and a Result.
fn dynamic_add_model(x_shape: &str, add_dims: &str) -> String {
    let x_dims = dims(x_shape);
    let add_dims = dims(add_dims);
    format!(
        r#"<net name="d" version="11"><layers>
<layer id="0" name="x" type="Parameter" version="opset1"><data shape="{x_shape}" element_type="f32"/><output><port id="0" precision="FP32">{x_dims}</port></output></layer>
<layer id="1" name="c" type="Const" version="opset1"><data element_type="f32" shape="3,1" offset="0" size="12"/><output><port id="0" precision="FP32"><dim>3</dim><dim>1</dim></port></output></layer>
<layer id="2" name="add" type="Add" version="opset1"><data auto_broadcast="numpy"/><input><port id="0" precision="FP32">{x_dims}</port><port id="1" precision="FP32"><dim>3</dim><dim>1</dim></port></input><output><port id="2" precision="FP32">{add_dims}</port></output></layer>
<layer id="3" name="y" type="Result" version="opset1"><input><port id="0" precision="FP32">{add_dims}</port></input></layer>
</layers><edges>
<edge from-layer="0" from-port="0" to-layer="2" to-port="0"/>
<edge from-layer="1" from-port="0" to-layer="2" to-port="1"/>
<edge from-layer="2" from-port="2" to-layer="3" to-port="0"/>
</edges></net>"#
    )
}

#[test]
fn element_wise_pdpd_axis_spellings_must_agree() {
    // [2,3] + [3,1] under pdpd: the [3,1] is laid at axis 0 only if the axis says so.
    let with = |attrs: &str| {
        dynamic_add_model("2,3", "2,3").replace(
            r#"<data auto_broadcast="numpy"/>"#,
            &format!(r#"<data auto_broadcast="pdpd" {attrs}/>"#),
        )
    };
    let e = Model::from_xml(
        &with(r#"auto_broadcast.auto_broadcast_axis="0" auto_broadcast_axis="1""#),
        &ones_3x1(),
    )
    .unwrap_err();
    assert!(
        e.to_string().ends_with(
            "attribute 'auto_broadcast_axis' is 1 but 'auto_broadcast.auto_broadcast_axis' is 0"
        ),
        "{e}"
    );
    let e = Model::from_xml(&with(r#"auto_broadcast_axis="one""#), &ones_3x1()).unwrap_err();
    assert!(
        e.to_string().contains("is 'one', which is not an integer"),
        "{e}"
    );
}

fn ones_3x1() -> Vec<u8> {
    [1.0f32; 3].iter().flat_map(|v| v.to_le_bytes()).collect()
}

#[test]
fn partial_shapes_are_inferred_at_load_and_described() {
    let model = Model::load(conformance("ir/dynamic_input_dim/model.xml"), None).unwrap();
    assert_eq!(model.outputs()[0].shape.to_string(), "[2,?,4]");
    let text = model.describe();
    assert!(text.contains("-> f32 [2,?,4]"), "{text}");

    // [?,3,1..8] + [3,1] (numpy): the output keeps the batch unknown and the range.
    let xml = dynamic_add_model("?,3,1..8", "-1,3,-1");
    let model = Model::from_xml(&xml, &ones_3x1()).unwrap();
    let add = model
        .layers()
        .into_iter()
        .find(|l| l.name == "add")
        .unwrap();
    assert_eq!(add.shape, "[?,3,1..8]");
    assert_eq!(model.outputs()[0].shape.to_string(), "[?,3,1..8]");
    let run = bcast_cli()
        .args(["ir", "--describe"])
        .arg(conformance("ir/dynamic_rank_input/model.xml"))
        .output()
        .unwrap();
    assert_succeeded(&run);
    let text = String::from_utf8(run.stdout).unwrap();
    assert!(
        text.contains("ShapeOf 'shape_of_x' (opset3, output_type i64): data 0:0 -> i64 [?]"),
        "{text}"
    );
    // The model still runs on a concrete input.
    let x = Tensor::F32(ndarray::ArrayD::zeros(ndarray::IxDyn(&[2, 3, 5])));
    let out = run_xml(&xml, &ones_3x1(), vec![("x", x)]).unwrap();
    assert_eq!(out[0].1.shape(), &[2, 3, 5]);
}

#[test]
fn a_port_that_contradicts_the_partial_shape_is_refused_at_load_naming_the_layer() {
    // [?,3,1..8] + [3,1] cannot be [?,4,?].
    let xml = dynamic_add_model("?,3,1..8", "-1,4,-1");
    let e = Model::from_xml(&xml, &ones_3x1()).unwrap_err().to_string();
    assert!(e.contains("layer 2 'add' (Add)"), "{e}");
    assert!(
        e.contains("declared [?,4,?]") && e.contains("infers [?,3,1..8]"),
        "{e}"
    );
    // A range that cannot meet: the Parameter's 1..8 against a declared 9.
    let xml = dynamic_add_model("?,3,1..8", "-1,3,9");
    let e = Model::from_xml(&xml, &ones_3x1()).unwrap_err().to_string();
    assert!(e.contains("layer 2 'add' (Add)"), "{e}");
    // A certain rule contradiction whatever the unknown dim is: [2,?] + [3,1] under numpy.
    let xml = dynamic_add_model("2,?", "2,-1");
    let e = Model::from_xml(&xml, &ones_3x1()).unwrap_err().to_string();
    assert!(
        e.contains("layer 2 'add' (Add)") && e.contains("numpy"),
        "{e}"
    );
}

/// `n` Adds in a chain: y = x + c + c + ... (n times), x [2,3], c [3] = 1.
fn add_chain(n: usize) -> String {
    let mut layers = String::from(
        r#"<layer id="0" name="x" type="Parameter" version="opset1"><data shape="2,3" element_type="f32"/><output><port id="0" precision="FP32"><dim>2</dim><dim>3</dim></port></output></layer>
<layer id="1" name="c" type="Const" version="opset1"><data element_type="f32" shape="3" offset="0" size="12"/><output><port id="0" precision="FP32"><dim>3</dim></port></output></layer>
"#,
    );
    let mut edges = String::new();
    let mut prev = (0, 0);
    for k in 0..n {
        let id = k + 2;
        layers.push_str(&format!(
            r#"<layer id="{id}" name="add_{k}" type="Add" version="opset1"><data auto_broadcast="numpy"/><input><port id="0" precision="FP32"><dim>2</dim><dim>3</dim></port><port id="1" precision="FP32"><dim>3</dim></port></input><output><port id="2" precision="FP32"><dim>2</dim><dim>3</dim></port></output></layer>
"#
        ));
        edges.push_str(&format!(
            r#"<edge from-layer="{}" from-port="{}" to-layer="{id}" to-port="0"/><edge from-layer="1" from-port="0" to-layer="{id}" to-port="1"/>
"#,
            prev.0, prev.1
        ));
        prev = (id, 2);
    }
    let result = n + 2;
    layers.push_str(&format!(
        r#"<layer id="{result}" name="y" type="Result" version="opset1"><input><port id="0" precision="FP32"><dim>2</dim><dim>3</dim></port></input></layer>
"#
    ));
    edges.push_str(&format!(
        r#"<edge from-layer="{}" from-port="{}" to-layer="{result}" to-port="0"/>
"#,
        prev.0, prev.1
    ));
    format!(
        r#"<net name="chain" version="11"><layers>{layers}</layers><edges>{edges}</edges></net>"#
    )
}

#[test]
fn a_chain_of_a_thousand_adds_loads_and_runs_in_linear_time() {
    let bin: Vec<u8> = [1.0f32; 3].iter().flat_map(|v| v.to_le_bytes()).collect();
    let x = Tensor::F32(ndarray::array![[0.5f32, 1.5, 2.5], [-1.0, 0.0, 1.0]].into_dyn());
    let mut seconds = Vec::new();
    for n in [1000usize, 4000] {
        let xml = add_chain(n);
        // The best of three: other tests share the machine.
        let mut best = None;
        for _ in 0..3 {
            let start = std::time::Instant::now();
            let model = Model::from_xml(&xml, &bin).unwrap();
            let loaded = start.elapsed();
            let out = model
                .run(&HashMap::from([("x".to_string(), x.clone())]))
                .unwrap();
            let total = start.elapsed();
            if best.as_ref().is_none_or(|(_, t, _)| total < *t) {
                best = Some((loaded, total, out));
            }
        }
        let (loaded, total, out) = best.unwrap();
        eprintln!(
            "{n} Adds: load {:.1} ms, load + run {:.1} ms",
            loaded.as_secs_f64() * 1e3,
            total.as_secs_f64() * 1e3
        );
        // Every value is a small integer plus 0.5 or an integer: exact in f32.
        let k = n as f32;
        let want = Tensor::F32(
            ndarray::array![[0.5 + k, 1.5 + k, 2.5 + k], [-1.0 + k, k, 1.0 + k]].into_dyn(),
        );
        assert_eq!(out[0].1, want);
        seconds.push(total.as_secs_f64());
    }
    // Four times the layers: a linear cost takes about 4x; quadratic would take 16x.
    assert!(
        seconds[1] < seconds[0] * 12.0 + 0.05,
        "1000 layers {:.3} s, 4000 layers {:.3} s",
        seconds[0],
        seconds[1]
    );
}
