//! The library's version: `bcast_version()`, and the header's `BCAST_VERSION_*` macros.
//!
//! Both come from the package version Cargo builds with: the function from
//! `CARGO_PKG_VERSION` at compile time, the macros from [`header_macros`], which the header
//! test (tests/header.rs) puts into the generated header, so that a version bump leaves the
//! committed header stale until it is regenerated.

use std::ffi::{c_char, CStr};

const VERSION: &CStr =
    match CStr::from_bytes_with_nul(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes()) {
        Ok(version) => version,
        Err(_) => panic!("the package version holds no NUL"),
    };

/// The version of the bcast library linked in, `"MAJOR.MINOR.PATCH"` (semver, with a
/// pre-release suffix if it has one), e.g. `"0.1.0"`. Never NULL.
///
/// The header's `BCAST_VERSION_STRING` is the version of the header: a program may compare
/// the two at start-up (`strcmp(bcast_version(), BCAST_VERSION_STRING) == 0`) to find a
/// library other than the one it was compiled against.
///
/// Ownership: a static string; do not free it. It does not change the last error message.
///
/// Thread-safety: any number of threads at once.
#[no_mangle]
pub extern "C" fn bcast_version() -> *const c_char {
    VERSION.as_ptr()
}

/// The `#define`s of the version that the header carries after its `#include`s.
#[doc(hidden)]
pub fn header_macros() -> String {
    format!(
        "\n/**\n * The version of this header (and of the library built with it): \
         `BCAST_VERSION_STRING`\n * is `\"MAJOR.MINOR.PATCH\"`, what `bcast_version()` \
         returns when the library linked in\n * is the one this header belongs to.\n \
         */\n#define BCAST_VERSION_MAJOR {}\n#define BCAST_VERSION_MINOR {}\n\
         #define BCAST_VERSION_PATCH {}\n#define BCAST_VERSION_STRING \"{}\"",
        env!("CARGO_PKG_VERSION_MAJOR"),
        env!("CARGO_PKG_VERSION_MINOR"),
        env!("CARGO_PKG_VERSION_PATCH"),
        env!("CARGO_PKG_VERSION"),
    )
}
