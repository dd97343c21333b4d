//! Execution contexts (`bcast_context`: the threads calls run on) and prepared ops
//! (`bcast_op`: one node's op, types, shapes and rule checked and planned once, run many
//! times on new buffers).
//!
//! A context is made once by a runtime (per session) and named by every prepared op made
//! with it; the op holds its own reference, so contexts and ops may be freed in any order.

use std::ffi::{c_int, c_void};
use std::sync::Arc;
use std::time::Duration;

use bcast::exec::{Context, ParallelFor, TeamBuilder};
use bcast::{DType, PreparedOp};

use crate::eltwise::{
    collect, in_buffer, op_of, operands, out_buffer, spec_of, AutoBroadcastCode, EltwiseOpCode,
    Span,
};
use crate::error::{bcast_status, guard, Error};
use crate::plan::write_shape;
use crate::types::null_out;
use crate::types::BCAST_MAX_THREADS;

/// Where calls run: a team of bcast's own, the calling thread only, or the host's own pool
/// (through its parallel-for). Made with `bcast_context_create` or
/// `bcast_context_create_host`, freed with `bcast_context_free`; immutable once made, so
/// any number of threads may use one context at once.
pub struct bcast_context {
    ctx: Arc<Context>,
}

/// One task of a host parallel-for: bcast's function, called by the host with the
/// `task_data` it was given and an index in `0..n`.
pub type bcast_task_fn = Option<unsafe extern "C" fn(task_data: *mut c_void, index: usize)>;

/// A host's parallel-for: must call `task(task_data, i)` once for every `i` in `0..n`, on
/// any of its threads (the calling one included; all of them on the calling thread is
/// allowed), and return once every call has returned. `host_data` is what the host gave
/// `bcast_context_create_host`. bcast's tasks never unwind into the host.
pub type bcast_parallel_for_fn = Option<
    unsafe extern "C" fn(
        host_data: *mut c_void,
        n: usize,
        task: bcast_task_fn,
        task_data: *mut c_void,
    ),
>;

/// A host's pool behind its C parallel-for.
struct HostPool {
    parallel_for: unsafe extern "C" fn(*mut c_void, usize, bcast_task_fn, *mut c_void),
    host_data: *mut c_void,
    threads: usize,
    dispatch_ns: u64,
}

// SAFETY: `bcast_context_create_host`'s contract: the host's parallel-for may be called from
// any thread, and `host_data` is the host's to share among its threads.
unsafe impl Send for HostPool {}
// SAFETY: as for `Send`: calls from several threads at once are the host's to serialise.
unsafe impl Sync for HostPool {}

/// Calls the task behind `data` (a `&&(dyn Fn(usize) + Sync)`) with `index`.
unsafe extern "C" fn run_task(data: *mut c_void, index: usize) {
    // SAFETY: `data` is the `&&dyn Fn` that `HostPool::parallel_for` passed, alive until
    // the host's parallel-for returns (the host's contract: it calls tasks only before).
    let task = unsafe { &*(data as *const &(dyn Fn(usize) + Sync)) };
    // bcast's tasks catch their own panics (`bcast::exec`), so none unwinds into C.
    task(index);
}

impl ParallelFor for HostPool {
    fn threads(&self) -> usize {
        self.threads
    }

    fn parallel_for(&self, n: usize, task: &(dyn Fn(usize) + Sync)) {
        let data = std::ptr::from_ref(&task) as *mut c_void;
        // SAFETY: the host's function, under its contract; `data` outlives the call.
        unsafe { (self.parallel_for)(self.host_data, n, Some(run_task), data) };
    }

    fn dispatch_cost_ns(&self) -> u64 {
        self.dispatch_ns
    }
}

/// Stores a new context in `*ctx_out`, after NULL there.
///
/// # Safety
/// `ctx_out` is NULL or writable.
unsafe fn store_context(
    ctx: Context,
    ctx_out: *mut *mut bcast_context,
    func: &str,
) -> Result<(), Error> {
    if ctx_out.is_null() {
        return Err(null_out(func, "ctx_out"));
    }
    let boxed = Box::new(bcast_context { ctx: Arc::new(ctx) });
    // SAFETY: non-NULL; the caller's pointer (unaligned writes: a misaligned pointer is no
    // crash either).
    unsafe { ctx_out.write_unaligned(Box::into_raw(boxed)) };
    Ok(())
}

/// Makes a context whose calls run on `threads` threads: 1 is the calling thread only; 0 the
/// process's own team (as many threads as `BCAST_NUM_THREADS`, else the CPUs, shared by
/// every context made with 0, and by the calls that take a `threads` of 0); N > 1 a team of
/// N threads of this context's own (the calling thread and N - 1 workers). A team's workers
/// spin for `spin_us` microseconds after each call, for the next one, and then sleep: 0
/// sleeps at once (every call then pays the wake-up, tens of microseconds), a negative value
/// takes the default (200). One call at a time uses a team; a call made while another runs
/// on it, or from inside one of bcast's tasks, runs on its calling thread.
///
/// Returns `BCAST_OK` and stores a new context in `*ctx_out`, or a status and stores NULL
/// there (when `ctx_out` is not NULL).
///
/// Statuses: `BCAST_ERR_THREADS` for `threads` above `BCAST_MAX_THREADS` or when the team's
/// threads cannot be started; `BCAST_ERR_NULL` for a NULL `ctx_out`.
///
/// Ownership: the context belongs to the caller, who frees it with `bcast_context_free`
/// (its team's threads are stopped and joined once no prepared op holds it).
///
/// Thread-safety: any number of threads at once.
///
/// # Safety
/// `ctx_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bcast_context_create(
    threads: usize,
    spin_us: i64,
    ctx_out: *mut *mut bcast_context,
) -> c_int {
    const F: &str = "bcast_context_create";
    guard(|| {
        if !ctx_out.is_null() {
            // SAFETY: non-NULL; the caller's pointer.
            unsafe { ctx_out.write_unaligned(std::ptr::null_mut()) };
        }
        if threads > BCAST_MAX_THREADS {
            return Err(Error::new(
                bcast_status::BCAST_ERR_THREADS,
                format!("{F}: threads {threads} is above BCAST_MAX_THREADS ({BCAST_MAX_THREADS})"),
            ));
        }
        let ctx = match threads {
            0 => Context::default(),
            1 => Context::serial(),
            n => {
                let mut builder = TeamBuilder::new(n);
                if let Ok(us) = u64::try_from(spin_us) {
                    builder = builder.spin(Duration::from_micros(us));
                }
                let team = builder.build().map_err(|e| {
                    Error::new(
                        bcast_status::BCAST_ERR_THREADS,
                        format!("{F}: cannot start a team of {n} threads: {e}"),
                    )
                })?;
                Context::team(Arc::new(team))
            }
        };
        // SAFETY: the caller's contract on `ctx_out`.
        unsafe { store_context(ctx, ctx_out, F) }
    })
}

/// Makes a context whose calls run on the host's own thread pool: bcast cuts a call's
/// output into at most `threads` parts (the host's threads, its calling one included) and
/// hands them to `parallel_for` (see `bcast_parallel_for_fn`), so bcast and the host never
/// compete for cores. `dispatch_ns` is about what one `parallel_for` costs the host to start
/// (nanoseconds; 0 takes 2000): bcast gives a thread at least the work that takes that long,
/// and runs smaller calls on the calling thread without calling `parallel_for`. A call made
/// from inside one of bcast's tasks runs on its own thread.
///
/// Returns `BCAST_OK` and stores a new context in `*ctx_out`, or a status and stores NULL
/// there (when `ctx_out` is not NULL).
///
/// Statuses: `BCAST_ERR_NULL` for a NULL `parallel_for` or `ctx_out`; `BCAST_ERR_THREADS`
/// for `threads` of 0 or above `BCAST_MAX_THREADS`.
///
/// Ownership: the context belongs to the caller (`bcast_context_free`); `host_data` stays
/// the host's, and must stay valid while the context or an op made with it lives.
///
/// Thread-safety: any number of threads at once. bcast may call `parallel_for` from several
/// threads at once (one call each); a host whose parallel-for cannot take that must use one
/// context per calling thread.
///
/// # Safety
/// `parallel_for` is NULL or a function that keeps the contract of `bcast_parallel_for_fn`;
/// `ctx_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bcast_context_create_host(
    parallel_for: bcast_parallel_for_fn,
    host_data: *mut c_void,
    threads: usize,
    dispatch_ns: u64,
    ctx_out: *mut *mut bcast_context,
) -> c_int {
    const F: &str = "bcast_context_create_host";
    guard(|| {
        if !ctx_out.is_null() {
            // SAFETY: non-NULL; the caller's pointer.
            unsafe { ctx_out.write_unaligned(std::ptr::null_mut()) };
        }
        let Some(parallel_for) = parallel_for else {
            return Err(null_out(F, "parallel_for"));
        };
        if threads == 0 || threads > BCAST_MAX_THREADS {
            return Err(Error::new(
                bcast_status::BCAST_ERR_THREADS,
                format!(
                    "{F}: threads {threads} is not 1 to BCAST_MAX_THREADS ({BCAST_MAX_THREADS})"
                ),
            ));
        }
        let host = HostPool {
            parallel_for,
            host_data,
            threads,
            dispatch_ns: if dispatch_ns == 0 { 2_000 } else { dispatch_ns },
        };
        // SAFETY: the caller's contract on `ctx_out`.
        unsafe { store_context(Context::host(Arc::new(host)), ctx_out, F) }
    })
}

/// Frees a context from `bcast_context_create` or `bcast_context_create_host`; NULL is
/// ignored. Prepared ops made with it keep working (they hold the context); its team's
/// threads stop once the last of them is freed.
///
/// # Safety
/// `ctx` is NULL or a context not yet freed, which no call is using.
#[no_mangle]
pub unsafe extern "C" fn bcast_context_free(ctx: *mut bcast_context) {
    if !ctx.is_null() {
        // SAFETY: the caller's contract.
        let ctx = unsafe { Box::from_raw(ctx) };
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| drop(ctx)));
    }
}

/// A prepared op: one element-wise op checked and planned for its operands' element types
/// and shapes, run many times on new buffers (`bcast_op_run`). Immutable once made: any
/// number of threads may run one op at once, each into its own output.
pub struct bcast_op {
    op: PreparedOp,
    ctx: Arc<Context>,
    /// Each operand's element type and element count.
    inputs: Vec<(DType, usize)>,
    /// The output's element count.
    out_len: usize,
}

/// Prepares `op` on `n_inputs` operands of element types `dtypes` and shapes `shapes`
/// (ranks `ranks`) under `ab` (`axis` for PDPD), `levels` for FAKE_QUANTIZE (0 for every
/// other op), to run in `ctx` (NULL: the default, as `threads` 0): every check
/// `bcast_eltwise` makes before it reads a buffer is made here, once, and a two-operand op
/// is planned.
///
/// Returns `BCAST_OK` and stores the op in `*op_out`, or a status and stores NULL there
/// (when `op_out` is not NULL).
///
/// Statuses: as `bcast_eltwise` for the op, types, shapes and rule; `BCAST_ERR_NULL` also for
/// a NULL `op_out`.
///
/// Ownership: the op belongs to the caller (`bcast_op_free`); the arrays are only read during
/// the call.
///
/// Thread-safety: any number of threads at once.
///
/// # Safety
/// `ctx` is NULL or a live context; `dtypes`, `shapes` and `ranks` are NULL or hold
/// `n_inputs` readable entries; each `shapes[i]` is NULL or points to `ranks[i]` readable
/// values; `op_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bcast_op_create(
    ctx: *const bcast_context,
    op: EltwiseOpCode,
    n_inputs: usize,
    dtypes: *const crate::types::DTypeCode,
    shapes: *const *const usize,
    ranks: *const usize,
    ab: AutoBroadcastCode,
    axis: i64,
    levels: i64,
    op_out: *mut *mut bcast_op,
) -> c_int {
    const F: &str = "bcast_op_create";
    guard(|| {
        if op_out.is_null() {
            return Err(null_out(F, "op_out"));
        }
        // SAFETY: non-NULL; the caller's pointer.
        unsafe { op_out.write_unaligned(std::ptr::null_mut()) };
        // SAFETY: the caller's contract on every array and on `ctx`.
        let (eltwise_op, operands, ctx) = unsafe {
            let eltwise_op = op_of(op, n_inputs, Some(levels), F)?;
            // No buffers yet: every operand's data is NULL, which nothing here reads.
            let inputs = vec![std::ptr::null::<c_void>(); n_inputs];
            let inputs = if n_inputs == 0 {
                std::ptr::null()
            } else {
                inputs.as_ptr()
            };
            let operands = operands(n_inputs, dtypes, inputs, shapes, ranks, F)?;
            let ctx = match ctx.as_ref() {
                Some(c) => Arc::clone(&c.ctx),
                None => Arc::new(Context::default()),
            };
            (
                eltwise_op,
                operands
                    .into_iter()
                    .map(|o| (o.dtype, o.shape.to_vec()))
                    .collect::<Vec<_>>(),
                ctx,
            )
        };
        let spec = spec_of(ab, axis, F)?;
        let list = collect(operands.iter().map(|(d, s)| (*d, s.as_slice())), F)?;
        let prepared = PreparedOp::new(eltwise_op, &list, &spec)?;
        let inputs = operands
            .iter()
            .map(|(d, s)| Ok((*d, bcast::checked_len(s)?)))
            .collect::<Result<Vec<_>, Error>>()?;
        let out_len = bcast::checked_len(prepared.output_shape())?;
        let boxed = Box::new(bcast_op {
            op: prepared,
            ctx,
            inputs,
            out_len,
        });
        // SAFETY: non-NULL; the caller's pointer.
        unsafe { op_out.write_unaligned(Box::into_raw(boxed)) };
        Ok(())
    })
}

/// Writes a prepared op's output shape to `shape` (`capacity` values) and its rank to
/// `*rank_out`, as `bcast_eltwise_shape_n` does.
///
/// Statuses: `BCAST_ERR_NULL` for a NULL `op`; `BCAST_ERR_CAPACITY`, `BCAST_ERR_NULL` for the
/// shape arrays as `bcast_eltwise_shape_n`.
///
/// # Safety
/// `op` is NULL or a live op; `shape` is NULL or holds `capacity` writable values; `rank_out`
/// is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bcast_op_output_shape(
    op: *const bcast_op,
    shape: *mut usize,
    capacity: usize,
    rank_out: *mut usize,
) -> c_int {
    const F: &str = "bcast_op_output_shape";
    guard(|| {
        // SAFETY: the caller's contract.
        let Some(op) = (unsafe { op.as_ref() }) else {
            return Err(null_out(F, "op"));
        };
        // SAFETY: the caller's contract on the arrays.
        unsafe { write_shape(op.op.output_shape(), shape, capacity, rank_out, F) }
    })
}

/// Runs a prepared op on `inputs` (one buffer per operand, row-major, of the prepared types
/// and shapes, aligned to their types, read in place) into `out` (row-major, the output
/// type, `out_capacity_elems` elements), on the threads of the op's context. The result is
/// `bcast_eltwise`'s on the same operands, bit for bit.
///
/// Statuses: `BCAST_ERR_NULL` for a NULL `op`, `inputs`, operand buffer (of a non-empty
/// operand) or `out` (of a non-empty output); `BCAST_ERR_CAPACITY`, `BCAST_ERR_ALIGN`,
/// `BCAST_ERR_INVALID` (a bool byte other than 0 or 1, an `out` overlapping an input) and
/// `BCAST_ERR_DIV_ZERO` as `bcast_eltwise`.
///
/// Thread-safety: any number of threads at once, each into its own `out`.
///
/// # Safety
/// `op` is NULL or a live op; `inputs` is NULL or holds one pointer per operand, each NULL or
/// holding its prepared shape's element count of readable elements of its type; `out` is
/// NULL or holds `out_capacity_elems` writable elements of the output type.
#[no_mangle]
pub unsafe extern "C" fn bcast_op_run(
    op: *const bcast_op,
    inputs: *const *const c_void,
    out: *mut c_void,
    out_capacity_elems: usize,
) -> c_int {
    const F: &str = "bcast_op_run";
    guard(|| {
        // SAFETY: the caller's contract.
        let Some(op) = (unsafe { op.as_ref() }) else {
            return Err(null_out(F, "op"));
        };
        // SAFETY: the caller's contract on `inputs`, `out` and the buffers.
        unsafe { run_op(op, inputs, out, out_capacity_elems) }
    })
}

/// [`bcast_op_run`]'s body: each buffer checked (NULL, alignment, bool bytes, overlap) and
/// handed to the prepared op as an address; no views are built.
///
/// # Safety
/// As [`bcast_op_run`].
unsafe fn run_op(
    op: &bcast_op,
    inputs: *const *const c_void,
    out: *mut c_void,
    capacity: usize,
) -> Result<(), Error> {
    const F: &str = "bcast_op_run";
    /// Operands checked on the stack; more (a variadic op's) in a vector.
    const ON_STACK: usize = 5;
    const NAMES: [&str; ON_STACK] = [
        "inputs[0]",
        "inputs[1]",
        "inputs[2]",
        "inputs[3]",
        "inputs[4]",
    ];
    let n = op.inputs.len();
    // SAFETY: the caller's contract: `n` readable pointers.
    let ptrs = unsafe { crate::eltwise::per_operand(inputs, n, F, "inputs")? };
    let mut addr_stack = [std::ptr::null::<u8>(); ON_STACK];
    let mut span_stack: [Span; ON_STACK] = [(0, 0); ON_STACK];
    let (mut addr_heap, mut span_heap) = (Vec::new(), Vec::new());
    let (addrs, spans): (&mut [*const u8], &mut [Span]) = if n <= ON_STACK {
        (&mut addr_stack[..n], &mut span_stack[..n])
    } else {
        let no_memory = |_| crate::eltwise::no_memory(F);
        addr_heap.try_reserve_exact(n).map_err(no_memory)?;
        span_heap.try_reserve_exact(n).map_err(no_memory)?;
        addr_heap.resize(n, std::ptr::null::<u8>());
        span_heap.resize(n, (0, 0));
        (&mut addr_heap, &mut span_heap)
    };
    for (i, (&p, &(dtype, len))) in ptrs.iter().zip(&op.inputs).enumerate() {
        let named;
        let what = match NAMES.get(i) {
            Some(name) => *name,
            None => {
                named = format!("inputs[{i}]");
                named.as_str()
            }
        };
        // SAFETY: the caller's contract on each buffer.
        (addrs[i], spans[i]) = unsafe { in_buffer(dtype, p, len, F, what)? };
    }
    // SAFETY: the caller's contract on `out`.
    let out = unsafe {
        out_buffer(
            op.op.output_dtype(),
            out,
            capacity,
            op.op.output_shape(),
            op.out_len,
            spans,
            F,
        )?
    };
    op.ctx.run(|par| {
        // SAFETY: every input was checked to be non-NULL (or empty: a dangling address),
        // aligned and of its prepared element count, a bool byte 0 or 1; `out` holds the
        // output's count, aligned, and overlaps no input; the caller's contract keeps them
        // alive and unwritten (the output: not otherwise accessed) for the call.
        unsafe { op.op.run_row_major(addrs, out, par) }
    })?;
    Ok(())
}

/// Frees a prepared op; NULL is ignored.
///
/// # Safety
/// `op` is NULL or an op from `bcast_op_create` not yet freed, which no call is using.
#[no_mangle]
pub unsafe extern "C" fn bcast_op_free(op: *mut bcast_op) {
    if !op.is_null() {
        // SAFETY: the caller's contract.
        let op = unsafe { Box::from_raw(op) };
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| drop(op)));
    }
}
