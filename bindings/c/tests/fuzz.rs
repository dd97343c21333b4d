//! The fuzz targets of `fuzz/` that go through the C ABI, run on the stable toolchain over
//! their committed corpus and generated inputs (`fuzz/stable.rs` says how, and how long).

use std::path::Path;

#[path = "../../../fuzz/stable.rs"]
mod stable;

#[path = "../../../fuzz/bodies/c_args.rs"]
mod c_args;

#[path = "../../../fuzz/bodies/expr_nodes.rs"]
mod expr_nodes;

fn run(target: &str, body: fn(&[u8]), dictionary: &[&[u8]]) {
    let seeds = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/seeds");
    stable::run(
        target,
        &seeds,
        Path::new(env!("CARGO_TARGET_TMPDIR")),
        body,
        dictionary,
    );
}

#[test]
fn c_args() {
    run("c_args", c_args::run, &[b"x+", b"(", b"maximum(", b")"]);
}

#[test]
fn expr_nodes() {
    run("expr_nodes", expr_nodes::run, &[]);
}

/// Issue 51 through the C ABI: a chain of node arrays as long as the limit runs, one node
/// more is `BCAST_ERR_INVALID` naming `BCAST_EXPR_MAX_NODES`, and text nested 100,000 deep
/// runs. Expected values by arithmetic.
#[test]
fn long_node_arrays_and_deep_text_give_results_or_statuses() {
    use std::ffi::{c_void, CStr, CString};

    use bcast_c::{
        bcast_expr_eval, bcast_expr_node, bcast_expr_text_eval, bcast_last_error_message,
        BCAST_EXPR_MAX_NODES,
    };

    const I64: u32 = 4;
    const ADD: u32 = 0;
    let x = [3i64, -7];
    let shape = [2usize];
    let inputs = [x.as_ptr().cast::<c_void>()];
    let shapes = [shape.as_ptr()];
    let ranks = [1usize];
    let dtypes = [I64];
    // Node k adds input 0 to node k - 1 (node 0 to input 0 itself).
    let args: Vec<[usize; 2]> = (0..=BCAST_EXPR_MAX_NODES)
        .map(|k| [if k == 0 { 0 } else { k }, 0])
        .collect();
    let nodes: Vec<bcast_expr_node> = args
        .iter()
        .map(|a| bcast_expr_node {
            op: ADD,
            levels: 0,
            n_args: 2,
            args: a.as_ptr(),
        })
        .collect();
    let message = || {
        // SAFETY: NUL-terminated, valid until the next call on this thread.
        unsafe { CStr::from_ptr(bcast_last_error_message()) }
            .to_string_lossy()
            .into_owned()
    };
    for (n, want) in [
        (BCAST_EXPR_MAX_NODES, Some(x.map(|v| v * 65_537))),
        (BCAST_EXPR_MAX_NODES + 1, None),
    ] {
        let mut out = [0i64; 2];
        // SAFETY: every array holds the count passed with it.
        let status = unsafe {
            bcast_expr_eval(
                nodes.as_ptr(),
                n,
                1,
                dtypes.as_ptr(),
                inputs.as_ptr(),
                shapes.as_ptr(),
                ranks.as_ptr(),
                1,
                -1,
                out.as_mut_ptr().cast(),
                2,
                1,
            )
        };
        match want {
            Some(want) => {
                assert_eq!(status, 0, "{}", message());
                assert_eq!(out, want);
            }
            None => {
                assert_eq!(status, 7, "BCAST_ERR_INVALID");
                assert!(
                    message().contains("BCAST_EXPR_MAX_NODES (65536)"),
                    "{}",
                    message()
                );
            }
        }
    }
    let depth = 100_000;
    let text = CString::new(format!("{}x * 2{}", "(".repeat(depth), ")".repeat(depth))).unwrap();
    let mut out = [0i64; 2];
    // SAFETY: as above; `text` is NUL-terminated.
    let status = unsafe {
        bcast_expr_text_eval(
            text.as_ptr(),
            1,
            dtypes.as_ptr(),
            inputs.as_ptr(),
            shapes.as_ptr(),
            ranks.as_ptr(),
            1,
            -1,
            out.as_mut_ptr().cast(),
            2,
            1,
        )
    };
    assert_eq!(status, 0, "{}", message());
    assert_eq!(out, x.map(|v| v * 2));
}
