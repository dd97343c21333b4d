//! Where runtimes call bcast: prepared ops against a naive reference, bcast's own team and a
//! host's parallel-for giving the serial result at every size, the cost model's thread counts
//! as a host sees them, and calls made from inside a host's task.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use bcast::exec::{Context, ParallelFor, Team, TeamBuilder};
use bcast::ndarray::{ArrayD, IxDyn};
use bcast::{
    binary_view_into, broadcast_with, AutoBroadcast, BroadcastError, DType, EltwiseOp, Mode,
    Parallelism, PreparedOp, TensorView, TensorViewMut,
};

/// A host that runs every task on the calling thread, in reverse (any order is allowed), and
/// records each call's task count.
#[derive(Default)]
struct InlineHost {
    threads: usize,
    calls: Mutex<Vec<usize>>,
}

impl ParallelFor for InlineHost {
    fn threads(&self) -> usize {
        self.threads
    }

    fn parallel_for(&self, n: usize, task: &(dyn Fn(usize) + Sync)) {
        self.calls.lock().unwrap().push(n);
        (0..n).rev().for_each(task);
    }

    fn dispatch_cost_ns(&self) -> u64 {
        1_000
    }
}

fn host(threads: usize) -> InlineHost {
    InlineHost {
        threads,
        calls: Mutex::default(),
    }
}

/// Reproducible values that survive every op below exactly (small multiples of 1/8).
fn values(n: usize, seed: u64) -> Vec<f32> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            ((x.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 40) % 2001) as f32 / 8.0 - 125.0
        })
        .collect()
}

/// `a op b` under numpy's rule, one output element at a time from the rule's index relation
/// (`common::expand`), not from bcast.
fn reference(op: EltwiseOp, a: &ArrayD<f32>, b: &ArrayD<f32>) -> ArrayD<f32> {
    let out = common::common_shape(&[a.shape().to_vec(), b.shape().to_vec()]).unwrap();
    let place = |x: &ArrayD<f32>| {
        let (al, _) = common::aligned(x.shape(), &out, &Mode::Numpy).unwrap();
        common::expand(x.as_standard_layout().as_slice().unwrap(), &al, &out)
    };
    let (ea, eb) = (place(a), place(b));
    let f = |x: f32, y: f32| match op {
        EltwiseOp::Add => x + y,
        EltwiseOp::Subtract => x - y,
        EltwiseOp::Multiply => x * y,
        EltwiseOp::Maximum => x.max(y),
        _ => unreachable!("the ops below"),
    };
    let v = ea.iter().zip(&eb).map(|(&x, &y)| f(x, y)).collect();
    ArrayD::from_shape_vec(IxDyn(&out), v).unwrap()
}

/// Model-shaped nodes (a decoder's residual, BERT's mask and softmax, ResNet's scale) and
/// small ones, across the cost model's line.
const NODES: &[(EltwiseOp, &[usize], &[usize])] = &[
    (EltwiseOp::Add, &[16], &[16]),
    (EltwiseOp::Add, &[1, 1, 4096], &[1, 1, 4096]),
    (EltwiseOp::Add, &[1, 12, 64, 64], &[1, 1, 1, 64]),
    (EltwiseOp::Subtract, &[1, 12, 128, 128], &[1, 12, 128, 1]),
    (EltwiseOp::Multiply, &[1, 64, 56, 56], &[1, 64, 1, 1]),
    (EltwiseOp::Maximum, &[3, 1, 5], &[4, 1]),
    (EltwiseOp::Add, &[0, 3], &[1, 3]),
];

fn arrays(sa: &[usize], sb: &[usize]) -> (ArrayD<f32>, ArrayD<f32>) {
    let n = |s: &[usize]| s.iter().product::<usize>();
    (
        ArrayD::from_shape_vec(IxDyn(sa), values(n(sa), 1)).unwrap(),
        ArrayD::from_shape_vec(IxDyn(sb), values(n(sb), 2)).unwrap(),
    )
}

#[test]
fn prepared_ops_match_the_reference_on_every_kind_of_threads() {
    let team = TeamBuilder::new(3).build().unwrap();
    let parked = TeamBuilder::new(2)
        .spin(std::time::Duration::ZERO)
        .build()
        .unwrap();
    let inline = host(4);
    let contexts = [
        ("serial", Context::serial()),
        ("default", Context::default()),
        ("team", Context::team(std::sync::Arc::new(team))),
        ("parked team", Context::team(std::sync::Arc::new(parked))),
    ];
    for &(op, sa, sb) in NODES {
        let (a, b) = arrays(sa, sb);
        let want = reference(op, &a, &b);
        let prepared = PreparedOp::new(
            op,
            &[(DType::F32, sa), (DType::F32, sb)],
            &AutoBroadcast::Numpy,
        )
        .unwrap();
        assert_eq!(prepared.output_shape(), want.shape());
        assert_eq!(prepared.output_dtype(), DType::F32);
        let pars = contexts
            .iter()
            .map(|(name, c)| (*name, c.parallelism()))
            .chain([("host", Parallelism::Host(&inline))]);
        for (name, par) in pars {
            for round in 0..2 {
                let mut got = ArrayD::from_elem(want.raw_dim(), f32::NAN);
                prepared
                    .run(
                        &[TensorView::F32(a.view()), TensorView::F32(b.view())],
                        TensorViewMut::F32(got.view_mut()),
                        par,
                    )
                    .unwrap();
                let same = got
                    .iter()
                    .zip(&want)
                    .all(|(g, w)| g.to_bits() == w.to_bits());
                assert!(same, "{op:?} {sa:?} {sb:?} on {name}, round {round}");
            }
        }
    }
}

#[test]
fn a_prepared_op_replans_other_layouts_and_refuses_other_operands() {
    let (sa, sb) = (&[6usize, 4][..], &[4usize][..]);
    let add = PreparedOp::new(
        EltwiseOp::Add,
        &[(DType::F32, sa), (DType::F32, sb)],
        &AutoBroadcast::Numpy,
    )
    .unwrap();
    // A transposed `a` of the prepared shape: planned again, still right.
    let (at, b) = arrays(&[4, 6], sb);
    let a = at.t().to_owned();
    let a_view = at.t();
    let want = reference(EltwiseOp::Add, &a, &b);
    let mut got = ArrayD::zeros(IxDyn(&[6, 4]));
    add.run(
        &[
            TensorView::F32(a_view.into_dyn()),
            TensorView::F32(b.view()),
        ],
        TensorViewMut::F32(got.view_mut()),
        Parallelism::Serial,
    )
    .unwrap();
    assert_eq!(got, want);
    // Another shape, another type, another count.
    let (wrong, _) = arrays(&[5, 4], sb);
    let err = add
        .run(
            &[TensorView::F32(wrong.view()), TensorView::F32(b.view())],
            TensorViewMut::F32(got.view_mut()),
            Parallelism::Serial,
        )
        .unwrap_err();
    assert!(
        matches!(&err, BroadcastError::PreparedShape { operand: 0, .. }),
        "{err}"
    );
    assert_eq!(
        err.to_string(),
        "add: operand 0 has shape [5,4], but the op was prepared for [6,4]"
    );
    let ints = ArrayD::<i32>::zeros(IxDyn(sb));
    let err = add
        .run(
            &[TensorView::F32(a.view()), TensorView::I32(ints.view())],
            TensorViewMut::F32(got.view_mut()),
            Parallelism::Serial,
        )
        .unwrap_err();
    assert!(matches!(err, BroadcastError::DTypeMismatch { .. }), "{err}");
    let err = add
        .run(
            &[TensorView::F32(a.view())],
            TensorViewMut::F32(got.view_mut()),
            Parallelism::Serial,
        )
        .unwrap_err();
    assert!(matches!(err, BroadcastError::Arity { .. }), "{err}");
    // Checked when prepared: shapes that break the rule, types that differ.
    let bad = PreparedOp::new(
        EltwiseOp::Add,
        &[(DType::F32, &[3, 4]), (DType::F32, &[5])],
        &AutoBroadcast::Numpy,
    );
    assert!(
        matches!(bad, Err(BroadcastError::Incompatible { .. })),
        "{bad:?}"
    );
    let bad = PreparedOp::new(
        EltwiseOp::Add,
        &[(DType::F32, &[3]), (DType::I32, &[3])],
        &AutoBroadcast::Numpy,
    );
    assert!(
        matches!(bad, Err(BroadcastError::DTypeMismatch { .. })),
        "{bad:?}"
    );
}

/// `f` over `a` and `b` broadcast under numpy's rule, one element at a time from the rule's
/// index relation (`common::expand`), not from bcast.
fn naive<A: Clone, C>(a: &ArrayD<A>, b: &ArrayD<A>, f: impl Fn(A, A) -> C) -> ArrayD<C> {
    let out = common::common_shape(&[a.shape().to_vec(), b.shape().to_vec()]).unwrap();
    let place = |x: &ArrayD<A>| {
        let (al, _) = common::aligned(x.shape(), &out, &Mode::Numpy).unwrap();
        common::expand(&x.iter().cloned().collect::<Vec<_>>(), &al, &out)
    };
    let (ea, eb) = (place(a), place(b));
    let v = ea.into_iter().zip(eb).map(|(x, y)| f(x, y)).collect();
    ArrayD::from_shape_vec(IxDyn(&out), v).unwrap()
}

/// One prepared op through its three ways in (views into a caller's output, a new tensor,
/// row-major addresses), each against `want`.
fn every_way_in(
    op: EltwiseOp,
    a: bcast::Tensor,
    b: bcast::Tensor,
    want: bcast::Tensor,
    par: Parallelism<'_>,
) {
    let what = format!("{op:?} {:?} {:?} {:?}", a.dtype(), a.shape(), b.shape());
    let prepared = PreparedOp::new(
        op,
        &[(a.dtype(), a.shape()), (b.dtype(), b.shape())],
        &AutoBroadcast::Numpy,
    )
    .unwrap();
    assert_eq!(prepared.output_shape(), want.shape(), "{what}");
    assert_eq!(prepared.output_dtype(), want.dtype(), "{what}");
    let fresh = prepared.run_new(&[a.view(), b.view()], par).unwrap();
    assert_eq!(fresh, want, "{what}: run_new");
    // Outputs that differ from `want` everywhere: every element must be written.
    let scribbled = || match &want {
        bcast::Tensor::F32(x) => bcast::Tensor::F32(x.mapv(|_| f32::NAN)),
        bcast::Tensor::F16(x) => bcast::Tensor::F16(x.mapv(|_| bcast::half::f16::NAN)),
        bcast::Tensor::I32(x) => bcast::Tensor::I32(x.mapv(|v| !v)),
        bcast::Tensor::U8(x) => bcast::Tensor::U8(x.mapv(|v| !v)),
        bcast::Tensor::Bool(x) => bcast::Tensor::Bool(x.mapv(|v| !v)),
        other => panic!("no scribble here for {:?}", other.dtype()),
    };
    let mut into = scribbled();
    prepared
        .run(&[a.view(), b.view()], into.view_mut(), par)
        .unwrap();
    assert_eq!(into, want, "{what}: run");
    let (ca, cb) = (a.clone(), b.clone());
    let mut raw = scribbled();
    let addr = |t: &bcast::Tensor| match t.view() {
        TensorView::F32(v) => v.as_ptr().cast::<u8>(),
        TensorView::F16(v) => v.as_ptr().cast::<u8>(),
        TensorView::I32(v) => v.as_ptr().cast::<u8>(),
        TensorView::U8(v) => v.as_ptr().cast::<u8>(),
        TensorView::Bool(v) => v.as_ptr().cast::<u8>(),
        other => panic!("no address here for {:?}", other.dtype()),
    };
    let out_addr = match raw.view_mut() {
        TensorViewMut::F32(mut v) => v.as_mut_ptr().cast::<u8>(),
        TensorViewMut::F16(mut v) => v.as_mut_ptr().cast::<u8>(),
        TensorViewMut::I32(mut v) => v.as_mut_ptr().cast::<u8>(),
        TensorViewMut::U8(mut v) => v.as_mut_ptr().cast::<u8>(),
        TensorViewMut::Bool(mut v) => v.as_mut_ptr().cast::<u8>(),
        other => panic!("no address here for {:?}", other.dtype()),
    };
    // SAFETY: row-major tensors of the prepared types and shapes, alive for the call; `raw`
    // has the output's type and shape and is not read until the call returns.
    unsafe {
        prepared
            .run_row_major(&[addr(&ca), addr(&cb)], out_addr, par)
            .unwrap();
    }
    assert_eq!(raw, want, "{what}: run_row_major");
}

#[test]
fn prepared_ops_of_each_kind_of_type_match_a_naive_loop_every_way_in() {
    use bcast::half::f16;
    use bcast::Tensor;
    let team = TeamBuilder::new(2).build().unwrap();
    let shapes: &[(&[usize], &[usize])] = &[
        (&[16], &[16]),
        (&[3, 1, 5], &[4, 1]),
        (&[2, 300, 64], &[64]),
        (&[40, 1024], &[40, 1]),
    ];
    for par in [Parallelism::Serial, Parallelism::Team(&team)] {
        for &(sa, sb) in shapes {
            let (a, b) = arrays(sa, sb);
            // f32 add and the comparison (a bool output).
            let want = naive(&a, &b, |x, y| x + y);
            every_way_in(
                EltwiseOp::Add,
                Tensor::F32(a.clone()),
                Tensor::F32(b.clone()),
                Tensor::F32(want),
                par,
            );
            let want = naive(&a, &b, |x, y| x < y);
            every_way_in(
                EltwiseOp::Less,
                Tensor::F32(a.clone()),
                Tensor::F32(b.clone()),
                Tensor::Bool(want),
                par,
            );
            // f16: the product of two halves is exact in f32, then rounded once.
            let (ha, hb) = (a.mapv(f16::from_f32), b.mapv(f16::from_f32));
            let want = naive(&ha, &hb, |x, y| f16::from_f32(x.to_f32() * y.to_f32()));
            every_way_in(
                EltwiseOp::Multiply,
                Tensor::F16(ha),
                Tensor::F16(hb),
                Tensor::F16(want),
                par,
            );
            // i32 subtract (wrapping, as the spec's two's complement), and a division, whose
            // zero-divisor check keeps it off the kernel record: the general path.
            let (ia, ib) = (
                a.mapv(|x| (x * 8.0) as i32),
                b.mapv(|x| (x * 8.0) as i32 | 1),
            );
            let want = naive(&ia, &ib, |x: i32, y: i32| x.wrapping_sub(y));
            every_way_in(
                EltwiseOp::Subtract,
                Tensor::I32(ia.clone()),
                Tensor::I32(ib.clone()),
                Tensor::I32(want),
                par,
            );
            // Python's floor division: the quotient rounded toward minus infinity.
            let floor = |x: i32, y: i32| {
                let q = x / y;
                if x % y != 0 && ((x < 0) != (y < 0)) {
                    q - 1
                } else {
                    q
                }
            };
            let want = naive(&ia, &ib, floor);
            every_way_in(
                EltwiseOp::Divide { pythondiv: true },
                Tensor::I32(ia),
                Tensor::I32(ib),
                Tensor::I32(want),
                par,
            );
            // u8 bitwise and.
            let (ua, ub) = (
                a.mapv(|x| (x * 8.0) as i64 as u8),
                b.mapv(|x| (x * 8.0) as i64 as u8),
            );
            let want = naive(&ua, &ub, |x: u8, y: u8| x & y);
            every_way_in(
                EltwiseOp::BitwiseAnd,
                Tensor::U8(ua),
                Tensor::U8(ub),
                Tensor::U8(want),
                par,
            );
        }
    }
}

/// The parts a `bytes`-byte f32 add is cut into on a host of `threads` whose dispatch costs
/// 1 us (none: the host was not called).
fn parts(bytes: usize, threads: usize) -> Option<usize> {
    let h = host(threads);
    let n = bytes / 4;
    let a = ArrayD::from_elem(IxDyn(&[n]), 1.5f32);
    let b = ArrayD::from_elem(IxDyn(&[1]), 2.0f32);
    let mut out = ArrayD::zeros(IxDyn(&[n]));
    binary_view_into(
        EltwiseOp::Add,
        TensorView::F32(a.view()),
        TensorView::F32(b.view()),
        &AutoBroadcast::Numpy,
        TensorViewMut::F32(out.view_mut()),
        Parallelism::Host(&h),
    )
    .unwrap();
    assert!(out.iter().all(|&v| v == 3.5), "{bytes} bytes");
    let calls = h.calls.into_inner().unwrap();
    assert!(calls.len() <= 1);
    calls.first().copied()
}

#[test]
fn a_hot_pool_is_given_a_second_thread_from_128_kib() {
    assert_eq!(parts(4 << 10, 4), None);
    assert_eq!(parts(64 << 10, 4), None);
    assert_eq!(parts(127 << 10, 4), None);
    assert_eq!(parts(128 << 10, 4), Some(2));
    assert_eq!(parts(192 << 10, 4), Some(3));
    assert_eq!(parts(1 << 20, 4), Some(4));
    assert_eq!(parts(1 << 20, 1), None);
}

#[test]
fn a_host_may_call_bcast_while_bcast_waits_on_it() {
    let h = host(4);
    let inner = AtomicUsize::new(0);
    let row = ArrayD::from_shape_vec(IxDyn(&[1024]), values(1024, 3)).unwrap();
    let y = {
        struct Nested<'a> {
            host: &'a InlineHost,
            row: &'a ArrayD<f32>,
            inner: &'a AtomicUsize,
        }
        impl ParallelFor for Nested<'_> {
            fn threads(&self) -> usize {
                4
            }
            fn parallel_for(&self, n: usize, task: &(dyn Fn(usize) + Sync)) {
                for i in 0..n {
                    // A whole broadcast of 1 MiB on the same host, from inside the task.
                    let z = broadcast_with(
                        self.row.view(),
                        &[256, 1024],
                        &Mode::Numpy,
                        Parallelism::Host(self.host),
                    )
                    .unwrap();
                    assert_eq!(z.shape(), &[256, 1024]);
                    self.inner.fetch_add(1, Ordering::Relaxed);
                    task(i);
                }
            }
        }
        let nested = Nested {
            host: &h,
            row: &row,
            inner: &inner,
        };
        broadcast_with(
            row.view(),
            &[512, 1024],
            &Mode::Numpy,
            Parallelism::Host(&nested),
        )
        .unwrap()
    };
    assert!(inner.load(Ordering::Relaxed) >= 2);
    // The host's own code, run while bcast waits in its parallel-for, called bcast on another
    // host: those calls ran there (nothing waits on the outer call), each split in four.
    assert!(h.calls.lock().unwrap().iter().all(|&n| n == 4));
    assert_eq!(h.calls.lock().unwrap().len(), inner.load(Ordering::Relaxed));
    assert!(y.outer_iter().all(|r| r == row.view()));
}

#[test]
fn every_kind_of_threads_gives_the_serial_result_at_every_size() {
    let team = TeamBuilder::new(4).build().unwrap();
    let inline = host(8);
    let global = Team::global().expect("the default team starts");
    assert!(global.threads() >= 1);
    for kib in [1usize, 16, 127, 128, 129, 512, 1024, 4096] {
        let cols = 1000;
        let rows = (kib << 10) / 4 / cols + 1;
        let col = ArrayD::from_shape_vec(IxDyn(&[rows, 1]), values(rows, 4)).unwrap();
        let row = ArrayD::from_shape_vec(IxDyn(&[cols]), values(cols, 5)).unwrap();
        let serial = bcast::binary_view(
            EltwiseOp::Add,
            TensorView::F32(col.view()),
            TensorView::F32(row.view()),
            &AutoBroadcast::Numpy,
            Parallelism::Serial,
        )
        .unwrap();
        for par in [
            Parallelism::Auto,
            Parallelism::Team(&team),
            Parallelism::Team(&global),
            Parallelism::Host(&inline),
        ] {
            let got = bcast::binary_view(
                EltwiseOp::Add,
                TensorView::F32(col.view()),
                TensorView::F32(row.view()),
                &AutoBroadcast::Numpy,
                par,
            )
            .unwrap();
            assert_eq!(got, serial, "{kib} KiB on {par:?}");
            let b = broadcast_with(row.view(), &[rows, cols], &Mode::Numpy, par).unwrap();
            assert!(
                b.outer_iter().all(|r| r == row.view()),
                "{kib} KiB on {par:?}"
            );
        }
    }
}

#[test]
fn a_call_from_inside_a_bcast_task_runs_on_its_thread() {
    let h = host(4);
    let inner = AtomicUsize::new(0);
    let seen = AtomicUsize::new(0);
    // 256 KiB of output: on the default team (two threads or more) it is cut into tasks.
    let a = ArrayD::from_elem(IxDyn(&[1 << 16]), 1.0f32);
    let b = ArrayD::from_elem(IxDyn(&[1]), 2.0f32);
    let row = ArrayD::from_shape_vec(IxDyn(&[1024]), values(1024, 6)).unwrap();
    let y = bcast::zip_with(a.view(), b.view(), &AutoBroadcast::Numpy, |x, y| {
        if seen.fetch_add(1, Ordering::Relaxed).is_multiple_of(16384) {
            // A 1 MiB broadcast on a host pool, from inside bcast's own task.
            let z = broadcast_with(
                row.view(),
                &[256, 1024],
                &Mode::Numpy,
                Parallelism::Host(&h),
            )
            .unwrap();
            assert!(z.outer_iter().all(|r| r == row.view()));
            inner.fetch_add(1, Ordering::Relaxed);
        }
        x + y
    })
    .unwrap();
    assert!(y.iter().all(|&v| v == 3.0));
    assert_eq!(inner.load(Ordering::Relaxed), 4);
    if Team::global().is_some_and(|t| t.threads() > 1) {
        // Each inner call ran on the task's own thread: the host was never called.
        assert!(
            h.calls.lock().unwrap().is_empty(),
            "{:?}",
            h.calls.lock().unwrap()
        );
    }
}
