//! The `fused` group of `bcast bench`: every case runs and is printed (table and `--json`),
//! every case's fused result is its ops' result bit for bit (checked by the bench before it
//! times anything, and here against a naive loop written from the formulas), and a case
//! whose fused result differs is refused, never reported.
mod common;

use bcast::half::f16;
use bcast::{DType, EltwiseOp, Parallelism, Tensor};
use bcast_cli::bench_fused::{check_fused, measure_fused, Arg, FusedCase, Step, FUSED_CASES};

fn pool(n: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .unwrap()
}

/// The small sizes the tests run at (the tiny chain keeps its own).
const SMALL: usize = 1 << 18;

#[test]
fn the_table_has_a_row_for_every_case_and_nothing_of_the_other_groups() {
    let out = common::bcast([
        "bench",
        "--group",
        "fused",
        "--threads",
        "1",
        "--budget-ms",
        "1",
        "--mib",
        "0.25",
    ]);
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("# "), "{text}");
    assert!(text.contains("# cpu: "), "{text}");
    let rows: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    // The column header, then one row per case in the table's order.
    assert_eq!(rows.len(), FUSED_CASES.len() + 1, "{text}");
    assert!(rows[0].starts_with("case ") && rows[0].contains("ratio_bound"));
    for (row, case) in rows[1..].iter().zip(FUSED_CASES) {
        let cells: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(cells[0], case.name, "{text}");
        assert_eq!(cells[2], "1", "{text}");
        assert!(cells[3].parse::<f64>().unwrap() > 0.0, "{row}");
    }
}

/// numpy's broadcast of two shapes (right-aligned; 1 stretches).
fn broadcast(a: &[usize], b: &[usize]) -> Vec<usize> {
    let n = a.len().max(b.len());
    (0..n)
        .map(|k| {
            let da = if k + a.len() >= n {
                a[k + a.len() - n]
            } else {
                1
            };
            let db = if k + b.len() >= n {
                b[k + b.len() - n]
            } else {
                1
            };
            if da == 1 {
                db
            } else {
                da
            }
        })
        .collect()
}

#[test]
fn json_lines_carry_the_case_and_consistent_figures() {
    let out = common::bcast([
        "bench",
        "--json",
        "--group",
        "fused",
        "--case",
        "ln_f16",
        "--case",
        "tiny_chain_f32",
        "--threads",
        "2",
        "--budget-ms",
        "1",
        "--mib",
        "0.25",
    ]);
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(lines[0]["machine"].as_str().unwrap().starts_with("cpu: "));
    for (v, name) in lines[1..].iter().zip(["ln_f16", "tiny_chain_f32"]) {
        assert_eq!(v["case"], name, "{text}");
        assert_eq!(v["threads"], 2);
        assert_eq!(v["bit_identical"], true);
        let (size, expr) = if name == "ln_f16" {
            (2, "(x - m) * r * g + b")
        } else {
            (4, "(x + y) * s")
        };
        assert_eq!(v["expr"], expr);
        assert_eq!(v["dtype"], if size == 2 { "f16" } else { "f32" });
        // Traffic from the reported shapes: every input once, the output (numpy's broadcast
        // of them all) once.
        let shapes: Vec<Vec<usize>> = v["inputs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| serde_json::from_value(p[1].clone()).unwrap())
            .collect();
        let out_shape = shapes.iter().fold(vec![], |o, s| broadcast(&o, s));
        let n = |s: &[usize]| s.iter().product::<usize>();
        let bytes = n(&out_shape) * size;
        assert_eq!(v["bytes"].as_u64().unwrap() as usize, bytes, "{text}");
        let traffic = bytes + shapes.iter().map(|s| n(s) * size).sum::<usize>();
        assert_eq!(v["traffic_bytes"].as_u64().unwrap() as usize, traffic);
        if name == "tiny_chain_f32" {
            assert_eq!(traffic, 64 * 4 * 3 + 4);
        } else {
            assert_eq!(out_shape[1], 1024);
            assert_eq!(shapes[3], [1024]);
            assert_eq!(shapes[1], [out_shape[0], 1]);
        }
        let f = |k: &str| v[k].as_f64().unwrap_or_else(|| panic!("{k} in {text}"));
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1e-12);
        assert!(f("fused_gbps") > 0.0 && f("unfused_gbps") > 0.0 && f("copy_gbps") > 0.0);
        assert!(close(f("bound_gbps"), 2.0 * f("copy_gbps")));
        assert!(close(f("ratio_bound"), f("fused_gbps") / f("bound_gbps")));
        assert!(close(
            f("speedup_unfused"),
            f("unfused_ns_per_call") / f("fused_ns_per_call")
        ));
        assert!(close(
            f("fused_gbps"),
            traffic as f64 / f("fused_ns_per_call")
        ));
    }
}

#[test]
fn every_case_is_bit_identical_to_its_ops_on_one_and_two_threads() {
    for threads in [1, 2] {
        let pool = pool(threads);
        for case in FUSED_CASES {
            check_fused(case, &case.shapes(Some(SMALL)), &pool)
                .unwrap_or_else(|e| panic!("{} on {threads} threads: {e}", case.name));
        }
    }
}

/// Element `i` of the output of `shape` read from an operand of `of` (numpy's rule).
fn at(values: &[f32], of: &[usize], shape: &[usize], i: usize) -> f32 {
    let mut rest = i;
    let mut idx = vec![0; shape.len()];
    for k in (0..shape.len()).rev() {
        idx[k] = rest % shape[k];
        rest /= shape[k];
    }
    let lead = shape.len() - of.len();
    let mut flat = 0;
    for (k, &d) in of.iter().enumerate() {
        flat = flat * d + if d == 1 { 0 } else { idx[lead + k] };
    }
    values[flat]
}

fn as_f32(t: &Tensor) -> Vec<f32> {
    match t {
        Tensor::F32(a) => a.iter().copied().collect(),
        Tensor::F16(a) => a.iter().map(|v| v.to_f32()).collect(),
        _ => panic!("the bench makes f32 and f16"),
    }
}

#[test]
fn fused_results_equal_a_naive_loop_of_the_formulas() {
    for case in FUSED_CASES {
        let shapes = case.shapes(Some(SMALL));
        let inputs = case.operands(&shapes).unwrap();
        let views: Vec<_> = inputs.iter().map(Tensor::view).collect();
        let got = case
            .expression()
            .unwrap()
            .evaluate(&views, Parallelism::Serial)
            .unwrap();
        let out_shape = shapes.iter().fold(vec![], |o, s| broadcast(&o, s));
        assert_eq!(got.shape(), out_shape.as_slice(), "{}", case.name);
        // Each op rounds to the element type, as the op alone does.
        let round = |v: f32| match case.dtype {
            DType::F16 => f16::from_f32(v).to_f32(),
            _ => v,
        };
        let values: Vec<Vec<f32>> = inputs.iter().map(as_f32).collect();
        let n: usize = out_shape.iter().product();
        let want: Vec<f32> = (0..n)
            .map(|i| {
                let v = |j: usize| at(&values[j], &shapes[j], &out_shape, i);
                let base = case.name.rsplit_once('_').unwrap().0;
                match base {
                    "bn" => round(round(v(0) * v(1)) + v(2)),
                    "ln" => round(round(round(round(v(0) - v(1)) * v(2)) * v(3)) + v(4)),
                    "bias_relu" => round(v(0) + v(1)).max(0.0),
                    "residual" | "tiny_chain" => round(round(v(0) + v(1)) * v(2)),
                    other => panic!("no formula for {other}"),
                }
            })
            .collect();
        let got = as_f32(&got);
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert_eq!(g.to_bits(), w.to_bits(), "{} element {i}", case.name);
        }
        // The data exercise the chain: both signs before the ReLU, no zero output throughout.
        if case.name.starts_with("bias_relu") {
            assert!(got.contains(&0.0) && got.iter().any(|v| *v > 0.0));
        }
    }
}

#[test]
fn a_case_whose_fused_result_differs_is_refused() {
    use Arg::{Input, Step as S};
    // The expression says `x * s + b`; the ops subtract `b`.
    const WRONG: &[Step] = &[
        Step {
            op: EltwiseOp::Multiply,
            args: &[Input(0), Input(1)],
        },
        Step {
            op: EltwiseOp::Subtract,
            args: &[S(0), Input(2)],
        },
    ];
    let bn = FUSED_CASES.iter().find(|c| c.name == "bn_f32").unwrap();
    let planted = FusedCase {
        name: "planted",
        steps: WRONG,
        ..*bn
    };
    let pool = pool(1);
    let shapes = planted.shapes(Some(SMALL));
    let err = check_fused(&planted, &shapes, &pool)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("bench case planted: the fused result differs from its ops run one by one"),
        "{err}"
    );
    let err = measure_fused(&planted, &shapes, &pool, 1, std::time::Duration::ZERO);
    assert!(err.is_err());
    // The same case with its own ops is reported.
    let m = measure_fused(bn, &shapes, &pool, 1, std::time::Duration::ZERO).unwrap();
    assert!(m.bit_identical && m.fused_gbps > 0.0);
}

#[test]
fn an_unknown_group_is_one_error_line_and_exit_2() {
    let out = common::bcast(["bench", "--group", "nope"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.starts_with("error: "), "{err}");
}
