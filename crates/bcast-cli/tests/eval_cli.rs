//! `bcast eval` as a user runs it. Expected values are computed here by naive loops over the
//! output's indices, each operand indexed as its broadcast rule places it and each op
//! rounded to the element type as the op alone rounds (f16 after every op, integers
//! wrapping, integer division flooring) -- never by bcast.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

use bcast::half::f16;
use bcast::ndarray::{ArrayD, IxDyn};
use bcast::Tensor;
use common::{bcast, bcast_command, scratch};

fn ok(o: &Output) {
    assert!(
        o.status.success(),
        "exit {:?}: {}",
        o.status.code(),
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        o.stderr.is_empty(),
        "{}",
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

fn write(dir: &Path, name: &str, t: &Tensor) -> String {
    let p = dir.join(name);
    bcast::npy::write_atomic(&p, t).unwrap();
    p.to_str().unwrap().to_string()
}

fn read(p: &Path) -> Tensor {
    bcast::npy::read(p).unwrap()
}

/// Values that are not all small integers: `i * 0.37 - 2.1`, so products and sums round.
fn f32s(dims: &[usize], seed: f32) -> ArrayD<f32> {
    let n: usize = dims.iter().product();
    ArrayD::from_shape_vec(
        IxDyn(dims),
        (0..n).map(|i| i as f32 * 0.37 - 2.1 + seed).collect(),
    )
    .unwrap()
}

/// Runs `bcast eval` twice, fused and with `--unfused`, and returns both results.
fn eval_both(dir: &Path, args: &[&str]) -> (Tensor, Tensor) {
    let mut results = Vec::new();
    for unfused in [false, true] {
        let out = dir.join(if unfused { "unfused.npy" } else { "fused.npy" });
        let mut all: Vec<&str> = vec!["eval"];
        all.extend(args);
        all.extend(["-o", out.to_str().unwrap()]);
        if unfused {
            all.push("--unfused");
        }
        ok(&bcast(&all));
        results.push(read(&out));
    }
    let unfused = results.pop().unwrap();
    (results.pop().unwrap(), unfused)
}

#[test]
fn layernorm_tail_equals_a_naive_loop_fused_and_unfused() {
    let d = scratch("eval", "layernorm");
    // x [3,4]; mean and rstd per row [3,1]; gamma and beta per column [4].
    let x = f32s(&[3, 4], 0.0);
    let m = f32s(&[3, 1], 0.5);
    let r = f32s(&[3, 1], 3.0);
    let g = f32s(&[4], 1.25);
    let b = f32s(&[4], -0.75);
    let files: Vec<String> = [("x", &x), ("m", &m), ("r", &r), ("g", &g), ("b", &b)]
        .iter()
        .map(|(n, a)| {
            format!(
                "{n}={}",
                write(&d, &format!("{n}.npy"), &Tensor::F32((*a).clone()))
            )
        })
        .collect();
    let mut args = vec!["(x - m) * r * g + b"];
    args.extend(files.iter().map(String::as_str));
    let (fused, unfused) = eval_both(&d, &args);
    // Left to right, each op rounded to f32: ((x - m) * r) * g + b.
    let want = ArrayD::from_shape_fn(IxDyn(&[3, 4]), |i| {
        let (row, col) = (i[0], i[1]);
        let t = x[[row, col]] - m[[row, 0]];
        let t = t * r[[row, 0]];
        let t = t * g[[col]];
        t + b[[col]]
    });
    let want = Tensor::F32(want);
    assert!(fused.bit_equal(&want), "{fused:?}\n{want:?}");
    assert!(unfused.bit_equal(&want), "{unfused:?}");
}

#[test]
fn pdpd_places_every_operand_from_the_axis() {
    let d = scratch("eval", "pdpd");
    // x [2,3,4]; s and t [3] laid on axis 1 (numpy would align them with axis 2, of size 4,
    // and refuse).
    let x = f32s(&[2, 3, 4], 0.0);
    let s = f32s(&[3], 1.5);
    let t = f32s(&[3], -4.0);
    let xs = format!("x={}", write(&d, "x.npy", &Tensor::F32(x.clone())));
    let ss = format!("s={}", write(&d, "s.npy", &Tensor::F32(s.clone())));
    let ts = format!("t={}", write(&d, "t.npy", &Tensor::F32(t.clone())));
    let (fused, unfused) = eval_both(
        &d,
        &[
            "maximum(x * s + t, 0)",
            &xs,
            &ss,
            &ts,
            "--auto-broadcast",
            "pdpd",
            "--axis",
            "1",
        ],
    );
    let want = Tensor::F32(ArrayD::from_shape_fn(IxDyn(&[2, 3, 4]), |i| {
        let v = x[[i[0], i[1], i[2]]] * s[[i[1]]] + t[[i[1]]];
        // OpenVINO's Maximum: a < b ? b : a.
        if v < 0.0 {
            0.0
        } else {
            v
        }
    }));
    assert!(fused.bit_equal(&want), "{fused:?}\n{want:?}");
    assert!(unfused.bit_equal(&want));
}

#[test]
fn integers_wrap_and_divide_by_flooring() {
    let d = scratch("eval", "ints");
    let x =
        ArrayD::from_shape_vec(IxDyn(&[2, 3]), vec![i32::MAX, -7, 7, i32::MIN, 100, -1]).unwrap();
    let k = ArrayD::from_shape_vec(IxDyn(&[3]), vec![2, 3, -3]).unwrap();
    let dv = ArrayD::from_shape_vec(IxDyn(&[2, 1]), vec![2, -5]).unwrap();
    let xs = format!("x={}", write(&d, "x.npy", &Tensor::I32(x.clone())));
    let ks = format!("k={}", write(&d, "k.npy", &Tensor::I32(k.clone())));
    let ds = format!("d={}", write(&d, "d.npy", &Tensor::I32(dv.clone())));
    let (fused, unfused) = eval_both(&d, &["(x * k + 1) / d", &xs, &ks, &ds]);
    let want = Tensor::I32(ArrayD::from_shape_fn(IxDyn(&[2, 3]), |i| {
        let v = x[[i[0], i[1]]].wrapping_mul(k[[i[1]]]).wrapping_add(1);
        let q = dv[[i[0], 0]];
        // Floor division (pythondiv): round toward minus infinity.
        let t = v.wrapping_div(q);
        if v.wrapping_rem(q) != 0 && ((v < 0) != (q < 0)) {
            t - 1
        } else {
            t
        }
    }));
    assert!(fused.bit_equal(&want), "{fused:?}\n{want:?}");
    assert!(unfused.bit_equal(&want));
}

#[test]
fn f16_rounds_after_every_op() {
    let d = scratch("eval", "f16");
    let h = |a: ArrayD<f32>| a.mapv(f16::from_f32);
    let x = h(f32s(&[4, 5], 0.0) * 7.3);
    let s = h(f32s(&[5], 0.3) * 1.9);
    let b = h(f32s(&[4, 1], 0.1) * 3.1);
    let xs = format!("x={}", write(&d, "x.npy", &Tensor::F16(x.clone())));
    let ss = format!("s={}", write(&d, "s.npy", &Tensor::F16(s.clone())));
    let bs = format!("b={}", write(&d, "b.npy", &Tensor::F16(b.clone())));
    let (fused, unfused) = eval_both(&d, &["x * s + b", &xs, &ss, &bs]);
    let want = ArrayD::from_shape_fn(IxDyn(&[4, 5]), |i| {
        let p = f16::from_f32(x[[i[0], i[1]]].to_f32() * s[[i[1]]].to_f32());
        f16::from_f32(p.to_f32() + b[[i[0], 0]].to_f32())
    });
    // Rounding once at the end would differ somewhere: the test can tell the two apart.
    let once = ArrayD::from_shape_fn(IxDyn(&[4, 5]), |i| {
        f16::from_f32(x[[i[0], i[1]]].to_f32() * s[[i[1]]].to_f32() + b[[i[0], 0]].to_f32())
    });
    assert_ne!(
        want, once,
        "the inputs do not tell per-op rounding from rounding once"
    );
    let want = Tensor::F16(want);
    assert!(fused.bit_equal(&want), "{fused:?}\n{want:?}");
    assert!(unfused.bit_equal(&want));
}

#[test]
fn select_comparisons_and_literals() {
    let d = scratch("eval", "select");
    let x = f32s(&[2, 5], 0.0);
    let xs = format!("x={}", write(&d, "x.npy", &Tensor::F32(x.clone())));
    let (fused, unfused) = eval_both(&d, &["select(x > 0, x, x * 0.1)", &xs]);
    let tenth = 0.1f64 as f32;
    let want = Tensor::F32(x.mapv(|v| if v > 0.0 { v } else { v * tenth }));
    assert!(fused.bit_equal(&want), "{fused:?}\n{want:?}");
    assert!(unfused.bit_equal(&want));
    // A comparison writes bool.
    let out = d.join("cmp.npy");
    ok(&bcast([
        "eval",
        "x >= 0.5",
        &xs,
        "-o",
        out.to_str().unwrap(),
    ]));
    assert!(read(&out).bit_equal(&Tensor::Bool(x.mapv(|v| v >= 0.5))));
}

#[test]
fn one_operand_may_come_from_standard_input_and_the_result_go_to_standard_output() {
    let d = scratch("eval", "stdio");
    let x = f32s(&[3], 0.0);
    let bytes = {
        let p = d.join("x.npy");
        bcast::npy::write_atomic(&p, &Tensor::F32(x.clone())).unwrap();
        std::fs::read(&p).unwrap()
    };
    let y = write(&d, "y.npy", &Tensor::F32(f32s(&[3], 1.0)));
    let mut child = bcast_command()
        .args(["eval", "x + y", "x=-", &format!("y={y}"), "-o", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&bytes).unwrap();
    let o = child.wait_with_output().unwrap();
    ok(&o);
    let got = bcast::npy::read_from(
        std::io::Cursor::new(o.stdout),
        Path::new("-"),
        &bcast::npy::ReadOptions::default(),
    )
    .unwrap();
    let yv = f32s(&[3], 1.0);
    let want = Tensor::F32(ArrayD::from_shape_fn(IxDyn(&[3]), |i| {
        x[[i[0]]] + yv[[i[0]]]
    }));
    assert!(got.bit_equal(&want), "{got:?}");
}

#[test]
fn threads_give_the_same_bits() {
    let d = scratch("eval", "threads");
    let x = f32s(&[64, 1024], 0.0);
    let b = f32s(&[1024], 2.0);
    let xs = format!("x={}", write(&d, "x.npy", &Tensor::F32(x)));
    let bs = format!("b={}", write(&d, "b.npy", &Tensor::F32(b)));
    let mut outs = Vec::new();
    for threads in ["1", "2", "3"] {
        let out = d.join(format!("t{threads}.npy"));
        ok(&bcast([
            "eval",
            "maximum(x + b, 0) * x",
            &xs,
            &bs,
            "-o",
            out.to_str().unwrap(),
            "--threads",
            threads,
        ]));
        outs.push(read(&out));
    }
    assert!(outs[0].bit_equal(&outs[1]) && outs[0].bit_equal(&outs[2]));
}

/// Everything a user can get wrong: one `error:` line, exit 2, no output file written and an
/// existing one left as it was.
#[test]
fn mistakes_are_one_error_line_and_leave_the_output_alone() {
    let d = scratch("eval", "mistakes");
    let x = format!("x={}", write(&d, "x.npy", &Tensor::F32(f32s(&[2, 3], 0.0))));
    let y4 = format!("y={}", write(&d, "y.npy", &Tensor::F32(f32s(&[4], 0.0))));
    let i = format!(
        "i={}",
        write(&d, "i.npy", &Tensor::I32(ArrayD::zeros(IxDyn(&[3]))))
    );
    let j = format!(
        "j={}",
        write(&d, "j.npy", &Tensor::I32(ArrayD::zeros(IxDyn(&[3]))))
    );
    std::fs::write(d.join("bad.npy"), b"not an npy file").unwrap();
    let out: PathBuf = d.join("out.npy");
    std::fs::write(&out, b"keep me").unwrap();
    let o = out.to_str().unwrap();
    let bad = format!("x={}", d.join("bad.npy").display());
    let missing = format!("x={}", d.join("missing.npy").display());
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["(x + ", &x], "expression: expected an operand"),
        (vec!["x $ 2", &x], "unexpected '$' at character 2"),
        (vec!["frobnicate(x)", &x], "unknown op 'frobnicate'"),
        (
            vec!["x + q", &x],
            "the expression reads 'q', but no q=FILE.npy is given",
        ),
        (
            vec!["x + 1", &x, &y4],
            "operand 'y': the expression has no operand of that name (it reads: x)",
        ),
        (vec!["x + 1", &x, &x], "operand 'x' is given twice"),
        (
            vec!["x + 1", "x.npy"],
            "operand 'x.npy' needs the form NAME=FILE.npy",
        ),
        (vec!["x + 1", &bad], "operand 'x': "),
        (vec!["x + 1", &missing], "cannot read"),
        (vec!["x + y", "x=-", "y=-"], "only one operand can be '-'"),
        (vec!["x + y", &x, &y4], "incompatible"),
        (vec!["x + i", &x, &i], "add"),
        (vec!["i / j", &i, &j], "division by zero"),
        (
            vec!["x + 1", &x, "--axis", "1"],
            "--axis is a flag of --auto-broadcast pdpd",
        ),
        (
            vec!["x + 1", &x, "--auto-broadcast", "sideways"],
            "--auto-broadcast",
        ),
        (
            vec!["x + 1", &x, "--threads", "0"],
            "--threads must be at least 1",
        ),
    ];
    for (args, want) in cases {
        let mut all = vec!["eval"];
        all.extend(&args);
        all.extend(["-o", o]);
        refused(&bcast(&all), want);
        assert_eq!(std::fs::read(&out).unwrap(), b"keep me", "{args:?}");
    }
    // An output in a folder that does not exist: refused before anything is read.
    let nowhere = d.join("no/such/folder/out.npy");
    refused(
        &bcast(["eval", "x + 1", &x, "-o", nowhere.to_str().unwrap()]),
        "does not exist",
    );
    assert!(!d.join("no").exists());
    // Without -o: clap's one line.
    refused(&bcast(["eval", "x + 1", &x]), "--output");
}

#[test]
fn help_lists_the_syntax_and_examples() {
    let o = bcast(["eval", "--help"]);
    ok(&o);
    let help = String::from_utf8_lossy(&o.stdout);
    for want in [
        "NAME=FILE.npy",
        "--unfused",
        "--threads",
        "--auto-broadcast",
        "select(",
        "(x - m) * r * g + b",
    ] {
        assert!(help.contains(want), "{want} missing from:\n{help}");
    }
}

/// Operands are matched by name, whatever order they are given in.
#[test]
fn operands_are_matched_by_name_not_by_position() {
    let d = scratch("eval", "order");
    let x = ArrayD::from_shape_vec(IxDyn(&[3]), vec![10i32, 20, 30]).unwrap();
    let y = ArrayD::from_shape_vec(IxDyn(&[3]), vec![1i32, 2, 3]).unwrap();
    let xs = format!("x={}", write(&d, "x.npy", &Tensor::I32(x)));
    let ys = format!("y={}", write(&d, "y.npy", &Tensor::I32(y)));
    let (fused, unfused) = eval_both(&d, &["x - y", &ys, &xs]);
    let want = Tensor::I32(ArrayD::from_shape_vec(IxDyn(&[3]), vec![9, 18, 27]).unwrap());
    assert!(fused.bit_equal(&want), "{fused:?}");
    assert!(unfused.bit_equal(&want));
}

/// The inputs of issue 51 that aborted the process ("has overflowed its stack"): 60,000
/// nested parentheses, a flat chain of 30,000 terms, 10,000 nested calls, 8,000 selects. Each
/// now runs (a command line holds at most 128 KiB per argument, below the 65,536-op limit's
/// shortest text); expected values from loops here.
#[test]
fn deep_and_long_expressions_run_without_aborting() {
    let d = scratch("eval", "deep");
    let x = Tensor::I64(ArrayD::from_shape_vec(IxDyn(&[3]), vec![4, -9, 1 << 40]).unwrap());
    let xs = [4i64, -9, 1 << 40];
    let x_arg = format!("x={}", write(&d, "x.npy", &x));
    let c = Tensor::Bool(ArrayD::from_shape_vec(IxDyn(&[3]), vec![true, false, true]).unwrap());
    let c_arg = format!("c={}", write(&d, "c.npy", &c));
    let parens = 60_000;
    let nested = format!("{}x + 1{}", "(".repeat(parens), ")".repeat(parens));
    let chain = vec!["x"; 30_000].join("+");
    let mut calls = "x".to_string();
    for _ in 0..10_000 {
        calls = format!("maximum({calls}, 7)");
    }
    let mut selects = "x".to_string();
    for _ in 0..8_000 {
        selects = format!("select(c, {selects}, 0)");
    }
    let cases: [(&str, Vec<i64>); 4] = [
        (&nested, xs.iter().map(|v| v + 1).collect()),
        (&chain, xs.iter().map(|v| v.wrapping_mul(30_000)).collect()),
        (&calls, xs.iter().map(|&v| v.max(7)).collect()),
        (&selects, vec![xs[0], 0, xs[2]]),
    ];
    for (k, (text, want)) in cases.iter().enumerate() {
        let want = Tensor::I64(ArrayD::from_shape_vec(IxDyn(&[3]), want.clone()).unwrap());
        let mut args = vec![*text, x_arg.as_str()];
        if text.contains("select") {
            args.push(&c_arg);
        }
        let (fused, unfused) = eval_both(&d, &args);
        assert!(fused.bit_equal(&want), "case {k}: {fused:?}");
        assert!(unfused.bit_equal(&want), "case {k} unfused: {unfused:?}");
    }
    // Unclosed at depth: one error line, exit 2.
    let out = d.join("y.npy");
    let o = bcast([
        "eval",
        &nested[..nested.len() - 1],
        &x_arg,
        "-o",
        out.to_str().unwrap(),
    ]);
    refused(&o, "expected ')'");
}
