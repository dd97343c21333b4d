//! The fast executor against an independent naive reference and against its own serial path:
//! many shapes (zero-size, rank 0, odd sizes, every row kind), every element size, strings,
//! pools of 1, 2, 3 and 5 threads, and chunks cut at odd places with the test-only knob.
//!
//! The reference maps every output index to its source index with `plan.axis_strides()`
//! (one division per axis per element), written here from the definition in `StridePlan`'s
//! docs, and shares no code with the executor.

use bcast::exec::{with_tuning, Context, FillStores, RowCopies, Strategy, StreamedRows, Tuning};
use bcast::{
    broadcast_into_with, broadcast_with, plan, run_plan, BroadcastError, Element, Mode,
    Parallelism, StridePlan,
};
use half::f16;
use ndarray::{ArrayD, IxDyn};
use rayon::{ThreadPool, ThreadPoolBuilder};

/// Output element `i` (row-major) reads source element `sum(index[k] * axis_strides[k])`.
fn naive<T: Clone>(plan: &StridePlan, src: &[T]) -> Vec<T> {
    let shape = plan.output_shape();
    let strides = plan.axis_strides();
    (0..plan.len())
        .map(|flat| {
            let mut rest = flat;
            let mut at = 0;
            for k in (0..shape.len()).rev() {
                at += (rest % shape[k]) * strides[k];
                rest /= shape[k];
            }
            src[at].clone()
        })
        .collect()
}

/// Test values: distinct per position, with every bit pattern class (for floats: NaNs with
/// payloads, -0.0, infinities).
trait Sample: Element {
    fn sample(i: usize) -> Self;
    /// Equality by bits.
    fn same(a: &Self, b: &Self) -> bool;
}

fn mix(i: usize) -> u64 {
    let mut z = (i as u64).wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

macro_rules! sample_int {
    ($($t:ty),*) => {$(
        impl Sample for $t {
            fn sample(i: usize) -> Self { mix(i) as $t }
            fn same(a: &Self, b: &Self) -> bool { a == b }
        }
    )*};
}
sample_int!(u8, u16, u32, u64, i8, i64);

impl Sample for bool {
    fn sample(i: usize) -> Self {
        mix(i) & 1 == 1
    }
    fn same(a: &Self, b: &Self) -> bool {
        a == b
    }
}
impl Sample for f32 {
    fn sample(i: usize) -> Self {
        f32::from_bits(mix(i) as u32)
    }
    fn same(a: &Self, b: &Self) -> bool {
        a.to_bits() == b.to_bits()
    }
}
impl Sample for f64 {
    fn sample(i: usize) -> Self {
        f64::from_bits(mix(i))
    }
    fn same(a: &Self, b: &Self) -> bool {
        a.to_bits() == b.to_bits()
    }
}
impl Sample for f16 {
    fn sample(i: usize) -> Self {
        f16::from_bits(mix(i) as u16)
    }
    fn same(a: &Self, b: &Self) -> bool {
        a.to_bits() == b.to_bits()
    }
}
impl Sample for String {
    fn sample(i: usize) -> Self {
        // Lengths 0..=40, so some clones allocate and some do not.
        let len = (mix(i) % 41) as usize;
        (0..len)
            .map(|k| char::from(b'a' + ((i + k) % 26) as u8))
            .collect()
    }
    fn same(a: &Self, b: &Self) -> bool {
        a == b
    }
}

fn source<T: Sample>(shape: &[usize], seed: usize) -> ArrayD<T> {
    let n = shape.iter().product::<usize>();
    let values = (0..n).map(|i| T::sample(seed * 1_000_003 + i)).collect();
    ArrayD::from_shape_vec(IxDyn(shape), values).unwrap()
}

fn assert_same<T: Sample>(got: &[T], want: &[T], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    if let Some(i) = (0..got.len()).find(|&i| !T::same(&got[i], &want[i])) {
        panic!(
            "{what}: element {i} differs: got {:?}, want {:?}",
            got[i], want[i]
        );
    }
}

fn pools() -> Vec<ThreadPool> {
    [1, 2, 3, 5]
        .iter()
        .map(|&n| ThreadPoolBuilder::new().num_threads(n).build().unwrap())
        .collect()
}

/// Runs one spec every way (serial, each pool, with `chunks` as forced chunk sizes and with
/// the default chunking; allocating and into a caller buffer) and checks each result against
/// the naive reference.
fn check_spec<T: Sample>(
    data_shape: &[usize],
    target: &[usize],
    mode: &Mode,
    pools: &[ThreadPool],
    chunks: &[usize],
    seed: usize,
) {
    let plan = plan(data_shape, target, mode).unwrap();
    let data = source::<T>(data_shape, seed);
    let src = data.as_slice().unwrap();
    let want = naive(&plan, src);
    let what = |how: &str| format!("{data_shape:?} -> {target:?} {mode} {how}");

    let serial = run_plan(&plan, data.view(), Parallelism::Serial).unwrap();
    assert_same(serial.as_slice().unwrap(), &want, &what("serial"));
    assert_eq!(serial.shape(), plan.output_shape());
    // The streaming-store path (an L1 window streamed out), forced whatever the size.
    let streaming = Tuning {
        stream_stores: Some(true),
        ..Tuning::default()
    };
    let got = with_tuning(streaming, || {
        run_plan(&plan, data.view(), Parallelism::Serial)
    });
    assert_same(
        got.unwrap().as_slice().unwrap(),
        &want,
        &what("serial, streaming"),
    );

    for (p, pool) in pools.iter().enumerate() {
        let par = Parallelism::Pool(pool);
        let got = run_plan(&plan, data.view(), par).unwrap();
        assert_same(got.as_slice().unwrap(), &want, &what("default"));
        // The default chunking, whatever the output's size.
        let split_all = Tuning {
            serial_below_bytes: Some(0),
            ..Tuning::default()
        };
        let got = with_tuning(split_all, || run_plan(&plan, data.view(), par)).unwrap();
        assert_same(got.as_slice().unwrap(), &want, &what("default chunks"));
        let split_streaming = Tuning {
            stream_stores: Some(true),
            ..split_all
        };
        let got = with_tuning(split_streaming, || run_plan(&plan, data.view(), par)).unwrap();
        assert_same(
            got.as_slice().unwrap(),
            &want,
            &what("default chunks, streaming"),
        );
        for (c, &chunk) in chunks.iter().enumerate() {
            // Every other chunking also takes the streaming-store path.
            let stream = (p + c / 2) % 2 == 1;
            let tuning = Tuning {
                chunk_elems: Some(chunk),
                stream_stores: Some(stream),
                ..Tuning::default()
            };
            let threads = pool.current_num_threads();
            let how = format!("{threads} threads, chunks of {chunk}, streaming {stream}");
            // Alternate between the allocating path and a caller buffer (pre-filled with
            // other values, so an unwritten slot shows).
            if (p + c) % 2 == 0 {
                let got = with_tuning(tuning, || run_plan(&plan, data.view(), par)).unwrap();
                assert_same(got.as_slice().unwrap(), &want, &what(&how));
            } else {
                let other = (0..plan.len()).map(|i| T::sample(i + 777_777)).collect();
                let mut out = ArrayD::from_shape_vec(IxDyn(plan.output_shape()), other).unwrap();
                with_tuning(tuning, || {
                    broadcast_into_with(data.view(), target, mode, out.view_mut(), par)
                })
                .unwrap();
                assert_same(out.as_slice().unwrap(), &want, &what(&how));
            }
        }
    }
}

/// Specs that reach every row kind: fills, copies, short fills under copies, short blocks
/// tiled under broadcasts, whole-output scalars, zero-size and one-element outputs.
fn handpicked() -> Vec<(Vec<usize>, Vec<usize>, Mode)> {
    let np = |d: &[usize], t: &[usize]| (d.to_vec(), t.to_vec(), Mode::Numpy);
    vec![
        np(&[], &[]),
        np(&[], &[1, 1]),
        np(&[], &[3, 4]),
        np(&[], &[1000]),
        np(&[1], &[0]),
        np(&[3, 1], &[3, 0]),
        np(&[0, 1], &[0, 5]),
        np(&[3, 1], &[3, 4]),
        np(&[3, 1], &[2, 3, 4]),
        np(&[3, 1], &[1000, 3, 4]),
        np(&[1, 3], &[1000, 3]),
        np(&[1, 1, 3], &[1, 97, 101, 3]),
        np(&[5, 1], &[5, 2000]),
        np(&[5, 1], &[5, 129]),
        np(&[129, 1], &[129, 3]),
        np(&[257, 1], &[257, 16]),
        np(&[13, 1], &[13, 7]),
        np(&[1000], &[37, 1000]),
        np(&[2, 1, 5], &[2, 7, 5]),
        np(&[3, 1, 300], &[3, 9, 300]),
        np(&[7], &[7]),
        np(&[2, 3, 5], &[2, 3, 5]),
        np(&[2, 1, 3, 1], &[2, 6, 3, 7]),
        np(&[2, 1, 3, 1, 4, 1], &[2, 6, 3, 7, 4, 8]),
        np(&[1, 512, 1], &[3, 512, 9]),
        np(&[64, 1, 1], &[1, 64, 7, 9]),
        (
            vec![64],
            vec![1, 64, 5, 5],
            Mode::Explicit {
                axes_mapping: vec![1],
            },
        ),
        (vec![64, 1, 1], vec![4, 1, 5, 6], Mode::Bidirectional),
        (vec![51, 1], vec![2, 51, 4, 4], Mode::Pdpd { axis: 1 }),
        (
            vec![33],
            vec![33, 65],
            Mode::Axes {
                broadcast_axes: vec![1],
            },
        ),
    ]
}

fn check_all_types(
    d: &[usize],
    t: &[usize],
    m: &Mode,
    pools: &[ThreadPool],
    chunks: &[usize],
    seed: usize,
) {
    check_spec::<u8>(d, t, m, pools, chunks, seed);
    check_spec::<bool>(d, t, m, pools, chunks, seed);
    check_spec::<u16>(d, t, m, pools, chunks, seed);
    check_spec::<f16>(d, t, m, pools, chunks, seed);
    check_spec::<f32>(d, t, m, pools, chunks, seed);
    check_spec::<u32>(d, t, m, pools, chunks, seed);
    check_spec::<f64>(d, t, m, pools, chunks, seed);
    check_spec::<i64>(d, t, m, pools, chunks, seed);
    check_spec::<String>(d, t, m, pools, chunks, seed);
}

#[test]
fn handpicked_specs_match_the_reference_for_every_type_pool_and_chunking() {
    let pools = pools();
    for (i, (d, t, m)) in handpicked().iter().enumerate() {
        check_all_types(d, t, m, &pools, &[1, 2, 3, 7, 64, 1001], i);
    }
}

/// A target shape and a numpy-compatible data shape drawn from `seed`; dims mix 1s, small odd
/// sizes and the occasional long axis so every row kind and odd chunk edges come up.
fn random_spec(seed: usize) -> (Vec<usize>, Vec<usize>) {
    let mut r = seed as u64;
    let mut next = |n: u64| {
        r = mix(r as usize);
        r % n
    };
    let rank = next(6) as usize;
    let target: Vec<usize> = (0..rank)
        .map(|_| match next(10) {
            0 => 1,
            1 => 0,
            2 => 100 + next(200) as usize,
            _ => 2 + next(9) as usize,
        })
        .collect();
    // Keep outputs small: rescale when the product gets large.
    let target: Vec<usize> = if target.iter().product::<usize>() > 60_000 {
        target.iter().map(|&d| d.min(9)).collect()
    } else {
        target
    };
    let data_rank = next(rank as u64 + 1) as usize;
    let data = target[rank - data_rank..]
        .iter()
        .map(|&d| if next(3) == 0 { 1 } else { d })
        .collect();
    (data, target)
}

#[test]
fn random_specs_match_the_reference_on_odd_chunks() {
    let pools = pools();
    for seed in 0..150 {
        let (d, t) = random_spec(seed);
        let chunk = [1, 5, 13, 100, 333][seed % 5];
        let pool = &pools[seed % pools.len()..=seed % pools.len()];
        check_spec::<u8>(&d, &t, &Mode::Numpy, pool, &[chunk], seed);
        check_spec::<u16>(&d, &t, &Mode::Numpy, pool, &[chunk], seed);
        check_spec::<f32>(&d, &t, &Mode::Numpy, pool, &[chunk], seed);
        check_spec::<u64>(&d, &t, &Mode::Numpy, pool, &[chunk], seed);
        if seed % 3 == 0 {
            check_spec::<String>(&d, &t, &Mode::Numpy, pool, &[chunk], seed);
        }
    }
}

/// Outputs large enough for several default-sized chunks (split whatever their size, see
/// `check_spec`).
#[test]
fn large_outputs_match_the_reference_with_default_chunking() {
    let pools = pools();
    let specs: Vec<(Vec<usize>, Vec<usize>, Mode)> = vec![
        (vec![1, 1, 3], vec![1, 512, 511, 3], Mode::Numpy),
        (vec![7, 1, 13], vec![9, 7, 301, 13], Mode::Numpy),
        (vec![64, 1, 1], vec![1, 64, 61, 67], Mode::Numpy),
        (vec![3, 1], vec![20_001, 3, 5], Mode::Numpy),
        (vec![], vec![300_007], Mode::Numpy),
        (
            vec![2047],
            vec![2047, 65],
            Mode::Axes {
                broadcast_axes: vec![1],
            },
        ),
    ];
    for (i, (d, t, m)) in specs.iter().enumerate() {
        check_spec::<u8>(d, t, m, &pools, &[], i);
        check_spec::<u16>(d, t, m, &pools, &[], i);
        check_spec::<f32>(d, t, m, &pools, &[], i);
        check_spec::<f64>(d, t, m, &pools, &[], i);
    }
    check_spec::<String>(&[100], &[301, 100], &Mode::Numpy, &pools, &[], 9);
}

/// An output above the real serial threshold, with no knob at all.
#[test]
fn an_output_above_the_serial_threshold_matches_the_reference() {
    let pool = ThreadPoolBuilder::new().num_threads(3).build().unwrap();
    // 64 * 129 * 129 f32 = 4.26 MB, above the 4 MiB threshold.
    let plan = plan(&[64, 1, 1], &[1, 64, 129, 129], &Mode::Numpy).unwrap();
    let data = source::<f32>(&[64, 1, 1], 3);
    let want = naive(&plan, data.as_slice().unwrap());
    let got = run_plan(&plan, data.view(), Parallelism::Pool(&pool)).unwrap();
    assert_same(got.as_slice().unwrap(), &want, "above the threshold");
}

#[test]
fn auto_parallelism_matches_the_reference() {
    let plan = plan(&[1, 3], &[100_003, 3], &Mode::Numpy).unwrap();
    let data = source::<u32>(&[1, 3], 5);
    let want = naive(&plan, data.as_slice().unwrap());
    let got = run_plan(&plan, data.view(), Parallelism::Auto).unwrap();
    assert_same(got.as_slice().unwrap(), &want, "auto");
}

fn injected_panic(chunk: usize) -> Tuning {
    Tuning {
        chunk_elems: Some(64),
        panic_in_chunk: Some(chunk),
        ..Tuning::default()
    }
}

#[test]
fn a_worker_panic_in_the_allocating_path_returns_an_error_and_no_array() {
    let pool = ThreadPoolBuilder::new().num_threads(3).build().unwrap();
    let data = source::<f32>(&[7, 1], 1);
    let r = with_tuning(injected_panic(5), || {
        broadcast_with(
            data.view(),
            &[7, 300],
            &Mode::Numpy,
            Parallelism::Pool(&pool),
        )
    });
    match r {
        Err(BroadcastError::WorkerPanicked { reason }) => {
            assert!(reason.contains("injected"), "{reason}")
        }
        other => panic!("expected WorkerPanicked, got {other:?}"),
    }
}

#[test]
fn a_worker_panic_into_a_caller_buffer_is_an_error() {
    let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let data = source::<String>(&[3], 1);
    let mut out = ArrayD::<String>::default(IxDyn(&[100, 3]));
    let r = with_tuning(injected_panic(0), || {
        broadcast_into_with(
            data.view(),
            &[100, 3],
            &Mode::Numpy,
            out.view_mut(),
            Parallelism::Pool(&pool),
        )
    });
    assert!(matches!(r, Err(BroadcastError::WorkerPanicked { .. })));
}

#[test]
fn serial_never_splits_even_with_the_knob() {
    // With a panic injected in chunk 0, only a split run can panic.
    let data = source::<u8>(&[3, 1], 1);
    let r = with_tuning(injected_panic(0), || {
        broadcast_with(data.view(), &[3, 1000], &Mode::Numpy, Parallelism::Serial)
    });
    assert!(r.is_ok());
}

/// A view with axes of stride 0 (ndarray's own `broadcast`) is read as it is: never expanded
/// into a row-major copy first. The values match a broadcast of the one-value source.
#[test]
fn a_stride_0_view_is_read_without_expanding_it() {
    let base = ArrayD::from_shape_vec(IxDyn(&[3, 1]), vec![1u16, 2, 3]).unwrap();
    let view = base.broadcast(IxDyn(&[2, 3, 5])).unwrap();
    assert!(view.strides().contains(&0));
    let want = bcast::broadcast(base.view(), &[4, 2, 3, 5], &Mode::Numpy).unwrap();
    for par in [Parallelism::Serial, Parallelism::Auto] {
        let got = broadcast_with(view.view(), &[4, 2, 3, 5], &Mode::Numpy, par).unwrap();
        assert_eq!(got, want);
        let mut out = ArrayD::<u16>::zeros(IxDyn(&[4, 2, 3, 5]));
        broadcast_into_with(
            view.view(),
            &[4, 2, 3, 5],
            &Mode::Numpy,
            out.view_mut(),
            par,
        )
        .unwrap();
        assert_eq!(out, want);
    }
    // Explicit axes: the repeated axis is mapped, not new.
    let got = broadcast_with(
        view.view(),
        &[2, 7, 3, 5],
        &Mode::Explicit {
            axes_mapping: vec![0, 2, 3],
        },
        Parallelism::Serial,
    )
    .unwrap();
    assert!(got.indexed_iter().all(|(i, &v)| v == base[[i[2], 0]]));
}

/// Issue 14: a `[2^24, 2^24]` view of one value used to abort in the row-major copy of the
/// input (a PiB). Now the input is one element and the output's allocation fails cleanly.
#[test]
fn a_huge_stride_0_view_is_an_allocation_error_not_an_abort() {
    let one = ArrayD::from_elem(IxDyn(&[1]), 1.5f32);
    let n = 1usize << 24;
    let view = one.broadcast(IxDyn(&[n, n])).unwrap();
    let r = bcast::broadcast(view.view(), &[n, n], &Mode::Numpy);
    assert!(matches!(r, Err(BroadcastError::Allocation { .. })), "{r:?}");
    let r = bcast::broadcast(view.view(), &[1, n, n], &Mode::Bidirectional);
    assert!(matches!(r, Err(BroadcastError::Allocation { .. })), "{r:?}");
}

/// Every store strategy (each value of each choice, whatever this CPU's table picks) writes
/// what the naive reference says, on the ordinary and the streaming path, serially and split
/// into chunks that start mid-line: long fills (`rep stos` or vector), long row copies
/// (`memcpy` or the line loop), streamed rows (window or direct) and their heads and tails.
#[test]
fn every_store_strategy_matches_the_reference() {
    let pool = std::sync::Arc::new(ThreadPoolBuilder::new().num_threads(2).build().unwrap());
    let mut specs = handpicked();
    specs.extend([
        (vec![5, 1], vec![5, 3001], Mode::Numpy),
        (vec![3, 1], vec![2, 3, 1500], Mode::Numpy),
        (vec![4001], vec![3, 4001], Mode::Numpy),
        (vec![1, 2000], vec![7, 2000], Mode::Numpy),
        (vec![], vec![70_001], Mode::Numpy),
        (vec![64, 1, 1], vec![1, 64, 33, 35], Mode::Numpy),
    ]);
    for fill in [FillStores::RepStos, FillStores::Vector] {
        for row_copy in [RowCopies::Memcpy, RowCopies::Lines] {
            for streamed_rows in [StreamedRows::Window, StreamedRows::Direct] {
                let strategy = Strategy {
                    fill,
                    row_copy,
                    streamed_rows,
                    prefetch_ahead: 0,
                    prefetch_writes: 0,
                    wide_eltwise: false,
                    wide_eltwise_from: 0,
                    arithmetic: bcast::exec::ArithmeticWidth::Baseline,
                    register_chains: false,
                    native_f16: false,
                    f16_avx512: false,
                    stream_eltwise: false,
                    select_width: bcast::exec::ArithmeticWidth::Baseline,
                    pool_handoff_from: usize::MAX,
                };
                let on = [
                    Context::serial().with_strategy(strategy),
                    Context::pool(std::sync::Arc::clone(&pool)).with_strategy(strategy),
                ];
                for (i, (d, t, m)) in specs.iter().enumerate() {
                    check_strategy::<u8>(d, t, m, &on, i, &strategy);
                    check_strategy::<u16>(d, t, m, &on, i, &strategy);
                    check_strategy::<f32>(d, t, m, &on, i, &strategy);
                    check_strategy::<f64>(d, t, m, &on, i, &strategy);
                }
            }
        }
    }
}

fn check_strategy<T: Sample>(
    data_shape: &[usize],
    target: &[usize],
    mode: &Mode,
    contexts: &[Context],
    seed: usize,
    strategy: &Strategy,
) {
    let plan = plan(data_shape, target, mode).unwrap();
    let data = source::<T>(data_shape, seed);
    let want = naive(&plan, data.as_slice().unwrap());
    for stream in [false, true] {
        for chunk in [None, Some(1001)] {
            let tuning = Tuning {
                stream_stores: Some(stream),
                serial_below_bytes: Some(0),
                chunk_elems: chunk,
                ..Tuning::default()
            };
            for ctx in contexts {
                let par = ctx.parallelism();
                let got = with_tuning(tuning, || run_plan(&plan, data.view(), par)).unwrap();
                let how = format!(
                    "{data_shape:?} -> {target:?} {mode}, {strategy}, streaming {stream}, \
                     chunks {chunk:?}, {par:?}"
                );
                assert_same(got.as_slice().unwrap(), &want, &how);
            }
        }
    }
}
