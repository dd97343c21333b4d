//! Status codes, the thread-local last error message, and the guard every `extern "C"`
//! function runs its body in (no panic crosses the boundary).

use std::cell::{Cell, RefCell};
use std::ffi::{c_char, c_int, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};

use bcast::BroadcastError;

/// What a bcast function returns: `BCAST_OK` (0) on success, one of the other values
/// otherwise, and then `bcast_last_error_message()` says why. Functions return it as an
/// `int`; the values are fixed and will not be renumbered.
#[repr(C)]
#[allow(non_camel_case_types)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum bcast_status {
    /// Success.
    BCAST_OK = 0,
    /// A required pointer is NULL (a shape with a non-zero rank, a buffer with a non-zero
    /// element count, an output pointer).
    BCAST_ERR_NULL = 1,
    /// The shapes break the mode's broadcast rule (the message names the rule, the axis and
    /// both shapes, exactly as the Rust library's error does).
    BCAST_ERR_SHAPE = 2,
    /// A shape's element count, or a buffer's size in bytes, exceeds what an address can
    /// hold (`isize::MAX`).
    BCAST_ERR_OVERFLOW = 3,
    /// `elem_size` is not 1, 2, 4 or 8.
    BCAST_ERR_ELEM_SIZE = 4,
    /// Memory could not be allocated.
    BCAST_ERR_ALLOC = 5,
    /// An internal panic was caught (a bug in bcast: please report the message). Any
    /// function may return it; none should.
    BCAST_ERR_PANIC = 6,
    /// An argument is invalid: an unknown mode, dtype or op code, mode arguments the mode
    /// does not take, a negative axis, overlapping source and destination, an operand count
    /// or attribute value an op does not take, an auto_broadcast an op does not take, an
    /// expression that does not parse or whose nodes name an operand that is not there yet.
    BCAST_ERR_INVALID = 7,
    /// A rank (or the number of mode arguments) is above `BCAST_MAX_RANK`.
    BCAST_ERR_RANK = 8,
    /// A buffer the caller sized is too small: a shape buffer whose `capacity` is below the
    /// output's rank (`*rank_out` then holds the rank needed), or an element-wise `out` whose
    /// `out_capacity_elems` is below the output's element count (nothing is written).
    BCAST_ERR_CAPACITY = 9,
    /// The operation is not defined for this dtype (reduce of `BCAST_DTYPE_BOOL`, arithmetic
    /// on `BCAST_DTYPE_BOOL`, a logical op on anything else, operands of different types).
    BCAST_ERR_DTYPE = 10,
    /// A buffer is not aligned to its element size.
    BCAST_ERR_ALIGN = 11,
    /// A thread pool of the requested size could not be started, or `threads` is above
    /// `BCAST_MAX_THREADS`.
    BCAST_ERR_THREADS = 12,
    /// An integer DIVIDE, DIVIDE_TRUNC, MOD or FLOOR_MOD met a zero divisor (nothing was
    /// written).
    BCAST_ERR_DIV_ZERO = 13,
    /// An error of a kind this version of the C binding does not know yet (the Rust library
    /// added one); the message says what it is. Any function that checks shapes or runs an
    /// op may return it.
    BCAST_ERR_OTHER = 99,
}

impl bcast_status {
    /// Every status, for reading a code back (`bcast_status_string`).
    const ALL: [bcast_status; 15] = {
        use bcast_status::*;
        [
            BCAST_OK,
            BCAST_ERR_NULL,
            BCAST_ERR_SHAPE,
            BCAST_ERR_OVERFLOW,
            BCAST_ERR_ELEM_SIZE,
            BCAST_ERR_ALLOC,
            BCAST_ERR_PANIC,
            BCAST_ERR_INVALID,
            BCAST_ERR_RANK,
            BCAST_ERR_CAPACITY,
            BCAST_ERR_DTYPE,
            BCAST_ERR_ALIGN,
            BCAST_ERR_THREADS,
            BCAST_ERR_DIV_ZERO,
            BCAST_ERR_OTHER,
        ]
    };

    /// The status of a code a function returned, if it is one.
    fn of_code(code: c_int) -> Option<bcast_status> {
        Self::ALL.into_iter().find(|&s| s as c_int == code)
    }

    /// What the status means, in a few words (the exhaustive match makes a new status
    /// without a text a compile error).
    fn text(self) -> &'static CStr {
        use bcast_status::*;
        match self {
            BCAST_OK => c"success",
            BCAST_ERR_NULL => c"a required pointer is NULL",
            BCAST_ERR_SHAPE => c"the shapes break the broadcast rule",
            BCAST_ERR_OVERFLOW => c"an element count or a byte size overflows",
            BCAST_ERR_ELEM_SIZE => c"elem_size is not 1, 2, 4 or 8",
            BCAST_ERR_ALLOC => c"memory could not be allocated",
            BCAST_ERR_PANIC => c"internal error in bcast (a bug, please report it)",
            BCAST_ERR_INVALID => c"an argument is invalid",
            BCAST_ERR_RANK => c"a rank is above BCAST_MAX_RANK",
            BCAST_ERR_CAPACITY => c"a buffer sized by the caller is too small",
            BCAST_ERR_DTYPE => c"the operation is not defined for this element type",
            BCAST_ERR_ALIGN => c"a buffer is not aligned to its element size",
            BCAST_ERR_THREADS => c"threads is above BCAST_MAX_THREADS or its pool cannot start",
            BCAST_ERR_DIV_ZERO => c"integer division by zero",
            BCAST_ERR_OTHER => c"an error this version of the C binding does not name",
        }
    }
}

/// The text of a code that is no `bcast_status`.
const UNKNOWN_STATUS: &CStr = c"unknown bcast status";

/// What a status code means, in a few words of English (`"success"` for `BCAST_OK`, `"the
/// shapes break the broadcast rule"` for `BCAST_ERR_SHAPE`, ...); `"unknown bcast status"`
/// for a code that is no `bcast_status`. Never NULL. `bcast_last_error_message()` says what
/// went wrong in the last call; this names the kind of failure, for any code, at any time.
///
/// Ownership: a static string; do not free it. It does not change the last error message.
///
/// Thread-safety: any number of threads at once.
#[no_mangle]
pub extern "C" fn bcast_status_string(status: c_int) -> *const c_char {
    bcast_status::of_code(status)
        .map_or(UNKNOWN_STATUS, bcast_status::text)
        .as_ptr()
}

/// An error on its way to the caller: the status and the message.
#[derive(Debug)]
pub(crate) struct Error {
    pub(crate) status: bcast_status,
    pub(crate) message: String,
}

impl Error {
    pub(crate) fn new(status: bcast_status, message: impl Into<String>) -> Self {
        Error {
            status,
            message: message.into(),
        }
    }
}

impl From<BroadcastError> for Error {
    fn from(e: BroadcastError) -> Self {
        Error::new(status_of(&e), e.to_string())
    }
}

/// The status of a library error. `BroadcastError` is `#[non_exhaustive]`: a variant added
/// later maps to `BCAST_ERR_OTHER` until this binding learns it.
pub(crate) fn status_of(e: &BroadcastError) -> bcast_status {
    use bcast_status::*;
    match e {
        BroadcastError::DimMismatch { .. }
        | BroadcastError::Incompatible { .. }
        | BroadcastError::ShapesDiffer { .. }
        | BroadcastError::TargetRankTooSmall { .. }
        | BroadcastError::AxesMappingLength { .. }
        | BroadcastError::AxesNotIncreasing { .. }
        | BroadcastError::DuplicateAxis { .. }
        | BroadcastError::AxisOutOfRange { .. }
        | BroadcastError::AxesShapeMismatch { .. }
        | BroadcastError::PdpdAxis { .. }
        | BroadcastError::NoInputs
        | BroadcastError::OutputShape { .. }
        | BroadcastError::SourceShape { .. }
        | BroadcastError::PreparedShape { .. } => BCAST_ERR_SHAPE,
        BroadcastError::ShapeOverflow { .. } => BCAST_ERR_OVERFLOW,
        BroadcastError::NegativeValue { .. } | BroadcastError::ValueTooLarge { .. } => {
            BCAST_ERR_INVALID
        }
        BroadcastError::Allocation { .. } => BCAST_ERR_ALLOC,
        BroadcastError::WorkerPanicked { .. } => BCAST_ERR_PANIC,
        BroadcastError::UnsupportedType { .. } | BroadcastError::DTypeMismatch { .. } => {
            BCAST_ERR_DTYPE
        }
        BroadcastError::DivisionByZero { .. } => BCAST_ERR_DIV_ZERO,
        BroadcastError::Arity { .. }
        | BroadcastError::InvalidAttribute { .. }
        | BroadcastError::RuleNotTaken { .. }
        | BroadcastError::InvalidExpression { .. } => BCAST_ERR_INVALID,
        _ => BCAST_ERR_OTHER,
    }
}

thread_local! {
    /// The last error's message on this thread, NUL-terminated; read only while `FAILED`.
    static LAST_ERROR: RefCell<Vec<u8>> = RefCell::new(vec![0]);
    /// Whether the last bcast call on this thread failed. Every call clears it, so it is a
    /// plain flag (no destructor, no lazy set-up) rather than the message itself.
    static FAILED: Cell<bool> = const { Cell::new(false) };
}

fn set_last_error(message: &str) {
    // `try_with`: during thread teardown the slot may be gone; the status still tells.
    let stored = LAST_ERROR.try_with(|slot| {
        let mut buf = slot.borrow_mut();
        buf.clear();
        // A NUL inside the message would cut it short in C: shown as '?' instead.
        buf.extend(message.bytes().map(|b| if b == 0 { b'?' } else { b }));
        buf.push(0);
    });
    FAILED.set(stored.is_ok());
}

fn clear_last_error() {
    FAILED.set(false);
}

/// Runs the body of an `extern "C"` function: clears this thread's last error, runs `body`,
/// and turns its error, or a panic, into a status code and a message. Nothing unwinds past
/// it.
pub(crate) fn guard(body: impl FnOnce() -> Result<(), Error>) -> c_int {
    clear_last_error();
    let status = match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => bcast_status::BCAST_OK,
        Ok(Err(e)) => {
            set_last_error(&e.message);
            e.status
        }
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            set_last_error(&format!(
                "bcast: internal error (a bug, please report): {what}"
            ));
            bcast_status::BCAST_ERR_PANIC
        }
    };
    status as c_int
}

/// The message of the last failed bcast call on the calling thread, in UTF-8; an empty
/// string if the last bcast call on this thread succeeded (or there was none). Never NULL.
///
/// The message is the same text as the Rust library's error (`BroadcastError`'s `Display`)
/// for a broken rule, with the mode, the axis and both shapes.
///
/// Ownership: the string belongs to bcast; do not free it. It stays valid until the next
/// bcast call on the same thread (any function but this one, `bcast_status_string` and
/// `bcast_version`) or until the thread exits: copy it to keep it.
///
/// Thread-safety: each thread has its own message; a call on another thread never changes
/// it.
#[no_mangle]
pub extern "C" fn bcast_last_error_message() -> *const c_char {
    static EMPTY: &[u8; 1] = b"\0";
    catch_unwind(|| {
        if !FAILED.get() {
            return EMPTY.as_ptr().cast();
        }
        LAST_ERROR
            .try_with(|slot| slot.borrow().as_ptr().cast::<c_char>())
            .unwrap_or(EMPTY.as_ptr().cast())
    })
    .unwrap_or(EMPTY.as_ptr().cast())
}

#[cfg(test)]
mod tests {
    use std::ffi::CStr;

    use super::*;

    fn message() -> String {
        // SAFETY: never NULL, NUL-terminated, valid until the next call on this thread.
        unsafe { CStr::from_ptr(bcast_last_error_message()) }
            .to_string_lossy()
            .into_owned()
    }

    #[test]
    fn a_panic_becomes_a_status_and_a_message() {
        let status = guard(|| panic!("boom {}", 42));
        assert_eq!(status, bcast_status::BCAST_ERR_PANIC as c_int);
        assert_eq!(
            message(),
            "bcast: internal error (a bug, please report): boom 42"
        );
        assert_eq!(guard(|| Ok(())), 0);
        assert_eq!(message(), "");
    }

    #[test]
    fn library_errors_keep_their_display_and_map_to_statuses() {
        let e = bcast::plan(&[3], &[4], &bcast::Mode::Numpy).unwrap_err();
        let text = e.to_string();
        assert_eq!(status_of(&e), bcast_status::BCAST_ERR_SHAPE);
        assert_eq!(
            guard(|| Err(e.into())),
            bcast_status::BCAST_ERR_SHAPE as c_int
        );
        assert_eq!(message(), text);
        let overflow = bcast::checked_len(&[usize::MAX, 2]).unwrap_err();
        assert_eq!(status_of(&overflow), bcast_status::BCAST_ERR_OVERFLOW);
    }

    #[test]
    fn a_nul_in_a_message_does_not_cut_it() {
        guard(|| Err(Error::new(bcast_status::BCAST_ERR_INVALID, "a\0b")));
        assert_eq!(message(), "a?b");
    }
}
