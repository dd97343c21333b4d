//! Element-wise ops under broadcast, every op of bcast's op table (`bcast::EltwiseOp`):
//! `bcast_eltwise` for any op and operand count, `bcast_binary` and `bcast_select` over it,
//! `bcast_eltwise_shape_n` and `bcast_eltwise_shape` for the output shape. The caller's
//! buffers are wrapped as views and read in place (no operand is copied); the output is
//! written in place, row-major.
//!
//! The header's `bcast_eltwise_op` enum is generated from the op table ([`op_header`]): its
//! values are the C codes written in the table, never positions.

use std::ffi::{c_int, c_void};

use bcast::{
    AutoBroadcast, BroadcastError, DType, EltwiseOp, Parallelism, TensorView, TensorViewMut,
};
use ndarray::{ArrayViewD, ArrayViewMutD, IxDyn};

use crate::error::{bcast_status, guard, Error};
use crate::plan::write_shape;
use crate::threads::threads;
use crate::types::{
    array_arg, byte_len, dst_buffer, dtype_of, src_buffer, with_dtype, DTypeCode, BCAST_MAX_RANK,
};

/// A `bcast_eltwise_op` as it crosses the boundary (read as an integer: a value that is no
/// code is an error, not undefined behaviour). The header shows `bcast_eltwise_op`.
pub type EltwiseOpCode = u32;

/// The former name of [`EltwiseOpCode`]: the header keeps `bcast_binary_op` as a typedef of
/// `bcast_eltwise_op`, so that C code written for it compiles unchanged.
pub type BinaryOpCode = EltwiseOpCode;

/// Every C code of the op table, in code order (an attribute value with a code of its own,
/// such as `divide_trunc`, included). Codes are small numbers; the search bound is far above
/// the table's.
fn c_ops() -> impl Iterator<Item = EltwiseOp> {
    (0..=u32::from(u16::MAX)).filter_map(EltwiseOp::from_c_code)
}

/// How `op` broadcasts, in the header's words.
fn rule_text(op: EltwiseOp) -> &'static str {
    match op {
        EltwiseOp::Prelu => {
            "OpenVINO's PRelu rule under BCAST_AB_NUMPY (a 1-D slope as long as x's axis 1 \
             goes on that axis, any other slope stretches onto x); BCAST_AB_NONE: equal shapes"
        }
        EltwiseOp::OnnxPrelu => {
            "the slope stretched onto x under BCAST_AB_NUMPY (ONNX's one-directional rule); \
             BCAST_AB_NONE: equal shapes"
        }
        EltwiseOp::FakeQuantize { .. } => {
            "auto_broadcast NONE, NUMPY (the limits stretch onto x, never x onto them) or PDPD"
        }
        _ if op.takes_auto_broadcast() => "auto_broadcast NONE, NUMPY or PDPD",
        _ => "the numpy rule over every operand under BCAST_AB_NUMPY; BCAST_AB_NONE: equal shapes",
    }
}

/// The header's `bcast_eltwise_op` enum, one entry per C code of the op table, each with
/// its names, operand count, broadcasting and element types; then `bcast_binary_op`.
#[doc(hidden)]
pub fn op_header() -> String {
    let mut h = String::from(
        "\n/**\n * The element-wise ops, one per row of bcast's op table (OpenVINO's and \
         ONNX's ops that\n * broadcast; where the two mean different things by one name, \
         both are here, named).\n * The values are the table's stable codes and will not be \
         renumbered. `bcast_eltwise`\n * takes every op; `bcast_binary` those of two operands \
         of one type.\n */\ntypedef enum bcast_eltwise_op {\n",
    );
    for op in c_ops() {
        let mut names = vec![format!("`{}`", op.c_name())];
        // The attribute values a code stands for (FakeQuantize's levels is an argument).
        let attributes = format!("{op:?}");
        if attributes.contains('{') && !matches!(op, EltwiseOp::FakeQuantize { .. }) {
            names[0] += &format!(" (`{attributes}`)");
        }
        if let Some(ov) = op.openvino_type() {
            names.push(format!("OpenVINO `{ov}`"));
        }
        if let Some(onnx) = op.onnx_type() {
            names.push(format!("ONNX `{onnx}`"));
        }
        let operands = match op.arity() {
            bcast::Arity::Exactly(n) => format!("{n} operands"),
            bcast::Arity::AtLeast(n) => format!("{n} or more operands"),
        };
        let accepted: Vec<DType> = DType::ALL
            .into_iter()
            .filter(|&d| crate::types::dtype_code(d).is_some() && op.output_dtype(d).is_ok())
            .collect();
        let writes_bool = accepted
            .iter()
            .any(|&d| d != DType::Bool && op.output_dtype(d).ok() == Some(DType::Bool));
        let types = match op {
            EltwiseOp::Select => "cond BOOL, then and else of any one type".to_string(),
            _ => {
                let list: Vec<String> = accepted
                    .iter()
                    .map(|&d| crate::types::dtype_c_name(d).replace("BCAST_DTYPE_", ""))
                    .collect();
                format!(
                    "{}{}",
                    list.join(", "),
                    if writes_bool { "; writes BOOL" } else { "" }
                )
            }
        };
        let extra = match op {
            EltwiseOp::FakeQuantize { .. } => "; `levels` is bcast_eltwise's argument",
            EltwiseOp::OnnxPow => "; the exponent may be of any integer or float type",
            _ => "",
        };
        let doc = format!(
            "{}: {operands}{extra}. Broadcast: {}. Types: {types}.",
            names.join(", "),
            rule_text(op)
        );
        h += &format!(
            "  /**\n{}   */\n  BCAST_OP_{} = {},\n",
            crate::types::doc_lines(&doc, "   * "),
            op.c_name().to_uppercase(),
            op.c_code()
        );
    }
    h += "} bcast_eltwise_op;\n\n/**\n * The former name of `bcast_eltwise_op` (every \
          `BCAST_OP_*` name and value stays).\n */\ntypedef bcast_eltwise_op \
          bcast_binary_op;\n";
    h
}

/// The op of a code, checked to take `n_inputs` operands, with `levels` for FakeQuantize
/// (which no code carries; `None`: a shape query, which does not depend on it).
#[inline]
pub(crate) fn op_of(
    code: EltwiseOpCode,
    n_inputs: usize,
    levels: Option<i64>,
    func: &str,
) -> Result<EltwiseOp, Error> {
    // By the number written in the op table, never by position.
    let op = EltwiseOp::from_c_code(code).ok_or_else(|| {
        Error::new(
            bcast_status::BCAST_ERR_INVALID,
            format!("{func}: unknown bcast_eltwise_op {code}"),
        )
    })?;
    check_arity(op, n_inputs, func)?;
    let invalid = |why: String| Err(Error::new(bcast_status::BCAST_ERR_INVALID, why));
    match (op, levels) {
        (_, None) => Ok(op),
        (EltwiseOp::FakeQuantize { .. }, Some(levels)) => match u64::try_from(levels) {
            Ok(levels) if levels >= 2 => Ok(EltwiseOp::FakeQuantize { levels }),
            _ => invalid(format!(
                "{func}: fake_quantize takes levels of 2 or more, not {levels}"
            )),
        },
        (_, Some(0)) => Ok(op),
        (_, Some(levels)) => invalid(format!(
            "{func}: {} takes no levels (pass 0), got {levels}",
            op.c_name()
        )),
    }
}

/// `op` checked to take `n` operands.
fn check_arity(op: EltwiseOp, n: usize, func: &str) -> Result<(), Error> {
    if op.arity().admits(n) {
        return Ok(());
    }
    let expected = match op.arity() {
        bcast::Arity::Exactly(k) => k.to_string(),
        bcast::Arity::AtLeast(k) => format!("{k} or more"),
    };
    Err(Error::new(
        bcast_status::BCAST_ERR_INVALID,
        format!("{func}: {} takes {expected} operands, got {n}", op.c_name()),
    ))
}

/// An element-wise op's `auto_broadcast` attribute (OpenVINO's).
#[repr(C)]
#[allow(non_camel_case_types)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum bcast_auto_broadcast {
    /// The shapes must be equal.
    BCAST_AB_NONE = 0,
    /// Right-aligned, per axis equal or one of them 1; both operands stretch.
    BCAST_AB_NUMPY = 1,
    /// `b` (trailing 1s dropped) laid on `a`'s axes from `axis` (-1: right-aligned); the
    /// output is `a`'s shape.
    BCAST_AB_PDPD = 2,
}

/// A `bcast_auto_broadcast` as it crosses the boundary. The header shows
/// `bcast_auto_broadcast`.
pub type AutoBroadcastCode = u32;

pub(crate) fn spec_of(
    code: AutoBroadcastCode,
    axis: i64,
    func: &str,
) -> Result<AutoBroadcast, Error> {
    Ok(match code {
        0 => AutoBroadcast::None,
        1 => AutoBroadcast::Numpy,
        2 => AutoBroadcast::Pdpd { axis },
        _ => {
            return Err(Error::new(
                bcast_status::BCAST_ERR_INVALID,
                format!("{func}: unknown bcast_auto_broadcast {code} (expected 0 to 2)"),
            ))
        }
    })
}

/// A shape argument.
///
/// # Safety
/// As [`array_arg`].
pub(crate) unsafe fn shape_arg<'a>(
    ptr: *const usize,
    rank: usize,
    func: &str,
    what: &str,
) -> Result<&'a [usize], Error> {
    // SAFETY: passed on.
    unsafe { array_arg(ptr, rank, BCAST_MAX_RANK, func, what) }
}

/// The byte range `[start, end)` an operand's buffer covers (empty for no elements).
pub(crate) type Span = (usize, usize);

/// The caller's `bool` buffer of `len` bytes, each checked to be 0 or 1 (any other byte is
/// not a Rust `bool`).
///
/// # Safety
/// As [`src_buffer`].
unsafe fn bool_buffer<'a>(
    ptr: *const c_void,
    len: usize,
    func: &str,
    what: &str,
) -> Result<&'a [bool], Error> {
    // SAFETY: passed on.
    let bytes = unsafe { src_buffer::<u8>(ptr, len, func, what)? };
    // Blocks of bytes OR-ed together, a reduction the compiler vectorises (a search that
    // stops at the first bad byte is not, and read a decoder's 64 KiB causal mask a byte at a
    // time on every call); the bad byte's index is looked for only in a bad block.
    const BLOCK: usize = 4096;
    let bad_block = bytes
        .chunks(BLOCK)
        .position(|block| block.iter().fold(0u8, |any, &b| any | b) > 1);
    if let Some(i) = bad_block.and_then(|k| {
        let from = k * BLOCK;
        bytes[from..].iter().position(|&b| b > 1).map(|j| from + j)
    }) {
        return Err(Error::new(
            bcast_status::BCAST_ERR_INVALID,
            format!(
                "{func}: {what}[{i}] is {}, but a bool must be 0 or 1",
                bytes[i]
            ),
        ));
    }
    // SAFETY: every byte is 0 or 1, a valid `bool`, which has the size and alignment of
    // `u8`; same length and lifetime.
    Ok(unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast::<bool>(), bytes.len()) })
}

/// The caller's operand of `dtype` and `shape` as a view of its own memory, and its span.
///
/// # Safety
/// A non-NULL `ptr` points to the shape's element count of readable elements of `dtype`,
/// not written during the call.
pub(crate) unsafe fn in_view<'a>(
    dtype: DType,
    ptr: *const c_void,
    shape: &[usize],
    func: &str,
    what: &str,
) -> Result<(TensorView<'a>, Span), Error> {
    let len = bcast::checked_len(shape)?;
    // SAFETY: the caller's contract.
    let (addr, span) = unsafe { in_buffer(dtype, ptr, len, func, what)? };
    // SAFETY: `in_buffer` checked the address for the shape's element count of `dtype`;
    // readable for 'a (the contract).
    Ok((unsafe { view_at(dtype, addr, shape) }, span))
}

/// The caller's operand of `dtype` and `len` elements, checked as [`in_view`] checks it, as
/// the address of its first element (a dangling, aligned one when it has none) and its span:
/// for a prepared op, which needs no view.
///
/// # Safety
/// As [`in_view`].
#[inline]
pub(crate) unsafe fn in_buffer(
    dtype: DType,
    ptr: *const c_void,
    len: usize,
    func: &str,
    what: &str,
) -> Result<(*const u8, Span), Error> {
    if dtype == DType::Bool {
        // SAFETY: the caller's contract.
        unsafe { bool_buffer(ptr, len, func, what)? };
    }
    with_dtype!(dtype, T => {
        // SAFETY: the caller's contract.
        let s = unsafe { src_buffer::<T>(ptr, len, func, what)? };
        let start = s.as_ptr() as usize;
        Ok((s.as_ptr().cast::<u8>(), (start, start + std::mem::size_of_val(s))))
    }, other => Err(no_code(other, func)))
}

/// The caller's output of `dtype` and `len` elements, checked as [`out_view`] checks it, as
/// the address of its first element (a dangling, aligned one when it has none).
///
/// # Safety
/// As [`out_view`].
#[inline]
pub(crate) unsafe fn out_buffer(
    dtype: DType,
    ptr: *mut c_void,
    capacity: usize,
    shape: &[usize],
    len: usize,
    inputs: &[Span],
    func: &str,
) -> Result<*mut u8, Error> {
    if capacity < len {
        return Err(short_output(shape, len, capacity, func));
    }
    with_dtype!(dtype, T => {
        // SAFETY: the caller's contract; `len <= capacity`. The overlap with every operand is
        // checked below.
        let s = unsafe { dst_buffer::<T>(ptr, len, &[], func, "out")? };
        let (d0, d1) = (s.as_ptr() as usize, s.as_ptr() as usize + std::mem::size_of_val(s));
        if inputs.iter().any(|&(s0, s1)| s0 < s1 && d0 < s1 && s0 < d1) {
            return Err(overlaps_input(func));
        }
        Ok(s.as_mut_ptr().cast::<u8>())
    }, other => Err(no_code(other, func)))
}

#[cold]
#[inline(never)]
fn short_output(shape: &[usize], len: usize, capacity: usize, func: &str) -> Error {
    Error::new(
        bcast_status::BCAST_ERR_CAPACITY,
        format!(
            "{func}: the output {shape:?} has {len} elements but out_capacity_elems is {capacity}"
        ),
    )
}

#[cold]
#[inline(never)]
fn overlaps_input(func: &str) -> Error {
    Error::new(
        bcast_status::BCAST_ERR_INVALID,
        format!("{func}: out overlaps an input buffer"),
    )
}

/// The error for a dtype no `bcast_dtype` code names (never reached: `dtype_of` gives none).
#[cold]
#[inline(never)]
fn no_code(dtype: DType, func: &str) -> Error {
    Error::new(
        bcast_status::BCAST_ERR_DTYPE,
        format!("{func}: {dtype} has no bcast_dtype"),
    )
}

/// The caller's output of `dtype`, row-major with `shape`, after checking its capacity and
/// that it overlaps no operand.
///
/// # Safety
/// A non-NULL `ptr` points to `capacity` writable elements of `dtype`, not otherwise
/// accessed during the call.
pub(crate) unsafe fn out_view<'a>(
    dtype: DType,
    ptr: *mut c_void,
    capacity: usize,
    shape: &[usize],
    inputs: &[Span],
    func: &str,
) -> Result<TensorViewMut<'a>, Error> {
    let len = bcast::checked_len(shape)?;
    // SAFETY: the caller's contract.
    let addr = unsafe { out_buffer(dtype, ptr, capacity, shape, len, inputs, func)? };
    // SAFETY: `out_buffer` checked the address for the shape's element count of `dtype` and
    // the overlap; writable and unaliased for 'a (the contract).
    Ok(unsafe { view_mut_at(dtype, addr, shape) })
}

/// A row-major view of `shape` of `dtype` at `ptr`.
///
/// # Safety
/// `ptr` was checked by `in_buffer` for the shape's element count of `dtype`, and is not
/// written for 'a.
unsafe fn view_at<'a>(dtype: DType, ptr: *const u8, shape: &[usize]) -> TensorView<'a> {
    with_dtype!(dtype, T => {
        // SAFETY: the caller's contract: non-NULL or dangling for none, aligned, holding the
        // shape's elements, row-major. (ndarray's safe constructor would measure the slice
        // again, a visible share of a tiny call.)
        TensorView::from(unsafe { ArrayViewD::from_shape_ptr(IxDyn(shape), ptr.cast::<T>()) })
    }, _other => unreachable!("a dtype with a code"))
}

/// A row-major writable view of `shape` of `dtype` at `ptr`.
///
/// # Safety
/// `ptr` was checked by `out_buffer` for the shape's element count of `dtype`, and nothing
/// else accesses it for 'a.
unsafe fn view_mut_at<'a>(dtype: DType, ptr: *mut u8, shape: &[usize]) -> TensorViewMut<'a> {
    with_dtype!(dtype, T => {
        // SAFETY: the caller's contract, as `view_at`'s, and unaliased.
        TensorViewMut::from(unsafe {
            ArrayViewMutD::from_shape_ptr(IxDyn(shape), ptr.cast::<T>())
        })
    }, _other => unreachable!("a dtype with a code"))
}

/// The output element type of `op` on operands of `dtypes` (arity checked): Select's is
/// `then`'s, ONNX Pow's the base's, the others' the op table's rule on operand 0's.
fn output_dtype(op: EltwiseOp, dtypes: &[DType]) -> Result<DType, BroadcastError> {
    match op {
        EltwiseOp::Select => Ok(dtypes[1]),
        _ => op.output_dtype(dtypes[0]),
    }
}

/// One operand as the caller gave it.
pub(crate) struct Operand<'a> {
    pub(crate) dtype: DType,
    pub(crate) data: *const c_void,
    pub(crate) shape: &'a [usize],
    pub(crate) what: &'static str,
}

impl<'a> Operand<'a> {
    /// An operand of the caller's (`what`, its shape `shape_what` in messages), its shape
    /// read.
    ///
    /// # Safety
    /// As [`shape_arg`] for `shape` and `rank`.
    unsafe fn new(
        dtype: DType,
        data: *const c_void,
        (shape, rank): (*const usize, usize),
        func: &str,
        (what, shape_what): (&'static str, &str),
    ) -> Result<Self, Error> {
        // SAFETY: passed on.
        let shape = unsafe { shape_arg(shape, rank, func, shape_what)? };
        Ok(Operand {
            dtype,
            data,
            shape,
            what,
        })
    }
}

/// `op` on `operands` under `spec` into the caller's `out`: the path of every element-wise
/// entry point.
///
/// # Safety
/// As [`evaluate`].
unsafe fn run(
    op: EltwiseOp,
    operands: &[Operand<'_>],
    spec: &AutoBroadcast,
    out: *mut c_void,
    capacity: usize,
    threads: usize,
    func: &str,
) -> Result<(), Error> {
    check_arity(op, operands.len(), func)?;
    // SAFETY: passed on.
    unsafe { evaluate(&OneOp { op, spec }, operands, out, capacity, threads, func) }
}

/// What an evaluating entry point computes from the caller's operands: one op of the table
/// ([`OneOp`], `bcast_eltwise` and the calls over it) or an expression (`bcast_expr_eval`
/// and `bcast_expr_text_eval`). [`evaluate`] asks it for the output's type and shape, makes
/// the output view, then has it write there.
pub(crate) trait Evaluation {
    fn output_dtype(&self, dtypes: &[DType]) -> Result<DType, BroadcastError>;
    fn output_shape(&self, shapes: &[&[usize]]) -> Result<Vec<usize>, BroadcastError>;
    fn evaluate_into(
        &self,
        inputs: &[TensorView<'_>],
        out: TensorViewMut<'_>,
        par: Parallelism<'_>,
    ) -> Result<(), BroadcastError>;

    /// [`Evaluation::evaluate_into`] on row-major buffers by address (each checked by
    /// `in_buffer`, `out` by `out_buffer`): on views of them, unless the evaluation has a
    /// path of its own on addresses.
    ///
    /// # Safety
    /// As [`bcast::eltwise_row_major`].
    unsafe fn evaluate_row_major(
        &self,
        inputs: &[(DType, *const u8, &[usize])],
        out: (DType, *mut u8, &[usize]),
        par: Parallelism<'_>,
    ) -> Result<(), BroadcastError> {
        // SAFETY: the caller's contract: checked, row-major buffers of their shapes.
        let view = |&(dtype, ptr, shape): &(DType, *const u8, &[usize])| unsafe {
            view_at(dtype, ptr, shape)
        };
        // SAFETY: the caller's contract on `out`.
        let out_view = unsafe { view_mut_at(out.0, out.1, out.2) };
        // Two and three operands on the stack, as `evaluate` keeps them.
        match inputs {
            [a, b] => self.evaluate_into(&[view(a), view(b)], out_view, par),
            [a, b, c] => self.evaluate_into(&[view(a), view(b), view(c)], out_view, par),
            _ => {
                let mut views: Vec<TensorView<'_>> = Vec::new();
                views
                    .try_reserve_exact(inputs.len())
                    .map_err(|_| BroadcastError::Allocation {
                        bytes: std::mem::size_of::<TensorView<'_>>().saturating_mul(inputs.len()),
                        shape: bcast::Dims(vec![inputs.len()]),
                    })?;
                views.extend(inputs.iter().map(view));
                self.evaluate_into(&views, out_view, par)
            }
        }
    }
}

/// One op of the table under one broadcast rule.
struct OneOp<'a> {
    op: EltwiseOp,
    spec: &'a AutoBroadcast,
}

impl Evaluation for OneOp<'_> {
    fn output_dtype(&self, dtypes: &[DType]) -> Result<DType, BroadcastError> {
        output_dtype(self.op, dtypes)
    }

    fn output_shape(&self, shapes: &[&[usize]]) -> Result<Vec<usize>, BroadcastError> {
        bcast::eltwise_output_shape(self.op, shapes, self.spec)
    }

    fn evaluate_into(
        &self,
        inputs: &[TensorView<'_>],
        out: TensorViewMut<'_>,
        par: Parallelism<'_>,
    ) -> Result<(), BroadcastError> {
        bcast::eltwise_view_into(self.op, inputs, self.spec, out, par)
    }

    unsafe fn evaluate_row_major(
        &self,
        inputs: &[(DType, *const u8, &[usize])],
        out: (DType, *mut u8, &[usize]),
        par: Parallelism<'_>,
    ) -> Result<(), BroadcastError> {
        // SAFETY: the caller's contract, which is this function's.
        unsafe { bcast::eltwise_row_major(self.op, inputs, self.spec, out.1, out.2, par) }
    }
}

/// [`evaluate`]'s body for the operands named, each list an array on the stack; the operands
/// are read in order (the first refused one is the error, returned from the function it is
/// used in). An `unsafe` block's contents: the caller's contract is [`evaluate`]'s.
macro_rules! evaluate_fixed {
    ($evaluation:expr, [$($o:ident),+], $out:expr, $capacity:expr, $threads:expr, $func:expr) => {{
        let out_dtype = $evaluation.output_dtype(&[$($o.dtype),+])?;
        let threads = self::threads($threads, $func)?;
        let shape = $evaluation.output_shape(&[$($o.shape),+])?;
        $(let $o = (
            in_buffer($o.dtype, $o.data, bcast::checked_len($o.shape)?, $func, $o.what)?,
            $o,
        );)+
        let len = bcast::checked_len(&shape)?;
        let out = out_buffer(out_dtype, $out, $capacity, &shape, len, &[$(($o.0).1),+], $func)?;
        $evaluation.evaluate_row_major(
            &[$(($o.1.dtype, ($o.0).0, $o.1.shape)),+],
            (out_dtype, out, &shape),
            threads.parallelism(),
        )?;
        Ok(())
    }};
}

/// `evaluation` on `operands` into the caller's `out`: the operands' types and shapes give the
/// output's, each operand's buffer becomes a view of its own memory, and `out` a view checked
/// to hold the output and to overlap no operand.
///
/// # Safety
/// Each operand's `data` is NULL or holds its shape's element count of readable elements of
/// its dtype; `out` is NULL or holds `capacity` writable elements of the output type.
pub(crate) unsafe fn evaluate(
    evaluation: &impl Evaluation,
    operands: &[Operand<'_>],
    out: *mut c_void,
    capacity: usize,
    threads: usize,
    func: &str,
) -> Result<(), Error> {
    // Two and three operands (every binary op, Select) with their lists on the stack: a
    // tiny call would spend a visible share of its time allocating and moving them.
    match operands {
        [a, b] => {
            // SAFETY: the caller's contract, passed on.
            return unsafe { evaluate_fixed!(evaluation, [a, b], out, capacity, threads, func) };
        }
        [a, b, c] => {
            // SAFETY: the caller's contract, passed on.
            return unsafe { evaluate_fixed!(evaluation, [a, b, c], out, capacity, threads, func) };
        }
        _ => {}
    }
    let dtypes = collect(operands.iter().map(|o| o.dtype), func)?;
    let out_dtype = evaluation.output_dtype(&dtypes)?;
    let threads = self::threads(threads, func)?;
    let shapes = collect(operands.iter().map(|o| o.shape), func)?;
    let shape = evaluation.output_shape(&shapes)?;
    let (mut views, mut spans) = (Vec::new(), Vec::new());
    views
        .try_reserve_exact(operands.len())
        .map_err(|_| no_memory(func))?;
    spans
        .try_reserve_exact(operands.len())
        .map_err(|_| no_memory(func))?;
    for o in operands {
        // SAFETY: the caller's contract.
        let (view, span) = unsafe { in_view(o.dtype, o.data, o.shape, func, o.what)? };
        views.push(view);
        spans.push(span);
    }
    // SAFETY: the caller's contract.
    let out = unsafe { out_view(out_dtype, out, capacity, &shape, &spans, func)? };
    evaluation.evaluate_into(&views, out, threads.parallelism())?;
    Ok(())
}

/// `items` in a vector whose memory, sized by the caller's operand count, is fallible.
pub(crate) fn collect<T>(
    items: impl ExactSizeIterator<Item = T>,
    func: &str,
) -> Result<Vec<T>, Error> {
    try_collect(items.map(Ok), func)
}

/// [`collect`] of items that may each be an error: the first error is returned, and no item
/// after it is made.
pub(crate) fn try_collect<T>(
    items: impl ExactSizeIterator<Item = Result<T, Error>>,
    func: &str,
) -> Result<Vec<T>, Error> {
    let mut v = Vec::new();
    v.try_reserve_exact(items.len())
        .map_err(|_| no_memory(func))?;
    for item in items {
        v.push(item?);
    }
    Ok(v)
}

pub(crate) fn no_memory(func: &str) -> Error {
    Error::new(
        bcast_status::BCAST_ERR_ALLOC,
        format!("{func}: cannot allocate the operand list"),
    )
}

/// The caller's array of `n` per-operand values (`n` checked to fit in memory first).
///
/// # Safety
/// As [`array_arg`].
pub(crate) unsafe fn per_operand<'a, T>(
    ptr: *const T,
    n: usize,
    func: &str,
    what: &str,
) -> Result<&'a [T], Error> {
    byte_len(n, std::mem::size_of::<T>(), func, what)?;
    // SAFETY: passed on; the length fits in an address range (checked).
    unsafe { array_arg(ptr, n, usize::MAX, func, what) }
}

/// The caller's `n_inputs` operands, each its `dtypes[i]`, buffer `inputs[i]` and shape
/// `shapes[i]` of rank `ranks[i]` (the buffers are read later, by [`in_view`]).
///
/// # Safety
/// `dtypes`, `inputs`, `shapes` and `ranks` are NULL or hold `n_inputs` readable entries;
/// each `shapes[i]` is NULL or points to `ranks[i]` readable values.
pub(crate) unsafe fn operands<'a>(
    n_inputs: usize,
    dtypes: *const DTypeCode,
    inputs: *const *const c_void,
    shapes: *const *const usize,
    ranks: *const usize,
    func: &str,
) -> Result<Vec<Operand<'a>>, Error> {
    // SAFETY: the caller's contract on every array.
    let (dtypes, inputs, shapes, ranks) = unsafe {
        (
            per_operand(dtypes, n_inputs, func, "dtypes")?,
            per_operand(inputs, n_inputs, func, "inputs")?,
            per_operand(shapes, n_inputs, func, "shapes")?,
            per_operand(ranks, n_inputs, func, "ranks")?,
        )
    };
    let per_input = dtypes.iter().zip(inputs).zip(shapes.iter().zip(ranks));
    let operand = |(i, ((&dtype, &data), (&shape, &rank)))| {
        let dtype = dtype_of(dtype, func)?;
        let names = ("inputs[i]", &*format!("shapes[{i}]"));
        // SAFETY: the caller's contract: `shape` points to `rank` readable values.
        unsafe { Operand::new(dtype, data, (shape, rank), func, names) }
    };
    try_collect(per_input.enumerate().map(operand), func)
}

/// The caller's `n_inputs` shapes, `shapes[i]` of rank `ranks[i]`: the operands of a shape
/// query.
///
/// # Safety
/// `shapes` and `ranks` are NULL or hold `n_inputs` readable entries; each `shapes[i]` is
/// NULL or points to `ranks[i]` readable values.
pub(crate) unsafe fn operand_shapes<'a>(
    n_inputs: usize,
    shapes: *const *const usize,
    ranks: *const usize,
    func: &str,
) -> Result<Vec<&'a [usize]>, Error> {
    // SAFETY: the caller's contract on both arrays.
    let (shape_ptrs, ranks) = unsafe {
        (
            per_operand(shapes, n_inputs, func, "shapes")?,
            per_operand(ranks, n_inputs, func, "ranks")?,
        )
    };
    let shape = |(&p, &r)| {
        // SAFETY: the caller's contract: `p` points to `r` readable values.
        unsafe { shape_arg(p, r, func, "shapes[i]") }
    };
    try_collect(shape_ptrs.iter().zip(ranks).map(shape), func)
}

/// The output shape of an element-wise op on shapes `a_shape` and `b_shape` under `ab`
/// (`axis`: the PDPD start axis, -1 right-aligned; ignored by NONE and NUMPY), written to
/// `shape[0..rank]`, its rank to `*rank_out`. For `bcast_select` under NUMPY, call it twice
/// (`then` with `else`, the result with `cond`); under NONE and PDPD the output is `then`'s.
///
/// Statuses: `BCAST_ERR_SHAPE` if the shapes break the rule; `BCAST_ERR_CAPACITY` if
/// `capacity` is smaller than the rank (then `*rank_out` holds the rank needed);
/// `BCAST_ERR_INVALID` for an unknown `ab`; `BCAST_ERR_RANK` for a rank above
/// `BCAST_MAX_RANK`; `BCAST_ERR_OVERFLOW` for a shape whose element count overflows;
/// `BCAST_ERR_NULL` for a NULL `rank_out`, a NULL shape with a non-zero rank, or a NULL
/// `shape` that has a rank to hold; `BCAST_ERR_ALIGN` for a shape array not aligned to
/// `size_t`.
///
/// Ownership: all memory is the caller's. Thread-safety: any number of threads at once.
///
/// # Safety
/// Each shape pointer is NULL or points to as many readable values as its rank says;
/// `shape` is NULL or holds `capacity` writable `size_t`; `rank_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bcast_eltwise_shape(
    a_shape: *const usize,
    a_rank: usize,
    b_shape: *const usize,
    b_rank: usize,
    ab: AutoBroadcastCode,
    axis: i64,
    shape: *mut usize,
    capacity: usize,
    rank_out: *mut usize,
) -> c_int {
    const F: &str = "bcast_eltwise_shape";
    guard(|| {
        // SAFETY: the caller's contract on every array.
        unsafe {
            let a = shape_arg(a_shape, a_rank, F, "a_shape")?;
            let b = shape_arg(b_shape, b_rank, F, "b_shape")?;
            let spec = spec_of(ab, axis, F)?;
            let dims = bcast::eltwise_shape(a, b, &spec)?;
            write_shape(&dims, shape, capacity, rank_out, F)
        }
    })
}

/// The output shape of `op` on `n_inputs` operands of shapes `shapes[i]` (rank
/// `ranks[i]`) under `ab` (`axis` as for `bcast_eltwise_shape`), written to
/// `shape[0..rank]`, its rank to `*rank_out`: the shape `bcast_eltwise` writes. Each op
/// broadcasts by its rule (the `bcast_eltwise_op` entry says which): the ops that take
/// auto_broadcast under `ab`; the ONNX ops by the numpy rule over every operand
/// (`BCAST_AB_NONE`: equal shapes; `BCAST_AB_PDPD` refused); PRelu and FakeQuantize
/// stretch their other operands onto x. Select's operands are cond, then, else.
///
/// Statuses: `BCAST_ERR_INVALID` for an unknown op or `ab`, an operand count the op does
/// not take, or PDPD for an op that broadcasts by its own rule; the others as for
/// `bcast_eltwise_shape`; `BCAST_ERR_NULL` also for a NULL `shapes` or `ranks` when
/// `n_inputs` is not 0; `BCAST_ERR_ALLOC` when the operand list cannot be allocated.
///
/// Ownership: all memory is the caller's. Thread-safety: any number of threads at once.
///
/// # Safety
/// `shapes` and `ranks` are NULL or hold `n_inputs` readable entries; each `shapes[i]` is
/// NULL or points to `ranks[i]` readable values; `shape` is NULL or holds `capacity`
/// writable `size_t`; `rank_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bcast_eltwise_shape_n(
    op: EltwiseOpCode,
    n_inputs: usize,
    shapes: *const *const usize,
    ranks: *const usize,
    ab: AutoBroadcastCode,
    axis: i64,
    shape: *mut usize,
    capacity: usize,
    rank_out: *mut usize,
) -> c_int {
    const F: &str = "bcast_eltwise_shape_n";
    guard(|| {
        // SAFETY: the caller's contract on every array.
        unsafe {
            let op = op_of(op, n_inputs, None, F)?;
            let operand_shapes = operand_shapes(n_inputs, shapes, ranks, F)?;
            let spec = spec_of(ab, axis, F)?;
            let dims = bcast::eltwise_output_shape(op, &operand_shapes, &spec)?;
            write_shape(&dims, shape, capacity, rank_out, F)
        }
    })
}

/// `out = op(inputs[0], ..., inputs[n_inputs - 1])` element-wise, every op of the op table:
/// operand `i` has element type `dtypes[i]`, shape `shapes[i]` (rank `ranks[i]`), its
/// buffer `inputs[i]` row-major and aligned to its type, read in place (never copied). The
/// operands broadcast by the op's rule under `ab` (`axis` as for `bcast_eltwise_shape`);
/// `bcast_eltwise_shape_n` gives the output shape. `out` is row-major of the output type:
/// BOOL for comparisons and logical ops, `then`'s type for Select (operands cond, then,
/// else), the base's for ONNX_POW, else the operands' type.
///
/// Operand counts: 2 for most ops, 3 for SELECT, 5 for FAKE_QUANTIZE (x, input_low,
/// input_high, output_low, output_high), 1 or more for SUM, MEAN, MAX and MIN (folded in
/// one pass). Every operand has one type, but for ONNX_POW, whose exponent may be of any
/// integer or float type, and SELECT, whose cond is BOOL. `levels` is FakeQuantize's
/// (2 or more); every other op takes 0. `threads` as for `bcast_plan_run`; the result does
/// not depend on it.
///
/// Statuses: `BCAST_ERR_INVALID` for an unknown op, dtype or `ab`, an operand count the op
/// does not take, a `levels` below 2 for FAKE_QUANTIZE or other than 0 for another op, PDPD
/// for an op that broadcasts by its own rule, a bool byte other than 0 or 1, or an `out`
/// overlapping an input; `BCAST_ERR_DTYPE` for operand types the op does not take (types
/// that differ, a type the op has no definition for); `BCAST_ERR_DIV_ZERO` for an integer
/// division or remainder by 0 (nothing is written then); `BCAST_ERR_CAPACITY`,
/// `BCAST_ERR_SHAPE`, `BCAST_ERR_RANK`, `BCAST_ERR_OVERFLOW`, `BCAST_ERR_ALIGN`,
/// `BCAST_ERR_THREADS` as for `bcast_binary`; `BCAST_ERR_NULL` also for a NULL `dtypes`,
/// `inputs`, `shapes` or `ranks` when `n_inputs` is not 0; `BCAST_ERR_ALLOC` when a
/// temporary cannot be allocated.
///
/// Ownership: all memory is the caller's; nothing is kept after the call.
///
/// Thread-safety: any number of threads at once, each into its own `out`.
///
/// # Safety
/// `dtypes`, `inputs`, `shapes` and `ranks` are NULL or hold `n_inputs` readable entries;
/// each `shapes[i]` is NULL or points to `ranks[i]` readable values; each `inputs[i]` is
/// NULL or holds its shape's element count of readable elements of `dtypes[i]`; `out` is
/// NULL or holds `out_capacity_elems` writable elements of the output type.
#[no_mangle]
pub unsafe extern "C" fn bcast_eltwise(
    op: EltwiseOpCode,
    n_inputs: usize,
    dtypes: *const DTypeCode,
    inputs: *const *const c_void,
    shapes: *const *const usize,
    ranks: *const usize,
    ab: AutoBroadcastCode,
    axis: i64,
    levels: i64,
    out: *mut c_void,
    out_capacity_elems: usize,
    threads: usize,
) -> c_int {
    const F: &str = "bcast_eltwise";
    guard(|| {
        // SAFETY: the caller's contract on every array and buffer.
        unsafe {
            let op = op_of(op, n_inputs, Some(levels), F)?;
            let operands = operands(n_inputs, dtypes, inputs, shapes, ranks, F)?;
            let spec = spec_of(ab, axis, F)?;
            run(op, &operands, &spec, out, out_capacity_elems, threads, F)
        }
    })
}

/// `out = op(a, b)` element-wise, `a` and `b` (row-major, of `dtype`, aligned to it)
/// broadcast under `ab` (`axis` as for `bcast_eltwise_shape`), into `out` (row-major, the
/// shape `bcast_eltwise_shape` gives; `dtype` for arithmetic, bool, one byte 0/1, for
/// comparisons and logical ops). Every op of two operands (`bcast_eltwise` with two);
/// `bcast_eltwise_shape_n` gives the output shape of the ops that broadcast by their own
/// rule (PRELU, ONNX_PRELU). The operands are read in place, never copied. `threads` as for
/// `bcast_plan_run`; the result does not depend on it.
///
/// Statuses: `BCAST_ERR_CAPACITY` if `out_capacity_elems` is below the output's element
/// count (nothing is written); `BCAST_ERR_SHAPE` for shapes that break the rule;
/// `BCAST_ERR_DTYPE` for an op the dtype does not have (arithmetic on BOOL, logical ops on
/// anything but BOOL); `BCAST_ERR_DIV_ZERO` for an integer DIVIDE, DIVIDE_TRUNC, MOD or
/// FLOOR_MOD whose `b` holds a 0 (nothing is written then); `BCAST_ERR_INVALID` for an
/// unknown code or an op of another operand count, a bool byte other than 0 or 1, or an
/// `out` overlapping `a` or `b`; `BCAST_ERR_RANK`, `BCAST_ERR_OVERFLOW`, `BCAST_ERR_NULL`
/// and `BCAST_ERR_ALIGN` as for `bcast_eltwise_shape`, and for the buffers as for
/// `bcast_plan_run`; `BCAST_ERR_THREADS` as there; `BCAST_ERR_ALLOC` when a temporary
/// cannot be allocated.
///
/// Ownership: all memory is the caller's; nothing is kept after the call.
///
/// Thread-safety: any number of threads at once, each into its own `out`.
///
/// # Safety
/// Each shape pointer is NULL or points to as many readable values as its rank says; `a`
/// and `b` are NULL or hold their shape's element count of readable elements of `dtype`;
/// `out` is NULL or holds `out_capacity_elems` writable elements of the output type.
#[no_mangle]
pub unsafe extern "C" fn bcast_binary(
    op: BinaryOpCode,
    dtype: DTypeCode,
    a: *const c_void,
    a_shape: *const usize,
    a_rank: usize,
    b: *const c_void,
    b_shape: *const usize,
    b_rank: usize,
    ab: AutoBroadcastCode,
    axis: i64,
    out: *mut c_void,
    out_capacity_elems: usize,
    threads: usize,
) -> c_int {
    const F: &str = "bcast_binary";
    guard(|| {
        // SAFETY: the caller's contract on every array and buffer.
        unsafe {
            let op = op_of(op, 2, Some(0), F)?;
            let dtype = dtype_of(dtype, F)?;
            let operands = [
                Operand::new(dtype, a, (a_shape, a_rank), F, ("a", "a_shape"))?,
                Operand::new(dtype, b, (b_shape, b_rank), F, ("b", "b_shape"))?,
            ];
            let spec = spec_of(ab, axis, F)?;
            run(op, &operands, &spec, out, out_capacity_elems, threads, F)
        }
    })
}

/// `out = cond ? then : else_` element-wise: `cond` bool (one byte, 0 or 1), `then` and
/// `else_` of `dtype`, all row-major and read in place; `out` row-major of `dtype`.
/// Broadcast under `ab`: NUMPY broadcasts all three together; NONE needs three equal
/// shapes; PDPD keeps `then`'s shape and lays `else_` and `cond` on it from `axis`.
/// `threads` as for `bcast_plan_run`. `bcast_eltwise` with BCAST_OP_SELECT.
///
/// Statuses as for `bcast_binary` (no `BCAST_ERR_DIV_ZERO`; a `cond` byte other than 0 or 1
/// is `BCAST_ERR_INVALID`). Every dtype, BOOL included.
///
/// Ownership: all memory is the caller's; nothing is kept after the call.
///
/// Thread-safety: any number of threads at once, each into its own `out`.
///
/// # Safety
/// Each shape pointer is NULL or points to as many readable values as its rank says; `cond`,
/// `then` and `else_` are NULL or hold their shape's element count of readable elements;
/// `out` is NULL or holds `out_capacity_elems` writable elements of `dtype`.
#[no_mangle]
pub unsafe extern "C" fn bcast_select(
    dtype: DTypeCode,
    cond: *const u8,
    cond_shape: *const usize,
    cond_rank: usize,
    then: *const c_void,
    then_shape: *const usize,
    then_rank: usize,
    else_: *const c_void,
    else_shape: *const usize,
    else_rank: usize,
    ab: AutoBroadcastCode,
    axis: i64,
    out: *mut c_void,
    out_capacity_elems: usize,
    threads: usize,
) -> c_int {
    const F: &str = "bcast_select";
    guard(|| {
        // SAFETY: the caller's contract on every array and buffer.
        unsafe {
            let dtype = dtype_of(dtype, F)?;
            let operands = [
                Operand::new(
                    DType::Bool,
                    cond.cast(),
                    (cond_shape, cond_rank),
                    F,
                    ("cond", "cond_shape"),
                )?,
                Operand::new(
                    dtype,
                    then,
                    (then_shape, then_rank),
                    F,
                    ("then", "then_shape"),
                )?,
                Operand::new(
                    dtype,
                    else_,
                    (else_shape, else_rank),
                    F,
                    ("else", "else_shape"),
                )?,
            ];
            let spec = spec_of(ab, axis, F)?;
            run(
                EltwiseOp::Select,
                &operands,
                &spec,
                out,
                out_capacity_elems,
                threads,
                F,
            )
        }
    })
}
