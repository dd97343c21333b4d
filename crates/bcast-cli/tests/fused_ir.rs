//! `bcast ir` fuses chains of element-wise layers: the models OpenVINO saved in
//! `conformance/fused/` give OpenVINO's outputs fused and unfused, `--describe` names the
//! chains each case.json lists, and models built here run fused bit for bit as their layers
//! run one by one (`Model::run_unfused`, every layer through its own kernel), with the
//! chains the rules give: an intermediate result with two readers, or that is a Result,
//! ends a chain; layers of Consts only stay out; long runs split at the cap.

mod common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use bcast::half::f16;
use bcast::ir::Model;
use bcast::ndarray::{ArrayD, IxDyn};
use bcast::Tensor;
use common::{bcast, repo, scratch};

fn cases() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(repo("conformance/fused"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("model.xml").is_file())
        .collect();
    out.sort();
    out
}

fn npy_files(dir: &Path) -> Vec<(String, PathBuf)> {
    let mut out: Vec<(String, PathBuf)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| (p.file_stem().unwrap().to_string_lossy().into_owned(), p))
        .collect();
    out.sort();
    out
}

fn succeeded(o: &std::process::Output) -> String {
    assert!(
        o.status.success(),
        "exit {:?}: {}",
        o.status.code(),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn case_json(case: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(case.join("case.json")).unwrap()).unwrap()
}

#[test]
fn openvinos_models_give_openvinos_outputs_fused_and_unfused() {
    let all = cases();
    assert!(all.len() >= 5, "{all:?}");
    let mut dtypes = Vec::new();
    for case in all {
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let expected = npy_files(&case.join("expected"));
        for flag in [None, Some("--no-fuse")] {
            let out_dir = scratch("fused_ir", &format!("{name}_{}", flag.is_some()));
            let mut args: Vec<String> = vec![
                "ir".into(),
                case.join("model.xml").display().to_string(),
                "--out-dir".into(),
                out_dir.display().to_string(),
            ];
            for (param, path) in npy_files(&case.join("inputs")) {
                args.push("--input".into());
                args.push(format!("{param}={}", path.display()));
            }
            args.extend(flag.map(String::from));
            succeeded(&bcast(&args));
            for (result, path) in &expected {
                let want = bcast::npy::read(path).unwrap();
                let got = bcast::npy::read(out_dir.join(format!("{result}.npy"))).unwrap();
                assert!(
                    got.bit_equal(&want),
                    "{name}/{result} ({flag:?}): got {got:?}\nexpected {want:?}"
                );
                dtypes.push(want.dtype());
            }
        }
        // Through the library too: fused and unfused, bit for bit.
        let model = Model::load(case.join("model.xml"), None).unwrap();
        // Static shapes: every element-wise layer was prepared at load, so the `--no-fuse`
        // run above called each as a prepared op.
        let layers = model.layers();
        assert!(
            layers.iter().any(|l| l.prepared),
            "{name}: no layer prepared"
        );
        for l in &layers {
            let eltwise = !matches!(
                l.kind.as_str(),
                "Parameter"
                    | "Const"
                    | "Result"
                    | "Broadcast"
                    | "ShapeOf"
                    | "Convert"
                    | "Select"
                    | "LogicalNot"
            );
            assert_eq!(l.prepared, eltwise, "{name}: layer {} ({})", l.name, l.kind);
        }
        let inputs: HashMap<String, Tensor> = npy_files(&case.join("inputs"))
            .into_iter()
            .map(|(n, p)| (n, bcast::npy::read(p).unwrap()))
            .collect();
        let fused = model.run(&inputs).unwrap();
        let unfused = model.run_unfused(&inputs).unwrap();
        for ((n, a), (_, b)) in fused.iter().zip(&unfused) {
            assert!(a.bit_equal(b), "{name}/{n}");
        }
    }
    for want in [bcast::DType::F32, bcast::DType::F16, bcast::DType::I32] {
        assert!(dtypes.contains(&want), "no {want} case");
    }
}

#[test]
fn describe_names_the_chains_each_case_lists() {
    for case in cases() {
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let xml = case.join("model.xml");
        let json: serde_json::Value = serde_json::from_str(&succeeded(&bcast([
            "ir".as_ref(),
            xml.as_os_str(),
            "--describe".as_ref(),
            "--json".as_ref(),
        ])))
        .unwrap();
        let text = succeeded(&bcast([
            "ir".as_ref(),
            xml.as_os_str(),
            "--describe".as_ref(),
        ]));
        let id_of: HashMap<String, u64> = json["layers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| {
                (
                    l["name"].as_str().unwrap().to_string(),
                    l["id"].as_u64().unwrap(),
                )
            })
            .collect();
        let want = case_json(&case)["chains"].clone();
        let want = want.as_array().unwrap();
        let chains = json["chains"].as_array().unwrap();
        assert_eq!(chains.len(), want.len(), "{name}: {text}");
        for (k, (got, names)) in chains.iter().zip(want).enumerate() {
            let names: Vec<&str> = names
                .as_array()
                .unwrap()
                .iter()
                .map(|n| n.as_str().unwrap())
                .collect();
            let ids: Vec<u64> = names.iter().map(|n| id_of[*n]).collect();
            let got_ids: Vec<u64> = got["layers"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_u64().unwrap())
                .collect();
            assert_eq!(got_ids, ids, "{name}: chain {}", k + 1);
            assert_eq!(got["output"], *names.last().unwrap());
            // The text: each layer's line marked, and one line per chain.
            let listed = ids
                .iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(", ");
            let line = format!(
                "  chain {}: layers {listed} -> '{}' = ",
                k + 1,
                names.last().unwrap()
            );
            assert!(text.contains(&line), "{name}: no {line:?} in\n{text}");
            for n in &names {
                let layer_line = text
                    .lines()
                    .find(|l| l.contains(&format!(" '{n}' (")))
                    .unwrap();
                assert!(
                    layer_line.ends_with(&format!(" [chain {}]", k + 1)),
                    "{name}: {layer_line}"
                );
            }
        }
        // Every other layer runs alone and is not marked.
        let in_chains: Vec<&str> = want
            .iter()
            .flat_map(|c| c.as_array().unwrap())
            .map(|n| n.as_str().unwrap())
            .collect();
        for l in json["layers"].as_array().unwrap() {
            let fused = in_chains.contains(&l["name"].as_str().unwrap());
            assert_eq!(l["chain"].is_null(), !fused, "{name}: {l}");
        }
    }
}

#[test]
fn the_batchnorm_chain_is_one_expression_of_its_layers() {
    let text = succeeded(&bcast([
        "ir".as_ref(),
        repo("conformance/fused/batchnorm_relu6_f32/model.xml").as_os_str(),
        "--describe".as_ref(),
    ]));
    assert!(
        text.contains("= minimum(maximum(add(multiply(x, scale), shift), zero), six)\n"),
        "{text}"
    );
}

// ---------------------------------------------------------------------------------------
// Models built here: one layer per line of a small builder.
// ---------------------------------------------------------------------------------------

/// An IR model under construction: layers, edges and the `.bin`.
#[derive(Default)]
struct Net {
    layers: String,
    edges: String,
    bin: Vec<u8>,
    /// Each layer's id, output port id and output shape, by name.
    outputs: HashMap<String, (usize, usize, Vec<usize>)>,
}

fn dims(shape: &[usize]) -> String {
    shape.iter().map(|d| format!("<dim>{d}</dim>")).collect()
}

fn element_type(t: &Tensor) -> &'static str {
    match t {
        Tensor::F32(_) => "f32",
        Tensor::F16(_) => "f16",
        Tensor::I32(_) => "i32",
        Tensor::U8(_) => "u8",
        Tensor::Bool(_) => "boolean",
        other => panic!("no builder for {:?}", other.dtype()),
    }
}

fn bytes(t: &Tensor) -> Vec<u8> {
    match t {
        Tensor::F32(a) => a.iter().flat_map(|v| v.to_le_bytes()).collect(),
        Tensor::F16(a) => a.iter().flat_map(|v| v.to_le_bytes()).collect(),
        Tensor::I32(a) => a.iter().flat_map(|v| v.to_le_bytes()).collect(),
        Tensor::U8(a) => a.iter().copied().collect(),
        Tensor::Bool(a) => a.iter().map(|&v| u8::from(v)).collect(),
        other => panic!("no builder for {:?}", other.dtype()),
    }
}

impl Net {
    fn id(&self) -> usize {
        self.outputs.len()
    }

    fn source(&mut self, name: &str, kind: &str, data: String, shape: Vec<usize>) {
        let id = self.id();
        self.layers.push_str(&format!(
            r#"<layer id="{id}" name="{name}" type="{kind}" version="opset1"><data {data}/><output><port id="0">{}</port></output></layer>
"#,
            dims(&shape)
        ));
        self.outputs.insert(name.into(), (id, 0, shape));
    }

    fn param(&mut self, name: &str, like: &Tensor) {
        let shape = like.shape().to_vec();
        let s: Vec<String> = shape.iter().map(usize::to_string).collect();
        let data = format!(
            r#"shape="{}" element_type="{}""#,
            s.join(","),
            element_type(like)
        );
        self.source(name, "Parameter", data, shape);
    }

    fn constant(&mut self, name: &str, value: &Tensor) {
        let shape = value.shape().to_vec();
        let s: Vec<String> = shape.iter().map(usize::to_string).collect();
        let raw = bytes(value);
        let data = format!(
            r#"element_type="{}" shape="{}" offset="{}" size="{}""#,
            element_type(value),
            s.join(","),
            self.bin.len(),
            raw.len()
        );
        self.bin.extend(raw);
        self.source(name, "Const", data, shape);
    }

    /// A layer of `kind` with `attrs` (its `<data>` attributes) reading `inputs`, its output
    /// of `shape`.
    fn layer(&mut self, name: &str, kind: &str, attrs: &str, inputs: &[&str], shape: &[usize]) {
        let id = self.id();
        let mut ports = String::new();
        for (k, input) in inputs.iter().enumerate() {
            let (from, from_port, from_shape) = &self.outputs[*input];
            ports.push_str(&format!(r#"<port id="{k}">{}</port>"#, dims(from_shape)));
            self.edges.push_str(&format!(
                r#"<edge from-layer="{from}" from-port="{from_port}" to-layer="{id}" to-port="{k}"/>
"#
            ));
        }
        let out = inputs.len();
        let version = match kind {
            "LogicalAnd" | "LogicalOr" | "LogicalXor" => "opset2",
            k if k.starts_with("Bitwise") => "opset13",
            _ => "opset1",
        };
        let output = match kind {
            "Result" => String::new(),
            _ => format!(
                r#"<output><port id="{out}">{}</port></output>"#,
                dims(shape)
            ),
        };
        self.layers.push_str(&format!(
            r#"<layer id="{id}" name="{name}" type="{kind}" version="{version}"><data {attrs}/><input>{ports}</input>{output}</layer>
"#
        ));
        self.outputs.insert(name.into(), (id, out, shape.to_vec()));
    }

    fn result(&mut self, name: &str, from: &str) {
        let shape = self.outputs[from].2.clone();
        self.layer(name, "Result", "", &[from], &shape);
    }

    fn model(&self) -> Model {
        let xml = format!(
            r#"<net name="built" version="11"><layers>{}</layers><edges>{}</edges></net>"#,
            self.layers, self.edges
        );
        Model::from_xml(&xml, &self.bin).unwrap_or_else(|e| panic!("{e}\n{xml}"))
    }
}

/// Deterministic values spread over a range: `len` of them from a simple LCG.
fn spread(len: usize, seed: u64) -> Vec<f64> {
    let mut state = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..len)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        })
        .collect()
}

fn f32t(shape: &[usize], seed: u64, scale: f64) -> Tensor {
    let n = shape.iter().product();
    Tensor::F32(
        ArrayD::from_shape_vec(
            IxDyn(shape),
            spread(n, seed).iter().map(|v| (v * scale) as f32).collect(),
        )
        .unwrap(),
    )
}

fn f16t(shape: &[usize], seed: u64, scale: f64) -> Tensor {
    let n = shape.iter().product();
    Tensor::F16(
        ArrayD::from_shape_vec(
            IxDyn(shape),
            spread(n, seed)
                .iter()
                .map(|v| f16::from_f64(v * scale))
                .collect(),
        )
        .unwrap(),
    )
}

fn i32t(shape: &[usize], seed: u64, scale: f64) -> Tensor {
    let n = shape.iter().product();
    Tensor::I32(
        ArrayD::from_shape_vec(
            IxDyn(shape),
            spread(n, seed).iter().map(|v| (v * scale) as i32).collect(),
        )
        .unwrap(),
    )
}

/// Runs `model` fused and unfused on `inputs`; the outputs must agree bit for bit.
fn fused_equals_unfused(model: &Model, inputs: &[(&str, &Tensor)]) -> Vec<(String, Tensor)> {
    let inputs: HashMap<String, Tensor> = inputs
        .iter()
        .map(|(n, t)| (n.to_string(), (*t).clone()))
        .collect();
    let fused = model.run(&inputs).unwrap();
    let unfused = model.run_unfused(&inputs).unwrap();
    assert_eq!(fused.len(), unfused.len());
    for ((name, a), (_, b)) in fused.iter().zip(&unfused) {
        assert!(a.bit_equal(b), "{name}: fused {a:?}\nunfused {b:?}");
    }
    fused
}

/// The chains as lists of layer names.
fn chain_names(model: &Model) -> Vec<Vec<String>> {
    let names: HashMap<u64, String> = model.layers().into_iter().map(|l| (l.id, l.name)).collect();
    model
        .chains()
        .into_iter()
        .map(|c| c.layers.iter().map(|id| names[id].clone()).collect())
        .collect()
}

fn strings(lists: &[&[&str]]) -> Vec<Vec<String>> {
    lists
        .iter()
        .map(|l| l.iter().map(|s| s.to_string()).collect())
        .collect()
}

const NUMPY: &str = r#"auto_broadcast="numpy""#;
const PDPD1: &str = r#"auto_broadcast="pdpd" auto_broadcast.auto_broadcast_axis="1""#;
const PDPD0: &str = r#"auto_broadcast="pdpd" auto_broadcast.auto_broadcast_axis="0""#;

/// A float tensor of `shape` holding `value` everywhere, f32 or f16.
fn full(f16s: bool, shape: &[usize], value: f32) -> Tensor {
    let a = ArrayD::from_elem(IxDyn(shape), value);
    if f16s {
        Tensor::F16(a.mapv(f16::from_f32))
    } else {
        Tensor::F32(a)
    }
}

/// Every float op of the table in one model, under numpy and pdpd (PRelu's slope on the
/// channel axis); t3 and t12 have two readers each, so each ends a chain.
#[test]
fn float_ops_fuse_bit_for_bit_with_their_layers() {
    for f16s in [false, true] {
        let make = |shape: &[usize], seed: u64, scale: f64| {
            if f16s {
                f16t(shape, seed, scale)
            } else {
                f32t(shape, seed, scale)
            }
        };
        let s = [2, 3, 4];
        let x = make(&s, 1, 4.0);
        let y = make(&[3, 1], 2, 2.0);
        let mut n = Net::default();
        n.param("x", &x);
        n.param("y", &y);
        n.constant("c", &make(&[4], 3, 3.0));
        n.constant("s", &make(&[3], 4, 1.5));
        n.constant("half", &full(f16s, &[], 0.5));
        n.constant("m", &full(f16s, &[], 1.75));
        n.constant("slope", &make(&[3], 7, 0.5));
        n.constant("il", &full(f16s, &[], -2.0));
        n.constant("ih", &full(f16s, &[4], 2.5));
        n.constant("ol", &full(f16s, &[3, 1], -1.0));
        n.constant("oh", &full(f16s, &[], 1.0));
        n.layer("t1", "Add", NUMPY, &["x", "y"], &s);
        n.layer("t2", "Multiply", PDPD1, &["t1", "s"], &s);
        n.layer("t3", "Subtract", NUMPY, &["t2", "c"], &s);
        n.layer("t4", "Divide", NUMPY, &["t3", "y"], &s);
        n.layer("t5", "SquaredDifference", NUMPY, &["t4", "c"], &s);
        n.layer("t6", "Power", NUMPY, &["t5", "half"], &s);
        n.layer("t7", "Maximum", NUMPY, &["t6", "c"], &s);
        n.layer("t8", "Minimum", NUMPY, &["y", "t7"], &s);
        n.layer("t9", "FloorMod", NUMPY, &["t8", "m"], &s);
        n.layer("t10", "Mod", NUMPY, &["t9", "y"], &s);
        n.layer("t11", "PRelu", "", &["t10", "slope"], &s);
        n.layer(
            "t12",
            "FakeQuantize",
            r#"levels="5" auto_broadcast="numpy""#,
            &["t11", "il", "ih", "ol", "oh"],
            &s,
        );
        n.layer("gt", "Greater", NUMPY, &["t12", "x"], &s);
        n.layer("pick", "Select", NUMPY, &["gt", "t12", "t3"], &s);
        n.result("out", "pick");
        let model = n.model();
        assert_eq!(
            chain_names(&model),
            strings(&[
                &["t1", "t2", "t3"],
                &["t4", "t5", "t6", "t7", "t8", "t9", "t10", "t11", "t12"],
                &["gt", "pick"],
            ]),
            "f16: {f16s}"
        );
        fused_equals_unfused(&model, &[("x", &x), ("y", &y)]);
    }
}

/// Integer and bool ops: wrapping arithmetic, both divisions, the bitwise ops, comparisons
/// feeding logical ops and a Select; LogicalNot is not an op of the table, so the run of
/// layers splits around it.
#[test]
fn integer_and_bool_ops_fuse_bit_for_bit_with_their_layers() {
    let s = [2, 3, 4];
    let x = i32t(&s, 21, 2.0e9);
    // Divisors: never 0.
    let y = Tensor::I32(ArrayD::from_shape_vec(IxDyn(&[4]), vec![7, -3, 2, -11]).unwrap());
    let d = Tensor::I32(ArrayD::from_shape_vec(IxDyn(&[3]), vec![-4, 5, 3]).unwrap());
    let mut n = Net::default();
    n.param("x", &x);
    n.param("y", &y);
    n.constant("k", &i32t(&[3, 1], 23, 70_000.0));
    n.constant("d", &d);
    n.layer("mul", "Multiply", NUMPY, &["x", "k"], &s);
    n.layer("add", "Add", NUMPY, &["mul", "y"], &s);
    n.layer(
        "div",
        "Divide",
        &format!(r#"{PDPD1} m_pythondiv="false""#),
        &["add", "d"],
        &s,
    );
    n.layer("fdiv", "Divide", NUMPY, &["div", "y"], &s);
    n.layer("fmod", "FloorMod", NUMPY, &["fdiv", "y"], &s);
    n.layer("and", "BitwiseAnd", NUMPY, &["fmod", "x"], &s);
    n.layer("xor", "BitwiseXor", NUMPY, &["and", "k"], &s);
    n.layer("less", "Less", NUMPY, &["xor", "y"], &s);
    n.layer("not", "LogicalNot", "", &["less"], &s);
    n.layer("eq", "Equal", NUMPY, &["x", "y"], &s);
    n.layer("or", "LogicalOr", NUMPY, &["not", "eq"], &s);
    n.layer("sub", "Subtract", NUMPY, &["x", "k"], &s);
    n.layer("sel", "Select", NUMPY, &["or", "sub", "x"], &s);
    n.result("out", "sel");
    let model = n.model();
    assert_eq!(
        chain_names(&model),
        strings(&[
            &["mul", "add", "div", "fdiv", "fmod", "and", "xor", "less"],
            &["eq", "or", "sub", "sel"],
        ])
    );
    fused_equals_unfused(&model, &[("x", &x), ("y", &y)]);
}

/// PDPD at axis 0 of a square operand: numpy would place `s` on the other axis and give
/// other values without an error, so a chain that lost its layers' rules would be caught.
/// The expected values are written out by hand.
#[test]
fn each_layer_keeps_its_own_rule_in_the_chain() {
    let x = Tensor::F32(ArrayD::from_shape_vec(IxDyn(&[2, 2]), vec![1.0, 2.0, 3.0, 4.0]).unwrap());
    let mut n = Net::default();
    n.param("x", &x);
    n.constant(
        "s",
        &Tensor::F32(ArrayD::from_shape_vec(IxDyn(&[2]), vec![10.0, 100.0]).unwrap()),
    );
    n.constant(
        "b",
        &Tensor::F32(ArrayD::from_shape_vec(IxDyn(&[2]), vec![0.5, -0.5]).unwrap()),
    );
    n.layer("scale", "Multiply", PDPD0, &["x", "s"], &[2, 2]);
    n.layer("shift", "Add", NUMPY, &["scale", "b"], &[2, 2]);
    n.result("y", "shift");
    let model = n.model();
    assert_eq!(chain_names(&model), strings(&[&["scale", "shift"]]));
    let out = fused_equals_unfused(&model, &[("x", &x)]);
    // Row i scaled by s[i] (pdpd, axis 0), then column j shifted by b[j] (numpy).
    let want = Tensor::F32(
        ArrayD::from_shape_vec(IxDyn(&[2, 2]), vec![10.5, 19.5, 300.5, 399.5]).unwrap(),
    );
    assert!(out[0].1.bit_equal(&want), "{:?}", out[0].1);
}

/// An operand the chain reads twice is one input of its expression; the operands' order
/// in each layer is kept (Subtract and Divide are not symmetric).
#[test]
fn operands_keep_their_order_and_a_shared_one_is_read_once() {
    let x = Tensor::F32(ArrayD::from_shape_vec(IxDyn(&[3]), vec![1.0, -2.0, 4.0]).unwrap());
    let mut n = Net::default();
    n.param("x", &x);
    n.constant(
        "c",
        &Tensor::F32(ArrayD::from_shape_vec(IxDyn(&[3]), vec![8.0, 8.0, 8.0]).unwrap()),
    );
    n.layer("c_minus_x", "Subtract", NUMPY, &["c", "x"], &[3]);
    n.layer("over_x", "Divide", NUMPY, &["c_minus_x", "x"], &[3]);
    n.result("y", "over_x");
    let model = n.model();
    let chains = model.chains();
    assert_eq!(chains.len(), 1);
    assert_eq!(chains[0].expression, "divide(subtract(c, x), x)");
    let out = fused_equals_unfused(&model, &[("x", &x)]);
    // (8 - x) / x: 7, -5, 1.
    let want = Tensor::F32(ArrayD::from_shape_vec(IxDyn(&[3]), vec![7.0, -5.0, 1.0]).unwrap());
    assert!(out[0].1.bit_equal(&want), "{:?}", out[0].1);
}

/// Layers of Consts only are computed once, not in every element of a chain; an
/// intermediate result that is also a Result ends its chain.
#[test]
fn constant_layers_and_graph_outputs_stay_out_of_chains() {
    let x = f32t(&[2, 3], 31, 2.0);
    let mut n = Net::default();
    n.param("x", &x);
    n.constant("a", &f32t(&[3], 32, 1.0));
    n.constant("b", &f32t(&[3], 33, 1.0));
    n.layer("ab", "Multiply", NUMPY, &["a", "b"], &[3]);
    n.layer("ab2", "Add", NUMPY, &["ab", "b"], &[3]);
    n.layer("scaled", "Multiply", NUMPY, &["x", "ab2"], &[2, 3]);
    n.layer("shifted", "Add", NUMPY, &["scaled", "b"], &[2, 3]);
    n.layer("relu", "Maximum", NUMPY, &["shifted", "a"], &[2, 3]);
    n.layer("twice", "Add", NUMPY, &["relu", "relu"], &[2, 3]);
    n.result("mid", "shifted");
    n.result("y", "twice");
    let model = n.model();
    // ab, ab2: Consts only. shifted: a Result reads it, so the chain ends there. relu: read
    // twice by twice, so it stays alone and twice too.
    assert_eq!(chain_names(&model), strings(&[&["scaled", "shifted"]]));
    fused_equals_unfused(&model, &[("x", &x)]);
}

/// A run of more layers than one chain takes splits into consecutive chains.
#[test]
fn a_long_run_of_layers_splits_at_the_cap() {
    let x = f32t(&[2, 3], 41, 2.0);
    let mut n = Net::default();
    n.param("x", &x);
    n.constant("one", &full(false, &[3], 1.0));
    let layers = 2 * bcast::ir::MAX_CHAIN_LAYERS + 5;
    let mut prev = "x".to_string();
    for k in 0..layers {
        let name = format!("add{k}");
        n.layer(&name, "Add", NUMPY, &[&prev, "one"], &[2, 3]);
        prev = name;
    }
    n.result("y", &prev);
    let model = n.model();
    let sizes: Vec<usize> = model.chains().iter().map(|c| c.layers.len()).collect();
    let cap = bcast::ir::MAX_CHAIN_LAYERS;
    assert_eq!(sizes, vec![cap, cap, 5]);
    let out = fused_equals_unfused(&model, &[("x", &x)]);
    // x + 1 + 1 + ...: exact in f32 for these small values.
    let Tensor::F32(xa) = &x else { unreachable!() };
    let want = Tensor::F32(xa.mapv(|v| {
        let mut t = v;
        for _ in 0..layers {
            t += 1.0;
        }
        t
    }));
    assert!(out[0].1.bit_equal(&want));
}

/// A fault found only when the chain runs (an integer division by zero) is the error the
/// layers run one by one give, naming the layer inside the chain that has it.
#[test]
fn a_fault_inside_a_chain_names_its_layer() {
    let x = Tensor::I32(ArrayD::from_shape_vec(IxDyn(&[2, 2]), vec![1, 2, 3, 4]).unwrap());
    let z = Tensor::I32(ArrayD::from_shape_vec(IxDyn(&[2]), vec![1, 0]).unwrap());
    let mut n = Net::default();
    n.param("x", &x);
    n.param("z", &z);
    n.layer("inc", "Add", NUMPY, &["x", "x"], &[2, 2]);
    n.layer("quotient", "Divide", NUMPY, &["inc", "z"], &[2, 2]);
    n.layer("scaled", "Multiply", NUMPY, &["quotient", "x"], &[2, 2]);
    n.result("y", "scaled");
    let model = n.model();
    assert_eq!(
        chain_names(&model),
        strings(&[&["inc", "quotient", "scaled"]])
    );
    let inputs = HashMap::from([("x".to_string(), x), ("z".to_string(), z)]);
    let fused = model.run(&inputs).unwrap_err().to_string();
    let unfused = model.run_unfused(&inputs).unwrap_err().to_string();
    assert_eq!(fused, unfused);
    assert!(fused.contains("'quotient' (Divide)"), "{fused}");
}

/// `--no-fuse` is refused with `--describe` (which always lists the chains).
#[test]
fn no_fuse_is_a_run_flag() {
    let o = bcast([
        "ir".as_ref(),
        repo("conformance/fused/batchnorm_relu6_f32/model.xml").as_os_str(),
        "--describe".as_ref(),
        "--no-fuse".as_ref(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.starts_with("error: ") && err.lines().count() == 1,
        "{err}"
    );
}

/// Select under pdpd in a chain: then gives the shape, else and cond are laid onto it from
/// axis 1, as the layer alone lays them.
#[test]
fn a_pdpd_select_fuses_with_its_operands() {
    let s = [2, 3, 4];
    let x = f32t(&s, 51, 3.0);
    let y = f32t(&[3], 52, 3.0);
    let mut n = Net::default();
    n.param("x", &x);
    n.param("y", &y);
    n.constant("k", &f32t(&[4], 53, 2.0));
    n.constant("zero", &full(false, &[3], 0.0));
    n.layer("then", "Multiply", NUMPY, &["x", "k"], &s);
    n.layer("cond", "Less", NUMPY, &["y", "zero"], &[3]);
    n.layer("else", "Add", NUMPY, &["y", "y"], &[3]);
    n.layer("pick", "Select", PDPD1, &["cond", "then", "else"], &s);
    n.result("out", "pick");
    let model = n.model();
    assert_eq!(
        chain_names(&model),
        strings(&[&["then", "cond", "else", "pick"]])
    );
    let out = fused_equals_unfused(&model, &[("x", &x), ("y", &y)]);
    // By hand: out[i,j,l] = y[j] < 0 ? x[i,j,l] * k[l] : y[j] + y[j].
    let (Tensor::F32(xa), Tensor::F32(ya)) = (&x, &y) else {
        unreachable!()
    };
    let k = f32t(&[4], 53, 2.0);
    let Tensor::F32(ka) = &k else { unreachable!() };
    let want = Tensor::F32(ArrayD::from_shape_fn(IxDyn(&s), |i| {
        if ya[[i[1]]] < 0.0 {
            xa[[i[0], i[1], i[2]]] * ka[[i[2]]]
        } else {
            ya[[i[1]]] + ya[[i[1]]]
        }
    }));
    assert!(out[0].1.bit_equal(&want), "{:?}", out[0].1);
}
