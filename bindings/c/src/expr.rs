//! Expressions of element-wise ops (`bcast::Expression`): a chain such as BatchNorm at
//! inference, `x * s + b`, or the tail of LayerNorm, `(x - m) * r * g + b`, run in one call,
//! given either as an array of nodes (`bcast_expr_node`: an op code and operand indices) or
//! as text (`bcast_expr_text_eval`). `bcast_expr_shape` / `bcast_expr_dtype` and their text
//! forms give the output's shape and type. The operands are the caller's buffers, read in
//! place; the result is written into the caller's `out`.
//!
//! Both forms build the same `bcast::Expression` and run it with `evaluate_into`, so every
//! node places its operands and rounds its results exactly as `bcast_eltwise` does with that
//! op alone.

use std::ffi::{c_char, c_int, c_void, CStr};

use bcast::{BroadcastError, DType, ExprValue, Expression, Parallelism, TensorView, TensorViewMut};

use crate::eltwise::{
    evaluate, no_memory, op_of, operand_shapes, operands, per_operand, spec_of, try_collect,
    AutoBroadcastCode, EltwiseOpCode, Evaluation,
};
use crate::error::{bcast_status, guard, Error};
use crate::plan::write_shape;
use crate::types::{dtype_code, null_out, DTypeCode};

/// `BCAST_AB_NUMPY`, for the type queries, whose answer does not depend on the rule.
const NUMPY: AutoBroadcastCode = crate::eltwise::bcast_auto_broadcast::BCAST_AB_NUMPY as u32;

/// The most nodes an expression holds (`n_nodes`, or the ops of a text): the library's
/// `Expression::MAX_OPS`. Nesting is not limited: no part of bcast recurses on it.
pub const BCAST_EXPR_MAX_NODES: usize = 65536;

const _: () = assert!(BCAST_EXPR_MAX_NODES == Expression::MAX_OPS);

/// One node of an expression: `op` applied to `n_args` operands. Operand index `i` below
/// the call's `n_inputs` is input `i`; `n_inputs + k` is the result of node `k`, which must
/// come before this node (`k` below this node's index). The last node is the expression's
/// result. Constants are inputs of rank 0 (of the type the op needs).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct bcast_expr_node {
    /// The op, a `bcast_eltwise_op` code (any op of the table, as for `bcast_eltwise`).
    pub op: EltwiseOpCode,
    /// FakeQuantize's `levels` (2 or more); 0 for every other op.
    pub levels: i64,
    /// The number of operands (as `bcast_eltwise`'s `n_inputs` for this op).
    pub n_args: usize,
    /// `n_args` operand indices (NULL when `n_args` is 0).
    pub args: *const usize,
}

/// The caller's nodes as an expression over `n_inputs` inputs, every node under `ab` /
/// `axis`.
///
/// # Safety
/// `nodes` is NULL or holds `n_nodes` readable nodes; each node's `args` is NULL or holds
/// `n_args` readable indices.
unsafe fn node_expression(
    nodes: *const bcast_expr_node,
    n_nodes: usize,
    n_inputs: usize,
    ab: AutoBroadcastCode,
    axis: i64,
    func: &str,
) -> Result<Expression, Error> {
    let spec = spec_of(ab, axis, func)?;
    if n_nodes > BCAST_EXPR_MAX_NODES {
        return Err(Error::new(
            bcast_status::BCAST_ERR_INVALID,
            format!(
                "{func}: n_nodes is {n_nodes}, more than BCAST_EXPR_MAX_NODES \
                 ({BCAST_EXPR_MAX_NODES})"
            ),
        ));
    }
    // SAFETY: the caller's contract.
    let nodes = unsafe { per_operand(nodes, n_nodes, func, "nodes")? };
    if nodes.is_empty() {
        return Err(Error::new(
            bcast_status::BCAST_ERR_INVALID,
            format!("{func}: an expression needs at least one node (n_nodes is 0)"),
        ));
    }
    let mut e = Expression::new();
    // Every input, used or not, in the caller's order: `evaluate_into` takes them so. (The
    // library looks a name up among the inputs so far, so this is quadratic in `n_inputs`:
    // nothing for the few operands of a chain.)
    for i in 0..n_inputs {
        e.input(&format!("inputs[{i}]"));
    }
    // The node's operands as the library names them; reused from node to node.
    let mut values: Vec<ExprValue> = Vec::new();
    for (k, node) in nodes.iter().enumerate() {
        let at = format!("{func}: nodes[{k}]");
        // SAFETY: the caller's contract.
        let args = unsafe { per_operand(node.args, node.n_args, &at, "args")? };
        let op = op_of(node.op, args.len(), Some(node.levels), &at)?;
        values.clear();
        values
            .try_reserve_exact(args.len())
            .map_err(|_| no_memory(func))?;
        for (j, &a) in args.iter().enumerate() {
            values.push(match a.checked_sub(n_inputs) {
                None => ExprValue::Input(a),
                Some(node) if node < k => ExprValue::Node(node),
                Some(node) => {
                    return Err(Error::new(
                        bcast_status::BCAST_ERR_INVALID,
                        format!(
                            "{at}: args[{j}] is {a}, node {node} (n_inputs {n_inputs} + \
                             {node}), which does not come before node {k}: an operand is an \
                             input (below {n_inputs}) or an earlier node"
                        ),
                    ))
                }
            });
        }
        e.apply(op, &values, spec)?;
    }
    Ok(e)
}

/// The caller's text parsed, every op under `ab` / `axis`.
///
/// # Safety
/// `text` is NULL or a NUL-terminated string, unchanged during the call.
unsafe fn text_expression(
    text: *const c_char,
    ab: AutoBroadcastCode,
    axis: i64,
    func: &str,
) -> Result<Expression, Error> {
    let spec = spec_of(ab, axis, func)?;
    if text.is_null() {
        return Err(null_out(func, "text"));
    }
    // SAFETY: non-NULL, NUL-terminated (the contract).
    let text = unsafe { CStr::from_ptr(text) }.to_str().map_err(|e| {
        Error::new(
            bcast_status::BCAST_ERR_INVALID,
            format!("{func}: text is not UTF-8 ({e})"),
        )
    })?;
    Expression::parse(text, spec)
        .map_err(|e| Error::new(bcast_status::BCAST_ERR_INVALID, format!("{func}: {e}")))
}

/// An expression is evaluated as one op is: both evaluating entry points go through
/// [`evaluate`], as `bcast_eltwise` does.
impl Evaluation for Expression {
    fn output_dtype(&self, dtypes: &[DType]) -> Result<DType, BroadcastError> {
        Expression::output_dtype(self, dtypes)
    }

    fn output_shape(&self, shapes: &[&[usize]]) -> Result<Vec<usize>, BroadcastError> {
        Expression::output_shape(self, shapes)
    }

    fn evaluate_into(
        &self,
        inputs: &[TensorView<'_>],
        out: TensorViewMut<'_>,
        par: Parallelism<'_>,
    ) -> Result<(), BroadcastError> {
        Expression::evaluate_into(self, inputs, out, par)
    }
}

/// The output shape of `e` on inputs of `shapes[i]` (rank `ranks[i]`), written out.
///
/// # Safety
/// As [`bcast_expr_shape`] for `shapes`, `ranks`, `shape` and `rank_out`.
unsafe fn shape_of(
    e: &Expression,
    n_inputs: usize,
    shapes: *const *const usize,
    ranks: *const usize,
    (shape, capacity, rank_out): (*mut usize, usize, *mut usize),
    func: &str,
) -> Result<(), Error> {
    // SAFETY: the caller's contract on every array.
    unsafe {
        let input_shapes = operand_shapes(n_inputs, shapes, ranks, func)?;
        let dims = e.output_shape(&input_shapes)?;
        write_shape(&dims, shape, capacity, rank_out, func)
    }
}

/// The output type of `e` on inputs of `dtypes`, written to `*dtype_out`.
///
/// # Safety
/// `dtypes` is NULL or holds `n_inputs` readable codes; `dtype_out` is NULL or writable.
unsafe fn dtype_of_expr(
    e: &Expression,
    n_inputs: usize,
    dtypes: *const DTypeCode,
    dtype_out: *mut DTypeCode,
    func: &str,
) -> Result<(), Error> {
    if dtype_out.is_null() {
        return Err(null_out(func, "dtype_out"));
    }
    // SAFETY: the caller's contract.
    let codes = unsafe { per_operand(dtypes, n_inputs, func, "dtypes")? };
    let types = try_collect(codes.iter().map(|&c| crate::types::dtype_of(c, func)), func)?;
    let dtype = e.output_dtype(&types)?;
    let code = dtype_code(dtype).expect("an output of C operand types has a bcast_dtype");
    // SAFETY: non-NULL and writable (the contract).
    unsafe { dtype_out.write_unaligned(code) };
    Ok(())
}

/// The output shape of the expression `nodes[0..n_nodes]` (see `bcast_expr_eval`) on
/// `n_inputs` inputs of shapes `shapes[i]` (rank `ranks[i]`), every node broadcasting by
/// its op's rule under `ab` (`axis` as for `bcast_eltwise_shape`), written to
/// `shape[0..rank]`, its rank to `*rank_out`: the shape `bcast_expr_eval` writes. Each node's
/// shape is the one `bcast_eltwise_shape_n` gives for its op on its operands' shapes.
///
/// Statuses: `BCAST_ERR_INVALID` for `n_nodes` 0 or above `BCAST_EXPR_MAX_NODES`, an unknown op
/// code or `ab`, an operand count or `levels` a node's op does not take, an operand index that
/// is neither an input nor an earlier node, or PDPD for an op that broadcasts by its own rule;
/// `BCAST_ERR_SHAPE` if a node's operand shapes break its rule; `BCAST_ERR_CAPACITY` if
/// `capacity` is smaller than the rank (then `*rank_out` holds the rank needed);
/// `BCAST_ERR_RANK`, `BCAST_ERR_OVERFLOW`, `BCAST_ERR_ALIGN` as for `bcast_eltwise_shape`;
/// `BCAST_ERR_NULL` for a NULL `rank_out`, a NULL `nodes`, `shapes`, `ranks` or node `args`
/// with a non-zero count, a NULL shape with a non-zero rank, or a NULL `shape` that has a rank
/// to hold; `BCAST_ERR_ALLOC` when a temporary cannot be allocated.
///
/// Ownership: all memory is the caller's. Thread-safety: any number of threads at once.
///
/// # Safety
/// `nodes` is NULL or holds `n_nodes` readable nodes, each `args` NULL or holding `n_args`
/// readable indices; `shapes` and `ranks` are NULL or hold `n_inputs` readable entries; each
/// `shapes[i]` is NULL or points to `ranks[i]` readable values; `shape` is NULL or holds
/// `capacity` writable `size_t`; `rank_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bcast_expr_shape(
    nodes: *const bcast_expr_node,
    n_nodes: usize,
    n_inputs: usize,
    shapes: *const *const usize,
    ranks: *const usize,
    ab: AutoBroadcastCode,
    axis: i64,
    shape: *mut usize,
    capacity: usize,
    rank_out: *mut usize,
) -> c_int {
    const F: &str = "bcast_expr_shape";
    guard(|| {
        // SAFETY: the caller's contract on every array.
        unsafe {
            let e = node_expression(nodes, n_nodes, n_inputs, ab, axis, F)?;
            shape_of(&e, n_inputs, shapes, ranks, (shape, capacity, rank_out), F)
        }
    })
}

/// The output element type of the expression `nodes[0..n_nodes]` (see `bcast_expr_eval`)
/// on `n_inputs` inputs of types `dtypes[i]`, written to `*dtype_out`: BOOL when the last
/// node is a comparison or a logical op, `then`'s type for SELECT, else its operands' type.
///
/// Statuses: `BCAST_ERR_DTYPE` for a node whose operand types its op does not take (types that
/// differ, arithmetic on BOOL, a SELECT condition that is not BOOL); `BCAST_ERR_INVALID` for
/// `n_nodes` 0 or above `BCAST_EXPR_MAX_NODES`, an unknown op code or dtype, an operand count
/// or `levels` a node's op does not take, an operand index that is neither an input nor an
/// earlier node; `BCAST_ERR_NULL` for a NULL `dtype_out`, or a NULL `nodes`, `dtypes` or node
/// `args` with a non-zero count; `BCAST_ERR_ALIGN` for a misaligned array; `BCAST_ERR_ALLOC`
/// when a temporary cannot be allocated.
///
/// Ownership: all memory is the caller's. Thread-safety: any number of threads at once.
///
/// # Safety
/// `nodes` is NULL or holds `n_nodes` readable nodes, each `args` NULL or holding `n_args`
/// readable indices; `dtypes` is NULL or holds `n_inputs` readable codes; `dtype_out` is
/// NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bcast_expr_dtype(
    nodes: *const bcast_expr_node,
    n_nodes: usize,
    n_inputs: usize,
    dtypes: *const DTypeCode,
    dtype_out: *mut DTypeCode,
) -> c_int {
    const F: &str = "bcast_expr_dtype";
    guard(|| {
        // SAFETY: the caller's contract on every array. The type does not depend on the
        // rule: the nodes are read under NUMPY.
        unsafe {
            let e = node_expression(nodes, n_nodes, n_inputs, NUMPY, -1, F)?;
            dtype_of_expr(&e, n_inputs, dtypes, dtype_out, F)
        }
    })
}

/// `out = ` the expression `nodes[0..n_nodes]` on `n_inputs` operands, in one call.
///
/// Each node applies the op `nodes[k].op` (a `bcast_eltwise_op`, with `nodes[k].levels` for
/// FAKE_QUANTIZE, else 0) to `nodes[k].n_args` operands, `nodes[k].args[j]` naming each:
/// an index `i` below `n_inputs` is input `i`, an index `n_inputs + m` is the result of node
/// `m`, which must be an earlier node (`m < k`). The last node is the result. Constants are
/// inputs of rank 0. For example, BatchNorm at inference, `y = x * s + b` with inputs x, s,
/// b (0, 1, 2): node 0 is `{BCAST_OP_MULTIPLY, 0, 2, mul}` with `mul = {0, 1}`, node 1
/// `{BCAST_OP_ADD, 0, 2, add}` with `add = {3, 2}` (3 = n_inputs + 0: node 0's result).
///
/// Operand `i` has element type `dtypes[i]`, shape `shapes[i]` (rank `ranks[i]`), its buffer
/// `inputs[i]` row-major and aligned to its type, read in place (never copied). Every node
/// places its operands by its op's rule under `ab` (`axis` as for `bcast_eltwise_shape`),
/// takes the operand types its op takes in `bcast_eltwise` and rounds as that op does (f16
/// and bf16 after every op; integers wrap): the result is bit for bit that of calling
/// `bcast_eltwise` node by node. `bcast_expr_shape` and `bcast_expr_dtype` give the output
/// shape and type; `out` is row-major of that type, with room for `out_capacity_elems`
/// elements. `threads` as for `bcast_plan_run`; the result does not depend on it.
///
/// Statuses: `BCAST_ERR_INVALID` for `n_nodes` 0 or above `BCAST_EXPR_MAX_NODES`, an unknown
/// op, dtype or `ab`, an operand count or `levels` a node's op does not take, an operand index
/// that is neither an input nor an earlier node, PDPD for an op that broadcasts by its own
/// rule, a bool byte other than 0 or 1, or an `out` overlapping an input; `BCAST_ERR_DTYPE` for
/// a node whose operand types its op does not take; `BCAST_ERR_SHAPE` for a node whose operand
/// shapes break its rule; `BCAST_ERR_DIV_ZERO` for an integer division or remainder by 0 in any
/// node (`out`'s contents are then unspecified); `BCAST_ERR_CAPACITY` if `out_capacity_elems`
/// is below the output's element count (nothing is written); `BCAST_ERR_RANK`,
/// `BCAST_ERR_OVERFLOW`, `BCAST_ERR_ALIGN`, `BCAST_ERR_THREADS` as for `bcast_eltwise`;
/// `BCAST_ERR_NULL` for a NULL `nodes`, `dtypes`, `inputs`, `shapes`, `ranks` or node `args`
/// with a non-zero count, a NULL buffer with elements; `BCAST_ERR_ALLOC` when a temporary
/// cannot be allocated.
///
/// Ownership: all memory is the caller's; nothing is kept after the call.
///
/// Thread-safety: any number of threads at once, each into its own `out`.
///
/// # Safety
/// `nodes` is NULL or holds `n_nodes` readable nodes, each `args` NULL or holding `n_args`
/// readable indices; `dtypes`, `inputs`, `shapes` and `ranks` are NULL or hold `n_inputs`
/// readable entries; each `shapes[i]` is NULL or points to `ranks[i]` readable values; each
/// `inputs[i]` is NULL or holds its shape's element count of readable elements of
/// `dtypes[i]`; `out` is NULL or holds `out_capacity_elems` writable elements of the output
/// type.
#[no_mangle]
pub unsafe extern "C" fn bcast_expr_eval(
    nodes: *const bcast_expr_node,
    n_nodes: usize,
    n_inputs: usize,
    dtypes: *const DTypeCode,
    inputs: *const *const c_void,
    shapes: *const *const usize,
    ranks: *const usize,
    ab: AutoBroadcastCode,
    axis: i64,
    out: *mut c_void,
    out_capacity_elems: usize,
    threads: usize,
) -> c_int {
    const F: &str = "bcast_expr_eval";
    guard(|| {
        // SAFETY: the caller's contract on every array and buffer.
        unsafe {
            let e = node_expression(nodes, n_nodes, n_inputs, ab, axis, F)?;
            let operands = operands(n_inputs, dtypes, inputs, shapes, ranks, F)?;
            evaluate(&e, &operands, out, out_capacity_elems, threads, F)
        }
    })
}

/// `bcast_expr_shape` for an expression given as text (see `bcast_expr_text_eval`): the
/// output shape on `n_inputs` inputs, in the order the text first names them, of shapes
/// `shapes[i]` (rank `ranks[i]`).
///
/// Statuses: `BCAST_ERR_INVALID` for text that does not parse (the message names the
/// character), text of more than `BCAST_EXPR_MAX_NODES` ops, text that is not UTF-8, or
/// `n_inputs` other than the number of names in the text (the message lists them);
/// `BCAST_ERR_NULL` for a NULL `text`; the others as for `bcast_expr_shape`.
///
/// Ownership: all memory is the caller's. Thread-safety: any number of threads at once.
///
/// # Safety
/// `text` is NULL or a NUL-terminated string; the other pointers as for `bcast_expr_shape`.
#[no_mangle]
pub unsafe extern "C" fn bcast_expr_text_shape(
    text: *const c_char,
    n_inputs: usize,
    shapes: *const *const usize,
    ranks: *const usize,
    ab: AutoBroadcastCode,
    axis: i64,
    shape: *mut usize,
    capacity: usize,
    rank_out: *mut usize,
) -> c_int {
    const F: &str = "bcast_expr_text_shape";
    guard(|| {
        // SAFETY: the caller's contract on every array.
        unsafe {
            let e = text_expression(text, ab, axis, F)?;
            shape_of(&e, n_inputs, shapes, ranks, (shape, capacity, rank_out), F)
        }
    })
}

/// `bcast_expr_dtype` for an expression given as text (see `bcast_expr_text_eval`): the
/// output type on `n_inputs` inputs of types `dtypes[i]`, in the order the text first names
/// them. A number in the text takes the type of the first input that is not BOOL.
///
/// Statuses: `BCAST_ERR_INVALID` also for a number the inputs' type cannot hold (a
/// fraction for an integer type, 300 for U8); the others as for `bcast_expr_text_shape` and
/// `bcast_expr_dtype`.
///
/// Ownership: all memory is the caller's. Thread-safety: any number of threads at once.
///
/// # Safety
/// `text` is NULL or a NUL-terminated string; the other pointers as for `bcast_expr_dtype`.
#[no_mangle]
pub unsafe extern "C" fn bcast_expr_text_dtype(
    text: *const c_char,
    n_inputs: usize,
    dtypes: *const DTypeCode,
    dtype_out: *mut DTypeCode,
) -> c_int {
    const F: &str = "bcast_expr_text_dtype";
    guard(|| {
        // SAFETY: the caller's contract on every array (the rule does not change the type).
        unsafe {
            let e = text_expression(text, NUMPY, -1, F)?;
            dtype_of_expr(&e, n_inputs, dtypes, dtype_out, F)
        }
    })
}

/// `out = ` the expression `text` on `n_inputs` operands, in one call: `bcast_expr_eval`
/// with the expression written as text, e.g. `"(x - m) * r * g + b"`.
///
/// The text (UTF-8, NUL-terminated): names are inputs, numbered in the order the text first
/// names them (`inputs[0]` is x above, then m, r, g, b); infix `+ - * / % **` are ADD,
/// SUBTRACT, MULTIPLY, DIVIDE (integer quotients floor, as BCAST_OP_DIVIDE), FLOOR_MOD and
/// POWER, with Python's precedence; `< <= > >= == !=` the comparisons; any op is a call by
/// its lower-case name (`maximum(x + b, 0)`, `select(x > 0, x, x * 0.1)`, `divide_trunc(a,
/// b)`, `fake_quantize(x, il, ih, ol, oh, levels=256)`). A number is a constant of the type
/// of the first input that is not BOOL; `true` and `false` are BOOL constants. Every op
/// broadcasts by its rule under `ab` (`axis` as for `bcast_eltwise_shape`).
/// `bcast_expr_text_shape` and `bcast_expr_text_dtype` give the output shape and type.
/// The other arguments are `bcast_expr_eval`'s.
///
/// Statuses: `BCAST_ERR_INVALID` for text that does not parse (the message names the
/// character and what was expected), text of more than `BCAST_EXPR_MAX_NODES` ops, text
/// that is not UTF-8, `n_inputs` other than the
/// number of names in the text (the message lists them), or a number the inputs' type
/// cannot hold; `BCAST_ERR_NULL` for a NULL `text`; the others as for `bcast_expr_eval`.
///
/// Ownership: all memory is the caller's; nothing is kept after the call.
///
/// Thread-safety: any number of threads at once, each into its own `out`.
///
/// # Safety
/// `text` is NULL or a NUL-terminated string; the other pointers as for `bcast_expr_eval`.
#[no_mangle]
pub unsafe extern "C" fn bcast_expr_text_eval(
    text: *const c_char,
    n_inputs: usize,
    dtypes: *const DTypeCode,
    inputs: *const *const c_void,
    shapes: *const *const usize,
    ranks: *const usize,
    ab: AutoBroadcastCode,
    axis: i64,
    out: *mut c_void,
    out_capacity_elems: usize,
    threads: usize,
) -> c_int {
    const F: &str = "bcast_expr_text_eval";
    guard(|| {
        // SAFETY: the caller's contract on every array and buffer.
        unsafe {
            let e = text_expression(text, ab, axis, F)?;
            let operands = operands(n_inputs, dtypes, inputs, shapes, ranks, F)?;
            evaluate(&e, &operands, out, out_capacity_elems, threads, F)
        }
    })
}
