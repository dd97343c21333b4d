//! What each two-operand op of the table costs per element next to `add`, at one thread, on
//! an output that stays in the core's cache (64 KiB of f32 or i32): the figures behind the
//! cost model's op factor (`EltwiseOp::relative_cost`), which lets an op whose arithmetic,
//! not its memory traffic, bounds it ask for a second thread at a smaller output.
//!
//!     cargo run --release -p bcast-cli --example op_cost [-- ROUNDS]
//!
//! Prints one line per op and type, tab-separated: op, type, ns per element, ratio to add of
//! the same type, the factor the table gives it. Medians of interleaved rounds.

use std::hint::black_box;
use std::time::Instant;

use bcast::ndarray::{ArrayD, IxDyn};
use bcast::{binary_view_into, AutoBroadcast, DType, EltwiseOp, Parallelism, Tensor};

const LEN: usize = 16 << 10;

fn operand(dtype: DType, salt: u32) -> Tensor {
    // Values away from zero (integer division refuses a zero divisor) and small enough that
    // Pow stays finite; the same for every op.
    let v = |i: usize| ((i as u32).wrapping_mul(2_654_435_761).wrapping_add(salt) % 7 + 1) as i32;
    match dtype {
        DType::I32 => Tensor::I32(ArrayD::from_shape_fn(IxDyn(&[LEN]), |ix| v(ix[0]))),
        _ => Tensor::F32(ArrayD::from_shape_fn(IxDyn(&[LEN]), |ix| {
            v(ix[0]) as f32 * 0.37
        })),
    }
}

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(7);
    for dtype in [DType::F32, DType::I32] {
        let (a, b) = (operand(dtype, 1), operand(dtype, 2));
        let ops: Vec<(EltwiseOp, Tensor)> = EltwiseOp::ALL
            .iter()
            .filter_map(|&op| {
                let out = bcast::binary_view(
                    op,
                    a.view(),
                    b.view(),
                    &AutoBroadcast::Numpy,
                    Parallelism::Serial,
                )
                .ok()?;
                Some((op, out))
            })
            .collect();
        let mut times: Vec<Vec<f64>> = vec![Vec::new(); ops.len()];
        for _ in 0..rounds {
            for ((op, out), t) in ops.iter().zip(&mut times) {
                let mut out = out.clone();
                let mut call = || {
                    binary_view_into(
                        *op,
                        a.view(),
                        b.view(),
                        &AutoBroadcast::Numpy,
                        out.view_mut(),
                        Parallelism::Serial,
                    )
                    .unwrap();
                    black_box(&out);
                };
                for _ in 0..20 {
                    call();
                }
                let n = 200;
                let start = Instant::now();
                for _ in 0..n {
                    call();
                }
                t.push(start.elapsed().as_secs_f64() * 1e9 / (n * LEN) as f64);
            }
        }
        let median = |t: &mut Vec<f64>| {
            t.sort_by(f64::total_cmp);
            t[t.len() / 2]
        };
        let medians: Vec<f64> = times.iter_mut().map(median).collect();
        let add = ops
            .iter()
            .position(|(op, _)| *op == EltwiseOp::Add)
            .map_or(1.0, |i| medians[i]);
        for ((op, _), ns) in ops.iter().zip(&medians) {
            println!(
                "{}\t{}\t{:.3}\t{:.2}\t{}",
                op.name(),
                dtype.name(),
                ns,
                ns / add,
                op.relative_cost(dtype)
            );
        }
    }
}
