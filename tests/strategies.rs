//! The element-wise executor writes the same bits under every strategy this crate has (its
//! loops compiled for AVX2 or for the baseline, with or without software prefetch of the
//! operands and of the output; Select as blends at AVX-512, at AVX2 or the per-element loop),
//! checked
//! against a naive loop written here: numpy-rule broadcasting of `a` `[.., n]` against `b`
//! placed on a few axes, f32 (NaN, -0.0, infinities), u8 (wrapping), f16 (rounded through
//! f32) and a comparison with a bool output.

use bcast::exec::{with_tuning, Context, Strategy, Tuning};
use bcast::{binary_view, select_view, AutoBroadcast, BinaryOp, Tensor};
use half::f16;
use ndarray::{ArrayD, IxDyn};

fn strategies() -> Vec<Strategy> {
    let mut all = Vec::new();
    for base in [Strategy::INTEL, Strategy::AMD, Strategy::PLAIN] {
        for over in [
            "eltwise=avx2,prefetch=0,prefetch-out=0,select=avx512,f16-avx512=on",
            "eltwise=baseline,prefetch=256,prefetch-out=2048,select=baseline,f16-avx512=on",
            "eltwise=avx2,prefetch=1024,prefetch-out=64,select=avx2,f16-avx512=off",
            "eltwise=avx2,prefetch=0,prefetch-out=0,f16=widened,f16-avx512=on",
        ] {
            all.push(base.with_overrides(over).unwrap());
        }
    }
    all
}

/// `op` on `a` and `b` under numpy's rule, `strategy` and `tuning`, into a fresh output.
fn binary_under(
    op: BinaryOp,
    a: &Tensor,
    b: &Tensor,
    strategy: Strategy,
    tuning: Tuning,
) -> Tensor {
    let ctx = Context::default().with_strategy(strategy);
    with_tuning(tuning, || {
        binary_view(
            op,
            a.view(),
            b.view(),
            &AutoBroadcast::Numpy,
            ctx.parallelism(),
        )
    })
    .unwrap()
}

/// Output index -> operand index under numpy's rule, written out per axis.
fn operand_index(out_idx: &[usize], shape: &[usize]) -> usize {
    let skip = out_idx.len() - shape.len();
    let mut flat = 0;
    for (k, &d) in shape.iter().enumerate() {
        let i = if d == 1 { 0 } else { out_idx[skip + k] };
        flat = flat * d + i;
    }
    flat
}

fn naive<A: Copy, B: Copy, C>(
    a: &ArrayD<A>,
    b: &ArrayD<B>,
    out_shape: &[usize],
    f: impl Fn(A, B) -> C,
) -> Vec<C> {
    let (sa, sb) = (a.as_slice().unwrap(), b.as_slice().unwrap());
    let n: usize = out_shape.iter().product();
    let mut idx = vec![0; out_shape.len()];
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        out.push(f(
            sa[operand_index(&idx, a.shape())],
            sb[operand_index(&idx, b.shape())],
        ));
        for k in (0..idx.len()).rev() {
            idx[k] += 1;
            if idx[k] < out_shape[k] {
                break;
            }
            idx[k] = 0;
        }
    }
    out
}

fn f32_values(n: usize, salt: u32) -> Vec<f32> {
    let special = [f32::NAN, -0.0, 0.0, f32::INFINITY, f32::NEG_INFINITY, 1e-40];
    (0..n as u32)
        .map(|i| {
            let x = i.wrapping_mul(2_654_435_761).wrapping_add(salt);
            if x % 17 == 0 {
                special[(x / 17) as usize % special.len()]
            } else {
                (x % 2001) as f32 / 7.0 - 140.0
            }
        })
        .collect()
}

fn same_bits(got: &Tensor, want: Tensor, what: &str) {
    assert_eq!(got.dtype(), want.dtype(), "{what}");
    match (got, &want) {
        (Tensor::F32(g), Tensor::F32(w)) => {
            for (i, (x, y)) in g.iter().zip(w.iter()).enumerate() {
                assert_eq!(x.to_bits(), y.to_bits(), "{what}: element {i}");
            }
        }
        (Tensor::F16(g), Tensor::F16(w)) => {
            for (i, (x, y)) in g.iter().zip(w.iter()).enumerate() {
                assert_eq!(x.to_bits(), y.to_bits(), "{what}: element {i}");
            }
        }
        _ => assert_eq!(got, &want, "{what}"),
    }
}

#[test]
fn every_strategy_writes_the_naive_bits() {
    let cases: Vec<(Vec<usize>, Vec<usize>)> = vec![
        (vec![3, 70, 129], vec![3, 1, 1]),
        (vec![3, 70, 129], vec![129]),
        (vec![3, 70, 129], vec![3, 70, 129]),
        (vec![9000], vec![1]),
        (vec![33, 1], vec![1, 257]),
        (vec![5, 301, 3], vec![3]),
    ];
    let split = Tuning {
        serial_below_bytes: Some(0),
        chunk_elems: Some(1001),
        ..Tuning::default()
    };
    for strategy in strategies() {
        for (sa, sb) in &cases {
            let out_shape: Vec<usize> = {
                let r = sa.len().max(sb.len());
                (0..r)
                    .map(|k| {
                        let d = |s: &Vec<usize>| (k + s.len()).checked_sub(r).map_or(1, |j| s[j]);
                        d(sa).max(d(sb))
                    })
                    .collect()
            };
            let na: usize = sa.iter().product();
            let nb: usize = sb.iter().product();
            let a32 = ArrayD::from_shape_vec(IxDyn(sa), f32_values(na, 1)).unwrap();
            let b32 = ArrayD::from_shape_vec(IxDyn(sb), f32_values(nb, 99)).unwrap();
            let a8 = a32.mapv(|x| x.to_bits() as u8);
            let b8 = b32.mapv(|x| (x.to_bits() >> 8) as u8);
            let a16 = a32.mapv(f16::from_f32);
            let b16 = b32.mapv(f16::from_f32);
            let what = |op: &str| format!("{op} {sa:?} {sb:?} under {strategy}");
            let out = |v: Vec<f32>| ArrayD::from_shape_vec(IxDyn(&out_shape), v).unwrap();
            for tuning in [Tuning::default(), split] {
                let run = |op, a: &Tensor, b: &Tensor| binary_under(op, a, b, strategy, tuning);
                let ctx = Context::default().with_strategy(strategy);
                let (ta, tb) = (Tensor::F32(a32.clone()), Tensor::F32(b32.clone()));
                same_bits(
                    &run(BinaryOp::Add, &ta, &tb),
                    Tensor::F32(out(naive(&a32, &b32, &out_shape, |x, y| x + y))),
                    &what("add f32"),
                );
                same_bits(
                    &run(BinaryOp::Maximum, &ta, &tb),
                    Tensor::F32(out(naive(&a32, &b32, &out_shape, |x, y| {
                        if x < y {
                            y
                        } else {
                            x
                        }
                    }))),
                    &what("maximum f32"),
                );
                let gt = naive(&a32, &b32, &out_shape, |x, y| x > y);
                same_bits(
                    &run(BinaryOp::Greater, &ta, &tb),
                    Tensor::Bool(ArrayD::from_shape_vec(IxDyn(&out_shape), gt).unwrap()),
                    &what("greater f32"),
                );
                let sum8 = naive(&a8, &b8, &out_shape, u8::wrapping_add);
                same_bits(
                    &run(
                        BinaryOp::Add,
                        &Tensor::U8(a8.clone()),
                        &Tensor::U8(b8.clone()),
                    ),
                    Tensor::U8(ArrayD::from_shape_vec(IxDyn(&out_shape), sum8).unwrap()),
                    &what("add u8"),
                );
                // Select: the condition on `b`'s axes, the picks from `a` and `-inf`, then
                // the condition on `a`'s axes, the picks from `b` and `a`.
                let (cond_b, cond_a) = (b32.mapv(|x| x > 0.0), a32.mapv(|x| x < 10.0));
                let low = ArrayD::from_elem(IxDyn(&[]), f32::NEG_INFINITY);
                let select = |c: &ArrayD<bool>, t: &Tensor, e: &Tensor| {
                    with_tuning(tuning, || {
                        select_view(
                            c.view(),
                            t.view(),
                            e.view(),
                            &AutoBroadcast::Numpy,
                            ctx.parallelism(),
                        )
                    })
                    .unwrap()
                };
                let picks = naive(
                    &cond_b,
                    &a32,
                    &out_shape,
                    |c, x| if c { Some(x) } else { None },
                );
                same_bits(
                    &select(&cond_b, &ta, &Tensor::F32(low.clone())),
                    Tensor::F32(out(picks
                        .iter()
                        .map(|p| p.unwrap_or(f32::NEG_INFINITY))
                        .collect())),
                    &what("select f32 (condition, a, -inf)"),
                );
                let from_b = naive(
                    &cond_a,
                    &b32,
                    &out_shape,
                    |c, y| if c { Some(y) } else { None },
                );
                let from_a = naive(&a32, &b32, &out_shape, |x, _| x);
                same_bits(
                    &select(&cond_a, &tb, &ta),
                    Tensor::F32(out(from_b
                        .iter()
                        .zip(&from_a)
                        .map(|(p, &x)| p.unwrap_or(x))
                        .collect())),
                    &what("select f32 (condition, b, a)"),
                );
                let picks16 = naive(&a16, &b16, &out_shape, |x, y| (x, y));
                let cond16 = naive(&cond_b, &cond_b, &out_shape, |c, _| c);
                same_bits(
                    &select(
                        &cond_b,
                        &Tensor::F16(a16.clone()),
                        &Tensor::F16(b16.clone()),
                    ),
                    Tensor::F16(
                        ArrayD::from_shape_vec(
                            IxDyn(&out_shape),
                            picks16
                                .iter()
                                .zip(&cond16)
                                .map(|(&(x, y), &c)| if c { x } else { y })
                                .collect(),
                        )
                        .unwrap(),
                    ),
                    &what("select f16 (condition, a, b)"),
                );
                let mul16 = naive(&a16, &b16, &out_shape, |x: f16, y: f16| {
                    f16::from_f32(x.to_f32() * y.to_f32())
                });
                same_bits(
                    &run(
                        BinaryOp::Multiply,
                        &Tensor::F16(a16.clone()),
                        &Tensor::F16(b16.clone()),
                    ),
                    Tensor::F16(ArrayD::from_shape_vec(IxDyn(&out_shape), mul16).unwrap()),
                    &what("multiply f16"),
                );
            }
        }
    }
}

/// f16 values of every class (zeros, subnormals, normals, the largest, infinities, NaNs with
/// payloads, both signs), then spread bits.
/// `got` holds, element by element, one of the two accepted bits of `want` (the result, and
/// where both operands are NaN the other operand's payload, quieted).
fn same_f16_bits(got: &ArrayD<f16>, want: &[(f16, f16)], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: element count");
    for (i, (x, &(w, alt))) in got.iter().zip(want).enumerate() {
        assert!(
            x.to_bits() == w.to_bits() || x.to_bits() == alt.to_bits(),
            "{what}: element {i}: {:#06x}, not {:#06x}",
            x.to_bits(),
            w.to_bits()
        );
    }
}

fn f16_values(n: usize, salt: u32) -> Vec<f16> {
    let special: [u16; 16] = [
        0x0000, 0x8000, 0x0001, 0x83ff, 0x0400, 0x3c00, 0xbc01, 0x7bff, 0xfbff, 0x7c00, 0xfc00,
        0x7e00, 0xfe01, 0x7c01, 0x5bff, 0x1400,
    ];
    (0..n as u32)
        .map(|i| {
            let x = i.wrapping_mul(2_654_435_761).wrapping_add(salt);
            if x % 7 == 0 {
                f16::from_bits(special[(x / 7) as usize % special.len()])
            } else {
                f16::from_bits((x >> 9) as u16)
            }
        })
        .collect()
}

/// The ops of the table's rows with bodies in 64-byte registers (`f16x32` for f16, `f32x16`
/// for f32: `src/eltwise/registers.rs`), under the strategies that run them there and those
/// that do not, against naive loops: every operand kind of a row (contiguous, one value per
/// row, a tiled row vector, one value, a strided operand, which those kernels hand to the AVX2
/// build), rows whose length leaves a masked last register, whole calls and prepared ones,
/// one chunk and many, outputs of the call's own and a caller's starting at every element of
/// a 64-byte line.
#[test]
fn register_kernels_write_the_naive_bits() {
    use bcast::{EltwiseOp, PreparedOp};
    let in_registers = Strategy::INTEL;
    let widened = Strategy::INTEL
        .with_overrides("f16=widened,arithmetic=avx2")
        .unwrap();
    let div = EltwiseOp::Divide { pythondiv: true };
    let ops = [
        EltwiseOp::Add,
        EltwiseOp::Subtract,
        EltwiseOp::Multiply,
        div,
        EltwiseOp::OnnxDiv,
        EltwiseOp::Maximum,
        EltwiseOp::Minimum,
        EltwiseOp::SquaredDifference,
        EltwiseOp::Prelu,
    ];
    fn f32_body(op: EltwiseOp) -> fn(f32, f32) -> f32 {
        match op {
            EltwiseOp::Add => |x, y| x + y,
            EltwiseOp::Subtract => |x, y| x - y,
            EltwiseOp::Multiply => |x, y| x * y,
            EltwiseOp::Divide { .. } | EltwiseOp::OnnxDiv => |x, y| x / y,
            EltwiseOp::Maximum => |x, y| if x < y { y } else { x },
            EltwiseOp::Minimum => |x, y| if y < x { y } else { x },
            EltwiseOp::SquaredDifference => |x, y| (x - y) * (x - y),
            EltwiseOp::Prelu => |x, s| if x < 0.0 { x * s } else { x },
            _ => unreachable!("not in the list"),
        }
    }
    // f16: computed in f32 and rounded once, but Maximum and Minimum compare the f16 values
    // and return one of them.
    let f16_body = |op: EltwiseOp| -> Box<dyn Fn(f16, f16) -> f16> {
        match op {
            EltwiseOp::Maximum => Box::new(|x, y| if x < y { y } else { x }),
            EltwiseOp::Minimum => Box::new(|x, y| if y < x { y } else { x }),
            _ => {
                let f = f32_body(op);
                Box::new(move |x, y| f16::from_f32(f(x.to_f32(), y.to_f32())))
            }
        }
    };
    // (a, b, a's layout: row-major or the transpose of a row-major array).
    let cases: Vec<(Vec<usize>, Vec<usize>, bool)> = vec![
        (vec![6, 40, 97], vec![6, 40, 97], false),
        (vec![6, 40, 97], vec![6, 40, 1], false),
        (vec![6, 40, 97], vec![97], false),
        (vec![6, 40, 1], vec![6, 40, 33], false),
        (vec![3000], vec![1], false),
        (vec![1], vec![4099], false),
        (vec![2, 5, 31], vec![2, 5, 31], false),
        (vec![2, 64, 70], vec![2, 64, 1], true),
        // Rows of 128 with one value each (a softmax's subtract), over 32 KiB: the rows are
        // walked by pointer steps and stored to whole lines.
        (vec![4, 48, 128], vec![4, 48, 1], false),
        (vec![4, 48, 1], vec![4, 48, 128], false),
    ];
    let split = Tuning {
        serial_below_bytes: Some(0),
        chunk_elems: Some(1001),
        ..Tuning::default()
    };
    for (sa, sb, transposed) in &cases {
        let r = sa.len().max(sb.len());
        let out_shape: Vec<usize> = (0..r)
            .map(|k| {
                let d = |s: &Vec<usize>| (k + s.len()).checked_sub(r).map_or(1, |j| s[j]);
                d(sa).max(d(sb))
            })
            .collect();
        let (na, nb): (usize, usize) = (sa.iter().product(), sb.iter().product());
        let a32 = ArrayD::from_shape_vec(IxDyn(sa), f32_values(na, 5)).unwrap();
        let b32 = ArrayD::from_shape_vec(IxDyn(sb), f32_values(nb, 77)).unwrap();
        let a16 = ArrayD::from_shape_vec(IxDyn(sa), f16_values(na, 3)).unwrap();
        let b16 = ArrayD::from_shape_vec(IxDyn(sb), f16_values(nb, 41)).unwrap();
        // A strided `a`: the same values, held as the transpose of a row-major array.
        let strided = |t: Tensor| -> Tensor {
            if !*transposed {
                return t;
            }
            match t {
                Tensor::F32(x) => Tensor::F32(
                    x.reversed_axes()
                        .as_standard_layout()
                        .to_owned()
                        .reversed_axes(),
                ),
                Tensor::F16(x) => Tensor::F16(
                    x.reversed_axes()
                        .as_standard_layout()
                        .to_owned()
                        .reversed_axes(),
                ),
                _ => unreachable!(),
            }
        };
        let shape = IxDyn(&out_shape);
        for op in ops {
            // PRelu's slope broadcasts onto x, never x onto the slope.
            if matches!(op, EltwiseOp::Prelu) && out_shape != *sa {
                continue;
            }
            let want32 = Tensor::F32(
                ArrayD::from_shape_vec(shape.clone(), naive(&a32, &b32, &out_shape, f32_body(op)))
                    .unwrap(),
            );
            let f = f16_body(op);
            // Where both operands are NaN, IEEE 754 leaves open which one's payload the
            // result carries (and the compiler may swap a commutative op's operands): either
            // operand's, quieted, is accepted there.
            let want16 = naive(&a16, &b16, &out_shape, |x, y| {
                let alt = if x.is_nan() && y.is_nan() {
                    f16::from_f32(y.to_f32())
                } else {
                    f(x, y)
                };
                (f(x, y), alt)
            });
            let check = |got: &Tensor, what: &str| match got {
                Tensor::F16(g) => same_f16_bits(g, &want16, what),
                _ => same_bits(got, want32.clone(), what),
            };
            let inputs = [
                (strided(Tensor::F32(a32.clone())), Tensor::F32(b32.clone())),
                (strided(Tensor::F16(a16.clone())), Tensor::F16(b16.clone())),
            ];
            for (a, b) in &inputs {
                assert_eq!(a.shape(), &sa[..]);
                for strategy in [in_registers, widened] {
                    for tuning in [Tuning::default(), split] {
                        let ctx = Context::default().with_strategy(strategy);
                        let what = format!(
                            "{op} {} {sa:?} {sb:?} transposed={transposed} under {strategy} {tuning:?}",
                            a.dtype()
                        );
                        let got = binary_under(op, a, b, strategy, tuning);
                        check(&got, &what);
                        let prepared = PreparedOp::new(
                            op,
                            &[(a.dtype(), a.shape()), (b.dtype(), b.shape())],
                            &AutoBroadcast::Numpy,
                        )
                        .unwrap();
                        let got = with_tuning(tuning, || {
                            prepared.run_new(&[a.view(), b.view()], ctx.parallelism())
                        })
                        .unwrap();
                        check(&got, &format!("prepared {what}"));
                    }
                    // Into a caller's buffer starting at every element of a 64-byte line:
                    // the kernels store whole registers to whole lines of a large output,
                    // after a masked register up to the first line boundary.
                    if strategy != in_registers {
                        continue;
                    }
                    let n: usize = out_shape.iter().product();
                    let ctx = Context::default().with_strategy(strategy);
                    let prepared = PreparedOp::new(
                        op,
                        &[(a.dtype(), a.shape()), (b.dtype(), b.shape())],
                        &AutoBroadcast::Numpy,
                    )
                    .unwrap();
                    macro_rules! at_every_offset {
                        ($t:ty, $wrap:path) => {{
                            let lanes = 64 / std::mem::size_of::<$t>();
                            let mut buf: Vec<$t> = vec![<$t>::default(); n + 2 * lanes];
                            let base = buf.as_ptr() as usize % 64 / std::mem::size_of::<$t>();
                            for k in 0..lanes {
                                let at = (lanes - base + k) % lanes;
                                for prepared_run in [false, true] {
                                    let out = ndarray::ArrayViewMutD::from_shape(
                                        IxDyn(&out_shape),
                                        &mut buf[at..at + n],
                                    )
                                    .unwrap();
                                    let what = format!(
                                        "{op} {} {sa:?} {sb:?} transposed={transposed} under \
                                         {strategy} into an output {k} elements past a line, \
                                         prepared={prepared_run}",
                                        a.dtype()
                                    );
                                    if prepared_run {
                                        prepared
                                            .run(&[a.view(), b.view()], out.into(), ctx.parallelism())
                                            .unwrap();
                                    } else {
                                        bcast::binary_view_into(
                                            op,
                                            a.view(),
                                            b.view(),
                                            &AutoBroadcast::Numpy,
                                            out.into(),
                                            ctx.parallelism(),
                                        )
                                        .unwrap();
                                    }
                                    let got = $wrap(
                                        ArrayD::from_shape_vec(
                                            IxDyn(&out_shape),
                                            buf[at..at + n].to_vec(),
                                        )
                                        .unwrap(),
                                    );
                                    check(&got, &what);
                                    buf.iter_mut().for_each(|x| *x = <$t>::default());
                                }
                            }
                        }};
                    }
                    match a {
                        Tensor::F32(_) => at_every_offset!(f32, Tensor::F32),
                        Tensor::F16(_) => at_every_offset!(f16, Tensor::F16),
                        _ => unreachable!(),
                    }
                }
            }
        }
    }
}

/// Outputs beyond the core's cache (f16 4 MiB, f32 8 MiB: more than half of any x86 core's
/// own cache), where the loops ask for the output's lines ahead of their stores
/// (`prefetch-out`; on a CPU with AVX512-FP16 the f16 ops run in registers at this size too,
/// and on one with AVX-512 widened into f32 lanes where `f16-avx512` is on):
/// the naive loop's bits under write distances of 0, one line and 2 KiB, the register kernels
/// and the widening build, one chunk and many.
#[test]
fn outputs_beyond_the_core_cache_write_the_naive_bits() {
    let strategies: Vec<Strategy> = [
        "prefetch-out=0",
        "prefetch-out=64",
        "prefetch-out=2048",
        "prefetch-out=2048,f16=widened,arithmetic=avx2",
        "prefetch-out=0,f16=widened,f16-avx512=on",
        "prefetch-out=2048,f16=widened,f16-avx512=on",
    ]
    .iter()
    .map(|over| Strategy::INTEL.with_overrides(over).unwrap())
    .chain([Strategy::AMD.with_overrides("prefetch-out=2048").unwrap()])
    .collect();
    let split = Tuning {
        serial_below_bytes: Some(0),
        chunk_elems: Some(100_003),
        ..Tuning::default()
    };
    let out_shape = vec![16, 512, 257];
    let n: usize = out_shape.iter().product();
    let sa = out_shape.clone();
    // The same shape, one value per row (a softmax's subtract), a tiled row.
    for sb in [out_shape.clone(), vec![16, 512, 1], vec![257]] {
        let nb: usize = sb.iter().product();
        let a32 = ArrayD::from_shape_vec(IxDyn(&sa), f32_values(n, 7)).unwrap();
        let b32 = ArrayD::from_shape_vec(IxDyn(&sb), f32_values(nb, 31)).unwrap();
        let a16 = ArrayD::from_shape_vec(IxDyn(&sa), f16_values(n, 11)).unwrap();
        let b16 = ArrayD::from_shape_vec(IxDyn(&sb), f16_values(nb, 53)).unwrap();
        let subtract: fn(f32, f32) -> f32 = |x, y| x - y;
        let multiply: fn(f32, f32) -> f32 = |x, y| x * y;
        for (op, f) in [
            (BinaryOp::Subtract, subtract),
            (BinaryOp::Multiply, multiply),
        ] {
            let want32 = naive(&a32, &b32, &out_shape, f);
            // f16: computed in f32, rounded once; where both operands are NaN either one's
            // payload (quieted) is accepted, as in `register_kernels_write_the_naive_bits`.
            let want16 = naive(&a16, &b16, &out_shape, |x, y| {
                let once = f16::from_f32(f(x.to_f32(), y.to_f32()));
                let alt = if x.is_nan() && y.is_nan() {
                    f16::from_f32(y.to_f32())
                } else {
                    once
                };
                (once, alt)
            });
            let inputs = [
                (Tensor::F32(a32.clone()), Tensor::F32(b32.clone())),
                (Tensor::F16(a16.clone()), Tensor::F16(b16.clone())),
            ];
            for (a, b) in &inputs {
                for &strategy in &strategies {
                    for tuning in [Tuning::default(), split] {
                        let what = format!(
                            "{op:?} {} {sa:?} {sb:?} under {strategy} {tuning:?}",
                            a.dtype()
                        );
                        let got = binary_under(op, a, b, strategy, tuning);
                        match &got {
                            Tensor::F32(g) => {
                                for (i, (x, w)) in g.iter().zip(&want32).enumerate() {
                                    assert_eq!(x.to_bits(), w.to_bits(), "{what}: element {i}");
                                }
                            }
                            Tensor::F16(g) => same_f16_bits(g, &want16, &what),
                            _ => unreachable!(),
                        }
                    }
                }
            }
        }
    }
}
