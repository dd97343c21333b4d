//! What the help texts promise, the command line accepts: `-1` as an unknown dim in `bcast
//! shape`, op names in any case (as modes are), Select's own rule in `select --help`, the
//! IR subcommand described by what it runs, and an `.npz` archive named as one. Expected
//! shapes and values are worked out by hand from the rules in the comments beside them.

mod common;

use std::process::{Output, Stdio};

use bcast::Tensor;
use common::{bcast, bcast_command, repo, scratch};
use ndarray::array;

fn stdout(o: &Output) -> String {
    assert!(
        o.status.success(),
        "exit {:?}: {}",
        o.status.code(),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Exit 2, one `error:` line containing `want`.
fn refused(o: &Output, want: &str) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("error: ") && err.contains(want), "{err}");
}

#[test]
fn shape_help_offers_minus_one_for_an_unknown_dim() {
    let help = stdout(&bcast(["shape", "--help"]));
    assert!(help.contains("? or -1 for an unknown dim"), "{help}");
}

#[test]
fn minus_one_is_an_unknown_dim_in_shape() {
    // numpy: data [?,3] onto target [2,3]; the unknown dim must be 1 or 2, so the output is
    // the target, [2,3], as for `?,3`.
    for data in ["-1,3", "?,3", "[-1, 3]"] {
        let got = stdout(&bcast([
            "shape",
            "--mode",
            "numpy",
            "--target-shape",
            "2,3",
            "--data-shape",
            data,
        ]));
        assert_eq!(got, "[2,3]\n", "data {data}");
    }
    // bidirectional: [-1] against [1,1] keeps the unknown dim: [1,?].
    let got = stdout(&bcast([
        "shape",
        "--mode",
        "bidirectional",
        "--target-shape",
        "1,1",
        "--data-shape",
        "-1",
    ]));
    assert_eq!(got, "[1,?]\n");
    // A target may be partial too: numpy, data [3], target [?,3] gives [?,3].
    let got = stdout(&bcast([
        "shape",
        "--mode",
        "numpy",
        "--target-shape",
        "-1,3",
        "--data-shape",
        "3",
        "--json",
    ]));
    assert_eq!(got, "{\"shape\":[\"?\",3]}\n");
    // Element-wise numpy: [?,3] and [1,3] give [?,3].
    let got = stdout(&bcast(["shape", "--eltwise", "-1,3", "1,3"]));
    assert_eq!(got, "[?,3]\n");
}

#[test]
fn other_negative_dims_are_still_refused_naming_the_index() {
    let o = bcast([
        "shape",
        "--mode",
        "numpy",
        "--target-shape",
        "2,3",
        "--data-shape",
        "1,-2",
    ]);
    refused(&o, "--data-shape");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("-2"), "{err}");
    // `run` needs a static target: -1 there is a negative dim, not an unknown one.
    let d = scratch("help_and_names", "run_minus_one");
    let input = d.join("x.npy");
    bcast::npy::write_atomic(&input, &Tensor::F32(array![1.0f32].into_dyn())).unwrap();
    let o = bcast([
        "run",
        "--mode",
        "numpy",
        "--target-shape",
        "-1,1",
        input.to_str().unwrap(),
        d.join("y.npy").to_str().unwrap(),
    ]);
    refused(&o, "negative");
}

#[test]
fn top_level_help_says_ir_runs_element_wise_layers_too() {
    let help = stdout(&bcast(["--help"]));
    let ir = help
        .lines()
        .find(|l| l.trim_start().starts_with("ir "))
        .unwrap_or_else(|| panic!("no ir line in {help}"));
    assert!(!ir.contains("built from Broadcast layers"), "{ir}");
    assert!(ir.contains("element-wise"), "{ir}");
}

#[test]
fn select_help_states_selects_rule_not_b_onto_a() {
    let help = stdout(&bcast(["select", "--help"]));
    // eltwise's wording, which describes two operands A and B.
    for copied in ["first axis of A", "B is laid", "second operand"] {
        assert!(
            !help.contains(copied),
            "select --help says {copied:?}: {help}"
        );
    }
    // Select's rule: numpy stretches all three; pdpd lays ELSE and COND onto THEN's shape.
    assert!(help.contains("COND, THEN and ELSE"), "{help}");
    assert!(help.contains("first axis of THEN"), "{help}");
    // eltwise keeps its own.
    let help = stdout(&bcast(["eltwise", "--help"]));
    assert!(help.contains("first axis of A that B is laid on"), "{help}");
}

/// Runs `bcast eltwise OP` on two i32 vectors and returns the result.
fn eltwise_i32(test: &str, op: &str, a: Vec<i32>, b: Vec<i32>) -> Result<Tensor, Output> {
    let d = scratch("help_and_names", test);
    let (pa, pb, out) = (d.join("a.npy"), d.join("b.npy"), d.join("out.npy"));
    bcast::npy::write_atomic(&pa, &Tensor::I32(ndarray::Array::from(a).into_dyn())).unwrap();
    bcast::npy::write_atomic(&pb, &Tensor::I32(ndarray::Array::from(b).into_dyn())).unwrap();
    let o = bcast([
        "eltwise",
        op,
        pa.to_str().unwrap(),
        pb.to_str().unwrap(),
        out.to_str().unwrap(),
    ]);
    if o.status.success() {
        Ok(bcast::npy::read(&out).unwrap())
    } else {
        Err(o)
    }
}

#[test]
fn op_names_are_case_insensitive_and_take_openvinos_names() {
    let sum = Tensor::I32(array![11, 22].into_dyn());
    for (i, op) in ["add", "Add", "ADD", "aDd"].iter().enumerate() {
        let got = eltwise_i32(&format!("add{i}"), op, vec![1, 2], vec![10, 20]);
        assert_eq!(got.ok(), Some(sum.clone()), "op {op}");
    }
    // FloorMod takes the divisor's sign: -7 mod 3 = 2, 7 mod -3 = -2.
    let want = Tensor::I32(array![2, -2].into_dyn());
    for (i, op) in ["floor_mod", "FLOOR_MOD", "FloorMod"].iter().enumerate() {
        let got = eltwise_i32(&format!("floormod{i}"), op, vec![-7, 7], vec![3, -3]);
        assert_eq!(got.ok(), Some(want.clone()), "op {op}");
    }
    // Mod takes the dividend's sign: -7 mod 3 = -1, 7 mod -3 = 1.
    let got = eltwise_i32("mod", "Mod", vec![-7, 7], vec![3, -3]);
    assert_eq!(got.ok(), Some(Tensor::I32(array![-1, 1].into_dyn())));
    // Modes were already case-insensitive: the same holds there.
    let got = stdout(&bcast([
        "shape",
        "--mode",
        "NumPy",
        "--target-shape",
        "2,3",
        "--data-shape",
        "3",
    ]));
    assert_eq!(got, "[2,3]\n");
    let o = eltwise_i32("unknown", "Addd", vec![1], vec![1]).unwrap_err();
    refused(&o, "unknown element-wise op 'Addd'");
}

#[test]
fn an_npz_archive_is_named_as_one() {
    let d = scratch("help_and_names", "npz");
    let out = d.join("out.npy");
    for fixture in ["arrays.npz", "empty.npz"] {
        let npz = repo("crates/bcast-cli/tests/data").join(fixture);
        let o = bcast([
            "run",
            "--mode",
            "numpy",
            "--target-shape",
            "3",
            npz.to_str().unwrap(),
            out.to_str().unwrap(),
        ]);
        refused(&o, "an .npz archive");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains(fixture) && err.contains("not an .npy file"),
            "{err}"
        );
        assert!(!err.contains("bad magic"), "{err}");
        // The same from standard input.
        let o = bcast_command()
            .args(["run", "--mode", "numpy", "--target-shape", "3", "-"])
            .arg(&out)
            .stdin(Stdio::from(std::fs::File::open(&npz).unwrap()))
            .output()
            .unwrap();
        refused(&o, "standard input: an .npz archive");
        // And as an element-wise operand.
        let o = bcast([
            "eltwise",
            "add",
            npz.to_str().unwrap(),
            npz.to_str().unwrap(),
            out.to_str().unwrap(),
        ]);
        refused(&o, "an .npz archive");
    }
    assert!(!out.exists());
    // Any other file that is not npy keeps the plain message.
    let other = d.join("notes.npy");
    std::fs::write(&other, b"PK but not a zip, and not npy either").unwrap();
    let o = bcast([
        "run",
        "--mode",
        "numpy",
        "--target-shape",
        "3",
        other.to_str().unwrap(),
        out.to_str().unwrap(),
    ]);
    refused(&o, "not an npy file (bad magic bytes)");
}
