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

/// `file` (`libbcast_c.a`, `libbcast_c.so`) as cargo built it for this test run.
fn built_library(file: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("the test knows its own path");
    let deps = exe.parent().expect("the test executable is in a folder");
    let candidates = [deps.join(file), deps.join("..").join(file)];
    candidates
        .iter()
        .find(|p| p.is_file())
        .cloned()
        .unwrap_or_else(|| {
            panic!(
                "{file} not found next to {} (looked at {candidates:?}); \
                 the library's crate-type must include \"staticlib\" and \"cdylib\"",
                exe.display()
            )
        })
}

/// How a test program is linked with the library.
enum Link {
    /// `libbcast_c.a` and the system libraries the Rust standard library uses.
    Static,
    /// `-lbcast_c` from this folder, found at run time through an rpath to it.
    Shared(PathBuf),
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
    build_linked(name, sources, cpp, extra, &Link::Static)
}

/// [`build`] with the library linked as `link` says. Every program is told the package
/// version (`BCAST_TEST_CARGO_VERSION`), which `strings.c` compares with the library's.
fn build_linked(
    name: &str,
    sources: &[PathBuf],
    cpp: bool,
    extra: &[&str],
    link: &Link,
) -> PathBuf {
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
    cmd.arg(format!(
        "-DBCAST_TEST_CARGO_VERSION=\"{}\"",
        env!("CARGO_PKG_VERSION")
    ));
    for flag in extra {
        cmd.arg(flag);
    }
    cmd.args(sources);
    match link {
        Link::Static => {
            cmd.arg(built_library("libbcast_c.a"))
                .args(["-lpthread", "-ldl", "-lm"]);
        }
        Link::Shared(dir) => {
            cmd.arg("-L")
                .arg(dir)
                .arg("-lbcast_c")
                .arg(format!("-Wl,-rpath,{}", dir.display()));
        }
    }
    cmd.arg("-o").arg(&exe);
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

/// Runs `exe`; it must exit 0, and is then deleted. Returns its standard output.
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
    // Each program holds a whole static Rust library with debug info (well over 100 MB):
    // kept only when it failed, for the post-mortem.
    let _ = std::fs::remove_file(exe);
    stdout
}

fn c_test(file: &str) -> PathBuf {
    crate_dir().join("tests/c").join(file)
}

/// The C test programs, each `tests/c/<name>.c`.
const PROGRAMS: [&str; 10] = [
    "modes",
    "errors",
    "reduce",
    "strides",
    "threads",
    "eltwise",
    "eltwise_ops",
    "strings",
    "expr",
    "context",
];

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
fn every_op_through_bcast_eltwise_matches_its_definition() {
    c_program("eltwise_ops");
}

#[test]
fn expressions_match_their_chains_written_in_c() {
    c_program("expr");
}

#[test]
fn many_host_threads_at_once() {
    c_program("threads");
}

#[test]
fn contexts_prepared_ops_host_pools_and_fork() {
    c_program("context");
}

#[test]
fn version_and_status_strings() {
    c_program("strings");
}

/// The SONAME the versioning rule gives for this package version (bindings/c/README.md):
/// `libbcast_c.so.MAJOR` from 1.0 on, `.so.0.MINOR` below it, `.so.0.0.PATCH` below 0.1.
fn expected_soname() -> String {
    let major: u64 = env!("CARGO_PKG_VERSION_MAJOR").parse().unwrap();
    let minor: u64 = env!("CARGO_PKG_VERSION_MINOR").parse().unwrap();
    let patch: u64 = env!("CARGO_PKG_VERSION_PATCH").parse().unwrap();
    let compatible = if major > 0 {
        format!("{major}")
    } else if minor > 0 {
        format!("0.{minor}")
    } else {
        format!("0.0.{patch}")
    };
    format!("libbcast_c.so.{compatible}")
}

/// The entries of `readelf -d` on `file` of this type (`SONAME`, `NEEDED`): the names
/// in brackets.
fn dynamic_entries(file: &Path, kind: &str) -> Vec<String> {
    let out = Command::new("readelf")
        .arg("-d")
        .arg(file)
        .output()
        .expect("readelf (binutils, installed with the C compiler) starts");
    assert!(out.status.success(), "readelf -d {}", file.display());
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|line| line.contains(&format!("({kind})")))
        .filter_map(|line| {
            let start = line.find('[')? + 1;
            let end = line.rfind(']')?;
            Some(line[start..end].to_string())
        })
        .collect()
}

/// The shared library carries the versioned SONAME, a program linked with `-lbcast_c`
/// records that name, and runs against the library found under it (the way an installed
/// library is found: `libbcast_c.so.X` beside the development link `libbcast_c.so`).
#[cfg(target_os = "linux")]
#[test]
fn shared_library_has_the_versioned_soname() {
    let so = built_library("libbcast_c.so");
    let soname = expected_soname();
    assert_eq!(
        dynamic_entries(&so, "SONAME"),
        std::slice::from_ref(&soname),
        "{}",
        so.display()
    );
    let dir = out_dir("shared-lib");
    for link in [soname.as_str(), "libbcast_c.so"] {
        let path = dir.join(link);
        let _ = std::fs::remove_file(&path);
        std::os::unix::fs::symlink(&so, &path).expect("the target's tmp folder is writable");
    }
    let exe = build_linked(
        "strings-shared",
        &[c_test("strings.c")],
        false,
        &[],
        &Link::Shared(dir),
    );
    assert!(
        dynamic_entries(&exe, "NEEDED").contains(&soname),
        "{} does not need {soname}",
        exe.display()
    );
    let stdout = run(&exe, &[]);
    assert!(
        stdout.contains(", 0 failed"),
        "strings (shared) reported failures"
    );
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
