//! The I/O layer (feature `io`): the codecs that turn files into [`Tensor`](crate::Tensor)s
//! and back, on top of the kernel and knowing nothing of how it runs.
//!
//! - [`npy`]: NumPy's `.npy` format, read and written;
//! - [`ir`]: OpenVINO IR models (`.xml` and `.bin`), read and run;
//! - `codec`: the one little/big-endian byte codec of fixed-width elements both use, derived
//!   from the element-type table (`src/dtype.rs`);
//! - `files`: the file-system side both share (regular files only, atomic replacement).
//!
//! The crate root re-exports [`npy`] and [`ir`], so their paths are `bcast::npy` and
//! `bcast::ir`.

pub(crate) mod codec;
pub(crate) mod files;
pub mod ir;
pub mod npy;
