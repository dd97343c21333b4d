//! Every example of the seed specs, with the specs' own expected shapes and values.
//!
//! Sources: OpenVINO's broadcast-rules page (numpy, PDPD and bidirectional example lists),
//! the Broadcast-3 IR examples, OpenVINO's op_reference / eval value tests, nGraph's v0
//! Broadcast examples and the SONNX N-ary definition.

use bcast::{broadcast, broadcast_all, broadcast_shapes, output_shape, BroadcastError, Mode};
use ndarray::{ArrayD, IxDyn};

fn iota(shape: &[usize]) -> ArrayD<f32> {
    let n: usize = shape.iter().product();
    ArrayD::from_shape_vec(IxDyn(shape), (0..n).map(|v| v as f32).collect()).unwrap()
}

fn explicit(axes: &[usize]) -> Mode {
    Mode::Explicit {
        axes_mapping: axes.to_vec(),
    }
}

/// Two shapes and the result the spec lists (`None`: no broadcast).
type ShapeCase<'a> = (&'a [usize], &'a [usize], Option<&'a [usize]>);

fn flat<T: Clone>(a: &ArrayD<T>) -> Vec<T> {
    a.iter().cloned().collect()
}

// ---- broadcast-rules.rst: numpy examples (element-wise, both directions) ----

#[test]
fn rules_numpy_examples_give_the_listed_result_shapes() {
    let cases: [ShapeCase; 11] = [
        (&[], &[], Some(&[])),
        (&[2, 3], &[1], Some(&[2, 3])),
        (&[3], &[2, 3], Some(&[2, 3])),
        (&[2, 3, 5], &[], Some(&[2, 3, 5])),
        (&[2, 1, 5], &[1, 4, 5], Some(&[2, 4, 5])),
        (&[6, 5], &[2, 1, 5], Some(&[2, 6, 5])),
        (&[2, 1, 5], &[4, 1], Some(&[2, 4, 5])),
        (&[3, 2, 1, 4], &[5, 4], Some(&[3, 2, 5, 4])),
        (&[1, 5, 3], &[5, 2, 1, 3], Some(&[5, 2, 5, 3])),
        (&[3], &[2], None),
        (&[3, 1, 5], &[4, 4, 5], None),
    ];
    for (a, b, want) in cases {
        match want {
            Some(r) => assert_eq!(broadcast_shapes(&[a, b]).unwrap(), r, "{a:?} {b:?}"),
            None => assert!(broadcast_shapes(&[a, b]).is_err(), "{a:?} {b:?}"),
        }
    }
}

#[test]
fn rules_numpy_examples_one_directional_where_data_fits_the_result() {
    // The Broadcast op's numpy mode is one-directional: B -> result shape works when B is
    // the smaller side; the result shape itself is the target.
    assert_eq!(
        output_shape(&[1], &[2, 3], &Mode::Numpy).unwrap(),
        vec![2, 3]
    );
    assert_eq!(
        output_shape(&[3], &[2, 3], &Mode::Numpy).unwrap(),
        vec![2, 3]
    );
    assert_eq!(
        output_shape(&[], &[2, 3, 5], &Mode::Numpy).unwrap(),
        vec![2, 3, 5]
    );
    assert_eq!(
        output_shape(&[4, 1], &[2, 4, 5], &Mode::Numpy).unwrap(),
        vec![2, 4, 5]
    );
    assert_eq!(
        output_shape(&[5, 4], &[3, 2, 5, 4], &Mode::Numpy).unwrap(),
        vec![3, 2, 5, 4]
    );
    assert!(output_shape(&[2], &[3], &Mode::Numpy).is_err());
    assert!(output_shape(&[4, 4, 5], &[3, 1, 5], &Mode::Numpy).is_err());
}

// ---- broadcast-rules.rst: PDPD examples (A is the target, B the data) ----

#[test]
fn rules_pdpd_examples() {
    let a = [2, 3, 4, 5];
    let ok: [(&[usize], i64); 8] = [
        (&[3, 4], 1),
        (&[3, 1], 1),
        (&[4, 5], -1),
        (&[4, 5], 2),
        (&[1, 3], 0),
        (&[], -1),
        (&[5], -1),
        (&[5], 3),
    ];
    for (b, axis) in ok {
        assert_eq!(
            output_shape(b, &a, &Mode::Pdpd { axis }).unwrap(),
            a.to_vec(),
            "{b:?} axis {axis}"
        );
    }
    assert!(output_shape(&[7, 1, 5], &[8, 1, 6, 1], &Mode::Pdpd { axis: 1 }).is_err());
}

#[test]
fn rules_pdpd_values_follow_the_start_axis() {
    // B (3,4) at axis 1 of (2,3,4,5): out[i,j,k,l] = B[j,k].
    let b = iota(&[3, 4]);
    let out = broadcast(b.view(), &[2, 3, 4, 5], &Mode::Pdpd { axis: 1 }).unwrap();
    for ((i, j, k, l), v) in [
        ((1, 2, 3, 4), 11.0),
        ((0, 1, 0, 2), 4.0),
        ((1, 0, 2, 0), 2.0),
    ] {
        assert_eq!(out[IxDyn(&[i, j, k, l])], v);
    }
}

// ---- broadcast-rules.rst: bidirectional examples (A is the data, B the target) ----

#[test]
fn rules_bidirectional_examples() {
    let cases: [(&[usize], &[usize], &[usize]); 5] = [
        (&[5], &[1], &[5]),
        (&[2, 3], &[3], &[2, 3]),
        (&[3, 1], &[3, 4], &[3, 4]),
        (&[3, 4], &[], &[3, 4]),
        (&[3, 1], &[2, 1, 6], &[2, 3, 6]),
    ];
    for (a, b, r) in cases {
        assert_eq!(
            output_shape(a, b, &Mode::Bidirectional).unwrap(),
            r,
            "{a:?} {b:?}"
        );
    }
}

// ---- Broadcast-3 IR examples ----

#[test]
fn broadcast3_example_1_numpy_channel_to_nchw() {
    let data = iota(&[16, 1, 1]);
    let out = broadcast(data.view(), &[1, 16, 50, 50], &Mode::Numpy).unwrap();
    assert_eq!(out.shape(), &[1, 16, 50, 50]);
    assert!(out.indexed_iter().all(|(ix, &v)| v == ix[1] as f32));
}

#[test]
fn broadcast3_example_2_explicit_vector_on_axis_1() {
    let data = iota(&[16]);
    let out = broadcast(data.view(), &[1, 16, 50, 50], &explicit(&[1])).unwrap();
    assert!(out.indexed_iter().all(|(ix, &v)| v == ix[1] as f32));
}

#[test]
fn broadcast3_example_3_explicit_matrix_on_axes_1_2() {
    let data = iota(&[50, 50]);
    let out = broadcast(data.view(), &[1, 50, 50, 16], &explicit(&[1, 2])).unwrap();
    assert_eq!(out.shape(), &[1, 50, 50, 16]);
    assert!(out
        .indexed_iter()
        .all(|(ix, &v)| v == (ix[1] * 50 + ix[2]) as f32));
}

#[test]
fn broadcast3_example_4_bidirectional() {
    let data = iota(&[16, 1, 1]);
    let out = broadcast(data.view(), &[1, 1, 50, 50], &Mode::Bidirectional).unwrap();
    assert_eq!(out.shape(), &[1, 16, 50, 50]);
    assert!(out.indexed_iter().all(|(ix, &v)| v == ix[1] as f32));
}

// ---- OpenVINO op_reference and eval value tests ----

#[test]
fn openvino_reference_numpy_values() {
    let six = ArrayD::from_elem(IxDyn(&[]), 6i32);
    for target in [&[4][..], &[2, 2], &[2, 2, 2]] {
        let out = broadcast(six.view(), target, &Mode::Numpy).unwrap();
        assert!(out.iter().all(|&v| v == 6) && out.shape() == target);
    }
    let m = ArrayD::from_shape_vec(IxDyn(&[2, 2]), vec![1i8, 2, 3, 4]).unwrap();
    let out = broadcast(m.view(), &[2, 2, 2], &Mode::Numpy).unwrap();
    assert_eq!(flat(&out), vec![1, 2, 3, 4, 1, 2, 3, 4]);
    let t =
        ArrayD::from_shape_vec(IxDyn(&[2, 2, 2]), vec![2u64, 4, 6, 8, 16, 32, 64, 127]).unwrap();
    assert_eq!(broadcast(t.view(), &[2, 2, 2], &Mode::Numpy).unwrap(), t);
}

#[test]
fn openvino_reference_explicit_values() {
    let six = ArrayD::from_elem(IxDyn(&[]), 6.0f64);
    // OpenVINO also allows a scalar with one mapped axis of target size 1; our rule gives a
    // scalar no axes, and the result is the same.
    assert_eq!(
        flat(&broadcast(six.view(), &[1, 2], &explicit(&[])).unwrap()),
        vec![6.0, 6.0]
    );
    let v3 = ArrayD::from_shape_vec(IxDyn(&[3]), vec![1u16, 2, 3]).unwrap();
    assert_eq!(
        flat(&broadcast(v3.view(), &[3, 4], &explicit(&[0])).unwrap()),
        vec![1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3]
    );
    let v4 = ArrayD::from_shape_vec(IxDyn(&[4]), vec![1i64, 2, 3, 4]).unwrap();
    assert_eq!(
        flat(&broadcast(v4.view(), &[3, 4], &explicit(&[1])).unwrap()),
        [1, 2, 3, 4].repeat(3)
    );
    let one = ArrayD::from_shape_vec(IxDyn(&[1]), vec![4u32]).unwrap();
    assert_eq!(
        flat(&broadcast(one.view(), &[3, 1], &explicit(&[1])).unwrap()),
        vec![4, 4, 4]
    );
    let m = ArrayD::from_shape_vec(IxDyn(&[2, 2]), vec![1i32, 2, 3, 4]).unwrap();
    assert_eq!(
        flat(&broadcast(m.view(), &[2, 2, 2], &explicit(&[0, 2])).unwrap()),
        vec![1, 2, 1, 2, 3, 4, 3, 4]
    );
    assert_eq!(
        flat(&broadcast(m.view(), &[2, 2, 2], &explicit(&[0, 1])).unwrap()),
        vec![1, 1, 2, 2, 3, 3, 4, 4]
    );
    let c = ArrayD::from_shape_vec(IxDyn(&[3, 1]), vec![1i32, 2, 3]).unwrap();
    assert_eq!(
        flat(&broadcast(c.view(), &[2, 3, 1], &explicit(&[1, 2])).unwrap()),
        vec![1, 2, 3, 1, 2, 3]
    );
}

#[test]
fn openvino_eval_bidirectional_values() {
    let v = ArrayD::from_shape_vec(IxDyn(&[4, 1]), vec![1.0f32, 2.0, 3.0, 4.0]).unwrap();
    let out = broadcast(v.view(), &[2, 1, 4], &Mode::Bidirectional).unwrap();
    assert_eq!(out.shape(), &[2, 4, 4]);
    let want: Vec<f32> = [
        1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0, 3.0, 3.0, 3.0, 3.0, 4.0, 4.0, 4.0, 4.0,
    ]
    .repeat(2);
    assert_eq!(flat(&out), want);

    let v = ArrayD::from_shape_vec(IxDyn(&[1, 4, 1]), vec![1i32, 2, 3, 4]).unwrap();
    let out = broadcast(v.view(), &[1, 1, 3], &Mode::Bidirectional).unwrap();
    assert_eq!(out.shape(), &[1, 4, 3]);
    assert_eq!(flat(&out), vec![1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4]);

    let ones = ArrayD::from_elem(IxDyn(&[1; 8]), 1u8);
    let out = broadcast(ones.view(), &[1, 3, 1, 1], &Mode::Bidirectional).unwrap();
    assert_eq!(out.shape(), &[1, 1, 1, 1, 1, 3, 1, 1]);

    let v = iota(&[4, 1, 1]);
    assert_eq!(
        broadcast(v.view(), &[1, 1, 2, 2], &Mode::Bidirectional)
            .unwrap()
            .shape(),
        &[1, 4, 2, 2]
    );
}

#[test]
fn openvino_eval_numpy_and_pdpd_give_the_same_values() {
    let v = ArrayD::from_shape_vec(IxDyn(&[3, 1]), vec![1i32, 2, 3]).unwrap();
    let want: Vec<i32> = [[1; 6], [2; 6], [3; 6]].concat().repeat(2);
    for mode in [Mode::Numpy, Mode::Pdpd { axis: 1 }] {
        assert_eq!(
            flat(&broadcast(v.view(), &[2, 3, 6], &mode).unwrap()),
            want,
            "{mode}"
        );
    }
}

#[test]
fn openvino_type_prop_error_rules() {
    let err = |d: &[usize], t: &[usize], m: Mode| output_shape(d, t, &m).unwrap_err();
    assert!(matches!(
        err(&[3, 1], &[2, 3, 1], explicit(&[1, 2, 3])),
        BroadcastError::AxesMappingLength { .. }
    ));
    assert!(matches!(
        err(&[3, 1], &[2, 1, 3], explicit(&[2, 1])),
        BroadcastError::AxesNotIncreasing { .. }
    ));
    assert!(matches!(
        err(&[3, 1], &[2, 3, 1], explicit(&[1, 3])),
        BroadcastError::AxisOutOfRange { .. }
    ));
    assert!(matches!(
        err(&[3, 2], &[2, 3, 3], explicit(&[1, 2])),
        BroadcastError::DimMismatch { .. }
    ));
    assert!(matches!(
        err(&[1, 999, 3, 4], &[1, 2, 3, 4], Mode::Numpy),
        BroadcastError::DimMismatch {
            data_dim: 999,
            target_dim: 2,
            ..
        }
    ));
    assert!(matches!(
        err(&[5, 2, 3, 1], &[4, 3, 6], Mode::Numpy),
        BroadcastError::TargetRankTooSmall { .. }
    ));
    assert!(matches!(
        err(&[4, 3, 2], &[8, 6, 4], Mode::Bidirectional),
        BroadcastError::Incompatible { .. }
    ));
    assert_eq!(
        output_shape(&[5, 2, 3, 1], &[1, 3, 6], &Mode::Bidirectional).unwrap(),
        vec![5, 2, 3, 6]
    );
    assert_eq!(
        output_shape(&[1, 3, 1], &[3, 1, 3], &Mode::Bidirectional).unwrap(),
        vec![3, 3, 3]
    );
    assert_eq!(
        output_shape(&[4], &[1, 4, 2, 3], &explicit(&[1])).unwrap(),
        vec![1, 4, 2, 3]
    );
}

// ---- nGraph v0 Broadcast ----

#[test]
fn ngraph_examples_vector_to_matrix() {
    let abc =
        ArrayD::from_shape_vec(IxDyn(&[3]), vec!["a".to_string(), "b".into(), "c".into()]).unwrap();
    let rows = broadcast(
        abc.view(),
        &[2, 3],
        &Mode::Axes {
            broadcast_axes: vec![0],
        },
    )
    .unwrap();
    assert_eq!(flat(&rows), ["a", "b", "c", "a", "b", "c"]);
    let cols = broadcast(
        abc.view(),
        &[3, 2],
        &Mode::Axes {
            broadcast_axes: vec![1],
        },
    )
    .unwrap();
    assert_eq!(flat(&cols), ["a", "a", "b", "b", "c", "c"]);
}

// ---- SONNX / ONNX N-ary ----

#[test]
fn sonnx_nary_each_output_follows_the_index_relation() {
    // Z_k[i1..in] = X_k[f(i1,d1,D1), ...] with f(i,d,D) = i if d == D else 0.
    let x0 = iota(&[2, 1, 4]);
    let x1 = iota(&[3, 1]);
    let x2 = ArrayD::from_elem(IxDyn(&[]), 7.0f32);
    let z = broadcast_all(&[x0.view(), x1.view(), x2.view()]).unwrap();
    for zk in &z {
        assert_eq!(zk.shape(), &[2, 3, 4]);
    }
    for (ix, _) in z[0].indexed_iter() {
        let (i, j, k) = (ix[0], ix[1], ix[2]);
        assert_eq!(z[0][IxDyn(&[i, j, k])], x0[IxDyn(&[i, 0, k])]);
        assert_eq!(z[1][IxDyn(&[i, j, k])], x1[IxDyn(&[j, 0])]);
        assert_eq!(z[2][IxDyn(&[i, j, k])], 7.0);
    }
}

#[test]
fn nary_of_one_tensor_is_a_copy_and_of_none_is_an_error() {
    let x = iota(&[2, 3]);
    assert_eq!(broadcast_all(&[x.view()]).unwrap(), vec![x.clone()]);
    assert_eq!(
        broadcast_all::<f32>(&[]).unwrap_err(),
        BroadcastError::NoInputs
    );
}
