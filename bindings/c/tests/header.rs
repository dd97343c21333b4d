//! `include/bcast.h` is what cbindgen generates from this crate, byte for byte, with the
//! version macros of the package version after its `#include`s.
//!
//! `BCAST_BLESS_HEADER=1 cargo test -p bcast-c --test header` rewrites it.

use std::path::Path;

#[test]
fn committed_header_is_what_cbindgen_generates() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml"))
        .expect("bindings/c/cbindgen.toml parses");
    // Not in cbindgen.toml: written from the version Cargo builds with and from bcast's
    // element-type and op tables, so that a version bump or a new row makes the committed
    // header stale.
    config.after_includes = Some(bcast_c::header_prelude());
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

/// Every status the header declares has a text of its own (a status added to the enum but
/// not to `bcast_status_string`'s table would read as "unknown bcast status").
#[test]
fn every_status_in_the_header_has_its_own_text() {
    let header =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("include/bcast.h"))
            .expect("include/bcast.h");
    let start = header
        .find("typedef enum bcast_status {")
        .expect("the header declares bcast_status");
    let end = start
        + header[start..]
            .find("} bcast_status;")
            .expect("the enum ends");
    let mut texts = std::collections::HashMap::new();
    for line in header[start..end].lines() {
        let Some((name, value)) = line.trim().trim_end_matches(',').split_once(" = ") else {
            continue;
        };
        let code: std::ffi::c_int = value.parse().expect("a status value is an integer");
        // SAFETY: never NULL, a static NUL-terminated string.
        let text = unsafe { std::ffi::CStr::from_ptr(bcast_c::bcast_status_string(code)) }
            .to_str()
            .expect("UTF-8")
            .to_owned();
        assert_ne!(text, "unknown bcast status", "{name} = {code} has no text");
        if let Some(other) = texts.insert(text.clone(), name.to_owned()) {
            panic!("{name} and {other} share the text '{text}'");
        }
    }
    assert!(texts.len() >= 15, "the header's statuses: {texts:?}");
}

/// The codes are the ABI: a program compiled against one header runs against any later
/// library. Every `BCAST_OP_*` name that existed before the op table keeps its value, and
/// a few codes of every kind (an attribute value with a code of its own, the ops after
/// Select) are pinned to literal numbers, so that a table edit that renumbers fails here.
#[test]
fn codes_are_pinned_numbers() {
    let header =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("include/bcast.h"))
            .expect("include/bcast.h");
    let pinned = [
        ("BCAST_OP_ADD", 0),
        ("BCAST_OP_SUBTRACT", 1),
        ("BCAST_OP_MULTIPLY", 2),
        ("BCAST_OP_DIVIDE", 3),
        ("BCAST_OP_MAXIMUM", 4),
        ("BCAST_OP_MINIMUM", 5),
        ("BCAST_OP_SQUARED_DIFFERENCE", 6),
        ("BCAST_OP_POWER", 7),
        ("BCAST_OP_FLOOR_MOD", 8),
        ("BCAST_OP_MOD", 9),
        ("BCAST_OP_EQUAL", 10),
        ("BCAST_OP_NOT_EQUAL", 11),
        ("BCAST_OP_LESS", 12),
        ("BCAST_OP_LESS_EQUAL", 13),
        ("BCAST_OP_GREATER", 14),
        ("BCAST_OP_GREATER_EQUAL", 15),
        ("BCAST_OP_LOGICAL_AND", 16),
        ("BCAST_OP_LOGICAL_OR", 17),
        ("BCAST_OP_LOGICAL_XOR", 18),
        ("BCAST_OP_DIVIDE_TRUNC", 19),
        ("BCAST_OP_SELECT", 20),
        ("BCAST_OP_SUM", 21),
        ("BCAST_OP_BIT_SHIFT_RIGHT", 31),
        ("BCAST_OP_FAKE_QUANTIZE", 34),
        ("BCAST_OP_ONNX_FMOD", 36),
        ("BCAST_OP_ONNX_POW", 38),
        ("BCAST_DTYPE_BOOL", 0),
        ("BCAST_DTYPE_I8", 1),
        ("BCAST_DTYPE_I64", 4),
        ("BCAST_DTYPE_U8", 5),
        ("BCAST_DTYPE_U64", 8),
        ("BCAST_DTYPE_F16", 9),
        ("BCAST_DTYPE_BF16", 10),
        ("BCAST_DTYPE_F32", 11),
        ("BCAST_DTYPE_F64", 12),
    ];
    for (name, value) in pinned {
        assert!(
            header.contains(&format!("\n  {name} = {value},\n")),
            "the header does not declare {name} = {value}"
        );
    }
    // The old name of the op enum stays a name of it.
    assert!(header.contains("typedef bcast_eltwise_op bcast_binary_op;"));
}
