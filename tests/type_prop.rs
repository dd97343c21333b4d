//! Partial-shape inference (`infer_shape`, `infer_eltwise_shape`) against OpenVINO's type_prop
//! scenarios, restated in bcast's terms, plus property tests tying it to the static planners.
//!
//! Sources (openvinotoolkit/openvino):
//! - `src/core/tests/type_prop/broadcast.cpp`: the typed suite `BroadcastTests` (run there for
//!   both v1 and v3 Broadcast) and the `TEST(type_prop, broadcast_v3_*)` tests;
//! - `src/core/tests/type_prop/arithmetic_ops.hpp`: the typed suite `ArithmeticOperator`
//!   (element-wise auto-broadcast, run there for Add, Multiply, ...);
//! - `src/core/tests/dimension.cpp`: `Dimension::broadcast_merge` cases.
//!
//! How OpenVINO's inputs map onto bcast's:
//! - target as a `Constant` -> `TargetShape::Known`;
//! - target as a `Parameter` of static shape `{N}` -> `TargetShape::Rank(N)`;
//! - target as a `Parameter` of shape `dynamic()` or `dynamic(1)` (length unknown) ->
//!   `TargetShape::Unknown`;
//! - target as `ShapeOf(x)` or a `Concat` of Constants and Parameters -> `TargetShape::Partial`
//!   (what value propagation knows of it);
//! - `axes_mapping` as a `Constant` -> `Mode::Explicit { axes_mapping }`. bcast has no
//!   unknown `axes_mapping` (the mode carries it), so a scenario with `axes_mapping` as a
//!   Parameter is ported with a valid mapping, and says so.
//!
//! The expectations are OpenVINO's. Where bcast's answer differs, the test asserts bcast's
//! and a `DISAGREES` comment says why: bcast's stricter rules (strictly increasing
//! `axes_mapping`, one-directional numpy/PDPD checks on intervals), or a tighter answer
//! (OpenVINO does not narrow a numpy/explicit/PDPD output by the data's dimensions).

use bcast::{
    eltwise_shape, infer_eltwise_shape, infer_shape, output_shape, AutoBroadcast, BroadcastError,
    Dim, Mode, PartialShape, Rule, TargetShape,
};
use proptest::prelude::*;

fn ps(s: &str) -> PartialShape {
    s.parse().unwrap_or_else(|e| panic!("{s}: {e}"))
}

fn known(v: &[usize]) -> TargetShape {
    TargetShape::Known(v.to_vec())
}

/// A target whose values are known in part (ShapeOf of a partial tensor, a Concat).
fn partial(s: &str) -> TargetShape {
    TargetShape::from(ps(s))
}

fn explicit(axes: &[usize]) -> Mode {
    Mode::Explicit {
        axes_mapping: axes.to_vec(),
    }
}

fn pdpd(axis: i64) -> Mode {
    Mode::Pdpd { axis }
}

/// The inferred shape in OpenVINO's text form; panics on an error.
fn bc(data: &str, target: &TargetShape, mode: &Mode) -> String {
    match infer_shape(&ps(data), target, mode) {
        Ok(s) => s.to_string(),
        Err(e) => panic!("{data} to {target:?} under {mode}: {e}"),
    }
}

fn bc_err(data: &str, target: &TargetShape, mode: &Mode) -> BroadcastError {
    match infer_shape(&ps(data), target, mode) {
        Ok(s) => panic!("{data} to {target:?} under {mode} gave {s}, expected an error"),
        Err(e) => e,
    }
}

fn ew(a: &str, b: &str, spec: &AutoBroadcast) -> String {
    match infer_eltwise_shape(&ps(a), &ps(b), spec) {
        Ok(s) => s.to_string(),
        Err(e) => panic!("{a} with {b} under {spec}: {e}"),
    }
}

fn ew_err(a: &str, b: &str, spec: &AutoBroadcast) -> BroadcastError {
    match infer_eltwise_shape(&ps(a), &ps(b), spec) {
        Ok(s) => panic!("{a} with {b} under {spec} gave {s}, expected an error"),
        Err(e) => e,
    }
}

const NUMPY: AutoBroadcast = AutoBroadcast::Numpy;
const NONE: AutoBroadcast = AutoBroadcast::None;

// ------------------------------------------------------------------------------------------
// broadcast.cpp, typed suite BroadcastTests (v1 and v3)
// ------------------------------------------------------------------------------------------

/// BroadcastTests.broadcast_dynamic_value_propagation: target Concat(Gather(ShapeOf
/// [1,2,3,4]) = 3, Constant 5), data [1,1], numpy.
#[test]
fn broadcast_dynamic_value_propagation() {
    assert_eq!(bc("[1,1]", &partial("[3,5]"), &Mode::Numpy), "[3,5]");
}

/// BroadcastTests.broadcast_numpy
#[test]
fn broadcast_numpy() {
    assert_eq!(bc("[3,1]", &known(&[2, 3, 6]), &Mode::Numpy), "[2,3,6]");
}

/// BroadcastTests.broadcast_axes_mapping
#[test]
fn broadcast_axes_mapping() {
    assert_eq!(
        bc("[3,1]", &known(&[2, 3, 1]), &explicit(&[1, 2])),
        "[2,3,1]"
    );
}

/// BroadcastTests.broadcast_target_shape_as_concat_with_constants
#[test]
fn broadcast_target_shape_as_concat_with_constants() {
    assert_eq!(
        bc("[16]", &known(&[1, 16, 50, 50]), &explicit(&[1])),
        "[1,16,50,50]"
    );
}

/// BroadcastTests.broadcast_target_shape_as_concat_with_node: Concat(Parameter{1}, 16, 50,
/// 50).
#[test]
fn broadcast_target_shape_as_concat_with_node() {
    assert_eq!(
        bc("[16]", &partial("[?,16,50,50]"), &explicit(&[1])),
        "[?,16,50,50]"
    );
}

/// BroadcastTests.broadcast_fail_rank: "axes_mapping shape [3] doesn't match rank of input
/// tensor 2".
#[test]
fn broadcast_fail_rank() {
    assert!(matches!(
        bc_err("[3,1]", &known(&[2, 3, 1]), &explicit(&[1, 2, 3])),
        BroadcastError::AxesMappingLength {
            got: 3,
            expected: 2,
            ..
        }
    ));
}

/// BroadcastTests.broadcast_fail_transpose: "doesn't permit transposes".
#[test]
fn broadcast_fail_transpose() {
    assert!(matches!(
        bc_err("[3,1]", &known(&[2, 1, 3]), &explicit(&[2, 1])),
        BroadcastError::AxesNotIncreasing {
            mode: Rule::Explicit,
            position: 1,
            axis: 1,
            ..
        }
    ));
}

/// BroadcastTests.broadcast_fail_axes_map: "axes_mapping[1]: 3 exceeds target rank 3".
#[test]
fn broadcast_fail_axes_map() {
    assert!(matches!(
        bc_err("[3,1]", &known(&[2, 3, 1]), &explicit(&[1, 3])),
        BroadcastError::AxisOutOfRange {
            position: 1,
            axis: 3,
            rank: 3,
            ..
        }
    ));
}

/// BroadcastTests.broadcast_fail_axes_map_shape: "target[axes_mapping[1]] Expected 2. Got 3".
#[test]
fn broadcast_fail_axes_map_shape() {
    assert!(matches!(
        bc_err("[3,2]", &known(&[2, 3, 3]), &explicit(&[1, 2])),
        BroadcastError::DimMismatch {
            mode: Rule::Explicit,
            axis: 1,
            data_dim: 2,
            target_dim: 3,
            ..
        }
    ));
}

/// BroadcastTests.broadcast_fully_dynamic_target_shape: data [2,4], axes_mapping a Parameter
/// (ported as [0,1]); target of unknown length, then a Parameter of shape {1}.
#[test]
fn broadcast_fully_dynamic_target_shape() {
    assert_eq!(
        bc("[2,4]", &TargetShape::Unknown, &explicit(&[0, 1])),
        "[...]"
    );
    // OpenVINO: a dynamic output (it cannot check an unknown axes_mapping).
    // DISAGREES: a rank-1 target cannot take two strictly increasing axes, whatever they
    // are: bcast refuses the mapping.
    assert!(matches!(
        bc_err("[2,4]", &TargetShape::Rank(1), &explicit(&[0, 1])),
        BroadcastError::AxisOutOfRange {
            axis: 1,
            rank: 1,
            ..
        }
    ));
}

/// BroadcastTests.broadcast_dynamic_values_of_target_shape: target ShapeOf(dynamic(4)), data
/// [2], axes_mapping [1]. OpenVINO: dynamic(4).
#[test]
fn broadcast_dynamic_values_of_target_shape() {
    // DISAGREES (tighter): the data's 2 cannot be 1, so target[1] must be 2.
    assert_eq!(
        bc("[2]", &TargetShape::Rank(4), &explicit(&[1])),
        "[?,2,?,?]"
    );
}

/// BroadcastTests.broadcast_explicit_all_inputs_dynamic (with the const axes mapping).
#[test]
fn broadcast_explicit_all_inputs_dynamic() {
    assert_eq!(
        bc("[...]", &TargetShape::Unknown, &explicit(&[0, 1, 2])),
        "[...]"
    );
}

/// BroadcastTests.broadcast_explicit_target_shape_static_rank: the target a Parameter of
/// shape dynamic(1), i.e. of unknown length.
#[test]
fn broadcast_explicit_target_shape_static_rank() {
    assert_eq!(
        bc("[...]", &TargetShape::Unknown, &explicit(&[0, 1, 2])),
        "[...]"
    );
}

/// BroadcastTests.broadcast_explicit_const_target_shape: data of unknown rank, target [1,2,3];
/// axes_mapping a Parameter (ported as [0,1,2]), then the Constant [0,2,1].
#[test]
fn broadcast_explicit_const_target_shape() {
    assert_eq!(
        bc("[...]", &known(&[1, 2, 3]), &explicit(&[0, 1, 2])),
        "[1,2,3]"
    );
    // OpenVINO: [1,2,3] (it validates axes_mapping only when the data rank is known).
    // DISAGREES: [0,2,1] is a transpose whatever the data is; bcast refuses it.
    assert!(matches!(
        bc_err("[...]", &known(&[1, 2, 3]), &explicit(&[0, 2, 1])),
        BroadcastError::AxesNotIncreasing { position: 2, .. }
    ));
}

/// BroadcastTests.broadcast_explicit_input_rank_static: data dynamic(3), target unknown,
/// axes_mapping [0,2,1]. OpenVINO: dynamic rank.
#[test]
fn broadcast_explicit_input_rank_static() {
    assert_eq!(
        bc("[?,?,?]", &TargetShape::Unknown, &explicit(&[0, 1, 2])),
        "[...]"
    );
    // DISAGREES: a transposing axes_mapping is refused whatever the target.
    assert!(matches!(
        bc_err("[?,?,?]", &TargetShape::Unknown, &explicit(&[0, 2, 1])),
        BroadcastError::AxesNotIncreasing { .. }
    ));
}

/// BroadcastTests.broadcast_explicit_target_shape_and_input_data_rank_static: as above with
/// the target a Parameter of shape dynamic(1).
#[test]
fn broadcast_explicit_target_shape_and_input_data_rank_static() {
    // DISAGREES, as in broadcast_explicit_input_rank_static.
    assert!(matches!(
        bc_err("[?,?,?]", &TargetShape::Unknown, &explicit(&[0, 2, 1])),
        BroadcastError::AxesNotIncreasing { .. }
    ));
}

/// BroadcastTests.broadcast_explicit_const_target_shape_static_rank_input: target [1,1,5,10],
/// data dynamic(3); axes_mapping a Parameter (ported as [1,2,3]), then [0,2,1,3].
#[test]
fn broadcast_explicit_const_target_shape_static_rank_input() {
    assert_eq!(
        bc("[?,?,?]", &known(&[1, 1, 5, 10]), &explicit(&[1, 2, 3])),
        "[1,1,5,10]"
    );
    // "Broadcast axes_mapping shape [4] doesn't match rank of input tensor 3".
    assert!(matches!(
        bc_err("[?,?,?]", &known(&[1, 1, 5, 10]), &explicit(&[0, 2, 1, 3])),
        BroadcastError::AxesMappingLength {
            got: 4,
            expected: 3,
            ..
        }
    ));
}

/// BroadcastTests.broadcast_explicit_static_input_shape: data [1,2,3,4], target unknown,
/// axes_mapping [0,2,1,3]. OpenVINO: dynamic rank, four times.
#[test]
fn broadcast_explicit_static_input_shape() {
    assert_eq!(
        bc("[1,2,3,4]", &TargetShape::Unknown, &explicit(&[0, 1, 2, 3])),
        "[...]"
    );
    // DISAGREES: [0,2,1,3] transposes; refused whatever the target.
    assert!(matches!(
        bc_err("[1,2,3,4]", &TargetShape::Unknown, &explicit(&[0, 2, 1, 3])),
        BroadcastError::AxesNotIncreasing { position: 2, .. }
    ));
}

/// BroadcastTests.broadcast_explicit_static_input_shape_const_target_shape.
#[test]
fn broadcast_explicit_static_input_shape_const_target_shape() {
    assert_eq!(
        bc("[4]", &known(&[1, 4, 2, 3]), &explicit(&[1])),
        "[1,4,2,3]"
    );
}

/// BroadcastTests.broadcast_explicit_static_target_shape: target a Parameter of shape {4};
/// data of unknown rank, then dynamic(2); axes_mapping a Parameter (ported as valid ones).
#[test]
fn broadcast_explicit_static_target_shape() {
    assert_eq!(
        bc("[...]", &TargetShape::Rank(4), &explicit(&[0])),
        "[?,?,?,?]"
    );
    assert_eq!(
        bc("[?,?]", &TargetShape::Rank(4), &explicit(&[1, 3])),
        "[?,?,?,?]"
    );
}

/// BroadcastTests.broadcast_numpy_input_shape_dynamic
#[test]
fn broadcast_numpy_input_shape_dynamic() {
    assert_eq!(bc("[...]", &TargetShape::Unknown, &Mode::Numpy), "[...]");
}

/// BroadcastTests.broadcast_numpy_target_shape_constant: output rank 3 (the target).
#[test]
fn broadcast_numpy_target_shape_constant() {
    assert_eq!(bc("[...]", &known(&[1, 2, 3]), &Mode::Numpy), "[1,2,3]");
    assert_eq!(bc("[?,?]", &known(&[1, 2, 3]), &Mode::Numpy), "[1,2,3]");
}

/// BroadcastTests.broadcast_numpy_target_shape_dynamic
#[test]
fn broadcast_numpy_target_shape_dynamic() {
    assert_eq!(bc("[?,?,?]", &TargetShape::Unknown, &Mode::Numpy), "[...]");
    assert_eq!(
        bc("[3,4,5,6]", &TargetShape::Unknown, &Mode::Numpy),
        "[...]"
    );
}

/// BroadcastTests.broadcast_numpy_input_target_shape_static_rank: the target a Parameter of
/// shape dynamic(1), of unknown length.
#[test]
fn broadcast_numpy_input_target_shape_static_rank() {
    assert_eq!(bc("[?,?,?]", &TargetShape::Unknown, &Mode::Numpy), "[...]");
}

/// BroadcastTests.broadcast_numpy_input_static_shape
#[test]
fn broadcast_numpy_input_static_shape() {
    assert_eq!(bc("[1,2,3]", &TargetShape::Unknown, &Mode::Numpy), "[...]");
    assert_eq!(bc("[1,2,3]", &known(&[3, 2, 3]), &Mode::Numpy), "[3,2,3]");
}

/// BroadcastTests.broadcast_numpy_input_partially_dynamic: target [1,2,3,4].
#[test]
fn broadcast_numpy_input_partially_dynamic() {
    let t = known(&[1, 2, 3, 4]);
    for data in ["[2,3,?]", "[?,3,?]", "[2,?,?]", "[?,?,?]"] {
        assert_eq!(bc(data, &t, &Mode::Numpy), "[1,2,3,4]", "{data}");
    }
}

/// BroadcastTests.broadcast_numpy_static_dims_incorrect: "Input shape dimension equal 999
/// cannot be broadcasted (numpy mode) to 2", then 888 to 4, then 5 to 1.
#[test]
fn broadcast_numpy_static_dims_incorrect() {
    let t = known(&[1, 2, 3, 4]);
    for (data, axis, d, tt) in [
        ("[?,999,3,4]", 1, 999, 2),
        ("[?,?,?,888]", 3, 888, 4),
        ("[5,?,?,?]", 0, 5, 1),
    ] {
        let e = bc_err(data, &t, &Mode::Numpy);
        assert!(
            matches!(e, BroadcastError::DimMismatch { mode: Rule::Numpy, axis: a, data_dim: x, target_dim: y, .. }
                if a == axis && x == d && y == tt),
            "{data}: {e}"
        );
    }
    let e = bc_err("[?,999,3,4]", &t, &Mode::Numpy);
    assert_eq!(
        e.to_string(),
        "numpy broadcast: data dim 999 at axis 1 cannot become 2 (must be 1 or 2); data shape [0,999,3,4], target shape [1,2,3,4]"
    );
}

// ------------------------------------------------------------------------------------------
// broadcast.cpp, TEST(type_prop, broadcast_v1_* / broadcast_v3_*)
// ------------------------------------------------------------------------------------------

/// broadcast_v1_pdpd and broadcast_v3_pdpd (same shapes).
#[test]
fn broadcast_v1_v3_pdpd() {
    assert_eq!(bc("[3,1]", &known(&[2, 3, 6]), &pdpd(1)), "[2,3,6]");
}

/// broadcast_v3_bidirectional_mode_string: data [1,4,1], target a Parameter of shape {2}.
/// OpenVINO checks only the mode's name; the shape is bcast's.
#[test]
fn broadcast_v3_bidirectional_mode_string() {
    let mode: Mode = "BIDIRECTIONAL".parse().unwrap();
    assert_eq!(mode, Mode::Bidirectional);
    assert_eq!(bc("[1,4,1]", &TargetShape::Rank(2), &mode), "[1,4,?]");
}

/// broadcast_v3_shape .. broadcast_v3_shape_6 and broadcast_v3_shape_6_type_infer,
/// broadcast_v3_default_constructor: static bidirectional shapes.
#[test]
fn broadcast_v3_shape_static_bidirectional() {
    for (data, target, out) in [
        ("[1,4,1]", &[1usize, 4][..], "[1,4,4]"),
        ("[3,1]", &[2, 1, 6], "[2,3,6]"),
        ("[2,1]", &[2, 4], "[2,4]"),
        ("[1,3,1]", &[3, 1], "[1,3,1]"),
        ("[16,1,1]", &[1, 1, 50, 50], "[1,16,50,50]"),
        ("[1,3,1]", &[3, 1, 3], "[3,3,3]"),
        ("[5,2,3,1]", &[1, 3, 6], "[5,2,3,6]"),
    ] {
        assert_eq!(
            bc(data, &known(target), &Mode::Bidirectional),
            out,
            "{data}"
        );
    }
}

/// broadcast_v3_incorrect_target_shape: "Expecting either 1 or 4. Got 8".
#[test]
fn broadcast_v3_incorrect_target_shape() {
    assert!(matches!(
        bc_err("[4,3,2]", &known(&[8, 6, 4]), &Mode::Bidirectional),
        BroadcastError::Incompatible {
            mode: Rule::Bidirectional,
            axis: 0,
            left: 4,
            right: 8,
            ..
        }
    ));
}

/// broadcast_v3_incorrect_target_shape_2: "Expecting either 1 or 2. Got 3".
#[test]
fn broadcast_v3_incorrect_target_shape_2() {
    assert!(matches!(
        bc_err("[1,1,2]", &known(&[2, 3]), &Mode::Bidirectional),
        BroadcastError::Incompatible {
            axis: 2,
            left: 2,
            right: 3,
            ..
        }
    ));
}

/// broadcast_v3_output_rank_not_deduced: data of unknown rank, target of unknown length.
#[test]
fn broadcast_v3_output_rank_not_deduced() {
    assert_eq!(
        bc("[...]", &TargetShape::Unknown, &Mode::Bidirectional),
        "[...]"
    );
}

/// broadcast_v3_output_rank_deduced_from_arg
#[test]
fn broadcast_v3_output_rank_deduced_from_arg() {
    assert_eq!(
        bc("[?,?,?,?]", &known(&[8, 6, 4]), &Mode::Bidirectional),
        "[?,8,6,4]"
    );
}

/// broadcast_v3_output_rank_deduced_from_new_shape_input
#[test]
fn broadcast_v3_output_rank_deduced_from_new_shape_input() {
    assert_eq!(
        bc("[?,?,?,?]", &known(&[8, 6, 1, 5, 1]), &Mode::Bidirectional),
        "[8,6,?,5,?]"
    );
}

/// broadcast_v3_bidirectional_dynamic_input: data of unknown rank; any target gives an
/// unknown rank.
#[test]
fn broadcast_v3_bidirectional_dynamic_input() {
    for t in [
        TargetShape::Unknown,
        known(&[2, 4, 6]),
        TargetShape::Rank(3),
    ] {
        assert_eq!(bc("[...]", &t, &Mode::Bidirectional), "[...]");
    }
}

/// broadcast_v3_bidirectional_static_rank_input: data dynamic(4). OpenVINO checks rank 4
/// and a dynamic shape for the Constant [2,4,6].
#[test]
fn broadcast_v3_bidirectional_static_rank_input() {
    assert_eq!(
        bc("[?,?,?,?]", &TargetShape::Unknown, &Mode::Bidirectional),
        "[...]"
    );
    assert_eq!(
        bc("[?,?,?,?]", &known(&[2, 4, 6]), &Mode::Bidirectional),
        "[?,2,4,6]"
    );
}

/// broadcast_v3_bidirectional_static_shape_input
#[test]
fn broadcast_v3_bidirectional_static_shape_input() {
    assert_eq!(
        bc("[1,2,3,1]", &TargetShape::Unknown, &Mode::Bidirectional),
        "[...]"
    );
    assert_eq!(
        bc("[1,2,3,1]", &known(&[2, 2, 3, 2]), &Mode::Bidirectional),
        "[2,2,3,2]"
    );
    assert_eq!(
        bc("[1,2,3,1]", &known(&[5, 2, 3, 7]), &Mode::Bidirectional),
        "[5,2,3,7]"
    );
}

/// broadcast_v3_bidirectional_partially_dynamic_input: target [1,1,50,50].
#[test]
fn broadcast_v3_bidirectional_partially_dynamic_input() {
    let t = known(&[1, 1, 50, 50]);
    for (data, out) in [
        ("[16,1,?]", "[1,16,50,50]"),
        ("[?,1,?]", "[1,?,50,50]"),
        ("[16,?,?]", "[1,16,50,50]"),
        ("[?,?,?]", "[1,?,50,50]"),
    ] {
        assert_eq!(bc(data, &t, &Mode::Bidirectional), out, "{data}");
    }
}

/// broadcast_i32_shape_value: data [5,-1] broadcast to its own ShapeOf, bidirectional and
/// then numpy.
#[test]
fn broadcast_i32_shape_value() {
    let t = partial("[5,-1]");
    assert_eq!(bc("[5,-1]", &t, &Mode::Bidirectional), "[5,?]");
    assert_eq!(bc("[5,-1]", &t, &Mode::Numpy), "[5,?]");
}

/// broadcast_v3_bidirectional_data_bigger_rank_numpy: "target_shape has smaller rank".
#[test]
fn broadcast_v3_bidirectional_data_bigger_rank_numpy() {
    assert!(matches!(
        bc_err("[5,2,3,1]", &known(&[4, 3, 6]), &Mode::Numpy),
        BroadcastError::TargetRankTooSmall {
            data_rank: 4,
            target_rank: 3,
            ..
        }
    ));
}

/// broadcast_v3_symbols_{in0,in1,different,same}_dynamic_mixed_dims_bidirectional: four
/// tests (different symbols) on the same shapes; the target is ShapeOf of a partial tensor.
#[test]
fn broadcast_v3_symbols_dynamic_mixed_dims_bidirectional() {
    assert_eq!(
        bc(
            "[-1,2,1,4..8,-1,4..8,-1,1..8,1..10,4..18]",
            &partial("[-1,2,3..9,1,3..9,-1,1..9,-1,3..19,1..10]"),
            &Mode::Bidirectional
        ),
        "[?,2,3..9,4..8,3..9,4..8,?,?,3..19,4..18]"
    );
}

/// broadcast_v3_in0_interval_in1_param_rank_bigger_bidirectional
#[test]
fn broadcast_v3_in0_interval_in1_param_rank_bigger_bidirectional() {
    assert_eq!(
        bc("[4..8,1]", &TargetShape::Rank(3), &Mode::Bidirectional),
        "[?,4..8,?]"
    );
}

/// broadcast_v3_in0_interval_in1_param_rank_smaller_bidirectional
#[test]
fn broadcast_v3_in0_interval_in1_param_rank_smaller_bidirectional() {
    assert_eq!(
        bc(
            "[-1,2,1..10,4..8,1]",
            &TargetShape::Rank(3),
            &Mode::Bidirectional
        ),
        "[?,2,?,4..8,?]"
    );
}

/// broadcast_v3_symbols_in0_dims_in1_param_bidirectional
#[test]
fn broadcast_v3_symbols_in0_dims_in1_param_bidirectional() {
    assert_eq!(
        bc(
            "[-1,2,1,4..8,1..10]",
            &TargetShape::Rank(5),
            &Mode::Bidirectional
        ),
        "[?,2,?,4..8,?]"
    );
}

/// broadcast_v3_non_broadcastable_dims_numpy: data [4..8,2..4], target ShapeOf([1,5..6]).
/// OpenVINO: [1,5..6] ("No validation for non-broadcastable dimensions pair").
#[test]
fn broadcast_v3_non_broadcastable_dims_numpy() {
    // DISAGREES: numpy is one-directional; a data dim of 4..8 can become neither 1 nor be
    // 1, so every concrete input is refused. bcast reports it (lower bounds shown).
    assert!(matches!(
        bc_err("[4..8,2..4]", &partial("[1,5..6]"), &Mode::Numpy),
        BroadcastError::DimMismatch {
            axis: 0,
            data_dim: 4,
            target_dim: 1,
            ..
        }
    ));
}

/// broadcast_v3_symbols_{in0,in1,both_inputs}_dynamic_mixed_dims_numpy: three tests on the
/// same shapes. OpenVINO: the target, [-1,2,3..9,4..10,-1,5..11,-1,6..20,1..10].
#[test]
fn broadcast_v3_symbols_dynamic_mixed_dims_numpy() {
    // DISAGREES (tighter) at axes 4 and 8: the data's 4..8 and 4..18 cannot be 1, so the
    // target must equal them there: ? becomes 4..8, 1..10 becomes 4..10.
    assert_eq!(
        bc(
            "[-1,2,1,-1,4..8,-1,1..8,1..10,4..18]",
            &partial("[-1,2,3..9,4..10,-1,5..11,-1,6..20,1..10]"),
            &Mode::Numpy
        ),
        "[?,2,3..9,4..10,4..8,5..11,?,6..20,4..10]"
    );
}

/// broadcast_v3_symbols_dynamic_mixed_dims_explicit
#[test]
fn broadcast_v3_symbols_dynamic_mixed_dims_explicit() {
    assert_eq!(
        bc(
            "[2,6..8,-1]",
            &partial("[2,-1,6..8,-1,5]"),
            &explicit(&[0, 2, 3])
        ),
        "[2,?,6..8,?,5]"
    );
}

/// broadcast_v3_eval_symbols_static_dims_numpy: a [1,1] to ShapeOf(b [2,3]), then c [1,3]
/// to ShapeOf of that.
#[test]
fn broadcast_v3_eval_symbols_static_dims_numpy() {
    let first = infer_shape(&ps("[1,1]"), &partial("[2,3]"), &Mode::Numpy).unwrap();
    let second = infer_shape(&ps("[1,3]"), &TargetShape::from(first), &Mode::Numpy).unwrap();
    assert_eq!(second.to_string(), "[2,3]");
}

/// broadcast_v3_eval_symbols_static_dims_bidirectional: a [1,3] with ShapeOf(b [2,1]), then
/// c [1,1] with ShapeOf of that.
#[test]
fn broadcast_v3_eval_symbols_static_dims_bidirectional() {
    let first = infer_shape(&ps("[1,3]"), &partial("[2,1]"), &Mode::Bidirectional).unwrap();
    let second = infer_shape(
        &ps("[1,1]"),
        &TargetShape::from(first),
        &Mode::Bidirectional,
    )
    .unwrap();
    assert_eq!(second.to_string(), "[2,3]");
}

/// broadcast_v3_bidirectional_tricky_partial_value_case_and_equal_partial_value_propagation:
/// data [0..10,1,4], target the partial value [0..10,1,4].
#[test]
fn broadcast_v3_bidirectional_tricky_partial_value_case() {
    assert_eq!(
        bc("[0..10,1,4]", &partial("[0..10,1,4]"), &Mode::Bidirectional),
        "[..10,1,4]"
    );
}

/// broadcast_v3_bidirectional_zero_dim: [1] with target [0] gives [0] (bcast's 1-vs-0 rule
/// too).
#[test]
fn broadcast_v3_bidirectional_zero_dim() {
    assert_eq!(bc("[1]", &known(&[0]), &Mode::Bidirectional), "[0]");
}

// ------------------------------------------------------------------------------------------
// Further modes (PDPD and nGraph axes) with partial inputs: bcast's own scenarios, in the
// style of the above, since broadcast.cpp has no partial PDPD or axes-mode cases.
// ------------------------------------------------------------------------------------------

#[test]
fn pdpd_partial_inputs() {
    assert_eq!(bc("[?,1]", &known(&[2, 3, 6]), &pdpd(1)), "[2,3,6]");
    assert_eq!(bc("[3,1]", &TargetShape::Rank(3), &pdpd(1)), "[?,3,?]");
    assert_eq!(bc("[...]", &known(&[2, 3]), &pdpd(0)), "[2,3]");
    assert_eq!(bc("[2..5]", &partial("[?,4..9]"), &pdpd(-1)), "[?,4..5]");
    // PDPD is one-directional too: a target 1 does not take a larger data dim.
    assert!(matches!(
        bc_err("[7..9,1]", &partial("[8,1,6,1]"), &pdpd(1)),
        BroadcastError::DimMismatch {
            mode: Rule::Pdpd,
            data_dim: 7,
            target_dim: 1,
            ..
        }
    ));
    assert!(matches!(
        bc_err("[...]", &known(&[2, 3]), &pdpd(3)),
        BroadcastError::PdpdAxis { axis: 3, .. }
    ));
    assert!(matches!(
        bc_err("[...]", &TargetShape::Unknown, &pdpd(-2)),
        BroadcastError::PdpdAxis { axis: -2, .. }
    ));
}

#[test]
fn axes_mode_partial_inputs() {
    let axes = |v: &[usize]| Mode::Axes {
        broadcast_axes: v.to_vec(),
    };
    assert_eq!(bc("[?]", &known(&[2, 3]), &axes(&[0])), "[2,3]");
    assert_eq!(bc("[3]", &TargetShape::Rank(2), &axes(&[1])), "[3,?]");
    assert_eq!(bc("[2..6]", &partial("[?,4..9]"), &axes(&[0])), "[?,4..6]");
    assert!(matches!(
        bc_err("[1..2]", &known(&[2, 3]), &axes(&[0])),
        BroadcastError::AxesShapeMismatch { .. }
    ));
    assert!(matches!(
        bc_err("[...]", &TargetShape::Unknown, &axes(&[1, 1])),
        BroadcastError::DuplicateAxis { axis: 1, .. }
    ));
}

// ------------------------------------------------------------------------------------------
// arithmetic_ops.hpp, typed suite ArithmeticOperator (element-wise auto-broadcast)
// ------------------------------------------------------------------------------------------

/// shape_inference_2D, shape_inference_4D, default_autobroadcast, no_autobroadcast.
#[test]
fn arithmetic_static_equal_shapes() {
    assert_eq!(ew("[2,2]", "[2,2]", &NUMPY), "[2,2]");
    assert_eq!(ew("[2,2,3,3]", "[2,2,3,3]", &NUMPY), "[2,2,3,3]");
    assert_eq!(AutoBroadcast::default(), NUMPY);
    assert_eq!(ew("[2,2]", "[2,2]", &AutoBroadcast::default()), "[2,2]");
    assert_eq!(ew("[2,2]", "[2,2]", &NONE), "[2,2]");
}

/// shape_inference_4D_x_scalar_numpy_broadcast, _4D_x_1D_, _2D_x_4D_, _3D_x_4D_, _4D_x_3D_.
#[test]
fn arithmetic_static_numpy_broadcast() {
    for (a, b, out) in [
        ("[2,3,4,5]", "[1]", "[2,3,4,5]"),
        ("[2,3,4,5]", "[5]", "[2,3,4,5]"),
        ("[4,5]", "[2,3,4,5]", "[2,3,4,5]"),
        ("[1,4,5]", "[2,3,1,1]", "[2,3,4,5]"),
        ("[8,1,6,1]", "[7,1,5]", "[8,7,6,5]"),
    ] {
        assert_eq!(ew(a, b, &NUMPY), out, "{a} {b}");
    }
}

/// static_shape_pdpd_doc_examples (four cases) and static_shape_4D_x_4D_equal_pdpd_broadcast.
#[test]
fn arithmetic_static_pdpd() {
    for (b, axis) in [("[3,4]", 1), ("[3,1]", 1), ("[]", -1), ("[5]", 3)] {
        assert_eq!(
            ew("[2,3,4,5]", b, &AutoBroadcast::Pdpd { axis }),
            "[2,3,4,5]",
            "{b}"
        );
    }
    assert_eq!(
        ew("[8,1,6,5]", "[8,1,6,5]", &AutoBroadcast::Pdpd { axis: -1 }),
        "[8,1,6,5]"
    );
}

/// shape_inference_1D_x_1D_incompatible, _3D_x_3D_, _5D_x_5D_.
#[test]
fn arithmetic_static_incompatible() {
    for (a, b, axis) in [
        ("[3]", "[4]", 0),
        ("[3,5,6]", "[4,10,12]", 0),
        ("[389,112,12]", "[389,112,19]", 2),
    ] {
        let e = ew_err(a, b, &NUMPY);
        assert!(
            matches!(e, BroadcastError::Incompatible { mode: Rule::EltwiseNumpy, axis: x, .. } if x == axis),
            "{a} {b}: {e}"
        );
    }
}

/// fully_dynamic_shape_broadcast_numpy, _none, _pdpd (and the older full_dynamic_shape).
#[test]
fn arithmetic_fully_dynamic() {
    for spec in [NUMPY, NONE, AutoBroadcast::Pdpd { axis: -1 }] {
        assert_eq!(ew("[...]", "[...]", &spec), "[...]", "{spec}");
    }
}

/// dynamic_shape_3D, dynamic_shape_5D.
#[test]
fn arithmetic_dynamic_shape_3d_5d() {
    assert_eq!(ew("[?,?,6]", "[?,?,6]", &NUMPY), "[?,?,6]");
    assert_eq!(ew("[?,4,?,?,6]", "[?,4,?,?,6]", &NUMPY), "[?,4,?,?,6]");
}

/// dynamic_shape_intervals_broadcast_none
#[test]
fn arithmetic_dynamic_shape_intervals_broadcast_none() {
    let s = "[1..3,2..7,6..,..6,?,8]";
    assert_eq!(ew(s, s, &NONE), s);
}

/// dynamic_shape_intervals_equal_rank_broadcast_numpy, _a_rank_smaller_, _b_rank_smaller_.
#[test]
fn arithmetic_dynamic_shape_intervals_broadcast_numpy() {
    let out = "[1..3,2..7,?,4..8,?,4..8,?,1,3]";
    assert_eq!(
        ew(
            "[1..3,1..3,1..3,4..8,?,1,?,1,3]",
            "[1..3,2..7,?,1,1..3,4..8,?,1,3]",
            &NUMPY
        ),
        out
    );
    assert_eq!(
        ew(
            "[1..3,4..8,?,1,?,1,3]",
            "[1..3,2..7,?,1,1..3,4..8,?,1,3]",
            &NUMPY
        ),
        out
    );
    assert_eq!(
        ew(
            "[1..3,2..7,1..3,4..8,?,1,?,1,3]",
            "[?,1,1..3,4..8,?,1,3]",
            &NUMPY
        ),
        out
    );
}

/// dynamic_shape_intervals_broadcast_pdpd (three cases).
#[test]
fn arithmetic_dynamic_shape_intervals_broadcast_pdpd() {
    assert_eq!(
        ew(
            "[1..3,2..7,1..6,?,8]",
            "[1..3,2..7,1,?,8]",
            &AutoBroadcast::Pdpd { axis: -1 }
        ),
        "[1..3,2..7,1..6,?,8]"
    );
    // `A` fully dynamic dimension, axis = 0. OpenVINO: [?,?] (its test carries "TODO: PDPD
    // broadcast review").
    // DISAGREES (tighter): B's 2..7 cannot be 1, and A is never broadcast, so A's second
    // dim must be B's.
    assert_eq!(
        ew("[?,?]", "[1..3,2..7]", &AutoBroadcast::Pdpd { axis: 0 }),
        "[?,2..7]"
    );
    // `B` fully dynamic dimension, axis = 0.
    assert_eq!(
        ew("[1..3,2..7]", "[?,?]", &AutoBroadcast::Pdpd { axis: 0 }),
        "[1..3,2..7]"
    );
}

/// labels_a_dynamic_mixed_dims_broadcast_numpy, labels_b_..., labels_different_interval_
/// mixed_dims_... (same shapes, labels differ).
#[test]
fn arithmetic_labels_dynamic_mixed_dims_numpy() {
    assert_eq!(
        ew("[?,3,1,2..128]", "[?,3,2..224,1]", &NUMPY),
        "[?,3,2..224,2..128]"
    );
}

/// labels_different_interval_b_and_fully_dyn_a_broadcast_numpy and the mirrored
/// labels_different_interval_a_and_fully_dyn_b_broadcast_numpy.
#[test]
fn arithmetic_labels_interval_and_fully_dynamic_numpy() {
    assert_eq!(
        ew("[?,3,224,1]", "[2..4,3,1,224]", &NUMPY),
        "[2..4,3,224,224]"
    );
    assert_eq!(
        ew("[2..4,3,224,1]", "[?,3,1,224]", &NUMPY),
        "[2..4,3,224,224]"
    );
}

/// labels_equal_interval_dims_without_one_broadcast_numpy and labels_different_interval_
/// dims_without_one_broadcast_numpy.
#[test]
fn arithmetic_labels_interval_dims_without_one_numpy() {
    assert_eq!(
        ew(
            "[2..4,8..16,8..16,8..16]",
            "[2..4,4..12,10..12,16..24]",
            &NUMPY
        ),
        "[2..4,8..12,10..12,16]"
    );
}

/// labels_different_interval_batch_without_one_equivalence_table_broadcast_numpy.
#[test]
fn arithmetic_labels_interval_batch_without_one_numpy() {
    assert_eq!(
        ew("[2..4,3,224,1]", "[2..4,3,1,224]", &NUMPY),
        "[2..4,3,224,224]"
    );
}

/// labels_different_fully_dynamic_batch_broadcast_numpy, labels_equal_fully_dynamic_batch_
/// broadcast_numpy.
#[test]
fn arithmetic_labels_fully_dynamic_batch_numpy() {
    assert_eq!(ew("[?,3,224,1]", "[?,3,1,224]", &NUMPY), "[?,3,224,224]");
}

/// labels_dyn_batch_a_broadcast_numpy, labels_dyn_batch_b_broadcast_numpy.
#[test]
fn arithmetic_labels_dyn_batch_numpy() {
    assert_eq!(ew("[?,3,224,224]", "[1,3,1,1]", &NUMPY), "[?,3,224,224]");
    assert_eq!(ew("[1,3,1,1]", "[?,3,224,224]", &NUMPY), "[?,3,224,224]");
}

/// labels_dyn_batch_and_higher_rank_a_broadcast_numpy, ..._b_broadcast_numpy.
#[test]
fn arithmetic_labels_dyn_batch_and_higher_rank_numpy() {
    assert_eq!(ew("[?,?,?,?]", "[3,1,1]", &NUMPY), "[?,3,?,?]");
    assert_eq!(ew("[3,1,1]", "[?,?,?,?]", &NUMPY), "[?,3,?,?]");
}

/// labels_different_static_shape_broadcast_numpy, labels_equal_static_shape_broadcast_numpy.
#[test]
fn arithmetic_labels_static_shape_numpy() {
    assert_eq!(ew("[2,1,224,1]", "[2,1,1,128]", &NUMPY), "[2,1,224,128]");
}

/// labels_{different,equal}_static_shape_broadcast_none and labels_{different,equal}_
/// dynamic_shape_broadcast_none.
#[test]
fn arithmetic_labels_shape_none() {
    assert_eq!(ew("[2,3,224,128]", "[2,3,224,128]", &NONE), "[2,3,224,128]");
    assert_eq!(
        ew("[?,3,2..224,1..128]", "[?,3,2..224,1..128]", &NONE),
        "[?,3,2..224,1..128]"
    );
}

/// dynamic_shape_static_rank_with_labels_mixed_numpy (older version of the file).
#[test]
fn arithmetic_dynamic_shape_static_rank_mixed_numpy() {
    assert_eq!(
        ew("[2..4,3,?,224]", "[1,3,128,1]", &NUMPY),
        "[2..4,3,128,224]"
    );
}

/// "Argument shapes are inconsistent." under none: merge_into fails on a rank or interval
/// mismatch; an unknown rank takes the other shape.
#[test]
fn arithmetic_none_merge() {
    assert!(matches!(
        ew_err("[2,3]", "[3]", &NONE),
        BroadcastError::ShapesDiffer {
            mode: Rule::EltwiseNone,
            ..
        }
    ));
    assert!(matches!(
        ew_err("[2..4,3]", "[5..,3]", &NONE),
        BroadcastError::ShapesDiffer { .. }
    ));
    assert_eq!(ew("[...]", "[2..4,?]", &NONE), "[2..4,?]");
    assert_eq!(ew("[?,5]", "[...]", &NONE), "[?,5]");
}

/// dimension.cpp: Dimension::broadcast_merge cases, as element-wise numpy of rank-1 shapes.
#[test]
fn dimension_broadcast_merge() {
    for (a, b, out) in [
        ("[1]", "[10]", "[10]"),
        ("[1..5]", "[10..15]", "[10..15]"),
        ("[1..12]", "[10..15]", "[10..15]"),
        ("[7..12]", "[10..15]", "[10..12]"),
        ("[0..12]", "[1..15]", "[..15]"),
    ] {
        assert_eq!(ew(a, b, &NUMPY), out, "{a} {b}");
    }
}

// ------------------------------------------------------------------------------------------
// The brief's own cases: intervals against known dims, 1 against 0.
// ------------------------------------------------------------------------------------------

#[test]
fn interval_and_unknown_against_known() {
    let t3 = known(&[3]);
    assert_eq!(bc("[1..4]", &t3, &Mode::Bidirectional), "[3]");
    assert_eq!(bc("[1..4]", &t3, &Mode::Numpy), "[3]");
    assert_eq!(bc("[?]", &t3, &Mode::Numpy), "[3]");
    assert_eq!(bc("[?]", &known(&[1]), &Mode::Bidirectional), "[?]");
    assert_eq!(bc("[?]", &known(&[5]), &Mode::Bidirectional), "[5]");
    assert_eq!(
        bc("[2..4]", &partial("[3..9]"), &Mode::Bidirectional),
        "[3..4]"
    );
}

#[test]
fn one_against_zero_gives_zero_with_intervals_too() {
    assert_eq!(ew("[1]", "[0]", &NUMPY), "[0]");
    assert_eq!(bc("[0]", &known(&[1]), &Mode::Bidirectional), "[0]");
    // ..1 holds 0 and 1: the outcomes are 0 (any 0) and 1 (both 1).
    assert_eq!(ew("[..1]", "[..1]", &NUMPY), "[..1]");
    // 0..1 against 3: a 1 gives 3, a 0 is refused.
    assert_eq!(bc("[..1]", &known(&[3]), &Mode::Bidirectional), "[3]");
    assert_eq!(bc("[1]", &partial("[..1]"), &Mode::Numpy), "[..1]");
}

// ------------------------------------------------------------------------------------------
// Properties: static inputs agree with the planners; partial inference holds every
// concrete outcome.
// ------------------------------------------------------------------------------------------

/// A small deterministic generator so one proptest seed drives many choices.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next() % n
        }
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    fn dim(&mut self) -> usize {
        if self.chance(30) {
            1
        } else {
            self.below(5) as usize
        }
    }
    fn shape(&mut self, max_rank: u64) -> Vec<usize> {
        (0..self.below(max_rank + 1)).map(|_| self.dim()).collect()
    }
}

/// A static spec, valid by construction about two times in three, broken otherwise.
fn static_spec(seed: u64) -> (Vec<usize>, Vec<usize>, Mode) {
    let mut r = Rng(seed);
    let target = r.shape(5);
    let rt = target.len();
    let ones = |r: &mut Rng, d: usize| if r.chance(30) { 1 } else { d };
    let (mut data, mode) = match r.below(5) {
        0 => {
            let rd = r.below(rt as u64 + 2) as usize;
            let data = (0..rd)
                .map(|k| match (rt + k).checked_sub(rd) {
                    Some(i) if i < rt => ones(&mut r, target[i]),
                    _ => r.dim(),
                })
                .collect();
            (data, Mode::Numpy)
        }
        1 => {
            let rd = r.below(rt as u64 + 3) as usize;
            let mut data: Vec<usize> = (0..rd).map(|_| r.dim()).collect();
            for k in 0..rd.min(rt) {
                data[rd - 1 - k] = if r.chance(30) { 1 } else { target[rt - 1 - k] };
            }
            (data, Mode::Bidirectional)
        }
        2 => {
            let axes: Vec<usize> = (0..rt).filter(|_| r.chance(50)).collect();
            let data = axes.iter().map(|&a| ones(&mut r, target[a])).collect();
            let mut axes = axes;
            if r.chance(15) && axes.len() > 1 {
                axes.swap(0, 1);
            }
            if r.chance(10) {
                axes.push(r.below(rt as u64 + 2) as usize);
            }
            (data, explicit(&axes))
        }
        3 => {
            let axis = r.below(rt as u64 + 2) as i64 - 1 - i64::from(r.chance(5));
            let start = if axis < 0 { 0 } else { axis as usize };
            let len = r.below((rt.saturating_sub(start)) as u64 + 1) as usize;
            let mut data: Vec<usize> = (0..len)
                .map(|k| target.get(start + k).map_or(1, |&t| ones(&mut r, t)))
                .collect();
            if r.chance(30) {
                data.push(1);
            }
            (data, pdpd(axis))
        }
        _ => {
            let mut is_new: Vec<bool> = (0..rt).map(|_| r.chance(40)).collect();
            let mut axes: Vec<usize> = (0..rt).filter(|&a| is_new[a]).collect();
            if r.chance(30) {
                axes.reverse();
            }
            if r.chance(10) {
                let a = r.below(rt as u64 + 1) as usize;
                axes.push(a);
                if let Some(n) = is_new.get_mut(a) {
                    *n = true;
                }
            }
            let data = (0..rt).filter(|&a| !is_new[a]).map(|a| target[a]).collect();
            (
                data,
                Mode::Axes {
                    broadcast_axes: axes,
                },
            )
        }
    };
    if r.chance(20) && !data.is_empty() {
        let i = r.below(data.len() as u64) as usize;
        data[i] = r.dim();
    }
    (data, target, mode)
}

/// Two element-wise operands that mostly broadcast, and a spec.
fn static_eltwise(seed: u64) -> (Vec<usize>, Vec<usize>, AutoBroadcast) {
    let mut r = Rng(seed);
    let a = r.shape(5);
    let rb = r.below(a.len() as u64 + 2) as usize;
    let mut b: Vec<usize> = (0..rb).map(|_| r.dim()).collect();
    for k in 0..rb.min(a.len()) {
        if r.chance(70) {
            b[rb - 1 - k] = if r.chance(30) { 1 } else { a[a.len() - 1 - k] };
        }
    }
    let spec = match r.below(4) {
        0 => {
            if r.chance(60) {
                b = a.clone();
            }
            AutoBroadcast::None
        }
        1 => AutoBroadcast::Pdpd {
            axis: r.below(a.len() as u64 + 2) as i64 - 1 - i64::from(r.chance(5)),
        },
        _ => AutoBroadcast::Numpy,
    };
    (a, b, spec)
}

/// A partial shape that holds `shape`: each dim kept, made unknown, or widened to an
/// interval around it; sometimes the rank is dropped.
fn blur(r: &mut Rng, shape: &[usize]) -> PartialShape {
    if r.chance(8) {
        return PartialShape::Dynamic;
    }
    PartialShape::Ranked(
        shape
            .iter()
            .map(|&d| match r.below(5) {
                0 | 1 => Dim::known(d),
                2 => Dim::ANY,
                3 => Dim::at_least(d.saturating_sub(r.below(3) as usize)),
                _ => {
                    let lo = d.saturating_sub(r.below(3) as usize);
                    Dim::interval(lo, d + r.below(3) as usize).unwrap()
                }
            })
            .collect(),
    )
}

fn blur_target(r: &mut Rng, target: &[usize]) -> TargetShape {
    match r.below(10) {
        0 => TargetShape::Unknown,
        1 => TargetShape::Rank(target.len()),
        2 => TargetShape::Known(target.to_vec()),
        _ => match blur(r, target) {
            PartialShape::Dynamic => TargetShape::Unknown,
            PartialShape::Ranked(dims) => TargetShape::Partial(dims),
        },
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// On static inputs `infer_shape` is `output_shape`: the same shape, or the same error.
    #[test]
    fn static_inputs_agree_with_the_planners(seed in any::<u64>()) {
        let (data, target, mode) = static_spec(seed);
        let expected = output_shape(&data, &target, &mode).map(PartialShape::from);
        let got = infer_shape(
            &PartialShape::from_static(&data),
            &TargetShape::Known(target.clone()),
            &mode,
        );
        prop_assert_eq!(got, expected, "{:?} to {:?} under {}", data, target, mode);
    }

    /// On static operands `infer_eltwise_shape` is `eltwise_shape`.
    #[test]
    fn static_eltwise_agrees_with_eltwise_shape(seed in any::<u64>()) {
        let (a, b, spec) = static_eltwise(seed);
        let expected = eltwise_shape(&a, &b, &spec).map(PartialShape::from);
        let got = infer_eltwise_shape(
            &PartialShape::from_static(&a),
            &PartialShape::from_static(&b),
            &spec,
        );
        prop_assert_eq!(got, expected, "{:?} with {:?} under {}", a, b, spec);
    }

    /// Soundness: whatever a partial input's unknowns turn out to be, a broadcast the
    /// planners accept has an output the inferred shape holds (so an inferred error means
    /// every concrete input is refused).
    #[test]
    fn partial_inference_holds_every_concrete_outcome(seed in any::<u64>()) {
        let (data, target, mode) = static_spec(seed);
        let mut r = Rng(seed ^ 0x5eed);
        let pdata = blur(&mut r, &data);
        let ptarget = blur_target(&mut r, &target);
        if let Ok(out) = output_shape(&data, &target, &mode) {
            let inferred = infer_shape(&pdata, &ptarget, &mode);
            prop_assert!(
                matches!(&inferred, Ok(s) if s.contains(&out)),
                "{} to {:?} under {}: concrete {:?} to {:?} gives {:?}, inferred {:?}",
                pdata, ptarget, mode, data, target, out, inferred
            );
        }
    }

    /// Soundness of the element-wise inference.
    #[test]
    fn partial_eltwise_holds_every_concrete_outcome(seed in any::<u64>()) {
        let (a, b, spec) = static_eltwise(seed);
        let mut r = Rng(seed ^ 0x5eed);
        let (pa, pb) = (blur(&mut r, &a), blur(&mut r, &b));
        if let Ok(out) = eltwise_shape(&a, &b, &spec) {
            let inferred = infer_eltwise_shape(&pa, &pb, &spec);
            prop_assert!(
                matches!(&inferred, Ok(s) if s.contains(&out)),
                "{} with {} under {}: concrete {:?} with {:?} gives {:?}, inferred {:?}",
                pa, pb, spec, a, b, out, inferred
            );
        }
    }

    /// The text form round-trips.
    #[test]
    fn text_form_round_trips(seed in any::<u64>()) {
        let mut r = Rng(seed);
        let concrete = r.shape(6);
        let shape = blur(&mut r, &concrete);
        let text = shape.to_string();
        prop_assert_eq!(text.parse::<PartialShape>().unwrap(), shape);
    }
}

/// Tightness on a grid: for every pair of small intervals (and unknowns), each value the
/// inferred output dimension allows is reached by some concrete pair the planners accept, and
/// an error means no pair is accepted.
#[test]
fn inferred_dims_are_tight_on_small_intervals() {
    let mut dims = vec![Dim::ANY, Dim::at_least(2)];
    for lo in 0..4 {
        for hi in lo..4 {
            dims.push(Dim::interval(lo, hi).unwrap());
        }
    }
    // Values far enough to stand for "unbounded" in this grid.
    let values = |d: Dim| (d.min()..=d.max().unwrap_or(6).min(6)).collect::<Vec<_>>();
    for &dd in &dims {
        for &tt in &dims {
            for mode in [Mode::Numpy, Mode::Bidirectional] {
                let inferred = infer_shape(
                    &PartialShape::Ranked(vec![dd]),
                    &TargetShape::Partial(vec![tt]),
                    &mode,
                );
                let mut outcomes = Vec::new();
                for &x in &values(dd) {
                    for &y in &values(tt) {
                        if let Ok(o) = output_shape(&[x], &[y], &mode) {
                            outcomes.push(o[0]);
                        }
                    }
                }
                match inferred {
                    Err(e) => assert!(outcomes.is_empty(), "{dd} {tt} {mode}: {e}"),
                    Ok(s) => {
                        let out = s.dims().unwrap()[0];
                        assert!(!outcomes.is_empty(), "{dd} {tt} {mode}: {out}");
                        let lo = *outcomes.iter().min().unwrap();
                        let hi = *outcomes.iter().max().unwrap();
                        assert_eq!(out.min(), lo, "{dd} {tt} {mode}: {out}");
                        // An unbounded output is reached at the grid's edge.
                        match out.max() {
                            Some(m) => assert_eq!(m, hi, "{dd} {tt} {mode}: {out}"),
                            None => assert_eq!(hi, 6, "{dd} {tt} {mode}: {out}"),
                        }
                    }
                }
            }
        }
    }
}

/// The generators reach both accepted and refused specs in every mode, so the properties
/// above test both answers.
#[test]
fn generators_cover_accepted_and_refused_specs() {
    let mut seen = std::collections::HashSet::new();
    for seed in 0..4000u64 {
        let (data, target, mode) = static_spec(seed);
        seen.insert((mode.name(), output_shape(&data, &target, &mode).is_ok()));
        let (a, b, spec) = static_eltwise(seed);
        seen.insert((spec.name(), eltwise_shape(&a, &b, &spec).is_ok()));
    }
    for name in ["numpy", "bidirectional", "explicit", "pdpd", "axes", "none"] {
        assert!(seen.contains(&(name, true)), "{name} never accepted");
        assert!(seen.contains(&(name, false)), "{name} never refused");
    }
}
