//! Hands the target triple to the tests, which compile the C tests for it with `cc`, and
//! gives the shared library its SONAME.
//!
//! The SONAME follows Cargo's reading of semver: from 1.0 on, versions with the same MAJOR
//! are compatible, so the SONAME is `libbcast_c.so.MAJOR`; below 1.0 each MINOR is a new
//! API (`libbcast_c.so.0.MINOR`), and below 0.1 each PATCH (`libbcast_c.so.0.0.PATCH`). A
//! program linked against one release then runs against any later compatible one, and never
//! against an incompatible one. `make -C bindings/c install` reads the SONAME back from the
//! library (one source: this file) and names its symlink after it.
fn main() {
    let target = std::env::var("TARGET").expect("cargo sets TARGET for build scripts");
    println!("cargo:rustc-env=BCAST_C_TARGET={target}");
    println!("cargo:rerun-if-changed=build.rs");

    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    // The ELF systems, where the linker takes `-soname` (macOS's install name and Windows'
    // DLL names work otherwise).
    const ELF: [&str; 9] = [
        "linux",
        "android",
        "freebsd",
        "netbsd",
        "openbsd",
        "dragonfly",
        "illumos",
        "solaris",
        "hurd",
    ];
    if ELF.contains(&os.as_str()) {
        let soname = format!("libbcast_c.so.{}", soname_version());
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,{soname}");
        println!("cargo:rustc-env=BCAST_C_SONAME={soname}");
    }
}

/// The part of the version after `libbcast_c.so.`: what stays the same across compatible
/// releases.
fn soname_version() -> String {
    let part = |name: &str| -> u64 {
        let value = std::env::var(name).expect("cargo sets the package version parts");
        value
            .parse()
            .unwrap_or_else(|_| panic!("{name} is not a number: {value}"))
    };
    let (major, minor, patch) = (
        part("CARGO_PKG_VERSION_MAJOR"),
        part("CARGO_PKG_VERSION_MINOR"),
        part("CARGO_PKG_VERSION_PATCH"),
    );
    match (major, minor) {
        (0, 0) => format!("0.0.{patch}"),
        (0, minor) => format!("0.{minor}"),
        (major, _) => major.to_string(),
    }
}
