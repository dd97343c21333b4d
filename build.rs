//! Whether the compiler takes AVX-512 target features and their run-time detection (stable
//! since Rust 1.89): the f16 chains that compute in AVX512-FP16 registers (`eltwise/fp16.rs`)
//! need them. An older compiler, down to the crate's `rust-version`, builds the crate
//! without that path (cfg `bcast_avx512` unset), and f16 chains then widen through F16C.

use std::process::Command;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(bcast_avx512)");
    println!("cargo::rerun-if-changed=build.rs");
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let minor = Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|v| {
            // "rustc 1.95.0 (59807616e 2026-04-14)"
            let version = v.split_whitespace().nth(1)?;
            let mut parts = version.split('.');
            let major: u32 = parts.next()?.parse().ok()?;
            let minor: u32 = parts.next()?.parse().ok()?;
            (major == 1).then_some(minor)
        });
    if minor.is_some_and(|m| m >= 89) {
        println!("cargo::rustc-cfg=bcast_avx512");
    }
}
