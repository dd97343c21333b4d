//! The fuzz targets of `fuzz/` that need only the kernel crate, run on the stable toolchain
//! over their committed corpus and generated inputs (`fuzz/stable.rs` says how, and how long).
//! The C ABI's targets run in `bindings/c/tests/fuzz.rs`.

// Each body is its own libFuzzer binary under cargo-fuzz, so two of them (eltwise,
// planners) load the naive reference of tests/common themselves; here they share a binary.
#![allow(clippy::duplicate_mod)]

use std::path::Path;

#[path = "../fuzz/stable.rs"]
mod stable;

#[path = "../fuzz/bodies/expr_text.rs"]
mod expr_text;

#[path = "../fuzz/bodies/eltwise.rs"]
mod eltwise;

#[path = "../fuzz/bodies/ir.rs"]
mod ir;

#[path = "../fuzz/bodies/npy.rs"]
mod npy;

#[path = "../fuzz/bodies/planners.rs"]
mod planners;

fn run(target: &str, body: fn(&[u8]), dictionary: &[&[u8]]) {
    let seeds = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds");
    stable::run(
        target,
        &seeds,
        Path::new(env!("CARGO_TARGET_TMPDIR")),
        body,
        dictionary,
    );
}

/// Pieces of the expression grammar: what mutations insert (and repeat, for depth).
const EXPRESSION: &[&[u8]] = &[
    b"(",
    b")",
    b"x",
    b"y",
    b"c",
    b"+",
    b"-",
    b"*",
    b"/",
    b"%",
    b"**",
    b"<",
    b">=",
    b"==",
    b"!=",
    b",",
    b"maximum(",
    b"select(c, ",
    b"fake_quantize(",
    b"levels=",
    b"sum(",
    b"divide_trunc(",
    b"bit_shift_right(",
    b"prelu(",
    b"1",
    b"0",
    b"-1",
    b"2.5",
    b"1e999",
    b"-0.0",
    b"true",
    b"x+",
    b"(x",
    b"x)",
    b" ",
    b"255",
    b"170141183460469231731687303715884105727",
];

#[test]
fn expr_text() {
    run("expr_text", expr_text::run, EXPRESSION);
}

#[test]
fn eltwise() {
    run("eltwise", eltwise::run, &[]);
}

#[test]
fn ir() {
    run(
        "ir",
        ir::run,
        &[
            b"<layer ",
            b"</layer>",
            b"<edge ",
            b"<port id=\"0\">",
            b"<dim>",
            b"-1",
            b"Add",
            b"Broadcast",
            b"Parameter",
            b"Const",
            b"Result",
            b"opset1",
            b"\0",
        ],
    );
}

#[test]
fn npy() {
    run(
        "npy",
        npy::run,
        &[
            b"'descr'",
            b"'shape': (",
            b"<f4",
            b"|b1",
            b"<U",
            b"True",
            b"),",
        ],
    );
}

#[test]
fn planners() {
    run("planners", planners::run, &[]);
}
