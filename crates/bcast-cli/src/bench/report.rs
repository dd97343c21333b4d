//! What `bcast bench` reports: one measurement a case, rates in GB/s.

use super::cases::Case;

/// What `bcast bench` reports for one case. Rates are in GB/s (10^9 bytes per second) of
/// output written; strings count `size_of::<String>()` bytes per element.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Measurement {
    /// Case name.
    pub case: &'static str,
    /// Output bytes.
    pub bytes: usize,
    /// Threads available to every run.
    pub threads: usize,
    /// `broadcast_into_with` into the reused buffer, planning included (median).
    pub kernel_gbps: f64,
    /// Write bound: the fastest of a typed fill, a memset and (for outputs at least as large
    /// as the last-level cache, where the CPU has them) a fill with non-temporal stores, of
    /// the same buffer (median).
    pub fill_gbps: f64,
    /// The non-temporal fill alone (median; 0 when not measured).
    pub stream_fill_gbps: f64,
    /// Copy of an output-sized source into the buffer (median).
    pub memcpy_gbps: f64,
    /// `broadcast_with`, allocating its output every call (median).
    pub alloc_gbps: f64,
    /// Fresh-page bound of the allocating path: allocating an output-sized buffer with the
    /// same huge-page advice and threads and writing one byte per 4 KiB page, so the OS maps
    /// and zeroes every page and nothing else is written (median). `alloc_gbps` cannot
    /// exceed it.
    pub fresh_gbps: f64,
    /// Fresh-fill bound of the allocating path: the same allocation, advice and threads, then
    /// every element written (median): the bound that includes the write.
    pub alloc_fill_gbps: f64,
    /// `kernel_gbps / fill_gbps`.
    pub ratio_fill: f64,
    /// `alloc_gbps / alloc_fill_gbps`.
    pub ratio_alloc: f64,
    /// Median nanoseconds per kernel call.
    pub ns_per_call: f64,
}

/// Medians, in seconds per call, turned into a measurement.
pub(super) struct Medians {
    pub(super) kernel: f64,
    pub(super) fill: f64,
    pub(super) stream_fill: f64,
    pub(super) memcpy: f64,
    pub(super) alloc: f64,
    pub(super) fresh: f64,
    pub(super) fresh_fill: f64,
}

impl Medians {
    pub(super) fn report(self, case: &Case, bytes: usize) -> Measurement {
        let gbps = |t: f64| if t > 0.0 { bytes as f64 / t / 1e9 } else { 0.0 };
        let kernel_gbps = gbps(self.kernel);
        let fill_gbps = gbps(self.fill);
        Measurement {
            case: case.name,
            bytes,
            threads: 0,
            kernel_gbps,
            fill_gbps,
            stream_fill_gbps: gbps(self.stream_fill),
            memcpy_gbps: gbps(self.memcpy),
            alloc_gbps: gbps(self.alloc),
            fresh_gbps: gbps(self.fresh),
            alloc_fill_gbps: gbps(self.fresh_fill),
            ratio_alloc: if self.alloc > 0.0 {
                self.fresh_fill / self.alloc
            } else {
                0.0
            },
            ratio_fill: if fill_gbps > 0.0 {
                kernel_gbps / fill_gbps
            } else {
                0.0
            },
            ns_per_call: self.kernel * 1e9,
        }
    }
}

/// What `bcast bench` reports for one reduce case. Rates are in GB/s of gradient read.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ReduceMeasurement {
    /// Case name (`reduce_...`).
    pub case: String,
    /// Gradient bytes.
    pub bytes: usize,
    /// Threads available to every run.
    pub threads: usize,
    /// `reduce_with_plan` over the gradient, result allocation included (median).
    pub reduce_gbps: f64,
    /// Read bound: a wrapping sum of the same buffer as 64-bit words, same threads (median).
    pub read_gbps: f64,
    /// `reduce_gbps / read_gbps`.
    pub ratio_read: f64,
    /// Median nanoseconds per reduce call.
    pub ns_per_call: f64,
}
