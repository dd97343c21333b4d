//! README.md's C and C++ blocks against the header and the static library of this build.
//!
//! A ```c block that is a whole program (it has `main`) is compiled, linked and run, and must
//! exit 0; a fragment is compiled inside a `main` of its own, run, and must leave `int st`
//! (when it declares one) at `BCAST_OK`. The ```cpp block is an excerpt of
//! `examples/c/broadcast_op.cpp`, which `c_abi.rs` builds and runs: every line of it but the
//! `// ...` elisions must be a line of that file, in the same order.

use std::path::{Path, PathBuf};
use std::process::Command;

fn crate_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn readme() -> String {
    std::fs::read_to_string(crate_dir().join("../../README.md")).expect("README.md")
}

/// The README's blocks fenced as ```lang, each with the README line of its opening fence.
fn blocks(text: &str, lang: &str) -> Vec<(usize, String)> {
    let fence = format!("```{lang}");
    let mut out = Vec::new();
    let mut lines = text.lines().enumerate();
    while let Some((i, line)) = lines.next() {
        if line.starts_with("```") {
            let body: Vec<&str> = lines
                .by_ref()
                .map(|(_, l)| l)
                .take_while(|l| *l != "```")
                .collect();
            if line == fence {
                out.push((i + 1, body.join("\n") + "\n"));
            }
        }
    }
    out
}

/// `libbcast_c.a` as cargo built it for this test run (beside the test executables).
fn staticlib() -> PathBuf {
    let exe = std::env::current_exe().expect("the test knows its own path");
    let deps = exe.parent().expect("the test executable is in a folder");
    [deps.join("libbcast_c.a"), deps.join("../libbcast_c.a")]
        .into_iter()
        .find(|p| p.is_file())
        .expect("libbcast_c.a beside the test executable")
}

/// Compiles the C `source` with the header and the static library, and runs it.
fn build_and_run(name: &str, source: &str, line: usize) {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bcast-c-readme");
    std::fs::create_dir_all(&dir).expect("the target's tmp folder is writable");
    let file = dir.join(format!("{name}.c"));
    std::fs::write(&file, source).expect("the C source is written");
    let exe = dir.join(name);
    let target = env!("BCAST_C_TARGET");
    let compiler = cc::Build::new()
        .target(target)
        .host(target)
        .opt_level(1)
        .cargo_metadata(false)
        .warnings(true)
        .extra_warnings(true)
        .warnings_into_errors(true)
        .std("c11")
        .get_compiler();
    let mut cmd = compiler.to_command();
    cmd.arg("-I")
        .arg(crate_dir().join("include"))
        .arg(&file)
        .arg(staticlib())
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(&exe);
    let out = cmd.output().expect("the C compiler starts");
    assert!(
        out.status.success(),
        "README.md:{line}: the C block does not compile:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let run = Command::new(&exe).output().expect("the program starts");
    assert!(
        run.status.success(),
        "README.md:{line}: the C block exits {}:\n{}{}",
        run.status,
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
}

#[test]
fn c_blocks_compile_and_run() {
    let text = readme();
    let c = blocks(&text, "c");
    assert!(c.len() >= 2, "the README has {} C blocks", c.len());
    for (k, (line, code)) in c.iter().enumerate() {
        let source = if code.contains("int main(") {
            code.clone()
        } else {
            // A fragment: its own main, which returns its status if it keeps one.
            let ret = if code.contains("int st =") {
                "return st == BCAST_OK ? 0 : 1;"
            } else {
                "return 0;"
            };
            format!(
                "#include <bcast.h>\n#include <stddef.h>\n\nint main(void) {{\n{code}{ret}\n}}\n"
            )
        };
        build_and_run(&format!("readme_block_{k}"), &source, *line);
    }
}

#[test]
fn the_cpp_block_is_an_excerpt_of_the_example() {
    let text = readme();
    let cpp = blocks(&text, "cpp");
    assert_eq!(cpp.len(), 1, "one C++ block");
    let (line, excerpt) = &cpp[0];
    let example = std::fs::read_to_string(crate_dir().join("../../examples/c/broadcast_op.cpp"))
        .expect("examples/c/broadcast_op.cpp");
    let mut rest = example.lines();
    for l in excerpt.lines().filter(|l| l.trim() != "// ...") {
        assert!(
            rest.any(|e| e == l),
            "README.md:{line}: {l:?} is not in examples/c/broadcast_op.cpp (in this order)"
        );
    }
}
