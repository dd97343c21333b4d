//! A worker's panic becomes [`BroadcastError::WorkerPanicked`] instead of unwinding into the
//! caller (every executor runs its threads through this).

use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::error::BroadcastError;

/// Runs `f`; a panic inside it (on this thread or a rayon worker it joined) becomes an error
/// carrying the panic's message.
// Inlined: its result, returned through memory and read back at once with wider loads than
// it was written with, stalled a tiny op's call.
#[inline(always)]
pub(crate) fn guarded<R>(f: impl FnOnce() -> R) -> Result<R, BroadcastError> {
    catch_unwind(AssertUnwindSafe(f)).map_err(panicked)
}

#[cold]
#[inline(never)]
fn panicked(payload: Box<dyn std::any::Any + Send>) -> BroadcastError {
    BroadcastError::WorkerPanicked {
        reason: payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "non-text panic payload".into()),
    }
}
