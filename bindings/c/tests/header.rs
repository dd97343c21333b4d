//! `include/bcast.h` is what cbindgen generates from this crate, byte for byte.
//!
//! `BCAST_BLESS_HEADER=1 cargo test -p bcast-c --test header` rewrites it.

use std::path::Path;

#[test]
fn committed_header_is_what_cbindgen_generates() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml"))
        .expect("bindings/c/cbindgen.toml parses");
    let mut generated = Vec::new();
    cbindgen::Builder::new()
        .with_config(config)
        .with_src(crate_dir.join("src/lib.rs"))
        .generate()
        .expect("cbindgen generates the header")
        .write(&mut generated);
    let generated = String::from_utf8(generated).expect("the header is UTF-8");
    let path = crate_dir.join("include/bcast.h");
    if std::env::var_os("BCAST_BLESS_HEADER").is_some() {
        std::fs::write(&path, &generated).expect("include/bcast.h is writable");
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "bindings/c/include/bcast.h is stale: regenerate it with \
         `BCAST_BLESS_HEADER=1 cargo test -p bcast-c --test header` and commit it"
    );
}
