//! `bcast conformance --exec`: the suite run through an outside command. The adapters here are
//! tiny programs that need no shell line of ours (`/bin/cp`, `/bin/false`, `/bin/sleep`, and
//! `/bin/sh -c` as the command itself where a signal or an exit code is needed).
#![cfg(unix)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use bcast::Tensor;
use ndarray::{array, ArrayD};
use serde_json::Value;

/// A fresh folder under the target dir's scratch space; its name has a space in it.
fn scratch(tag: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "exec {tag} {}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    ));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

fn npy<T>(path: &Path, a: ArrayD<T>)
where
    Tensor: From<ArrayD<T>>,
{
    fs::write(path, bcast::npy::to_bytes(&Tensor::from(a)).unwrap()).unwrap();
}

/// A broadcast case `[3]` to `[2,3]` with its expected output, under `suite/group/name`.
fn outputs_case(suite: &Path, group: &str, name: &str) -> PathBuf {
    let dir = suite.join(group).join(name);
    fs::create_dir_all(&dir).unwrap();
    fs::write(
        dir.join("case.json"),
        format!(
            r#"{{"name": "{name}", "mode": "numpy", "target_shape": [2, 3],
                "inputs": ["in0.npy"], "outputs": ["out0.npy"]}}"#
        ),
    )
    .unwrap();
    npy(&dir.join("in0.npy"), array![1i32, 2, 3].into_dyn());
    npy(
        &dir.join("out0.npy"),
        array![[1i32, 2, 3], [1, 2, 3]].into_dyn(),
    );
    dir
}

/// A case that must be refused: `[3]` to `[2,4]`.
fn error_case(suite: &Path, group: &str, name: &str) -> PathBuf {
    let dir = suite.join(group).join(name);
    fs::create_dir_all(&dir).unwrap();
    fs::write(
        dir.join("case.json"),
        format!(
            r#"{{"name": "{name}", "mode": "numpy", "target_shape": [2, 4],
                "inputs": ["in0.npy"], "error": true}}"#
        ),
    )
    .unwrap();
    npy(&dir.join("in0.npy"), array![1i32, 2, 3].into_dyn());
    dir
}

/// One passing-shaped case and one error case under a folder whose path has spaces.
fn small_suite() -> PathBuf {
    let suite = scratch("suite");
    outputs_case(&suite, "my group", "a case");
    error_case(&suite, "my group", "an error");
    suite
}

fn bcast(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bcast"))
        .args(args)
        .output()
        .unwrap()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn json_lines(out: &Output) -> Vec<Value> {
    stdout(out)
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn last_line(out: &Output) -> String {
    stdout(out).lines().last().unwrap_or_default().to_string()
}

#[test]
fn cp_of_the_expected_files_passes_every_outputs_case_and_paths_with_spaces_stay_one_word() {
    let suite = small_suite();
    let s = suite.to_str().unwrap();
    // Unquoted: {case} is replaced after splitting, so its spaces never split it.
    let out = bcast(&[
        "conformance",
        "--exec",
        "/bin/cp {case}/out0.npy {out}/out0.npy",
        s,
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert_eq!(last_line(&out), "2 passed, 0 failed");
    // Quoted words and a quoted program name work too.
    let out = bcast(&[
        "conformance",
        "--exec",
        r#"'/bin/cp' "{case}/out0.npy" '{out}'"#,
        s,
    ]);
    assert_eq!(last_line(&out), "2 passed, 0 failed", "{}", stdout(&out));
}

#[test]
fn false_passes_only_the_error_cases() {
    let suite = small_suite();
    let out = bcast(&[
        "conformance",
        "--exec",
        "/bin/false",
        suite.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(
        text.contains("a case: expected outputs, but /bin/false refused (exit 1)"),
        "{text}"
    );
    assert!(!text.contains("an error:"), "{text}");
    assert_eq!(last_line(&out), "1 passed, 1 failed");
}

#[test]
fn true_writes_nothing_and_accepts_the_error_case() {
    let suite = small_suite();
    let out = bcast(&[
        "conformance",
        "--exec",
        "/bin/true",
        suite.to_str().unwrap(),
    ]);
    let text = stdout(&out);
    assert!(
        text.contains("a case: missing output out0.npy (it wrote nothing)"),
        "{text}"
    );
    assert!(
        text.contains("an error: expected a rejection, but /bin/true exited 0 (it wrote nothing)"),
        "{text}"
    );
    assert_eq!(last_line(&out), "0 passed, 2 failed");
}

#[test]
fn a_wrong_output_is_compared_as_bcast_output_is() {
    let suite = scratch("wrong");
    let dir = outputs_case(&suite, "g", "c");
    npy(
        &dir.join("other.npy"),
        array![[1i32, 2, 3], [1, 2, 4]].into_dyn(),
    );
    let out = bcast(&[
        "conformance",
        "--exec",
        "/bin/cp {case}/other.npy {out}/out0.npy",
        suite.to_str().unwrap(),
    ]);
    assert!(
        stdout(&out)
            .contains("out0.npy: 1 of 6 elements differ; first at index [1,2]: expected 3, got 4"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn a_command_past_the_time_limit_is_killed_and_times_out() {
    let suite = small_suite();
    let started = Instant::now();
    let out = bcast(&[
        "conformance",
        "--exec",
        "/bin/sleep 30",
        "--timeout-s",
        "0.3",
        "--json",
        suite.to_str().unwrap(),
    ]);
    assert!(started.elapsed() < Duration::from_secs(15));
    let lines = json_lines(&out);
    assert_eq!(lines.len(), 2);
    for line in &lines {
        assert_eq!(line["verdict"], "timeout");
        assert_eq!(line["reason"], "timed out after 0.3 s");
    }
    let text = stdout(&out);
    assert!(
        text.contains("of the failed: 2 timed out\n0 passed, 2 failed"),
        "{text}"
    );
}

#[test]
fn a_crash_fails_that_case_only_and_the_runner_goes_on() {
    let suite = small_suite();
    // The command (not our line) is a shell, so that it can kill itself.
    let out = bcast(&[
        "conformance",
        "--exec",
        r#"/bin/sh -c 'kill -SEGV $$' sh {case}"#,
        suite.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(
        text.contains("a case: crashed: signal 11 (SIGSEGV)"),
        "{text}"
    );
    assert!(
        text.contains("an error: crashed: signal 11 (SIGSEGV)"),
        "{text}"
    );
    assert!(
        text.ends_with("of the failed: 2 crashed\n0 passed, 2 failed\n"),
        "{text}"
    );
}

#[test]
fn exit_3_is_a_skip() {
    let suite = small_suite();
    let out = bcast(&[
        "conformance",
        "--exec",
        "/bin/sh -c 'echo no such op >&2; exit 3'",
        "--json",
        suite.to_str().unwrap(),
    ]);
    let lines = json_lines(&out);
    assert_eq!(lines.len(), 2);
    for line in &lines {
        assert_eq!(line["verdict"], "skip");
        assert_eq!(line["reason"], "not supported (exit 3): no such op");
    }
}

#[test]
fn json_lines_name_case_group_verdict_reason_and_time() {
    let suite = small_suite();
    let out = bcast(&[
        "conformance",
        "--exec",
        "/bin/false",
        "--json",
        suite.to_str().unwrap(),
    ]);
    let lines = json_lines(&out);
    assert_eq!(lines.len(), 2);
    let a = &lines[0];
    assert!(a["case"].as_str().unwrap().ends_with("my group/a case"));
    assert_eq!(a["name"], "a case");
    assert_eq!(a["group"], "my group");
    assert_eq!(a["expects"], "outputs");
    assert_eq!(a["verdict"], "fail");
    assert!(a["reason"]
        .as_str()
        .unwrap()
        .starts_with("expected outputs"));
    assert!(a["seconds"].as_f64().unwrap() >= 0.0);
    assert_eq!(lines[1]["expects"], "error");
    assert_eq!(lines[1]["verdict"], "pass");
    assert_eq!(lines[1]["reason"], "");
    assert_eq!(last_line(&out), "1 passed, 1 failed");
}

#[test]
fn jobs_run_cases_at_once_and_report_them_in_case_order() {
    let suite = scratch("jobs");
    for i in 0..6 {
        let dir = outputs_case(&suite, "g", &format!("c{i}"));
        // The first cases take longest: finished out of order, reported in order.
        fs::write(dir.join("delay"), format!("0.{}", 6 - i)).unwrap();
    }
    let cmd = r#"/bin/sh -c 'sleep "$(cat "$1/delay")" && cp "$1/out0.npy" "$2/"' sh {case} {out}"#;
    let started = Instant::now();
    let out = bcast(&[
        "conformance",
        "--exec",
        cmd,
        "-j",
        "6",
        "--json",
        suite.to_str().unwrap(),
    ]);
    let took = started.elapsed();
    let names: Vec<String> = json_lines(&out)
        .iter()
        .map(|l| l["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(names, ["c0", "c1", "c2", "c3", "c4", "c5"]);
    assert_eq!(last_line(&out), "6 passed, 0 failed", "{}", stdout(&out));
    // In sequence they take 2.1 s.
    assert!(took < Duration::from_millis(1900), "{took:?}");
}

#[test]
fn ulp_and_tolerance_cases_compare_as_the_case_says() {
    let suite = scratch("ulp");
    let one = 1.0f32;
    let next = f32::from_bits(one.to_bits() + 1);
    for (name, extra) in [
        ("ulp", r#""op": "eltwise", "eltwise": "power", "ulp": 1,"#),
        ("exact", r#""op": "eltwise", "eltwise": "power","#),
        (
            "reduce",
            r#""op": "reduce", "mode": "numpy", "data_shape": [2], "target_shape": [2], "rtol": 1e-6,"#,
        ),
    ] {
        let dir = suite.join("g").join(name);
        fs::create_dir_all(&dir).unwrap();
        fs::write(
            dir.join("case.json"),
            format!(
                r#"{{"name": "{name}", {extra} "inputs": ["in0.npy"], "outputs": ["out0.npy"]}}"#
            ),
        )
        .unwrap();
        npy(&dir.join("in0.npy"), array![one, one].into_dyn());
        npy(&dir.join("out0.npy"), array![one, one].into_dyn());
        npy(&dir.join("near.npy"), array![next, one].into_dyn());
    }
    let out = bcast(&[
        "conformance",
        "--exec",
        "/bin/cp {case}/near.npy {out}/out0.npy",
        suite.to_str().unwrap(),
    ]);
    let text = stdout(&out);
    assert!(text.contains("FAIL "), "{text}");
    assert!(
        text.contains("/g/exact: out0.npy: 1 of 2 elements differ"),
        "{text}"
    );
    assert!(!text.contains("/g/ulp:"), "{text}");
    assert!(!text.contains("/g/reduce:"), "{text}");
    assert_eq!(last_line(&out), "2 passed, 1 failed");
}

#[test]
fn ir_cases_expect_result_files_or_a_refusal() {
    let suite = scratch("ir");
    let good = suite.join("ir").join("model one");
    fs::create_dir_all(good.join("expected")).unwrap();
    fs::create_dir_all(good.join("inputs")).unwrap();
    // The case.json of an IR case (which makes it found) holds notes only.
    fs::write(good.join("case.json"), r#"{"description": "notes"}"#).unwrap();
    fs::write(good.join("model.xml"), "<net/>").unwrap();
    npy(&good.join("inputs/x.npy"), array![1u8].into_dyn());
    npy(&good.join("expected/y.npy"), array![[1u8, 1]].into_dyn());
    let bad = suite.join("ir_bad").join("broken");
    fs::create_dir_all(&bad).unwrap();
    fs::write(bad.join("case.json"), "{}").unwrap();
    fs::write(bad.join("model.xml"), "<net").unwrap();
    fs::write(bad.join("error.txt"), "bcast's own words").unwrap();
    // cp of expected/ into {out}: the good model passes; the bad one was "accepted".
    let out = bcast(&[
        "conformance",
        "--exec",
        "/bin/sh -c 'cp \"$1\"/expected/*.npy \"$2\"/ 2>/dev/null; exit 0' sh {case} {out}",
        "--json",
        suite.to_str().unwrap(),
    ]);
    let lines = json_lines(&out);
    assert_eq!(lines[0]["group"], "ir");
    assert_eq!(lines[0]["verdict"], "pass", "{lines:?}");
    assert_eq!(lines[1]["group"], "ir_bad");
    assert_eq!(lines[1]["expects"], "error");
    assert_eq!(lines[1]["verdict"], "fail");
    // A refusal, whatever its words, passes the bad one.
    let out = bcast(&[
        "conformance",
        "--exec",
        "/bin/false",
        suite.to_str().unwrap(),
    ]);
    assert!(stdout(&out).contains("model one: expected outputs, but /bin/false refused"));
    assert_eq!(last_line(&out), "1 passed, 1 failed");
}

#[test]
fn a_malformed_case_fails_without_running_the_command() {
    let suite = scratch("malformed");
    let dir = suite.join("g").join("bad");
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("case.json"), r#"{"name": "bad", "inputs": []}"#).unwrap();
    let marker = suite.join("ran");
    let out = bcast(&[
        "conformance",
        "--exec",
        &format!("/usr/bin/touch '{}'", marker.display()),
        suite.to_str().unwrap(),
    ]);
    assert!(stdout(&out).contains("bad: malformed case: missing \"outputs\""));
    assert!(!marker.exists());
}

#[test]
fn an_unusable_command_line_is_an_error_not_a_failure() {
    let suite = small_suite();
    let s = suite.to_str().unwrap();
    for (line, says) in [
        (
            "/no/such/adapter {case}",
            "error: cannot run '/no/such/adapter'",
        ),
        (
            "/bin/cp 'unterminated",
            "error: --exec: unterminated single quote",
        ),
        ("  ", "error: --exec: empty command"),
    ] {
        let out = bcast(&["conformance", "--exec", line, s]);
        assert_eq!(out.status.code(), Some(2), "{line}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.starts_with(says), "{line}: {err}");
    }
    // The exec flags need --exec.
    let out = bcast(&["conformance", "--json", s]);
    assert_eq!(out.status.code(), Some(2));
    let out = bcast(&["conformance", "--exec", "/bin/true", "-j", "0", s]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn the_scratch_folders_are_removed() {
    let suite = small_suite();
    let tmp = scratch("tmp");
    let out = Command::new(env!("CARGO_BIN_EXE_bcast"))
        .args(["conformance", "--exec", "/bin/cp {case}/out0.npy {out}/"])
        .arg(&suite)
        .env("TMPDIR", &tmp)
        .output()
        .unwrap();
    assert_eq!(last_line(&out), "2 passed, 0 failed");
    assert_eq!(fs::read_dir(&tmp).unwrap().count(), 0);
}
