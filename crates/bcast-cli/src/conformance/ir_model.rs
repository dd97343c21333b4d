//! IR model cases: a folder holding `model.xml` (and `model.bin`) instead of a broadcast spec.
//!
//! - `inputs/<Parameter name>.npy` are the model's inputs;
//! - `expected/<Result name>.npy` are the outputs it must give, compared bit-exactly;
//! - or `error.txt`: the model must be refused with an error containing that text.
//!
//! bf16 has no npy dtype: bf16 inputs and outputs are stored as their u16 bit patterns, as
//! `bcast ir` reads and writes them. A `case.json` next to the model holds notes only.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use super::compare;
use bcast::ir::Model;
use bcast::Tensor;

/// Whether `dir` is an IR model case.
pub(crate) fn is_ir_case(dir: &Path) -> bool {
    dir.join("model.xml").is_file()
}

/// `Ok` when the model gives every expected output (or the expected refusal).
pub(crate) fn judge(dir: &Path) -> Result<(), String> {
    let expected_error = match fs::read_to_string(dir.join("error.txt")) {
        Ok(text) => Some(text.trim().to_string()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(format!("error.txt: {e}")),
    };
    // An input file that cannot be read fails the case itself: a broken case is not the
    // model being refused.
    let ran = match Model::load(dir.join("model.xml"), None) {
        Err(e) => Err(e.to_string()),
        Ok(model) => {
            let inputs = read_inputs(&model, dir)?;
            model.run(&inputs).map_err(|e| e.to_string())
        }
    };
    match (expected_error, ran) {
        (Some(want), Err(got)) => {
            if got.contains(&want) {
                Ok(())
            } else {
                Err(format!(
                    "refused with '{got}', which does not contain '{want}'"
                ))
            }
        }
        (Some(want), Ok(_)) => Err(format!(
            "expected a refusal containing '{want}', but the model ran"
        )),
        (None, Err(e)) => Err(format!("expected outputs, but the model was refused: {e}")),
        (None, Ok(outputs)) => {
            let want = npy_files(&dir.join("expected"))?;
            if want.is_empty() {
                return Err("malformed case: no expected/*.npy and no error.txt".into());
            }
            let got: HashMap<String, Tensor> = outputs.into_iter().collect();
            for (name, path) in want {
                let expected =
                    bcast::npy::read(&path).map_err(|e| format!("expected/{name}.npy: {e}"))?;
                let actual = got
                    .get(&name)
                    .ok_or_else(|| format!("the model has no Result named '{name}'"))?;
                let actual = bcast::ir::bf16_to_npy_bits(actual.clone());
                compare::exact(&expected, &actual).map_err(|e| format!("{name}: {e}"))?;
            }
            Ok(())
        }
    }
}

fn read_inputs(model: &Model, dir: &Path) -> Result<HashMap<String, Tensor>, String> {
    let mut inputs = HashMap::new();
    for (name, path) in npy_files(&dir.join("inputs"))? {
        let t = bcast::npy::read(&path).map_err(|e| format!("inputs/{name}.npy: {e}"))?;
        let t = match model.inputs().iter().find(|i| i.name == name) {
            Some(info) => bcast::ir::bf16_from_npy_bits(t, info.dtype),
            None => t,
        };
        inputs.insert(name, t);
    }
    Ok(inputs)
}

/// `(stem, path)` of every `.npy` in `dir`, sorted; none if the folder does not exist.
pub(crate) fn npy_files(dir: &Path) -> Result<Vec<(String, PathBuf)>, String> {
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("{}: {e}", dir.display())),
    };
    let mut files = Vec::new();
    for entry in entries {
        let path = entry.map_err(|e| e.to_string())?.path();
        if path.extension().and_then(|x| x.to_str()) == Some("npy") {
            if let Some(stem) = path.file_stem().and_then(|s| s.to_str()) {
                files.push((stem.to_string(), path.clone()));
            }
        }
    }
    files.sort();
    Ok(files)
}
