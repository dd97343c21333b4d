//! Zero-copy views: element for element equal to the materialised broadcast and to a naive
//! gather written from each mode's rule, for every mode and any input layout.

mod plan_space;

use bcast::{broadcast, broadcast_view, broadcast_views, view_plan, BroadcastError, Mode};
use ndarray::{array, Array, ArrayD, ArrayViewD, IxDyn, Slice, Zip};
use plan_space::{any_case, unravel, Case};
use proptest::prelude::*;

/// The data values, row-major: element i is `i * 7 + 1` so every element is distinct.
fn logical(shape: &[usize]) -> ArrayD<i64> {
    let n: usize = shape.iter().product();
    Array::from_shape_vec(IxDyn(shape), (0..n as i64).map(|i| i * 7 + 1).collect()).unwrap()
}

/// The same values laid out in memory in some other way.
#[derive(Debug, Clone, Copy)]
enum Layout {
    RowMajor,
    Transposed,
    EveryOther,
    Reversed,
}

/// Holds memory in `layout` whose view has the logical values of `shape`.
fn stored(shape: &[usize], layout: Layout) -> (ArrayD<i64>, Layout) {
    let values = logical(shape);
    let store = match layout {
        Layout::RowMajor => values,
        Layout::Transposed => {
            let rev: Vec<usize> = shape.iter().rev().copied().collect();
            let mut t = ArrayD::<i64>::zeros(IxDyn(&rev));
            t.view_mut().reversed_axes().assign(&values);
            t
        }
        Layout::EveryOther | Layout::Reversed => {
            let big: Vec<usize> = shape.iter().map(|&d| 2 * d).collect();
            let mut b = ArrayD::<i64>::zeros(IxDyn(&big));
            b.slice_each_axis_mut(|_| slice_of(layout)).assign(&values);
            b
        }
    };
    (store, layout)
}

fn slice_of(layout: Layout) -> Slice {
    match layout {
        Layout::Reversed => Slice::new(0, None, -2),
        _ => Slice::new(0, None, 2),
    }
}

fn view_of((store, layout): &(ArrayD<i64>, Layout)) -> ArrayViewD<'_, i64> {
    match layout {
        Layout::RowMajor => store.view(),
        Layout::Transposed => store.view().reversed_axes(),
        Layout::EveryOther | Layout::Reversed => store.slice_each_axis(|_| slice_of(*layout)),
    }
}

fn naive_broadcast(case: &Case, data: &ArrayD<i64>) -> ArrayD<i64> {
    let flat: Vec<i64> = data.iter().copied().collect();
    let n = case.output_len();
    let values = (0..n)
        .map(|i| flat[case.source_of(&unravel(i, &case.output_shape))])
        .collect();
    Array::from_shape_vec(IxDyn(&case.output_shape), values).unwrap()
}

fn check_case(case: &Case, layout: Layout) {
    let held = stored(&case.data_shape, layout);
    let data = view_of(&held);
    assert_eq!(data, logical(&case.data_shape).view());
    let seen = broadcast_view(data.clone(), &case.target_shape, &case.mode).unwrap();
    let expected = naive_broadcast(case, &logical(&case.data_shape));
    assert_eq!(seen.shape(), case.output_shape.as_slice());
    assert_eq!(seen, expected.view(), "{case:?} {layout:?}");
    let copied = broadcast(data, &case.target_shape, &case.mode).unwrap();
    assert_eq!(seen, copied.view());
    // No copy: a non-empty view reads the data's own memory.
    if !seen.is_empty() {
        let lo = held.0.as_ptr() as usize;
        let hi = lo + held.0.len() * std::mem::size_of::<i64>();
        for e in seen.iter() {
            let p = e as *const i64 as usize;
            assert!(p >= lo && p < hi);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn view_equals_broadcast_for_every_mode_and_layout(case in any_case(), layout in 0usize..4) {
        let layout = [Layout::RowMajor, Layout::Transposed, Layout::EveryOther, Layout::Reversed][layout];
        check_case(&case, layout);
    }
}

#[test]
fn broadcast_axes_get_stride_zero() {
    let x = array![[1.0f32], [2.0], [3.0]].into_dyn();
    let v = broadcast_view(x.view(), &[2, 1, 6], &Mode::Bidirectional).unwrap();
    assert_eq!(v.shape(), &[2, 3, 6]);
    assert_eq!(v.strides(), &[0, 1, 0]);
}

#[test]
fn pdpd_trailing_ones_of_the_data_are_not_an_axis_of_the_view() {
    let x = array![[1i32], [2], [3], [4], [5]].into_dyn();
    let v = broadcast_view(x.view(), &[2, 3, 4, 5], &Mode::Pdpd { axis: 3 }).unwrap();
    assert_eq!(v.strides(), &[0, 0, 0, 1]);
    assert_eq!(v[IxDyn(&[1, 2, 3, 4])], 5);
}

#[test]
fn reversed_data_is_seen_in_logical_order() {
    let x = array![1u8, 2, 3];
    let rev = x.slice(ndarray::s![..;-1]).into_dyn();
    let v = broadcast_view(rev, &[2, 3], &Mode::Numpy).unwrap();
    assert_eq!(v, array![[3u8, 2, 1], [3, 2, 1]].into_dyn());
}

#[test]
fn strings_can_be_viewed_too() {
    let x = array!["a".to_string(), "b".to_string()].into_dyn();
    let v = broadcast_view(
        x.view(),
        &[2, 2],
        &Mode::Axes {
            broadcast_axes: vec![1],
        },
    )
    .unwrap();
    assert_eq!(v[IxDyn(&[1, 0])], "b");
    assert_eq!(v[IxDyn(&[1, 1])], "b");
}

#[test]
fn a_stretched_one_to_zero_is_an_empty_view() {
    let x = array![[7i16, 8, 9]].into_dyn();
    let v = broadcast_view(x.view(), &[0, 3], &Mode::Numpy).unwrap();
    assert_eq!(v.shape(), &[0, 3]);
    assert_eq!(v.iter().count(), 0);
}

#[test]
fn rule_violations_are_errors() {
    let x = array![1.0f64, 2.0, 3.0].into_dyn();
    assert!(matches!(
        broadcast_view(x.view(), &[2, 4], &Mode::Numpy),
        Err(BroadcastError::DimMismatch { .. })
    ));
    let plan = bcast::planners::plan_numpy(&[2], &[3, 2]).unwrap();
    assert!(matches!(
        view_plan(&plan, x.view()),
        Err(BroadcastError::SourceShape { .. })
    ));
    assert_eq!(
        broadcast_views::<f64>(&[]).unwrap_err(),
        BroadcastError::NoInputs
    );
}

#[test]
fn zip_adds_differently_shaped_inputs_through_views() {
    // SONNX N-ary: [2,1,3] + [4,1] + scalar, materialising nothing.
    let a = Array::from_shape_fn(IxDyn(&[2, 1, 3]), |i| (i[0] * 10 + i[2]) as i64);
    let b = Array::from_shape_fn(IxDyn(&[4, 1]), |i| (i[0] * 100) as i64);
    let c = array![1000i64]
        .into_dyn()
        .into_shape_with_order(IxDyn(&[]))
        .unwrap();
    let views = broadcast_views(&[a.view(), b.view(), c.view()]).unwrap();
    assert_eq!(views[0].shape(), &[2, 4, 3]);
    let mut sum = ArrayD::<i64>::zeros(IxDyn(&[2, 4, 3]));
    Zip::from(&mut sum)
        .and(&views[0])
        .and(&views[1])
        .and(&views[2])
        .for_each(|s, &x, &y, &z| *s = x + y + z);
    for i in 0..2 {
        for j in 0..4 {
            for k in 0..3 {
                assert_eq!(sum[[i, j, k]], (i * 10 + k + j * 100 + 1000) as i64);
            }
        }
    }
}
