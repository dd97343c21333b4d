//! Plans of rank 7 to 12, around and past the rank a plan keeps inline (8), for every mode,
//! against the naive SONNX reference in `common/mod.rs`: the heap fallback of the plan's
//! lists must give the same plans and values as the inline storage.

mod common;

use bcast::planners::plan_multi;
use bcast::{broadcast, broadcast_all, broadcast_into, plan, Mode};
use ndarray::{ArrayD, IxDyn};

/// An output shape of rank `r` with dims 1, 2 and 3 (at most a few thousand elements).
fn output_of_rank(r: usize) -> Vec<usize> {
    (0..r).map(|k| [2, 1, 3, 2, 1, 2][k % 6]).collect()
}

/// Specs of every mode whose output has rank `r`, valid by construction (the reference
/// agrees below, so a spec that is not valid fails the test rather than being skipped).
fn specs(r: usize) -> Vec<(Vec<usize>, Vec<usize>, Mode)> {
    let out = output_of_rank(r);
    // Data of the output's rank, repeated along every third axis.
    let stretched: Vec<usize> = out
        .iter()
        .enumerate()
        .map(|(k, &d)| if k % 3 == 0 { 1 } else { d })
        .collect();
    // The output axes explicit mode maps (every other one), and the rest.
    let mapped: Vec<usize> = (0..r).step_by(2).collect();
    let new: Vec<usize> = (0..r).filter(|k| k % 2 == 1).collect();
    let mapped_data: Vec<usize> = mapped
        .iter()
        .enumerate()
        .map(|(i, &k)| if i % 3 == 2 { 1 } else { out[k] })
        .collect();
    // Bidirectional: the target keeps the output's dims where the data has a 1, and has a
    // 1 where the data already has the output's dim; it is three axes shorter.
    let bidi_target: Vec<usize> = out[3..]
        .iter()
        .zip(&stretched[3..])
        .map(|(&o, &s)| if s == 1 { o } else { 1 })
        .collect();
    // PDPD: the output's dims from axis 2 on, less its last two, plus a trailing 1.
    let mut pdpd_data = out[2..r - 2].to_vec();
    pdpd_data.push(1);
    vec![
        (stretched[2..].to_vec(), out.clone(), Mode::Numpy),
        (stretched.clone(), out.clone(), Mode::Numpy),
        (stretched.clone(), bidi_target, Mode::Bidirectional),
        (
            mapped_data,
            out.clone(),
            Mode::Explicit {
                axes_mapping: mapped.clone(),
            },
        ),
        (pdpd_data, out.clone(), Mode::Pdpd { axis: 2 }),
        (
            mapped.iter().map(|&k| out[k]).collect(),
            out.clone(),
            Mode::Axes {
                broadcast_axes: new,
            },
        ),
    ]
}

fn values(n: usize) -> Vec<u32> {
    (0..n).map(|i| 0x0101_0000 + i as u32).collect()
}

#[test]
fn every_mode_at_ranks_around_the_inline_limit_matches_the_reference() {
    for r in 7..=12 {
        for (data, target, mode) in specs(r) {
            let (aligned, out_shape) = common::aligned(&data, &target, &mode)
                .unwrap_or_else(|| panic!("test spec not valid: {data:?} {target:?} {mode}"));
            let src = values(data.iter().product());
            let want = common::expand(&src, &aligned, &out_shape);
            let x = ArrayD::from_shape_vec(IxDyn(&data), src).unwrap();

            let got = broadcast(x.view(), &target, &mode).unwrap();
            assert_eq!(got.shape(), &out_shape[..], "{data:?} {target:?} {mode}");
            assert_eq!(got.iter().copied().collect::<Vec<_>>(), want, "{mode}");

            let mut into = ArrayD::<u32>::zeros(IxDyn(&out_shape));
            broadcast_into(x.view(), &target, &mode, into.view_mut()).unwrap();
            assert_eq!(into.iter().copied().collect::<Vec<_>>(), want, "{mode}");
        }
    }
}

#[test]
fn a_rank_ten_plan_lists_what_the_rule_says() {
    // [2,1,3] against ten axes: seven new ones, then 2 kept, 1 stretched to 5, 3 kept.
    let target = [2, 1, 2, 1, 2, 1, 2, 2, 5, 3];
    let p = plan(&[2, 1, 3], &target, &Mode::Numpy).unwrap();
    assert_eq!(p.source_shape(), &[2, 1, 3]);
    assert_eq!(p.output_shape(), &target);
    assert_eq!(p.axis_strides(), &[0, 0, 0, 0, 0, 0, 0, 3, 0, 1]);
    let mut axes = vec![None; 7];
    axes.extend([Some(0), None, Some(2)]);
    assert_eq!(p.source_axes(), &axes[..]);
    // Size-1 axes dropped; the four new 2s merge into one 16 (strides chain as 0 == 0 * 2).
    assert_eq!(p.dims(), &[16, 2, 5, 3]);
    assert_eq!(p.strides(), &[0, 3, 0, 1]);
    assert_eq!(p.len(), 16 * 2 * 5 * 3);
    assert_eq!(p.source_len(), 6);
    assert_eq!(p.broadcast_axes(), vec![0, 2, 4, 6, 8]);
}

#[test]
fn n_ary_at_rank_eleven_matches_the_common_shape_and_the_reference() {
    let a = output_of_rank(11);
    let b: Vec<usize> = a[2..]
        .iter()
        .enumerate()
        .map(|(k, &d)| if k % 2 == 0 { 1 } else { d })
        .collect();
    let shapes = [a.clone(), b.clone()];
    let common_shape = common::common_shape(&shapes).unwrap();
    let plans = plan_multi(&[&a, &b]).unwrap();
    assert!(plans.iter().all(|p| p.output_shape() == &common_shape[..]));

    let xs: Vec<ArrayD<u32>> = shapes
        .iter()
        .map(|s| ArrayD::from_shape_vec(IxDyn(s), values(s.iter().product())).unwrap())
        .collect();
    let views: Vec<_> = xs.iter().map(|x| x.view()).collect();
    let got = broadcast_all(&views).unwrap();
    for (s, g) in shapes.iter().zip(&got) {
        let (aligned, out) = common::aligned(s, &common_shape, &Mode::Numpy).unwrap();
        let want = common::expand(&values(s.iter().product()), &aligned, &out);
        assert_eq!(g.iter().copied().collect::<Vec<_>>(), want);
    }
}

#[test]
fn high_rank_errors_are_still_typed() {
    let mut data = vec![1; 12];
    data[5] = 3;
    let mut target = vec![2; 12];
    target[5] = 4;
    let e = plan(&data, &target, &Mode::Numpy).unwrap_err();
    assert_eq!(
        e.to_string(),
        "numpy broadcast: data dim 3 at axis 5 cannot become 4 (must be 1 or 4); data shape [1,1,1,1,1,3,1,1,1,1,1,1], target shape [2,2,2,2,2,4,2,2,2,2,2,2]"
    );
}
