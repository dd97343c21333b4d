//! Which store and loop strategies the executors use on this CPU: one table by vendor, each
//! entry backed by measurements on that vendor (benches/RESULTS.md names them), overridable
//! by the environment variable `BCAST_STRATEGY` for measuring.
//!
//! Why a table and not a calibration at first use: the strategies differ by tens of percent
//! only on outputs of tens of MiB (beyond the core caches, around the size of the last-level
//! cache), so a calibration that tells them apart must write such outputs several times on
//! the caller's first call, on a machine that may be busy with the caller's own work. A wrong
//! pick from one noisy calibration would make a runtime's speed differ from process to process.
//! A table is the same in every process, and what is not measured on a vendor is not turned
//! on for it: CPUs of other vendors get the plain strategies (ordinary vector stores and
//! `memcpy`, no software prefetch).
//!
//! Every strategy writes the same bytes; tests run each one through a context
//! ([`super::Context::with_strategy`]).

use std::fmt;
use std::sync::OnceLock;

/// How a long run of one value is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FillStores {
    /// `rep stos` of the element's width, where the CPU reports fast strings (ERMS).
    RepStos,
    /// Ordinary vector stores (the compiler's fill loop).
    Vector,
}

/// How a long contiguous run of the source is copied into a row of the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowCopies {
    /// The C library's `memcpy`.
    Memcpy,
    /// A vector loop, one cache line at a time, in address order.
    Lines,
}

/// How outputs written with non-temporal stores (beyond the last-level cache) are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamedRows {
    /// Every row kind through a small window in L1, then streamed out.
    Window,
    /// Fill and copy rows streamed straight from registers or the source; other row kinds
    /// through the window.
    Direct,
}

/// The CPU vendor, as CPUID names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Vendor {
    /// `GenuineIntel`.
    Intel,
    /// `AuthenticAMD`.
    Amd,
    /// Any other vendor, or not x86-64.
    Other,
}

/// The vector width of the arithmetic-bound loops ([`Strategy::arithmetic`]), narrowest
/// first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ArithmeticWidth {
    /// The baseline build's 16-byte vectors.
    Baseline,
    /// AVX2's 32-byte vectors.
    Avx2,
    /// AVX-512's 64-byte vectors (AVX512F, VL, BW, DQ; a build by Rust 1.89 or later).
    Avx512,
}

/// The strategies in force.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Strategy {
    /// Long fills.
    pub fill: FillStores,
    /// Long row copies.
    pub row_copy: RowCopies,
    /// Outputs beyond the last-level cache.
    pub streamed_rows: StreamedRows,
    /// How far ahead of its reads a streaming element-wise loop prefetches, in bytes (0: no
    /// software prefetch).
    pub prefetch_ahead: usize,
    /// How far ahead of its stores a two-operand element-wise loop, or a Broadcast fill of a
    /// row under 2 KiB, asks for the output's line with the intent to write it
    /// (`prefetchw`), in bytes (0: never; nor where the CPU lacks the instruction). An
    /// ordinary store to a line not in the core's cache waits for the line to be fetched,
    /// and a core keeps only a few such fetches in flight, so a loop that writes an output
    /// beyond the core's cache runs at a fraction of a fill's rate unless the fetches are
    /// started ahead of the stores. Not asked for outputs that stay in the core's cache
    /// ([`super::Policy::core_resident_bytes`]), whose lines are there already.
    pub prefetch_writes: usize,
    /// Element-wise loops run compiled for AVX2 where the CPU has it (else the baseline
    /// build's 16-byte vectors), for outputs (and block calls) of at least
    /// `wide_eltwise_from` bytes.
    pub wide_eltwise: bool,
    /// Outputs, and block calls, smaller than this many bytes run the baseline build even
    /// where `wide_eltwise` is on: on a few cache lines the wider loops gain nothing and
    /// their set-up and tails cost a tiny op's time (0: every size wide).
    pub wide_eltwise_from: usize,
    /// The width of loops bound by their arithmetic rather than by memory: FakeQuantize's
    /// row (a division and a rounding per element) at this width where the CPU has it (else
    /// the widest below), the register chains at AVX2 from `Avx2` up, and f32 register
    /// chains in AVX-512 registers at `Avx512` (`eltwise/fp32.rs`), as are whole two-operand
    /// f32 ops whose output stays in the core's cache (`eltwise/registers.rs`,
    /// [`super::Policy::core_resident_bytes`]).
    pub arithmetic: ArithmeticWidth,
    /// A fused expression that is a linear chain (each node takes the one before it and an
    /// input or literal) runs its nodes on a few registers' worth of elements at a time,
    /// the running value never stored between nodes, rather than one pass per node over a
    /// block in L1; at the arithmetic width above.
    pub register_chains: bool,
    /// Such a chain of f16 computes on the f16 values in AVX512-FP16 registers where the
    /// CPU has them (the same bits as widening to f32 and rounding after each op, the way
    /// the ops alone compute), rather than widening through F16C; so does a whole
    /// two-operand f16 op, at every size (`eltwise/registers.rs`).
    pub native_f16: bool,
    /// Where `native_f16` does not apply (off, or the CPU lacks AVX512-FP16) and the CPU has
    /// AVX-512 (F, BW, VL), whole two-operand f16 ops widen their values into the f32 lanes
    /// of 64-byte registers, 16 at a time, compute there and round back, at every size
    /// (`eltwise/registers.rs`), rather than eight at a time through F16C; the same bits.
    pub f16_avx512: bool,
    /// Whole element-wise ops (two-operand ops, Select, the variadic folds; not
    /// FakeQuantize, measured no faster so) write an output beyond the streaming threshold ([`super::Policy::stream_from_bytes`])
    /// a 16 KiB window at a time into a buffer in L1, streamed out with non-temporal stores,
    /// rather than storing it the ordinary way (each line read before it is written).
    pub stream_eltwise: bool,
    /// Select on plain element types (not strings) runs as mask blends in registers of this
    /// width where the CPU has it, else the widest below (`eltwise/select_lanes.rs`):
    /// the condition's bytes become a lane mask that picks each lane; `Baseline`: the
    /// per-element loop of the baseline build.
    pub select_width: ArithmeticWidth,
    /// A run of at least this many output bytes called from a thread outside the pool is
    /// handed to the pool, the caller waiting while the pool's threads write every chunk,
    /// rather than the caller writing chunks beside them (`usize::MAX`: never). A hand-off
    /// costs the caller's wake-up, a small share of a long run only; a caller that writes
    /// beside a pool of as many threads as cores was measured slower on long runs.
    pub pool_handoff_from: usize,
}

impl Strategy {
    /// Intel: `rep stos` fills, `memcpy` rows and the L1 window, each measured on the 2-vCPU
    /// Intel Xeon VMs and the 16-core Xeon; the operands' lines asked for 2 KiB ahead of the
    /// element-wise loops' reads (the 2-vCPU Xeon, model 207, 2026-12-07: the loops that read
    /// more than they write, a comparison of f32 into bool most, faster than at the 1 KiB
    /// before, the others even); the memory-bound
    /// element-wise loops compiled for AVX2 (outputs from 4 KiB), FakeQuantize's at AVX-512,
    /// fused chains in registers at AVX2, f16 chains natively where the CPU has AVX512-FP16,
    /// whole element-wise ops streamed beyond the threshold (the last five measured on the
    /// 2-vCPU Xeon); whole two-operand f32 ops in 64-byte registers up to half the core's
    /// cache (measured on the 2-vCPU Xeon, model 207, 2026-11-29), f16 ones at every size
    /// (the same Xeon, 2026-12-07, once their stores asked for the lines ahead); the
    /// output's lines asked for 2 KiB ahead of the two-operand loops' stores and of short
    /// fills, beyond the core's cache (the same Xeon, 2026-12-07).
    /// A caller outside the pool writes beside it: the hand-off to the pool was not measured
    /// on Intel; nor were Select's blends or f16 widened into AVX-512 registers (for a Xeon
    /// without AVX512-FP16), measured on AMD only: the per-element loop and F16C.
    pub const INTEL: Strategy = Strategy {
        fill: FillStores::RepStos,
        row_copy: RowCopies::Memcpy,
        streamed_rows: StreamedRows::Window,
        prefetch_ahead: 2048,
        prefetch_writes: 2048,
        wide_eltwise: true,
        wide_eltwise_from: 4096,
        arithmetic: ArithmeticWidth::Avx512,
        register_chains: true,
        native_f16: true,
        f16_avx512: false,
        stream_eltwise: true,
        select_width: ArithmeticWidth::Baseline,
        pool_handoff_from: usize::MAX,
    };

    /// AMD (measured on a 2-vCPU EPYC, Zen 5): `rep stos` and `rep movsb` (glibc's `memcpy`
    /// of a row) fall behind vector stores on outputs that stay in the last-level cache, the
    /// L1 window costs a third of the streaming store rate, and the hardware prefetchers
    /// follow the element-wise loops' streams without hints (the hints cost time); the
    /// element-wise loops compiled for AVX2 are as fast or faster (byte-wide ops most), at
    /// every size (the 4 KiB floor of Intel's entry was not measured on AMD).
    /// Measured on a 2-vCPU EPYC, Zen 3: FakeQuantize's row at AVX2 (more than twice the
    /// baseline's rate), and runs from 16 MiB called from outside the pool handed to it (long
    /// runs faster, short ones slower by the caller's wake-up); streamed element-wise outputs
    /// no faster than ordinary stores. Measured on a 2-vCPU EPYC, Zen 4 (family 25 model 17,
    /// 2026-12-07): fused linear chains in registers at AVX2 (the fused group 1.1-2.3x the
    /// L1 blocks; AVX-512 no faster for them), Select as mask blends at AVX-512 (the
    /// decoders' causal masks about 3x the per-element loop; AVX2, which a CPU without
    /// AVX-512 gets, about 2x), whole f16 ops widened into AVX-512 registers (the f16
    /// model nodes up to 1.8x); write prefetches slower there (off), AVX-512 arithmetic for
    /// f32 even (off).
    pub const AMD: Strategy = Strategy {
        fill: FillStores::Vector,
        row_copy: RowCopies::Lines,
        streamed_rows: StreamedRows::Direct,
        prefetch_ahead: 0,
        prefetch_writes: 0,
        wide_eltwise: true,
        wide_eltwise_from: 0,
        arithmetic: ArithmeticWidth::Avx2,
        register_chains: true,
        native_f16: false,
        f16_avx512: true,
        stream_eltwise: false,
        select_width: ArithmeticWidth::Avx512,
        pool_handoff_from: 16 << 20,
    };

    /// Any other CPU: nothing measured, so the plain strategies.
    pub const PLAIN: Strategy = Strategy {
        fill: FillStores::Vector,
        row_copy: RowCopies::Memcpy,
        streamed_rows: StreamedRows::Window,
        prefetch_ahead: 0,
        prefetch_writes: 0,
        wide_eltwise: false,
        wide_eltwise_from: 0,
        arithmetic: ArithmeticWidth::Baseline,
        register_chains: false,
        native_f16: false,
        f16_avx512: false,
        stream_eltwise: false,
        select_width: ArithmeticWidth::Baseline,
        pool_handoff_from: usize::MAX,
    };

    /// The table's entry for `vendor`.
    #[must_use]
    pub const fn for_vendor(vendor: Vendor) -> Strategy {
        match vendor {
            Vendor::Intel => Strategy::INTEL,
            Vendor::Amd => Strategy::AMD,
            Vendor::Other => Strategy::PLAIN,
        }
    }

    /// The default context's strategy ([`super::Context::default`], and calls that name no
    /// context): this CPU's table entry, with `BCAST_STRATEGY` applied when it is set and
    /// valid (see [`Strategy::from_env`]); read once per process.
    #[must_use]
    pub fn for_process() -> Strategy {
        static STRATEGY: OnceLock<Strategy> = OnceLock::new();
        *STRATEGY.get_or_init(|| {
            Strategy::from_env().unwrap_or_else(|_| Strategy::for_vendor(Vendor::get()))
        })
    }

    /// This CPU's table entry with `BCAST_STRATEGY` applied: a comma-separated list of
    /// `fill=rep-stos|vector`, `copy=memcpy|lines`, `stream=window|direct`,
    /// `prefetch=<bytes>`, `prefetch-out=<bytes>`, `eltwise=avx2|baseline`, `eltwise-wide-from=<bytes>`, `arithmetic=avx512|avx2|baseline`, `chains=registers|blocks`, `f16=native|widened`, `f16-avx512=on|off`, `eltwise-stream=window|none`, `select=avx512|avx2|baseline`, `handoff-from=<bytes>|never` (any subset;
    /// unset: the table's entry).
    ///
    /// # Errors
    /// The variable's text, and what in it is not understood.
    pub fn from_env() -> Result<Strategy, String> {
        let base = Strategy::for_vendor(Vendor::get());
        match std::env::var("BCAST_STRATEGY") {
            Ok(text) => base.with_overrides(&text),
            Err(std::env::VarError::NotPresent) => Ok(base),
            Err(e) => Err(format!("BCAST_STRATEGY: {e}")),
        }
    }

    /// `self` with the settings of `text` (the form of `BCAST_STRATEGY`) applied.
    ///
    /// # Errors
    /// What in `text` is not understood.
    pub fn with_overrides(mut self, text: &str) -> Result<Strategy, String> {
        for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let bad = || {
                format!("BCAST_STRATEGY: '{item}' is not one of fill=rep-stos|vector, copy=memcpy|lines, stream=window|direct, prefetch=<bytes>, prefetch-out=<bytes>, eltwise=avx2|baseline, eltwise-wide-from=<bytes>, arithmetic=avx512|avx2|baseline, chains=registers|blocks, f16=native|widened, f16-avx512=on|off, eltwise-stream=window|none, select=avx512|avx2|baseline, handoff-from=<bytes>|never")
            };
            let (key, value) = item.split_once('=').ok_or_else(bad)?;
            match (key.trim(), value.trim()) {
                ("fill", "rep-stos") => self.fill = FillStores::RepStos,
                ("fill", "vector") => self.fill = FillStores::Vector,
                ("copy", "memcpy") => self.row_copy = RowCopies::Memcpy,
                ("copy", "lines") => self.row_copy = RowCopies::Lines,
                ("stream", "window") => self.streamed_rows = StreamedRows::Window,
                ("stream", "direct") => self.streamed_rows = StreamedRows::Direct,
                ("prefetch", n) => self.prefetch_ahead = n.parse().map_err(|_| bad())?,
                ("prefetch-out", n) => self.prefetch_writes = n.parse().map_err(|_| bad())?,
                ("eltwise", "avx2") => self.wide_eltwise = true,
                ("eltwise", "baseline") => self.wide_eltwise = false,
                ("eltwise-wide-from", n) => {
                    self.wide_eltwise_from = n.parse().map_err(|_| bad())?;
                }
                ("arithmetic", w) => self.arithmetic = width_named(w).ok_or_else(bad)?,
                ("chains", "registers") => self.register_chains = true,
                ("chains", "blocks") => self.register_chains = false,
                ("f16", "native") => self.native_f16 = true,
                ("f16", "widened") => self.native_f16 = false,
                ("f16-avx512", "on") => self.f16_avx512 = true,
                ("f16-avx512", "off") => self.f16_avx512 = false,
                ("eltwise-stream", "window") => self.stream_eltwise = true,
                ("eltwise-stream", "none") => self.stream_eltwise = false,
                ("select", w) => self.select_width = width_named(w).ok_or_else(bad)?,
                ("handoff-from", "never") => self.pool_handoff_from = usize::MAX,
                ("handoff-from", n) => self.pool_handoff_from = n.parse().map_err(|_| bad())?,
                _ => return Err(bad()),
            }
        }
        Ok(self)
    }
}

/// The width `BCAST_STRATEGY` names `text`.
fn width_named(text: &str) -> Option<ArithmeticWidth> {
    match text {
        "avx512" => Some(ArithmeticWidth::Avx512),
        "avx2" => Some(ArithmeticWidth::Avx2),
        "baseline" => Some(ArithmeticWidth::Baseline),
        _ => None,
    }
}

/// The name `BCAST_STRATEGY` gives `width`.
fn width_name(width: ArithmeticWidth) -> &'static str {
    match width {
        ArithmeticWidth::Baseline => "baseline",
        ArithmeticWidth::Avx2 => "avx2",
        ArithmeticWidth::Avx512 => "avx512",
    }
}

impl fmt::Display for Strategy {
    /// The form `BCAST_STRATEGY` takes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let fill = match self.fill {
            FillStores::RepStos => "rep-stos",
            FillStores::Vector => "vector",
        };
        let copy = match self.row_copy {
            RowCopies::Memcpy => "memcpy",
            RowCopies::Lines => "lines",
        };
        let stream = match self.streamed_rows {
            StreamedRows::Window => "window",
            StreamedRows::Direct => "direct",
        };
        let width = |wide: bool| if wide { "avx2" } else { "baseline" };
        write!(
            f,
            "fill={fill},copy={copy},stream={stream},prefetch={},prefetch-out={},eltwise={},eltwise-wide-from={},arithmetic={},chains={},f16={},f16-avx512={},eltwise-stream={},select={},handoff-from={}",
            self.prefetch_ahead,
            self.prefetch_writes,
            width(self.wide_eltwise),
            self.wide_eltwise_from,
            width_name(self.arithmetic),
            if self.register_chains { "registers" } else { "blocks" },
            if self.native_f16 { "native" } else { "widened" },
            if self.f16_avx512 { "on" } else { "off" },
            if self.stream_eltwise { "window" } else { "none" },
            width_name(self.select_width),
            match self.pool_handoff_from {
                usize::MAX => "never".to_string(),
                n => n.to_string(),
            }
        )
    }
}

impl Vendor {
    /// This CPU's vendor (read once).
    #[must_use]
    pub fn get() -> Vendor {
        static VENDOR: OnceLock<Vendor> = OnceLock::new();
        *VENDOR.get_or_init(Vendor::read)
    }

    fn read() -> Vendor {
        #[cfg(target_arch = "x86_64")]
        {
            // `__cpuid` is an unsafe function before Rust 1.94 (the crate's rust-version is
            // older) and a safe one since.
            #[allow(unused_unsafe)]
            // SAFETY: CPUID leaf 0 is present on every x86-64 CPU.
            let r = unsafe { std::arch::x86_64::__cpuid(0) };
            let mut name = [0u8; 12];
            name[..4].copy_from_slice(&r.ebx.to_le_bytes());
            name[4..8].copy_from_slice(&r.edx.to_le_bytes());
            name[8..].copy_from_slice(&r.ecx.to_le_bytes());
            match &name {
                b"GenuineIntel" => return Vendor::Intel,
                b"AuthenticAMD" => return Vendor::Amd,
                _ => {}
            }
        }
        Vendor::Other
    }
}

impl fmt::Display for Vendor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Vendor::Intel => "Intel",
            Vendor::Amd => "AMD",
            Vendor::Other => "other",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overrides_parse_and_print_in_one_form() {
        let s = Strategy::PLAIN
            .with_overrides(
                "fill=rep-stos, copy=lines,stream=direct,prefetch=512,prefetch-out=2048,eltwise=avx2,eltwise-wide-from=64,arithmetic=avx512,chains=registers,f16=native,f16-avx512=on,eltwise-stream=window,select=avx2,handoff-from=1048576",
            )
            .unwrap();
        assert_eq!(
            s,
            Strategy {
                fill: FillStores::RepStos,
                row_copy: RowCopies::Lines,
                streamed_rows: StreamedRows::Direct,
                prefetch_ahead: 512,
                prefetch_writes: 2048,
                wide_eltwise: true,
                wide_eltwise_from: 64,
                arithmetic: ArithmeticWidth::Avx512,
                register_chains: true,
                native_f16: true,
                f16_avx512: true,
                stream_eltwise: true,
                select_width: ArithmeticWidth::Avx2,
                pool_handoff_from: 1 << 20,
            }
        );
        let never = Strategy::AMD.with_overrides("handoff-from=never").unwrap();
        assert_eq!(never.pool_handoff_from, usize::MAX);
        assert_eq!(
            Strategy::PLAIN.with_overrides(&never.to_string()).unwrap(),
            never
        );
        assert_eq!(Strategy::PLAIN.with_overrides(&s.to_string()).unwrap(), s);
        assert_eq!(Strategy::AMD.with_overrides("").unwrap(), Strategy::AMD);
        assert!(Strategy::PLAIN.with_overrides("fill=fast").is_err());
        assert!(Strategy::PLAIN.with_overrides("prefetch=-1").is_err());
        assert!(Strategy::PLAIN.with_overrides("prefetch-out=2k").is_err());
        assert!(Strategy::PLAIN
            .with_overrides("eltwise-wide-from=4k")
            .is_err());
        assert!(Strategy::PLAIN.with_overrides("fill").is_err());
        assert!(Strategy::PLAIN.with_overrides("select=avx").is_err());
        assert!(Strategy::PLAIN.with_overrides("arithmetic=sse").is_err());
        assert!(Strategy::PLAIN
            .with_overrides("handoff-from=always")
            .is_err());
    }
}
