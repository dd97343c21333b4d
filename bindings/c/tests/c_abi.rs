//! The C ABI from C: each program in `tests/c/` is compiled with the C compiler the `cc`
//! crate finds (gcc here; `CC` overrides it), linked against this crate's static library,
//! run, and must exit 0. The expected values come from a naive reference written in C from
//! the rules (`tests/c/ref.h`), not from bcast.
//!
//! The static library: cargo builds this crate's library once with all its crate types
//! (`cdylib`, `staticlib`, `rlib`) before any integration test runs, and writes
//! `libbcast_c.a` into the folder of the test executables (`target/<profile>/deps`), where it
//! is found from `std::env::current_exe()`. So `cargo test` from a clean checkout needs no
//! separate build step, and the C tests always link the library of the code under test.
//!
//! `under_address_sanitizer` runs every program again built with `-fsanitize=address`
//! (AddressSanitizer and LeakSanitizer on the C side).

use std::path::{Path, PathBuf};
use std::process::Command;

fn crate_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `libbcast_c.a` as cargo built it for this test run.
fn staticlib() -> PathBuf {
    let exe = std::env::current_exe().expect("the test knows its own path");
    let deps = exe.parent().expect("the test executable is in a folder");
    let candidates = [deps.join("libbcast_c.a"), deps.join("../libbcast_c.a")];
    candidates
        .iter()
        .find(|p| p.is_file())
        .cloned()
        .unwrap_or_else(|| {
            panic!(
                "libbcast_c.a not found next to {} (looked at {candidates:?}); \
                 the library's crate-type must include \"staticlib\"",
                exe.display()
            )
        })
}

/// Where this test's programs are built.
fn out_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("bcast-c")
        .join(name);
    std::fs::create_dir_all(&dir).expect("the target's tmp folder is writable");
    dir
}

/// Compiles `sources` (C, or C++ when `cpp`) and links them with the static library into
/// an executable; returns its path.
fn build(name: &str, sources: &[PathBuf], cpp: bool, extra: &[&str]) -> PathBuf {
    let target = env!("BCAST_C_TARGET");
    let compiler = cc::Build::new()
        .cpp(cpp)
        .target(target)
        .host(target)
        .opt_level(1)
        .debug(true)
        .cargo_metadata(false)
        .warnings(true)
        .extra_warnings(true)
        .warnings_into_errors(true)
        .std(if cpp { "c++17" } else { "c11" })
        .get_compiler();
    let exe = out_dir(name).join(name);
    let mut cmd = compiler.to_command();
    cmd.arg("-I")
        .arg(crate_dir().join("include"))
        .arg("-I")
        .arg(crate_dir().join("tests/c"));
    for flag in extra {
        cmd.arg(flag);
    }
    cmd.args(sources)
        .arg(staticlib())
        .args(["-lpthread", "-ldl", "-lm"])
        .arg("-o")
        .arg(&exe);
    let out = cmd.output().expect("the C compiler starts");
    assert!(
        out.status.success(),
        "compiling {name} failed: {:?} {:?}\n{}{}",
        cmd.get_program(),
        cmd.get_args().collect::<Vec<_>>(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    exe
}

/// Runs `exe`; it must exit 0. Returns its standard output.
fn run(exe: &Path, env: &[(&str, &str)]) -> String {
    let out = Command::new(exe)
        .envs(env.iter().copied())
        .output()
        .expect("the test program starts");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{} failed ({}):\n{stdout}{}",
        exe.display(),
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    print!("{stdout}");
    stdout
}

fn c_test(file: &str) -> PathBuf {
    crate_dir().join("tests/c").join(file)
}

/// The C test programs, each `tests/c/<name>.c`.
const PROGRAMS: [&str; 6] = ["modes", "errors", "reduce", "strides", "threads", "eltwise"];

/// Builds and runs one C test program.
fn c_program(name: &str) {
    let exe = build(name, &[c_test(&format!("{name}.c"))], false, &[]);
    let stdout = run(&exe, &[]);
    assert!(stdout.contains(", 0 failed"), "{name} reported failures");
}

#[test]
fn modes_and_element_sizes_match_the_reference() {
    c_program("modes");
}

#[test]
fn errors_are_statuses_with_the_library_messages() {
    c_program("errors");
}

#[test]
fn reduce_every_dtype_matches_the_reference() {
    c_program("reduce");
}

#[test]
fn strided_sources_match_the_reference() {
    c_program("strides");
}

#[test]
fn eltwise_ops_match_the_reference() {
    c_program("eltwise");
}

#[test]
fn many_host_threads_at_once() {
    c_program("threads");
}

/// The C++ example of the README (`examples/c/broadcast_op.cpp`) builds against the header
/// and the library, and runs.
#[test]
fn cpp_example_runs() {
    let source = crate_dir().join("../../examples/c/broadcast_op.cpp");
    let exe = build("broadcast_op", &[source], true, &[]);
    let stdout = run(&exe, &[]);
    assert!(
        stdout.contains("BroadcastOp: ok"),
        "the example did not finish"
    );
}

/// Every C test again, built with AddressSanitizer (out-of-bounds reads and writes,
/// use-after-free, double free on the C side and in what bcast does with the caller's
/// memory; LeakSanitizer for leaked plans and messages at exit). About a second in all.
#[test]
fn under_address_sanitizer() {
    let asan = [
        "-fsanitize=address",
        "-fno-omit-frame-pointer",
        "-fno-sanitize-recover=all",
    ];
    let env = [(
        "ASAN_OPTIONS",
        "detect_leaks=1:halt_on_error=1:abort_on_error=0",
    )];
    for name in PROGRAMS {
        let exe = build(
            &format!("{name}-asan"),
            &[c_test(&format!("{name}.c"))],
            false,
            &asan,
        );
        let stdout = run(&exe, &env);
        assert!(
            stdout.contains(", 0 failed"),
            "{name} (ASan) reported failures"
        );
    }
}

/// The README's C example is `examples/c/expand.c`, word for word, and it runs.
#[test]
fn readme_c_example_runs() {
    let file = crate_dir().join("../../examples/c/expand.c");
    let code = std::fs::read_to_string(&file).expect("examples/c/expand.c");
    let readme = std::fs::read_to_string(crate_dir().join("../../README.md")).expect("README.md");
    assert!(
        readme.contains(&format!("```c\n{code}```")),
        "README.md's C example differs from examples/c/expand.c"
    );
    let exe = build("expand", &[file], false, &[]);
    let stdout = run(&exe, &[]);
    assert!(
        stdout.contains("[2,3,6], 36 elements, out[0,1,5] = 2"),
        "{stdout}"
    );
}
