//! Hostile file systems under `bcast run`: a read-only output folder and a full disk. Each
//! runs on a real tmpfs mount (read-only, or 64 KiB), so the kernel refuses the write and
//! bcast has to clean up after itself: exit 2, one `error:` line, no temp file, and a
//! previous output left untouched.
//!
//! Mounting needs root (CI and the development machines run as root). Where `mount` is
//! refused the tests say so on stderr and check nothing.

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
