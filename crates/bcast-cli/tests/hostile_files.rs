//! Hostile file systems under `bcast run`: a read-only output folder and a full disk. Each
//! runs on a real tmpfs mount (read-only, or 64 KiB), so the kernel refuses the write and
//! bcast has to clean up after itself: exit 2, one `error:` line, no temp file, and a
//! previous output left untouched.
//!
//! Mounting needs root (CI and the development machines run as root). Where `mount` is
//! refused the tests say so on stderr and check nothing.
//!
//! Also here: what sits at an input or output path (symlinks, devices made with `mknod`,
//! FIFOs, `/dev/zero`, `-`), closed pipes, hostile conformance folders and IR files. A test
//! that needs something this machine refuses (`mknod`, `setpriv`) says so and checks nothing.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

struct Mount(PathBuf);

impl Mount {
    /// Mounts a tmpfs with `options` on a fresh folder; `None` if this machine refuses.
    fn tmpfs(test: &str, options: &str) -> Option<Mount> {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("hostile-{test}"));
        let _ = Command::new("umount").arg(&dir).output();
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).ok()?;
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", options, "tmpfs"])
            .arg(&dir)
            .output()
            .map(|o| o.status.success())
            .unwrap_or(false);
        if ok {
            Some(Mount(dir))
        } else {
            eprintln!("{test}: cannot mount a tmpfs here (needs root); not checked");
            None
        }
    }

    fn remount(&self, options: &str) {
        let ok = Command::new("mount")
            .args(["-o", &format!("remount,{options}")])
            .arg(&self.0)
            .status()
            .unwrap()
            .success();
        assert!(ok, "remount {options}");
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

fn input(test: &str) -> PathBuf {
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("hostile-{test}-in.npy"));
    let t: bcast::Tensor =
        ndarray::ArrayD::from_shape_vec(ndarray::IxDyn(&[4]), vec![1.0f32, 2.0, 3.0, 4.0])
            .unwrap()
            .into();
    std::fs::write(&path, bcast::npy::to_bytes(&t).unwrap()).unwrap();
    path
}

fn run(input: &Path, target: &str, output: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bcast"))
        .args(["run", "--mode", "numpy", "--target-shape", target])
        .arg(input)
        .arg(output)
        .output()
        .unwrap()
}

fn assert_one_error_line(out: &Output) -> String {
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("error: "), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    err
}

fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_full_disk_leaves_the_previous_output_and_no_temp_file() {
    let Some(mount) = Mount::tmpfs("full", "size=64k") else {
        return;
    };
    let out = mount.0.join("out.npy");
    std::fs::write(&out, b"previous contents").unwrap();
    // 4 x 65536 f32 = 1 MiB: more than the disk holds.
    let result = run(&input("full"), "65536,4", &out);
    let err = assert_one_error_line(&result);
    assert!(err.contains("out.npy"), "{err}");
    assert_eq!(std::fs::read(&out).unwrap(), b"previous contents");
    assert_eq!(listing(&mount.0), vec!["out.npy"]);
}

#[test]
fn a_full_disk_without_a_previous_output_leaves_nothing() {
    let Some(mount) = Mount::tmpfs("full-empty", "size=64k") else {
        return;
    };
    let out = mount.0.join("out.npy");
    let result = run(&input("full-empty"), "65536,4", &out);
    assert_one_error_line(&result);
    assert!(listing(&mount.0).is_empty(), "{:?}", listing(&mount.0));
}

#[test]
fn a_read_only_output_folder_is_exit_2_and_keeps_its_file() {
    let Some(mount) = Mount::tmpfs("read-only", "size=1m") else {
        return;
    };
    let out = mount.0.join("out.npy");
    std::fs::write(&out, b"previous contents").unwrap();
    mount.remount("ro");
    let result = run(&input("read-only"), "2,4", &out);
    let err = assert_one_error_line(&result);
    assert!(
        err.contains("out.npy") && err.to_lowercase().contains("read-only"),
        "{err}"
    );
    assert_eq!(std::fs::read(&out).unwrap(), b"previous contents");
    assert_eq!(listing(&mount.0), vec!["out.npy"]);
}

#[test]
fn the_same_run_fits_once_there_is_room() {
    // The control: the failures above come from the disk, not from the command.
    let Some(mount) = Mount::tmpfs("room", "size=4m") else {
        return;
    };
    let out = mount.0.join("out.npy");
    let result = run(&input("room"), "65536,4", &out);
    assert_eq!(
        result.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&result.stderr)
    );
    assert_eq!(listing(&mount.0), vec!["out.npy"]);
}

// ---------------------------------------------------------------------------------------
// What sits at the paths

fn scratch(test: &str) -> PathBuf {
    common::scratch("paths", test)
}

use common::bcast_command as bcast;

/// Runs `cmd`, failing the test if it has not ended after `secs` seconds (then killed).
fn output_within(cmd: &mut Command, secs: u64) -> Output {
    use std::process::Stdio;
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if start.elapsed() > std::time::Duration::from_secs(secs) {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "still running after {secs} s (killed); stderr: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

fn mknod_char(path: &Path, major: u32, minor: u32) -> bool {
    let ok = Command::new("mknod")
        .arg(path)
        .args(["c", &major.to_string(), &minor.to_string()])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("mknod {} refused here; not checked", path.display());
    }
    ok
}

fn mkfifo(path: &Path) {
    let ok = Command::new("mkfifo")
        .arg(path)
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "mkfifo {}", path.display());
}

fn read_back(path: &Path) -> bcast::Tensor {
    bcast::npy::read(path).unwrap()
}

fn rows_of_four() -> bcast::Tensor {
    ndarray::ArrayD::from_shape_vec(
        ndarray::IxDyn(&[2, 4]),
        vec![1.0f32, 2.0, 3.0, 4.0, 1.0, 2.0, 3.0, 4.0],
    )
    .unwrap()
    .into()
}

#[test]
fn an_output_symlink_is_written_through_to_its_target() {
    let dir = scratch("symlink_out");
    let inp = input("symlink_out");
    std::fs::create_dir(dir.join("real")).unwrap();
    std::os::unix::fs::symlink("real/target.npy", dir.join("link.npy")).unwrap();
    // A chain: a -> b -> real/chained.npy (which exists, so it is replaced).
    std::fs::write(dir.join("real/chained.npy"), b"old").unwrap();
    std::os::unix::fs::symlink("real/chained.npy", dir.join("b.npy")).unwrap();
    std::os::unix::fs::symlink(dir.join("b.npy"), dir.join("a.npy")).unwrap();
    for (out, target) in [
        ("link.npy", "real/target.npy"),
        ("a.npy", "real/chained.npy"),
    ] {
        let done = run(&inp, "2,4", &dir.join(out));
        assert!(
            done.status.success(),
            "{}",
            String::from_utf8_lossy(&done.stderr)
        );
        let meta = std::fs::symlink_metadata(dir.join(out)).unwrap();
        assert!(
            meta.file_type().is_symlink(),
            "{out} was replaced by a file"
        );
        assert!(read_back(&dir.join(target)).bit_equal(&rows_of_four()));
    }
    assert!(std::fs::symlink_metadata(dir.join("b.npy"))
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(listing(&dir.join("real")), ["chained.npy", "target.npy"]);
}

#[test]
fn an_existing_output_keeps_its_mode() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch("mode");
    let out = dir.join("out.npy");
    std::fs::write(&out, b"old").unwrap();
    std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o600)).unwrap();
    let done = run(&input("mode"), "2,4", &out);
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    let mode = std::fs::metadata(&out).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    assert!(read_back(&out).bit_equal(&rows_of_four()));
}

#[test]
fn a_device_at_the_output_path_is_refused_and_left_as_it_was() {
    use std::os::unix::fs::FileTypeExt;
    let dir = scratch("device_out");
    let dev = dir.join("full");
    if !mknod_char(&dev, 1, 7) {
        return;
    }
    std::os::unix::fs::symlink(&dev, dir.join("to_device.npy")).unwrap();
    for out in [dev.clone(), dir.join("to_device.npy")] {
        let err = assert_one_error_line(&run(&input("device_out"), "2,4", &out));
        assert!(err.contains("character device"), "{err}");
        assert!(std::fs::metadata(&dev)
            .unwrap()
            .file_type()
            .is_char_device());
    }
    assert_eq!(listing(&dir), ["full", "to_device.npy"]);
}

#[test]
fn a_fifo_at_the_output_path_is_refused_without_waiting() {
    use std::os::unix::fs::FileTypeExt;
    let dir = scratch("fifo_out");
    let fifo = dir.join("f.npy");
    mkfifo(&fifo);
    let out = output_within(
        bcast()
            .args(["run", "--mode", "numpy", "--target-shape", "2,4"])
            .arg(input("fifo_out"))
            .arg(&fifo),
        20,
    );
    let err = assert_one_error_line(&out);
    assert!(err.contains("FIFO"), "{err}");
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
}

#[test]
fn dev_stdout_on_a_pipe_is_refused_and_dash_streams_instead() {
    // The test harness's stdout is a pipe: /dev/stdout -> /proc/self/fd/1 -> pipe:[..].
    let out = bcast()
        .args(["run", "--mode", "numpy", "--target-shape", "2,4"])
        .arg(input("dev_stdout"))
        .arg("/dev/stdout")
        .output()
        .unwrap();
    let err = assert_one_error_line(&out);
    assert!(err.contains("FIFO"), "{err}");
    // `-` in, `-` out.
    let bytes = std::fs::read(input("dev_stdout")).unwrap();
    let mut child = bcast()
        .args(["run", "--mode", "numpy", "--target-shape", "2,4", "-", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(&bytes).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.stdout, bcast::npy::to_bytes(&rows_of_four()).unwrap());
}

#[test]
fn a_closed_pipe_ends_bcast_quietly() {
    use std::os::fd::FromRawFd;
    use std::os::unix::process::ExitStatusExt;
    for args in [
        &["shape", "--multi", "2,1", "3"][..],
        &["conformance", "-v"][..],
    ] {
        let mut fds = [0i32; 2];
        // SAFETY: `fds` has room for the two descriptors pipe() writes.
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        // SAFETY: both descriptors were just made by pipe() and are owned here once each.
        let (read_end, write_end) = unsafe {
            (
                std::os::fd::OwnedFd::from_raw_fd(fds[0]),
                std::os::fd::OwnedFd::from_raw_fd(fds[1]),
            )
        };
        drop(read_end);
        let out = bcast()
            .args(args)
            .stdout(std::process::Stdio::from(write_end))
            .stderr(std::process::Stdio::piped())
            .output()
            .unwrap();
        assert_eq!(
            out.status.signal(),
            Some(libc::SIGPIPE),
            "{args:?}: {:?}, stderr: {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            out.stderr.is_empty(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn inputs_that_are_not_regular_files_are_refused_before_reading() {
    let dir = scratch("bad_inputs");
    let fifo = dir.join("f.npy");
    mkfifo(&fifo);
    std::os::unix::fs::symlink("/dev/zero", dir.join("zero.npy")).unwrap();
    for (inp, what) in [
        (PathBuf::from("/dev/zero"), "character device"),
        (dir.join("zero.npy"), "character device"),
        (fifo, "FIFO"),
        (dir.clone(), "folder"),
    ] {
        let out = output_within(
            bcast()
                .args(["run", "--mode", "numpy", "--target-shape", "2,4"])
                .arg(&inp)
                .arg(dir.join("out.npy")),
            20,
        );
        let err = assert_one_error_line(&out);
        assert!(err.contains(what), "{}: {err}", inp.display());
    }
    assert!(!dir.join("out.npy").exists());
}

fn ir_case(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../conformance/ir")
        .join(name)
}

#[test]
fn ir_files_that_are_not_regular_files_are_refused_before_reading() {
    let dir = scratch("ir_devices");
    let case = ir_case("spec_example_2_explicit");
    std::fs::copy(case.join("model.xml"), dir.join("model.xml")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", dir.join("model.bin")).unwrap();
    let fifo = dir.join("fifo.xml");
    mkfifo(&fifo);
    let data = case.join("inputs/data.npy");
    let runs: [(Vec<std::ffi::OsString>, &str); 4] = [
        (
            vec!["/dev/zero".into(), "--describe".into()],
            "character device",
        ),
        (vec![fifo.into(), "--describe".into()], "FIFO"),
        (
            vec![dir.join("model.xml").into(), "--describe".into()],
            "character device",
        ),
        (
            vec![
                case.join("model.xml").into(),
                "--weights".into(),
                "/dev/zero".into(),
                "--input".into(),
                data.into(),
                "--out-dir".into(),
                dir.join("out").into(),
            ],
            "character device",
        ),
    ];
    for (args, what) in runs {
        let out = output_within(bcast().arg("ir").args(&args), 20);
        let err = assert_one_error_line(&out);
        assert!(err.contains(what), "{args:?}: {err}");
    }
    assert!(!dir.join("out").exists());
}

fn write_case(dir: &Path, input: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(
        dir.join("case.json"),
        r#"{"name": "c", "mode": "numpy", "target_shape": [2, 4], "inputs": ["in0.npy"], "outputs": ["out0.npy"]}"#,
    )
    .unwrap();
    std::fs::copy(input, dir.join("in0.npy")).unwrap();
    std::fs::write(
        dir.join("out0.npy"),
        bcast::npy::to_bytes(&rows_of_four()).unwrap(),
    )
    .unwrap();
}

#[test]
fn a_conformance_input_linked_to_dev_zero_fails_its_case_only() {
    let root = scratch("conf_zero");
    write_case(&root.join("good"), &input("conf_zero"));
    write_case(&root.join("zero"), &input("conf_zero"));
    std::fs::remove_file(root.join("zero/in0.npy")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", root.join("zero/in0.npy")).unwrap();
    let out = output_within(bcast().arg("conformance").arg(&root), 60);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("zero (c): input in0.npy") && stdout.contains("character device"),
        "{stdout}"
    );
    assert!(stdout.ends_with("1 passed, 1 failed\n"), "{stdout}");
}

#[test]
fn a_symlink_dag_is_searched_once_per_folder() {
    // d0..d22, each holding two links to the next: 2^23 paths, 23 folders.
    let root = scratch("conf_dag");
    for i in 0..=22 {
        std::fs::create_dir(root.join(format!("d{i}"))).unwrap();
    }
    for i in 0..22 {
        for link in ["x", "y"] {
            std::os::unix::fs::symlink(
                root.join(format!("d{}", i + 1)),
                root.join(format!("d{i}/{link}")),
            )
            .unwrap();
        }
    }
    write_case(&root.join("d22/case"), &input("conf_dag"));
    let out = output_within(bcast().arg("conformance").arg(root.join("d0")), 60);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert_eq!(stdout, "1 passed, 0 failed\n");
}

#[test]
fn an_entry_that_cannot_be_searched_is_a_failed_entry_not_the_end_of_the_run() {
    let root = scratch("conf_unreadable");
    write_case(&root.join("a_case"), &input("conf_unreadable"));
    std::os::unix::fs::symlink("/", root.join("root")).unwrap();
    std::os::unix::fs::symlink("loop", root.join("loop")).unwrap();
    std::os::unix::fs::symlink("nowhere", root.join("dangling")).unwrap();
    write_case(&root.join("z_case"), &input("conf_unreadable"));
    let out = output_within(bcast().arg("conformance").arg(&root), 60);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(
        lines.iter().any(|l| l.starts_with("FAIL ")
            && l.contains("root: cannot search")
            && l.contains("not followed")),
        "{stdout}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("FAIL ") && l.contains("loop: cannot search")),
        "{stdout}"
    );
    // The dangling link is no folder: nothing to search, nothing to report.
    assert_eq!(lines.last(), Some(&"2 passed, 2 failed"), "{stdout}");
}

#[test]
fn a_folder_that_cannot_be_listed_is_a_failed_entry() {
    use std::os::unix::fs::PermissionsExt;
    let root = scratch("conf_denied");
    write_case(&root.join("a_case"), &input("conf_denied"));
    std::fs::create_dir(root.join("locked")).unwrap();
    std::fs::set_permissions(root.join("locked"), std::fs::Permissions::from_mode(0o000)).unwrap();
    // Root reads any folder: run as nobody, where this machine allows it.
    let probe = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", "true"])
        .output();
    if !probe.is_ok_and(|o| o.status.success()) {
        eprintln!("setpriv cannot drop to nobody here; not checked");
        return;
    }
    let out = output_within(
        Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(env!("CARGO_BIN_EXE_bcast"))
            .arg("conformance")
            .arg(&root),
        60,
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    if stdout.contains("a_case")
        && stdout.contains("Permission denied")
        && stdout.contains("in0.npy")
    {
        eprintln!("nobody cannot read the scratch folder here; not checked");
        return;
    }
    assert_eq!(
        out.status.code(),
        Some(1),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.lines().any(|l| l.starts_with("FAIL ")
            && l.contains("locked: cannot search")
            && l.contains("Permission denied")),
        "{stdout}"
    );
    assert!(stdout.ends_with("1 passed, 1 failed\n"), "{stdout}");
}

/// After the rename, the folder is flushed too (an output renamed into place can otherwise
/// vanish on a power loss): seen with `strace -y`, where this machine has it.
#[test]
fn the_output_folder_is_flushed_after_the_renames() {
    let dir = scratch("fsync");
    let log = dir.join("strace.log");
    let inp = input("fsync");
    let traced = |args: &[&std::ffi::OsStr]| -> Option<String> {
        let ok = Command::new("strace")
            .args([
                "-f",
                "-y",
                "-e",
                "trace=fsync,rename,renameat,renameat2",
                "-o",
            ])
            .arg(&log)
            .arg(env!("CARGO_BIN_EXE_bcast"))
            .args(args)
            .output()
            .is_ok_and(|o| o.status.success());
        ok.then(|| std::fs::read_to_string(&log).unwrap())
    };
    let out = dir.join("out");
    std::fs::create_dir(&out).unwrap();
    let out_file = out.join("a.npy");
    let runs: [Vec<&std::ffi::OsStr>; 2] = [
        vec![
            "run".as_ref(),
            "--mode".as_ref(),
            "numpy".as_ref(),
            "--target-shape".as_ref(),
            "2,4".as_ref(),
            inp.as_os_str(),
            out_file.as_os_str(),
        ],
        vec![
            "multi".as_ref(),
            inp.as_os_str(),
            inp.as_os_str(),
            "--out-dir".as_ref(),
            out.as_os_str(),
        ],
    ];
    for args in runs {
        let Some(text) = traced(&args) else {
            eprintln!("strace cannot trace here; not checked");
            return;
        };
        let lines: Vec<&str> = text.lines().collect();
        let last_rename = lines
            .iter()
            .rposition(|l| l.contains("rename"))
            .unwrap_or_else(|| panic!("no rename in {text}"));
        let folder = format!("<{}>", out.display());
        let synced = lines[last_rename..]
            .iter()
            .any(|l| l.contains("fsync(") && l.contains(&folder));
        assert!(
            synced,
            "no fsync of {folder} after the last rename:\n{text}"
        );
    }
}
