//! `bcast reduce` as a user runs it: an npy gradient reduced to the data's shape, and one
//! `error:` line with exit code 2 (and no output file) for every bad input.

mod common;

use std::path::PathBuf;

use bcast::Tensor;
use ndarray::{array, Array, IxDyn};

fn bcast(args: &[&str]) -> std::process::Output {
    common::bcast(args)
}

fn temp_dir(name: &str) -> PathBuf {
    common::scratch("reduce", name)
}

#[test]
fn cli_reduces_an_npy_gradient() {
    let dir = temp_dir("ok");
    let grad = Tensor::F32(Array::from_shape_fn(IxDyn(&[2, 3, 4]), |i| {
        (i[0] * 12 + i[1] * 4 + i[2]) as f32
    }));
    let gp = dir.join("grad.npy");
    let op = dir.join("out.npy");
    bcast::npy::write_atomic(&gp, &grad).unwrap();
    let o = bcast(&[
        "reduce",
        "--mode",
        "explicit",
        "--target-shape",
        "2,3,4",
        "--data-shape",
        "3",
        "--axes-mapping",
        "1",
        gp.to_str().unwrap(),
        op.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // Channel c sums 2 * 4 values: sum over a, k of a*12 + c*4 + k = 8*4c + 4*12 + 2*6.
    let want = Tensor::F32(array![60.0f32, 92.0, 124.0].into_dyn());
    assert_eq!(bcast::npy::read(&op).unwrap(), want);

    let o = bcast(&[
        "reduce",
        "--mode",
        "pdpd",
        "--target-shape",
        "[2,3,4]",
        "--data-shape",
        "3,1",
        "--axis",
        "1",
        gp.to_str().unwrap(),
        op.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        bcast::npy::read(&op).unwrap(),
        Tensor::F32(array![[60.0f32], [92.0], [124.0]].into_dyn())
    );

    let o = bcast(&[
        "reduce",
        "--mode",
        "pdpd",
        "--target-shape",
        "2,3,4",
        "--data-shape",
        "4",
        "--axis",
        "-1",
        gp.to_str().unwrap(),
        op.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = bcast(&[
        "reduce",
        "--mode",
        "axes",
        "--target-shape",
        "2,3,4",
        "--data-shape",
        "3",
        "--broadcast-axes",
        "0,2",
        gp.to_str().unwrap(),
        op.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = bcast(&[
        "reduce",
        "--mode",
        "bidirectional",
        "--target-shape",
        "3,1",
        "--data-shape",
        "2,1,4",
        gp.to_str().unwrap(),
        op.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(bcast::npy::read(&op).unwrap().shape(), &[2, 1, 4]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn cli_bad_input_is_one_error_line_and_exit_2_with_no_output() {
    let dir = temp_dir("bad");
    let gp = dir.join("grad.npy");
    let op = dir.join("out.npy");
    bcast::npy::write_atomic(&gp, &Tensor::Bool(array![true, false].into_dyn())).unwrap();
    let bp = dir.join("bool.npy");
    std::fs::rename(&gp, &bp).unwrap();
    bcast::npy::write_atomic(&gp, &Tensor::I32(array![[1, 2], [3, 4]].into_dyn())).unwrap();
    let g = gp.to_str().unwrap();
    let o = op.to_str().unwrap();
    let cases: Vec<Vec<&str>> = vec![
        vec![
            "reduce",
            "--mode",
            "numpy",
            "--target-shape",
            "2,2",
            "--data-shape",
            "3",
            g,
            o,
        ],
        vec![
            "reduce",
            "--mode",
            "numpy",
            "--target-shape",
            "2,3",
            "--data-shape",
            "3",
            g,
            o,
        ],
        vec![
            "reduce",
            "--mode",
            "numpy",
            "--target-shape",
            "2",
            "--data-shape",
            "2",
            bp.to_str().unwrap(),
            o,
        ],
        vec![
            "reduce",
            "--mode",
            "numpy",
            "--target-shape",
            "2,2",
            "--data-shape",
            "2",
            "--axis",
            "1",
            g,
            o,
        ],
        vec![
            "reduce",
            "--mode",
            "pdpd",
            "--target-shape",
            "2,2",
            "--data-shape",
            "2",
            "--axes-mapping",
            "1",
            g,
            o,
        ],
        vec![
            "reduce",
            "--mode",
            "max",
            "--target-shape",
            "2,2",
            "--data-shape",
            "2",
            g,
            o,
        ],
        vec![
            "reduce",
            "--mode",
            "numpy",
            "--target-shape",
            "2,-2",
            "--data-shape",
            "2",
            g,
            o,
        ],
        vec![
            "reduce",
            "--mode",
            "numpy",
            "--target-shape",
            "2,2",
            "--data-shape",
            "2",
            "missing.npy",
            o,
        ],
        vec!["reduce", "--mode", "numpy", "--target-shape", "2,2", g, o],
    ];
    for args in cases {
        let out = bcast(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("error: "), "{args:?}: {err}");
        assert!(!op.exists(), "{args:?} wrote an output");
    }
    let out = bcast(&[
        "reduce",
        "--mode",
        "numpy",
        "--target-shape",
        "2",
        "--data-shape",
        "2",
        bp.to_str().unwrap(),
        o,
    ]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("boolean"));
    let _ = std::fs::remove_dir_all(&dir);
}
