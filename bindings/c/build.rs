//! Hands the target triple to the tests, which compile the C tests for it with `cc`.
fn main() {
    let target = std::env::var("TARGET").expect("cargo sets TARGET for build scripts");
    println!("cargo:rustc-env=BCAST_C_TARGET={target}");
    println!("cargo:rerun-if-changed=build.rs");
}
