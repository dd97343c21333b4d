//! Hostile inputs at the library: random bytes at the readers, extreme specs at the public
//! API, many threads at once. Each must give a result or a typed error, never a panic.

use bcast::{broadcast, output_shape, shape_from_ints, BroadcastError, Mode};
use ndarray::{ArrayD, IxDyn};
use proptest::prelude::*;

fn valid_npy() -> Vec<u8> {
    let t: bcast::Tensor =
        ArrayD::from_shape_vec(IxDyn(&[2, 3]), vec![1.0f32, -0.0, 3.5, f32::NAN, 5.0, 6.0])
            .unwrap()
            .into();
    bcast::npy::to_bytes(&t).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic_the_npy_reader(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        let _ = bcast::npy::from_bytes(&bytes);
    }

    #[test]
    fn mutated_npy_files_never_panic_the_reader(
        edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..6),
        cut in any::<usize>(),
    ) {
        let mut bytes = valid_npy();
        for (at, v) in edits {
            let n = bytes.len();
            bytes[at % n] = v;
        }
        let keep = cut % (bytes.len() + 1);
        let _ = bcast::npy::from_bytes(&bytes);
        let _ = bcast::npy::from_bytes(&bytes[..keep]);
    }

    #[test]
    fn random_text_never_panics_the_ir_reader(xml in ".{0,400}", bin in proptest::collection::vec(any::<u8>(), 0..64)) {
        let _ = bcast::ir::Model::from_xml(&xml, &bin);
    }

    #[test]
    fn edited_openvino_models_never_panic_the_ir_reader(
        edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..4),
        cut in any::<usize>(),
    ) {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("conformance/ir/chain_two_broadcasts");
        let mut xml = std::fs::read(dir.join("model.xml")).unwrap();
        let bin = std::fs::read(dir.join("model.bin")).unwrap();
        for (at, v) in edits {
            let n = xml.len();
            xml[at % n] = v;
        }
        let xml = String::from_utf8_lossy(&xml).into_owned();
        let bin = &bin[..cut % (bin.len() + 1)];
        if let Ok(model) = bcast::ir::Model::from_xml(&xml, bin) {
            let small = model.outputs().iter().all(|o| {
                o.shape.to_static().and_then(|s| bcast::checked_len(&s).ok()).is_some_and(|n| n <= 1 << 16)
            });
            if small {
                let _ = model.run(&std::collections::HashMap::new());
            }
        }
    }

    #[test]
    fn header_shapes_are_checked_against_the_data(shape in proptest::collection::vec(0usize..1_000_000_000_000, 0..5)) {
        let dims = shape.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", ");
        let dict = format!("{{'descr': '<f8', 'fortran_order': False, 'shape': ({dims},), }}\n");
        let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
        bytes.extend_from_slice(&(dict.len() as u16).to_le_bytes());
        bytes.extend_from_slice(dict.as_bytes());
        bytes.extend_from_slice(&[0u8; 16]);
        match bcast::npy::from_bytes(&bytes) {
            Ok(t) => prop_assert_eq!(t.len() * 8, 16),
            Err(e) => prop_assert!(!e.to_string().is_empty()),
        }
    }

    #[test]
    fn extreme_integer_shapes_are_refused_or_converted(values in proptest::collection::vec(any::<i64>(), 0..6)) {
        match shape_from_ints(&values) {
            Ok(s) => prop_assert!(values.iter().zip(&s).all(|(&v, &d)| v as u64 == d as u64)),
            Err(e) => prop_assert!(
                matches!(e, BroadcastError::NegativeValue { .. } | BroadcastError::ValueTooLarge { .. }),
                "{}", e
            ),
        }
    }
}

#[test]
fn i64_extremes_as_shape_values() {
    assert!(matches!(
        shape_from_ints(&[i64::MIN]),
        Err(BroadcastError::NegativeValue { .. })
    ));
    assert!(matches!(
        shape_from_ints(&[-1i32]),
        Err(BroadcastError::NegativeValue { .. })
    ));
    let max = shape_from_ints(&[i64::MAX, 2]).unwrap();
    assert!(matches!(
        output_shape(&[], &max, &Mode::Numpy),
        Err(BroadcastError::ShapeOverflow { .. })
    ));
}

#[test]
fn product_that_overflows_usize_is_an_error() {
    let e = output_shape(&[1], &[1 << 40, 1 << 40], &Mode::Numpy).unwrap_err();
    assert!(matches!(e, BroadcastError::ShapeOverflow { .. }), "{e}");
    let e = output_shape(&[1], &[2, usize::MAX], &Mode::Bidirectional).unwrap_err();
    assert!(matches!(e, BroadcastError::ShapeOverflow { .. }), "{e}");
}

#[test]
fn zero_size_data_against_zero_target_does_not_divide() {
    // OpenVINO 2026.4's CPU plugin dies with SIGFPE on exactly this.
    let x = ArrayD::<f32>::zeros(IxDyn(&[0, 1]));
    let out = broadcast(x.view(), &[0, 3], &Mode::Numpy).unwrap();
    assert_eq!(out.shape(), &[0, 3]);
    let out = broadcast(x.view(), &[0, 3], &Mode::Bidirectional).unwrap();
    assert_eq!(out.shape(), &[0, 3]);
}

#[test]
fn empty_target_shape_is_a_rank_0_result_or_an_error() {
    // OpenVINO 2026.4 crashes on an empty target_shape constant.
    let s = ArrayD::from_elem(IxDyn(&[]), 2.5f64);
    assert_eq!(
        broadcast(s.view(), &[], &Mode::Numpy).unwrap().shape(),
        &[] as &[usize]
    );
    let v = ArrayD::from_elem(IxDyn(&[3]), 2.5f64);
    assert!(broadcast(v.view(), &[], &Mode::Numpy).is_err());
    assert_eq!(
        broadcast(v.view(), &[], &Mode::Bidirectional)
            .unwrap()
            .shape(),
        &[3]
    );
}

#[test]
fn axes_given_to_the_wrong_mode_cannot_be_expressed() {
    // The library's Mode carries only its own arguments; the CLI refuses foreign flags.
    assert!(output_shape(
        &[3],
        &[2, 3],
        &Mode::Explicit {
            axes_mapping: vec![]
        }
    )
    .is_err());
    assert!(output_shape(
        &[3],
        &[2, 3],
        &Mode::Axes {
            broadcast_axes: vec![]
        }
    )
    .is_err());
}

#[test]
fn many_threads_on_shared_inputs_agree() {
    let x = ArrayD::from_shape_vec(IxDyn(&[64, 1, 3]), (0..192u32).collect()).unwrap();
    let want = broadcast(x.view(), &[4, 64, 300, 3], &Mode::Numpy).unwrap();
    let results: Vec<ArrayD<u32>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..12)
            .map(|_| s.spawn(|| broadcast(x.view(), &[4, 64, 300, 3], &Mode::Numpy).unwrap()))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(results.iter().all(|r| *r == want));
}

/// `/dev/zero`, a FIFO with no writer and a folder are refused before a byte is read: no
/// endless read, no wait for a writer that never comes.
#[cfg(target_os = "linux")]
#[test]
fn npy_and_ir_readers_refuse_what_is_not_a_regular_file() {
    let dir = std::env::temp_dir().join(format!("bcast-hostile-fifo-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let fifo = dir.join("f.npy");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success());
    let (tx, rx) = std::sync::mpsc::channel();
    let paths = [
        std::path::PathBuf::from("/dev/zero"),
        dir.clone(),
        fifo.clone(),
    ];
    let count = if made { 3 } else { 2 };
    let to_read = paths[..count].to_vec();
    std::thread::spawn(move || {
        for p in to_read {
            let npy = bcast::npy::read(&p).map(|_| ());
            let ir = bcast::ir::Model::load(&p, None).map(|_| ());
            tx.send((
                p,
                npy.map_err(|e| e.to_string()),
                ir.map_err(|e| e.to_string()),
            ))
            .unwrap();
        }
    });
    for _ in 0..count {
        let (p, npy, ir) = rx
            .recv_timeout(std::time::Duration::from_secs(20))
            .expect("a reader hung or ran away");
        for got in [npy, ir] {
            let e = got.expect_err("accepted");
            assert!(e.contains("not a regular file"), "{}: {e}", p.display());
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// numpy's limits: a header over 10,000 characters, a `<U` wider than 2^31 - 1 bytes.
#[test]
fn npy_headers_and_string_widths_beyond_numpys_limits_are_refused() {
    let mut v = b"\x93NUMPY\x02\x00".to_vec();
    v.extend_from_slice(&100_000_000u32.to_le_bytes());
    let e = bcast::npy::from_bytes(&v).unwrap_err().to_string();
    assert!(e.contains("max_header_size"), "{e}");
    let dict = "{'descr': '<U999999999', 'fortran_order': False, 'shape': (1,), }\n";
    let mut v = b"\x93NUMPY\x01\x00".to_vec();
    v.extend_from_slice(&(dict.len() as u16).to_le_bytes());
    v.extend_from_slice(dict.as_bytes());
    let e = bcast::npy::from_bytes(&v).unwrap_err().to_string();
    assert!(e.contains("widest unicode"), "{e}");
}
