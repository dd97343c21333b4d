//! README.md's command lines run as written: every `sh` block line by line (a `# prints X`
//! comment is the output it must print), and every `console` block's `$` commands, whose
//! output must be the lines shown (`...` stands for any lines). A block the tests cannot run
//! (it installs something, or takes minutes) carries `<!-- not run: REASON -->` on the line
//! above it. The `toml` block's versions are those of the kernel crate's Cargo.toml, and no
//! block is of a language that no test reads (the Rust blocks are doctests of the kernel
//! crate, the C and C++ blocks are read by `bindings/c/tests/readme.rs`, the Python ones by
//! `bindings/python/tests/test_readme.py`).
//!
//! The `sh` blocks read small `.npy` files that the README names with their shapes; this
//! test writes them (values from 0 up, divisors never 0) into a scratch folder where the
//! commands run, beside a link to the repository's `conformance/`.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use bcast::ndarray::{ArrayD, Dimension, IxDyn};
use bcast::Tensor;
use common::{repo, scratch};

/// One fenced block of the README.
struct Block {
    /// The info string: `sh`, `rust,no_run`, ...
    lang: String,
    /// Its lines, without the fences.
    lines: Vec<String>,
    /// The README line of its opening fence (1-based).
    line: usize,
    /// The reason from `<!-- not run: REASON -->` on the line above, if any.
    not_run: Option<String>,
}

fn readme() -> String {
    std::fs::read_to_string(repo("README.md")).expect("README.md")
}

fn blocks(text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut lines = text.lines().enumerate();
    let mut previous = "";
    while let Some((i, line)) = lines.next() {
        if let Some(lang) = line.strip_prefix("```") {
            let not_run = previous
                .trim()
                .strip_prefix("<!-- not run:")
                .and_then(|r| r.strip_suffix("-->"))
                .map(|r| r.trim().to_string());
            let body: Vec<String> = lines
                .by_ref()
                .map(|(_, l)| l)
                .take_while(|l| *l != "```")
                .map(str::to_string)
                .collect();
            out.push(Block {
                lang: lang.trim().to_string(),
                lines: body,
                line: i + 1,
                not_run,
            });
            previous = "```";
        } else {
            previous = line;
        }
    }
    out
}

#[test]
fn every_block_is_read_by_some_test() {
    let text = readme();
    let all = blocks(&text);
    assert!(all.len() > 20, "only {} blocks found", all.len());
    for b in &all {
        assert!(
            [
                "rust",
                "rust,no_run",
                "sh",
                "console",
                "c",
                "cpp",
                "python",
                "toml",
                "text"
            ]
            .contains(&b.lang.as_str()),
            "README.md:{}: a ```{} block, which no test reads",
            b.line,
            b.lang
        );
        if let Some(reason) = &b.not_run {
            assert!(
                b.lang == "sh" && !reason.is_empty(),
                "README.md:{}: only sh blocks may be marked not run, with a reason",
                b.line
            );
        }
    }
    // Pasted into `main`, a Rust block must build: no hidden doctest lines.
    for b in all.iter().filter(|b| b.lang.starts_with("rust")) {
        for l in &b.lines {
            assert!(
                !l.trim_start().starts_with("# ") && l.trim() != "#",
                "README.md:{}: a hidden doctest line {l:?} does not build outside rustdoc",
                b.line
            );
        }
        assert!(
            b.lines.iter().any(|l| l.starts_with("fn main()")),
            "README.md:{}: a Rust example is a whole program (fn main)",
            b.line
        );
    }
}

/// Writes `tensor` to `dir/name`.
fn fixture(dir: &Path, name: &str, tensor: Tensor) {
    bcast::npy::write_atomic(dir.join(name), &tensor).expect("fixture written");
}

fn f32s(dims: &[usize]) -> Tensor {
    Tensor::F32(ArrayD::from_shape_fn(IxDyn(dims), |i| {
        i.slice()
            .iter()
            .fold(0.0f32, |acc, &k| acc * 10.0 + k as f32)
    }))
}

fn i32s(dims: &[usize], offset: i32) -> Tensor {
    Tensor::I32(ArrayD::from_shape_fn(IxDyn(dims), |i| {
        i.slice().iter().fold(offset, |acc, &k| acc + k as i32)
    }))
}

/// The scratch folder the README's commands run in: the `.npy` files its text names, and a
/// link to the repository's `conformance/`.
fn workspace(test: &str) -> PathBuf {
    let dir = scratch("readme", test);
    fixture(&dir, "bias.npy", f32s(&[16]));
    fixture(&dir, "bias_chw.npy", f32s(&[16, 1, 1]));
    fixture(&dir, "col.npy", f32s(&[3, 1]));
    fixture(&dir, "mat.npy", f32s(&[3, 4]));
    fixture(&dir, "row.npy", f32s(&[3]));
    fixture(&dir, "grad.npy", f32s(&[2, 3]));
    fixture(&dir, "grad_nchw.npy", f32s(&[2, 4, 3, 3]));
    fixture(&dir, "a.npy", i32s(&[2, 3, 4], -5));
    fixture(&dir, "x.npy", i32s(&[2, 3, 4], 7));
    fixture(&dir, "b.npy", i32s(&[3, 1], 1));
    fixture(
        &dir,
        "cond.npy",
        Tensor::Bool(ArrayD::from_shape_fn(IxDyn(&[2, 3, 4]), |i| i[2] % 2 == 0)),
    );
    std::os::unix::fs::symlink(repo("conformance"), dir.join("conformance"))
        .expect("link to conformance/");
    dir
}

/// Runs `command` with `sh` in `dir`, the `bcast` under test first on the PATH.
fn sh(dir: &Path, command: &str) -> Output {
    let bin = Path::new(env!("CARGO_BIN_EXE_bcast"))
        .parent()
        .expect("the binary is in a folder")
        .to_path_buf();
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut paths = vec![bin];
    paths.extend(std::env::split_paths(&path));
    Command::new("sh")
        .arg("-c")
        .arg(command)
        .current_dir(dir)
        .env("PATH", std::env::join_paths(paths).expect("PATH"))
        .output()
        .expect("sh runs")
}

/// A command line split from its trailing `# comment`.
fn split_comment(line: &str) -> (&str, Option<&str>) {
    match line.find(" # ") {
        Some(at) => (line[..at].trim(), Some(line[at + 3..].trim())),
        None => (line.trim(), None),
    }
}

/// Joins lines ending in `\` with the next.
fn logical_lines(lines: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut pending = String::new();
    for l in lines {
        match l.strip_suffix('\\') {
            Some(head) => {
                pending.push_str(head);
                pending.push(' ');
            }
            None => {
                pending.push_str(l);
                out.push(std::mem::take(&mut pending));
            }
        }
    }
    out
}

#[test]
fn sh_blocks_run_as_written() {
    let text = readme();
    let dir = workspace("sh");
    let mut ran = 0;
    for b in blocks(&text)
        .iter()
        .filter(|b| b.lang == "sh" && b.not_run.is_none())
    {
        for line in logical_lines(&b.lines) {
            let (command, comment) = split_comment(&line);
            if command.is_empty() || command.starts_with('#') {
                continue;
            }
            let o = sh(&dir, command);
            assert!(
                o.status.success(),
                "README.md:{}: `{command}` failed ({:?}): {}",
                b.line,
                o.status.code(),
                String::from_utf8_lossy(&o.stderr)
            );
            if let Some(want) = comment.and_then(|c| c.strip_prefix("prints ")) {
                assert_eq!(
                    String::from_utf8_lossy(&o.stdout).trim_end(),
                    want,
                    "README.md:{}: `{command}`",
                    b.line
                );
            }
            ran += 1;
        }
    }
    assert!(ran >= 15, "only {ran} commands ran");
}

/// Whether `got` is `want` line for line, a `...` line in `want` standing for any lines.
fn matches(want: &[String], got: &[&str]) -> bool {
    match want.split_first() {
        None => got.is_empty(),
        Some((w, rest)) if w == "..." => (0..=got.len()).any(|skip| matches(rest, &got[skip..])),
        Some((w, rest)) => got.first() == Some(&w.as_str()) && matches(rest, &got[1..]),
    }
}

#[test]
fn console_blocks_print_what_they_show() {
    let text = readme();
    let dir = workspace("console");
    let mut ran = 0;
    for b in blocks(&text).iter().filter(|b| b.lang == "console") {
        // A command is a `$ ` line and the lines after it while it ends in `\`; its output is
        // every line after that up to the next `$ `.
        let mut i = 0;
        while i < b.lines.len() {
            let first = b.lines[i].strip_prefix("$ ").unwrap_or_else(|| {
                panic!("README.md:{}: {:?} is not a command", b.line, b.lines[i])
            });
            let mut command = vec![first.to_string()];
            while command.last().is_some_and(|l| l.ends_with('\\')) {
                i += 1;
                command.push(b.lines[i].clone());
            }
            i += 1;
            let mut want = Vec::new();
            while i < b.lines.len() && !b.lines[i].starts_with("$ ") {
                want.push(b.lines[i].clone());
                i += 1;
            }
            let command = logical_lines(&command).join(" ");
            let o = sh(&dir, &command);
            assert!(
                o.status.success(),
                "README.md:{}: `{command}` failed: {}",
                b.line,
                String::from_utf8_lossy(&o.stderr)
            );
            let stdout = String::from_utf8_lossy(&o.stdout);
            let got: Vec<&str> = stdout.lines().collect();
            assert!(
                matches(&want, &got),
                "README.md:{}: `{command}` printed\n{stdout}\nwhere the README shows\n{}",
                b.line,
                want.join("\n")
            );
            ran += 1;
        }
    }
    assert!(ran >= 4, "only {ran} console commands ran");
}

/// The requirement of dependency `name` in the `[dependencies]` table of a Cargo.toml text:
/// `name = "0.16"` or `name = { version = "2.4", ... }`.
fn dependency_version(toml: &str, name: &str) -> Option<String> {
    let deps = toml.split("\n[dependencies]\n").nth(1)?;
    let deps = deps.split("\n[").next()?;
    let line = deps
        .lines()
        .find(|l| l.split('=').next().map(str::trim) == Some(name))?;
    let value = line.split_once('=')?.1;
    let quoted = match value.find("version") {
        Some(at) => &value[at..],
        None => value,
    };
    quoted.split('"').nth(1).map(str::to_string)
}

#[test]
fn the_dependency_lines_name_the_versions_bcast_is_built_with() {
    let text = readme();
    let all = blocks(&text);
    let toml: Vec<&Block> = all.iter().filter(|b| b.lang == "toml").collect();
    assert_eq!(toml.len(), 1, "one block of dependency lines");
    let block = format!("\n{}\n", toml[0].lines.join("\n"));
    let manifest = std::fs::read_to_string(repo("Cargo.toml")).expect("Cargo.toml");
    let package = manifest
        .split("\n[package]\n")
        .nth(1)
        .and_then(|p| p.lines().find(|l| l.starts_with("name = ")))
        .and_then(|l| l.split('"').nth(1))
        .expect("the kernel crate's package name");
    assert!(
        block.contains(&format!("\n{package} = {{ path = ")),
        "the README's dependency line does not name the package {package}: {block}"
    );
    for dep in ["ndarray", "half"] {
        let ours = dependency_version(&manifest, dep).expect("the kernel's dependency");
        let readme = dependency_version(&block, dep).expect("the README's line");
        assert_eq!(readme, ours, "{dep}: the README and Cargo.toml differ");
    }
}

/// A ```text block quotes the source: its lines, indentation aside, stand in that order in
/// some file under `src/` (the op table's row the README walks through stays the real row).
#[test]
fn text_blocks_quote_the_source() {
    fn rust_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("src/ reads") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                rust_files(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let mut files = Vec::new();
    rust_files(&repo("src"), &mut files);
    let sources: Vec<Vec<String>> = files
        .iter()
        .map(|f| {
            std::fs::read_to_string(f)
                .expect("a source file")
                .lines()
                .map(|l| l.trim().to_string())
                .collect()
        })
        .collect();
    let text = readme();
    let quoted: Vec<Block> = blocks(&text)
        .into_iter()
        .filter(|b| b.lang == "text")
        .collect();
    assert!(!quoted.is_empty(), "the README quotes no source");
    for b in quoted {
        let want: Vec<String> = b.lines.iter().map(|l| l.trim().to_string()).collect();
        let found = sources
            .iter()
            .any(|lines| lines.windows(want.len()).any(|w| w == want.as_slice()));
        assert!(
            found,
            "README.md:{}: the ```text block is not a quote of any file under src/",
            b.line
        );
    }
}
