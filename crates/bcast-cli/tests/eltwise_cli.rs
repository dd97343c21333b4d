//! `bcast eltwise`, `bcast select` and `bcast shape --eltwise` as a user runs them. Expected
//! values are written by hand from the rules (OpenVINO's broadcast-rules.rst and the
//! element-wise semantics in conformance/eltwise/README.md) or read from conformance case
//! files, never computed by bcast.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use bcast::Tensor;
use ndarray::array;

fn bcast(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bcast"))
        .args(args)
        .output()
        .unwrap()
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("bcast-eltwise-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn write(dir: &Path, name: &str, t: &Tensor) -> String {
    let p = dir.join(name);
    bcast::npy::write_atomic(&p, t).unwrap();
    p.to_str().unwrap().to_string()
}

fn ok(o: &Output) {
    assert!(
        o.status.success(),
        "exit {:?}: {}",
        o.status.code(),
        String::from_utf8_lossy(&o.stderr)
    );
}

/// Exit 2, one `error:` line containing `want`.
fn refused(o: &Output, want: &str) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("error: ") && err.contains(want), "{err}");
}

#[test]
fn add_numpy_wraps_u8() {
    let d = temp_dir("add");
    let a = write(
        &d,
        "a.npy",
        &Tensor::U8(array![[200u8, 7], [1, 2]].into_dyn()),
    );
    let b = write(&d, "b.npy", &Tensor::U8(array![100u8, 250].into_dyn()));
    let out = d.join("out.npy");
    ok(&bcast(&["eltwise", "add", &a, &b, out.to_str().unwrap()]));
    // 200+100 = 300 mod 256 = 44; 7+250 = 257 mod 256 = 1.
    let want = Tensor::U8(array![[44u8, 1], [101, 252]].into_dyn());
    assert_eq!(bcast::npy::read(&out).unwrap(), want);
}

#[test]
fn multiply_pdpd_with_axis_lays_b_on_a() {
    let d = temp_dir("pdpd");
    let a = write(
        &d,
        "a.npy",
        &Tensor::I32(array![[[1, 1], [1, 1], [1, 1]]].into_dyn()),
    );
    let b = write(&d, "b.npy", &Tensor::I32(array![2, 3, 4].into_dyn()));
    let out = d.join("out.npy");
    let o = bcast(&[
        "eltwise",
        "multiply",
        &a,
        &b,
        out.to_str().unwrap(),
        "--auto-broadcast",
        "pdpd",
        "--axis",
        "1",
    ]);
    ok(&o);
    // A [1,3,2], B [3] at axis 1: B[j] multiplies row j.
    let want = Tensor::I32(array![[[2, 2], [3, 3], [4, 4]]].into_dyn());
    assert_eq!(bcast::npy::read(&out).unwrap(), want);
}

#[test]
fn divide_floors_or_truncates() {
    let d = temp_dir("div");
    let a = write(&d, "a.npy", &Tensor::I32(array![-7, 7].into_dyn()));
    let b = write(&d, "b.npy", &Tensor::I32(array![2].into_dyn()));
    let out = d.join("out.npy");
    ok(&bcast(&[
        "eltwise",
        "divide",
        &a,
        &b,
        out.to_str().unwrap(),
    ]));
    assert_eq!(
        bcast::npy::read(&out).unwrap(),
        Tensor::I32(array![-4, 3].into_dyn())
    );
    ok(&bcast(&[
        "eltwise",
        "divide",
        &a,
        &b,
        out.to_str().unwrap(),
        "--pythondiv",
        "false",
    ]));
    assert_eq!(
        bcast::npy::read(&out).unwrap(),
        Tensor::I32(array![-3, 3].into_dyn())
    );
}

#[test]
fn comparisons_write_bool_and_stdout_works() {
    let d = temp_dir("less");
    let a = write(
        &d,
        "a.npy",
        &Tensor::F32(array![1.0f32, f32::NAN, 3.0].into_dyn()),
    );
    let b = write(&d, "b.npy", &Tensor::F32(array![2.0f32].into_dyn()));
    let o = bcast(&["eltwise", "less", &a, &b, "-"]);
    ok(&o);
    let got = bcast::npy::from_bytes(&o.stdout).unwrap();
    // NaN compares false.
    assert_eq!(got, Tensor::Bool(array![true, false, false].into_dyn()));
}

#[test]
fn stdin_is_one_input() {
    let d = temp_dir("stdin");
    let b = write(&d, "b.npy", &Tensor::I64(array![10i64].into_dyn()));
    let out = d.join("out.npy");
    let mut child = Command::new(env!("CARGO_BIN_EXE_bcast"))
        .args(["eltwise", "subtract", "-", &b, out.to_str().unwrap()])
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    let bytes = bcast::npy::to_bytes(&Tensor::I64(array![1i64, 2].into_dyn())).unwrap();
    std::io::Write::write_all(child.stdin.as_mut().unwrap(), &bytes).unwrap();
    drop(child.stdin.take());
    assert!(child.wait().unwrap().success());
    assert_eq!(
        bcast::npy::read(&out).unwrap(),
        Tensor::I64(array![-9i64, -8].into_dyn())
    );
    refused(
        &bcast(&["eltwise", "add", "-", "-", out.to_str().unwrap()]),
        "only one input can be '-'",
    );
}

#[test]
fn select_numpy_broadcasts_all_three() {
    let d = temp_dir("select");
    let c = write(
        &d,
        "c.npy",
        &Tensor::Bool(array![[true], [false]].into_dyn()),
    );
    let t = write(&d, "t.npy", &Tensor::F64(array![1.0, 2.0, 3.0].into_dyn()));
    let e = write(&d, "e.npy", &Tensor::F64(array![-0.0].into_dyn()));
    let out = d.join("out.npy");
    ok(&bcast(&["select", &c, &t, &e, out.to_str().unwrap()]));
    let got = bcast::npy::read(&out).unwrap();
    let want = Tensor::F64(array![[1.0, 2.0, 3.0], [-0.0, -0.0, -0.0]].into_dyn());
    assert!(got.bit_equal(&want), "{got:?}");
}

#[test]
fn a_conformance_case_runs_through_the_cli() {
    let case = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../conformance/eltwise/spec/numpy_example_2_2x3_with_1_multiply_i32");
    let d = temp_dir("case");
    let out = d.join("out.npy");
    let a = case.join("in0.npy");
    let b = case.join("in1.npy");
    ok(&bcast(&[
        "eltwise",
        "multiply",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        out.to_str().unwrap(),
    ]));
    let want = bcast::npy::read(case.join("out0.npy")).unwrap();
    assert_eq!(bcast::npy::read(&out).unwrap(), want);
}

#[test]
fn mistakes_are_one_error_line_and_leave_no_output() {
    let d = temp_dir("bad");
    let a = write(&d, "a.npy", &Tensor::I32(array![1, 2, 3].into_dyn()));
    let b = write(&d, "b.npy", &Tensor::I32(array![1, 0].into_dyn()));
    let z = write(&d, "z.npy", &Tensor::I32(array![0].into_dyn()));
    let f = write(&d, "f.npy", &Tensor::F32(array![1.0f32].into_dyn()));
    let out = d.join("out.npy");
    let o = out.to_str().unwrap();
    refused(&bcast(&["eltwise", "add", &a, &b, o]), "numpy");
    refused(
        &bcast(&[
            "eltwise",
            "add",
            &a,
            &a,
            o,
            "--auto-broadcast",
            "none",
            "--axis",
            "0",
        ]),
        "--axis is a flag of --auto-broadcast pdpd",
    );
    refused(
        &bcast(&["eltwise", "add", &a, &a, o, "--pythondiv", "true"]),
        "--pythondiv is a flag of divide",
    );
    refused(
        &bcast(&["eltwise", "power_of", &a, &a, o]),
        "unknown element-wise op",
    );
    refused(
        &bcast(&[
            "eltwise",
            "add",
            &a,
            &a,
            o,
            "--auto-broadcast",
            "bidirectional",
        ]),
        "--auto-broadcast",
    );
    refused(&bcast(&["eltwise", "divide", &a, &z, o]), "zero");
    refused(&bcast(&["eltwise", "add", &a, &f, o]), "");
    refused(&bcast(&["eltwise", "logical_and", &a, &a, o]), "");
    refused(&bcast(&["select", &a, &a, &a, o]), "");
    refused(
        &bcast(&["eltwise", "add", &a, &b, o, "--auto-broadcast", "none"]),
        "must be equal",
    );
    assert!(!out.exists());
}

#[test]
fn shape_learns_element_wise_rules_and_partial_shapes() {
    let text = |o: Output| {
        ok(&o);
        String::from_utf8(o.stdout).unwrap().trim().to_string()
    };
    // broadcast-rules.rst numpy example: A (8,1,6,1) B (7,1,5) gives (8,7,6,5).
    assert_eq!(
        text(bcast(&["shape", "--eltwise", "8,1,6,1", "7,1,5"])),
        "[8,7,6,5]"
    );
    // PDPD example: A (2,3,4,5) B (3,4) axis 1 gives A's shape.
    assert_eq!(
        text(bcast(&[
            "shape",
            "--eltwise",
            "2,3,4,5",
            "3,4",
            "--auto-broadcast",
            "pdpd",
            "--eltwise-axis",
            "1"
        ])),
        "[2,3,4,5]"
    );
    // Partial: an unknown batch against a known one takes it where it cannot be 1.
    assert_eq!(
        text(bcast(&["shape", "--eltwise", "?,3", "2..4,1"])),
        "[2..4,3]"
    );
    assert_eq!(
        text(bcast(&[
            "shape",
            "--mode",
            "numpy",
            "--target-shape",
            "2,3",
            "--data-shape",
            "?,1"
        ])),
        "[2,3]"
    );
    assert_eq!(
        text(bcast(&[
            "shape",
            "--mode",
            "bidirectional",
            "--target-shape",
            "1,1",
            "--data-shape",
            "?,1..8",
            "--json"
        ])),
        r#"{"shape":["?","1..8"]}"#
    );
    refused(&bcast(&["shape", "--eltwise", "2,3", "4"]), "incompatible");
    refused(
        &bcast(&["shape", "--eltwise", "2,3", "3", "--eltwise-axis", "1"]),
        "--eltwise-axis is a flag of --auto-broadcast pdpd",
    );
    // A certain contradiction with a partial data shape.
    refused(
        &bcast(&[
            "shape",
            "--mode",
            "numpy",
            "--target-shape",
            "2,3",
            "--data-shape",
            "?,4",
        ]),
        "cannot become 3",
    );
}
