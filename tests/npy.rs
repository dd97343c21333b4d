//! `bcast::npy` against files written by numpy (`tests/data/make_npy.py`).
//!
//! Expected values are those the script put into each array (`tests/data/npy/expected.json`),
//! and the expected bytes of the writer are `numpy.save`'s own (`canonical/`).

use std::fs;
use std::path::PathBuf;

use bcast::npy::{self, NpyError};
use bcast::Tensor;
use serde_json::Value;

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/npy")
}

fn expected() -> Value {
    let text = fs::read_to_string(fixtures().join("expected.json")).expect("expected.json");
    serde_json::from_str(&text).expect("expected.json is JSON")
}

fn entries<'a>(json: &'a Value, key: &str) -> Vec<(&'a String, &'a Value)> {
    json[key]
        .as_object()
        .unwrap_or_else(|| panic!("expected.json has no '{key}' object"))
        .iter()
        .collect()
}

/// The tensor's values in logical (C) order as JSON: numbers, booleans, strings, and floats
/// as the integer bits of their own width (the script's convention).
fn flat_values(t: &Tensor) -> (&'static str, Vec<Value>) {
    match t {
        Tensor::Bool(a) => ("values", a.iter().map(|&v| Value::from(v)).collect()),
        Tensor::I8(a) => ("values", a.iter().map(|&v| Value::from(v)).collect()),
        Tensor::I16(a) => ("values", a.iter().map(|&v| Value::from(v)).collect()),
        Tensor::I32(a) => ("values", a.iter().map(|&v| Value::from(v)).collect()),
        Tensor::I64(a) => ("values", a.iter().map(|&v| Value::from(v)).collect()),
        Tensor::U8(a) => ("values", a.iter().map(|&v| Value::from(v)).collect()),
        Tensor::U16(a) => ("values", a.iter().map(|&v| Value::from(v)).collect()),
        Tensor::U32(a) => ("values", a.iter().map(|&v| Value::from(v)).collect()),
        Tensor::U64(a) => ("values", a.iter().map(|&v| Value::from(v)).collect()),
        Tensor::F16(a) => ("bits", a.iter().map(|v| Value::from(v.to_bits())).collect()),
        Tensor::F32(a) => ("bits", a.iter().map(|v| Value::from(v.to_bits())).collect()),
        Tensor::F64(a) => ("bits", a.iter().map(|v| Value::from(v.to_bits())).collect()),
        Tensor::String(a) => (
            "values",
            a.iter().map(|v| Value::from(v.as_str())).collect(),
        ),
        Tensor::BF16(_) => panic!("npy has no bf16"),
    }
}

fn variant(e: &NpyError) -> &'static str {
    match e {
        NpyError::Io { .. } => "Io",
        NpyError::Magic => "Magic",
        NpyError::Version(..) => "Version",
        NpyError::Truncated(_) => "Truncated",
        NpyError::Header(_) => "Header",
        NpyError::UnsupportedDtype(_) => "UnsupportedDtype",
        NpyError::SizeMismatch { .. } => "SizeMismatch",
        NpyError::InvalidData(_) => "InvalidData",
        NpyError::Unwritable(_) => "Unwritable",
        _ => "unknown variant",
    }
}

#[test]
fn every_valid_fixture_reads_as_the_values_numpy_was_given() {
    let json = expected();
    let valid = entries(&json, "valid");
    assert!(valid.len() >= 40, "only {} valid fixtures", valid.len());
    for (name, want) in valid {
        let t = npy::read(fixtures().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(t.dtype().name(), want["dtype"], "{name}: dtype");
        let shape: Vec<Value> = t.shape().iter().map(|&d| Value::from(d)).collect();
        assert_eq!(&Value::from(shape), &want["shape"], "{name}: shape");
        let (key, got) = flat_values(&t);
        assert_eq!(&Value::from(got), &want[key], "{name}: {key}");
    }
}

#[test]
fn writer_produces_numpy_save_bytes_for_every_valid_fixture() {
    // Big-endian, Fortran-order, wide-string, version 2/3 inputs all come out as numpy
    // writes the same array in C order, little-endian, narrowest width, version 1.0.
    let json = expected();
    for (name, want) in entries(&json, "valid") {
        let t = npy::read(fixtures().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        let canonical = want["canonical"]
            .as_str()
            .unwrap_or_else(|| panic!("{name}: no canonical file"));
        let numpy_bytes = fs::read(fixtures().join(canonical)).expect(canonical);
        let ours = npy::to_bytes(&t).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            ours == numpy_bytes,
            "{name}: bytes differ from numpy's {canonical}\n ours:  {:?}\n numpy: {:?}",
            String::from_utf8_lossy(&ours[..ours.len().min(128)]),
            String::from_utf8_lossy(&numpy_bytes[..numpy_bytes.len().min(128)])
        );
    }
}

#[test]
fn every_bad_fixture_is_rejected_with_its_variant() {
    let json = expected();
    let invalid = entries(&json, "invalid");
    assert!(invalid.len() >= 15, "only {} bad fixtures", invalid.len());
    for (name, want) in invalid {
        match npy::read(fixtures().join(name)) {
            Ok(t) => panic!("{name} was accepted as {:?} {:?}", t.dtype(), t.shape()),
            Err(e) => assert_eq!(variant(&e), want, "{name}: {e}"),
        }
    }
}

#[test]
fn unsupported_dtype_errors_name_the_dtype() {
    for (file, descr) in [
        ("bad_complex64.npy", "<c8"),
        ("bad_object.npy", "|O"),
        ("bad_datetime64.npy", "<M8[D]"),
        ("bad_bytes_S3.npy", "|S3"),
    ] {
        let e = npy::read(fixtures().join(file)).unwrap_err();
        assert!(e.to_string().contains(descr), "{file}: {e}");
    }
}

#[test]
fn every_truncation_of_a_numpy_file_is_an_error_never_a_panic() {
    let good = fs::read(fixtures().join("le_f4.npy")).expect("le_f4.npy");
    for n in 0..good.len() {
        let e = npy::from_bytes(&good[..n]).expect_err("a strict prefix must not parse");
        assert_eq!(variant(&e), "Truncated", "prefix of {n} bytes: {e}");
    }
    assert!(npy::from_bytes(&good).is_ok());
}

#[test]
fn a_missing_file_is_an_io_error_naming_the_path() {
    let path = fixtures().join("no_such_file.npy");
    let e = npy::read(&path).unwrap_err();
    assert!(
        matches!(&e, NpyError::Io { path: p, .. } if *p == path),
        "{e}"
    );
    assert!(e.to_string().contains("no_such_file.npy"), "{e}");
}
