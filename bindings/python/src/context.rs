//! `bcast.Context`: the threads a call runs on, built once and passed as `context=`.
//!
//! The doc comments are the Python docstrings (numpy's format), not rustdoc.

use std::sync::Arc;
use std::time::Duration;

use bcast::exec::TeamBuilder;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// Where calls run: ``threads=1`` the calling thread only; ``threads=0`` (the default) the
/// process's team of bcast's own (as many threads as ``BCAST_NUM_THREADS``, else the CPUs);
/// ``threads=N`` a team of N threads of this context's own. A team's workers spin for
/// ``spin_us`` microseconds after each call, for the next one, then sleep (0: sleep at once;
/// negative: the default, 200). Pass it to any call as ``context=``; build it once (a
/// session, a model) and reuse it.
///
/// Examples
/// --------
/// >>> import numpy as np, bcast
/// >>> ctx = bcast.Context(threads=2)
/// >>> bcast.add(np.ones((512, 512), np.float32), np.float32(1), context=ctx)[0, 0]
/// np.float32(2.0)
#[pyclass(name = "Context", module = "bcast", frozen)]
pub struct PyContext {
    pub(crate) ctx: Arc<bcast::exec::Context>,
    threads: usize,
}

#[pymethods]
impl PyContext {
    #[new]
    #[pyo3(signature = (threads = 0, spin_us = -1))]
    fn new(threads: usize, spin_us: i64) -> PyResult<Self> {
        let ctx = match threads {
            0 => bcast::exec::Context::default(),
            1 => bcast::exec::Context::serial(),
            n => {
                let mut b = TeamBuilder::new(n);
                if let Ok(us) = u64::try_from(spin_us) {
                    b = b.spin(Duration::from_micros(us));
                }
                let team = b
                    .build()
                    .map_err(|e| PyValueError::new_err(format!("cannot start {n} threads: {e}")))?;
                bcast::exec::Context::team(Arc::new(team))
            }
        };
        Ok(PyContext {
            ctx: Arc::new(ctx),
            threads,
        })
    }

    /// The ``threads`` it was made with.
    #[getter]
    fn threads(&self) -> usize {
        self.threads
    }

    fn __repr__(&self) -> String {
        format!("bcast.Context(threads={})", self.threads)
    }
}

/// The context a call runs in: the caller's, or the default.
pub(crate) fn context_of(context: Option<&Bound<'_, PyContext>>) -> Arc<bcast::exec::Context> {
    context.map_or_else(Default::default, |c| Arc::clone(&c.get().ctx))
}
