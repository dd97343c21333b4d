#!/usr/bin/env python3
"""`bcast ir` beside OpenVINO's CPU plugin on BatchNorm-style IR models saved by OpenVINO.

The models are conformance/fused/make_models.py's batchnorm_relu6 chain at a realistic size
(`x[1,C,H,W] * scale[1,C,1,1] + shift[1,C,1,1]`, then Maximum 0 and Minimum 6), in f32 and
f16, and one per-channel FakeQuantize (x[1,C,H,W], constant bounds [1,C,1,1], 256 levels,
f32), built with openvino.opset13 and saved by openvino.save_model (compress_to_fp16=False) into
a temporary folder, with seeded random inputs saved as .npy. Before timing anything it:

- computes OpenVINO's reference as make_models.py does (every layer constant-folded alone by
  ConstantFolding, its inputs as Constants; FakeQuantize, which ConstantFolding skips, by the
  node's own `evaluate`) and stops unless `bcast ir --out-dir` gives it bit for bit;
- runs the CPU plugin once per thread count and reports whether its result is the reference
  (it may differ: it computes f16 in f32, and may contract the multiply-add; the table says
  so rather than hiding it).

Then each round runs, for every model and thread count, two processes one after the other:

- openvino: this script in worker mode: `core.compile_model(model, "CPU",
  {"INFERENCE_NUM_THREADS": n, "INFERENCE_PRECISION_HINT": the model's type,
  "PERFORMANCE_HINT": "LATENCY"})`, one InferRequest with its inputs set once, then
  `--time-rounds` rounds of `infer()` repeated for at least 50 ms each; it reports the median
  over its rounds of a round's time / its runs;
- bcast: `bcast ir MODEL --input x=X.npy --time TIME_ROUNDS --threads n`, which times the
  fused run and the layer-by-layer run (each allocates its outputs) in interleaved rounds the
  same way and checks they are bit-identical first.

What differs between the two, beyond the engines: each `infer()` is a call from Python (a few
µs, small beside a run of the default size), and it writes into output tensors the request
keeps, while each bcast run allocates its outputs (`Model::run` has no reused output).

The table gives, per model and thread count, the median over the rounds of each process's
median, in microseconds per run, OpenVINO's time over bcast fused's (above 1: bcast is
faster), and whether each result equals the reference. The first line names the CPU and the
versions. Raw results (every process's line, and the reference checks) go to --raw as JSON
lines.

    python3 benches/compare_ir.py --threads 1,2 --rounds 5 [--time-rounds 11]
        [--bcast target/release/bcast] [--size 64,112,112] [--model NAME ...] [--raw FILE]
        [--markdown]

Requirements: openvino and numpy (conformance/ir/requirements.txt).
"""
import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "conformance", "fused"))
from compare import cpu_model, lines  # noqa: E402
from compare_fused import peer_env  # noqa: E402

# (name, numpy dtype name, OpenVINO's INFERENCE_PRECISION_HINT for it, as make_models.py's
# cpu_run gives).
MODELS = [
    ("batchnorm_relu6_f32", "float32", "f32"),
    ("batchnorm_relu6_f16", "float16", "f16"),
    ("fake_quantize_f32", "float32", "f32"),
]
# The least time one timed round repeats its run for, in seconds (as `bcast ir --time`).
ROUND_SECONDS = 0.05


def runs_per_round(f):
    """Runs of `f` for a round of ROUND_SECONDS, from batches doubled until one takes a fifth
    of that (as `bcast ir --time` counts them)."""
    batch = 1
    while True:
        start = time.perf_counter()
        for _ in range(batch):
            f()
        seconds = time.perf_counter() - start
        if seconds >= ROUND_SECONDS / 5 or batch >= 1 << 24:
            per_run = max(seconds / batch, 1e-9)
            return max(1, math.ceil(ROUND_SECONDS / per_run))
        batch *= 2


def check_against(np, got, want):
    """Whether `got` is `want` bit for bit, and if not, in how many elements and by how much."""
    import make_models as mm
    if mm.same(got, want):
        return {"equal": True}
    if got.dtype != want.dtype or got.shape != want.shape:
        return {"equal": False, "why": f"{got.dtype}{list(got.shape)} against "
                f"{want.dtype}{list(want.shape)}"}
    bits = (got.view(np.uint8).reshape(got.size, -1)
            != want.view(np.uint8).reshape(want.size, -1)).any(axis=1)
    diff = np.abs(got.astype(np.float64) - want.astype(np.float64))
    return {"equal": False, "differs": int(bits.sum()), "of": int(got.size),
            "max_abs_diff": float(np.nanmax(diff))}


def property_text(value):
    """A compiled model's property as text: an element type by its short name ("f16")."""
    to_string = getattr(value, "to_string", None)
    return to_string() if callable(to_string) else str(value)


def openvino_worker(args):
    """Worker mode: OpenVINO's CPU plugin on one model at one thread count; one JSON line."""
    import numpy as np
    import openvino as ov
    folder = args.worker
    with open(os.path.join(folder, "model.json")) as f:
        meta = json.load(f)
    core = ov.Core()
    model = core.read_model(os.path.join(folder, "model.xml"))
    try:
        compiled = core.compile_model(model, "CPU", {
            "INFERENCE_NUM_THREADS": args.threads_one,
            "INFERENCE_PRECISION_HINT": meta["hint"],
            "PERFORMANCE_HINT": "LATENCY",
        })
    except Exception as e:  # noqa: BLE001 - a plugin that refuses the model is reported
        reason = ([l for l in str(e).splitlines() if l.strip()] or [type(e).__name__])[-1]
        print(json.dumps({"who": "openvino", "model": meta["name"], "threads": args.threads_one,
                          "skipped": "compile_model fails: " + reason[:200],
                          "version": ov.__version__}), flush=True)
        return 0
    request = compiled.create_infer_request()
    for k, p in enumerate(model.get_parameters()):
        x = np.ascontiguousarray(np.load(os.path.join(folder, "inputs",
                                                      p.get_friendly_name() + ".npy")))
        request.set_input_tensor(k, ov.Tensor(x))
    request.infer()
    checks = {}
    for k, r in enumerate(model.get_results()):
        name = r.get_friendly_name()
        want = np.load(os.path.join(folder, "expected", name + ".npy"))
        checks[name] = check_against(np, request.get_output_tensor(k).data.copy(), want)
    reps = runs_per_round(request.infer)
    samples = []
    for _ in range(args.time_rounds):
        start = time.perf_counter()
        for _ in range(reps):
            request.infer()
        samples.append((time.perf_counter() - start) / reps)
    print(json.dumps({
        "who": "openvino", "model": meta["name"], "threads": args.threads_one,
        "seconds_per_run": statistics.median(samples), "rounds": args.time_rounds,
        "runs_per_round": reps, "reference": checks,
        "compiled": {p: property_text(compiled.get_property(p)) for p in
                     ("INFERENCE_NUM_THREADS", "INFERENCE_PRECISION_HINT", "PERFORMANCE_HINT")},
        "version": ov.__version__}), flush=True)
    return 0


def fake_quantize_per_channel(dtype):
    """The FakeQuantize of an INT8 OpenVINO model: x[1,C,H,W] under per-channel constant
    bounds [1,C,1,1], 256 levels, the input range holding most values (as the eltwise bench
    case)."""
    import numpy as np
    import make_models as mm
    x = mm.floats((1, mm.C, mm.H, mm.W), dtype)
    spread = np.abs(mm.floats((1, mm.C, 1, 1), dtype, 1.0)) + dtype(2)
    il, ih = (-spread).astype(dtype), spread.astype(dtype)
    ol, oh = (il * dtype(0.5)).astype(dtype), (ih * dtype(0.5)).astype(dtype)

    def build_chain(p):
        _, ops, _ = mm.ovm()
        q = mm.named(ops.fake_quantize(p["x"], mm.const("il", il), mm.const("ih", ih),
                                       mm.const("ol", ol), mm.const("oh", oh), 256), "fq")
        return [mm.named(ops.result(q), "y")]

    def reference(inputs):
        # ConstantFolding leaves FakeQuantize alone on purpose: the reference is the node's
        # own `evaluate` (as conformance/generate_op_spots.py takes it).
        import openvino as ov
        _, ops, _ = mm.ovm()
        arrays = [inputs["x"], il, ih, ol, oh]
        node = ops.fake_quantize(*[ops.parameter(list(a.shape), a.dtype) for a in arrays], 256)
        out = ov.Tensor(node.get_output_element_type(0), node.get_output_shape(0))
        assert node.evaluate([out], [ov.Tensor(np.ascontiguousarray(a)) for a in arrays])
        return {"y": out.data.copy()}

    return {"x": x}, build_chain, reference


def build(folder, name, dtype, hint, size):
    """Saves the model, its inputs and OpenVINO's reference under folder/name; returns the
    model's folder."""
    import numpy as np
    import openvino as ov
    import make_models as mm
    # make_models.py's chain at this size: batchnorm_relu6 reads its shape and its random
    # generator from the module. A fresh generator per model keeps a model's inputs the same
    # whichever models run.
    mm.C, mm.H, mm.W = size
    mm.rng = np.random.default_rng(29)
    if name.startswith("fake_quantize"):
        inputs, build_chain, reference = fake_quantize_per_channel(getattr(np, dtype))
    else:
        inputs, build_chain, _, _ = mm.batchnorm_relu6(getattr(np, dtype))
        reference = None
    d = os.path.join(folder, name)
    os.makedirs(os.path.join(d, "inputs"))
    os.makedirs(os.path.join(d, "expected"))
    params = {k: mm.param(k, v) for k, v in inputs.items()}
    model = ov.Model(build_chain(params), list(params.values()), name)
    xml = os.path.join(d, "model.xml")
    ov.save_model(model, xml, compress_to_fp16=False)
    for k, v in inputs.items():
        np.save(os.path.join(d, "inputs", k + ".npy"), v)
    expected = reference(inputs) if reference else mm.reference_op_by_op(xml, inputs)
    for k, v in expected.items():
        np.save(os.path.join(d, "expected", k + ".npy"), v)
    with open(os.path.join(d, "model.json"), "w") as f:
        json.dump({"name": name, "hint": hint, "inputs": sorted(inputs),
                   "shapes": {k: list(v.shape) for k, v in inputs.items()}}, f)
    return d


def input_args(d):
    with open(os.path.join(d, "model.json")) as f:
        names = json.load(f)["inputs"]
    return [a for k in names for a in ("--input", f"{k}={os.path.join(d, 'inputs', k + '.npy')}")]


def bcast_matches_reference(bcast, d):
    """`bcast ir --out-dir`'s outputs against the reference, output by output."""
    import numpy as np
    out = os.path.join(d, "bcast_out")
    p = subprocess.run([bcast, "ir", os.path.join(d, "model.xml"), "--out-dir", out]
                       + input_args(d), capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"bcast ir failed on {d}: {p.stderr.strip()[-500:]}")
    checks = {}
    for f in sorted(os.listdir(os.path.join(d, "expected"))):
        want = np.load(os.path.join(d, "expected", f))
        checks[f[:-4]] = check_against(np, np.load(os.path.join(out, f)), want)
    shutil.rmtree(out)
    return checks


def parse_size(text):
    try:
        size = [int(v) for v in text.split(",")]
    except ValueError:
        size = []
    if len(size) != 3 or min(size) < 1:
        raise argparse.ArgumentTypeError(f"'{text}' is not C,H,W (three positive integers)")
    return size


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--threads", default="1,2", help="thread counts, comma-separated")
    ap.add_argument("--rounds", type=int, default=5,
                    help="process-level rounds (each: OpenVINO, then bcast, per model and "
                    "thread count)")
    ap.add_argument("--time-rounds", type=int, default=11,
                    help="timed rounds inside each process (bcast ir --time's ROUNDS)")
    ap.add_argument("--bcast", default=os.path.join(HERE, "..", "target", "release", "bcast"))
    ap.add_argument("--size", type=parse_size, default=[64, 112, 112],
                    help="C,H,W of x[1,C,H,W] (default 64,112,112; small ones check the script)")
    ap.add_argument("--model", action="append", default=[],
                    help="run only this model (repeatable; default: "
                    + ", ".join(m[0] for m in MODELS) + ")")
    ap.add_argument("--raw", default=None, help="write every result here (JSON lines)")
    ap.add_argument("--markdown", action="store_true", help="print a Markdown table")
    ap.add_argument("--keep", default=None,
                    help="build the models in this folder and keep it (default: a temporary "
                    "folder, removed at the end)")
    # Worker mode (the script runs itself once per round, model and thread count).
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--threads-one", type=int, default=1, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.rounds < 1 or args.time_rounds < 1:
        ap.error("--rounds and --time-rounds must be at least 1")
    if args.worker:
        return openvino_worker(args)
    known = [m[0] for m in MODELS]
    unknown = [n for n in args.model if n not in known]
    if unknown:
        ap.error(f"unknown model {unknown[0]} (known: {', '.join(known)})")
    models = [m for m in MODELS if not args.model or m[0] in args.model]
    try:
        thread_counts = [int(t) for t in args.threads.split(",")]
    except ValueError:
        ap.error(f"--threads '{args.threads}' is not a comma-separated list of integers")
    if min(thread_counts) < 1:
        ap.error("--threads: every count must be at least 1")
    bcast = os.path.abspath(args.bcast)
    if not os.access(bcast, os.X_OK):
        ap.error(f"no bcast binary at {bcast} (build it: cargo build --release -p bcast-cli)")

    import numpy as np
    import openvino as ov
    folder = args.keep or tempfile.mkdtemp(prefix="compare_ir_")
    if args.keep:
        os.makedirs(folder, exist_ok=True)
    c, h, w = args.size
    raw = [{"who": "meta", "cpu": cpu_model(), "openvino": ov.__version__,
            "numpy": np.__version__, "x": [1, c, h, w], "rounds": args.rounds,
            "time_rounds": args.time_rounds, "threads": thread_counts,
            "models": [m[0] for m in models]}]
    try:
        dirs = {}
        for name, dtype, hint in models:
            if args.keep and os.path.exists(os.path.join(folder, name)):
                shutil.rmtree(os.path.join(folder, name))
            dirs[name] = build(folder, name, dtype, hint, args.size)
            checks = bcast_matches_reference(bcast, dirs[name])
            raw.append({"who": "bcast", "model": name, "check": "out_dir", "reference": checks})
            if not all(c["equal"] for c in checks.values()):
                print(f"compare_ir: bcast ir's output differs from OpenVINO's reference on "
                      f"{name}: {checks}", file=sys.stderr)
                return 1
        seconds = {}  # (who, model, threads) -> [median seconds per run, one per round]
        ov_reference = {}  # (model, threads) -> the CPU plugin's checks (last round's)
        machine = None
        for r in range(args.rounds):
            for name, _, _ in models:
                d = dirs[name]
                for t in thread_counts:
                    got, _ = lines([sys.executable, os.path.abspath(__file__), "--worker", d,
                                    "--threads-one", str(t), "--time-rounds",
                                    str(args.time_rounds)], env=peer_env(t))
                    for line in got:
                        raw.append({"round": r, **line})
                        ov_reference[(name, t)] = line
                        if "skipped" not in line:
                            seconds.setdefault(("openvino", name, t), []).append(
                                line["seconds_per_run"])
                    got, _ = lines([bcast, "ir", os.path.join(d, "model.xml"), "--time",
                                    str(args.time_rounds), "--threads", str(t)]
                                   + input_args(d), env=peer_env(t))
                    for line in got:
                        raw.append({"who": "bcast", "round": r, **line})
                        machine = line.get("machine", machine)
                        seconds.setdefault((line["mode"], name, t), []).append(
                            line["seconds_per_run"])
            print(f"# round {r + 1} of {args.rounds} done", file=sys.stderr, flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)
    if args.raw:
        with open(args.raw, "w") as f:
            for d in raw:
                f.write(json.dumps(d) + "\n")

    head = (f"{machine or 'cpu: ' + cpu_model()}; openvino {ov.__version__.split('-')[0]}, numpy "
            f"{np.__version__}; x[1,{c},{h},{w}]; medians of {args.rounds} rounds of "
            f"processes (OpenVINO, then bcast), each the median of {args.time_rounds} timed "
            "rounds of at least 50 ms; µs per run; OV/bcast = OpenVINO CPU over bcast fused; "
            "= ref: bit-equal to OpenVINO's reference (layer-by-layer ConstantFolding; FakeQuantize: the node's evaluate)")
    print(("" if args.markdown else "# ") + head)
    cols = ["model", "threads", "bcast fused µs", "bcast layer-by-layer µs",
            "OpenVINO CPU µs", "OV/bcast", "bcast = ref", "OpenVINO CPU = ref"]
    if args.markdown:
        print("\n| " + " | ".join(cols) + " |")
        print("|" + "---|" * len(cols))
    else:
        print(" | ".join(cols))

    def med_us(key):
        v = seconds.get(key)
        return statistics.median(v) * 1e6 if v else None

    def said(check):
        if check.get("equal"):
            return "yes"
        if "differs" in check:
            return (f"no: {check['differs']} of {check['of']} differ, max "
                    f"{check['max_abs_diff']:.3g}")
        return "no: " + check.get("why", "?")

    for name, _, hint in models:
        for t in thread_counts:
            fused = med_us(("fused", name, t))
            unfused = med_us(("layer_by_layer", name, t))
            ov_us = med_us(("openvino", name, t))
            line = ov_reference.get((name, t), {})
            ov_ref = ("; ".join(said(v) for v in line.get("reference", {}).values())
                      or line.get("skipped", "-"))
            precision = line.get("compiled", {}).get("INFERENCE_PRECISION_HINT")
            if precision and precision.lower() != hint:
                ov_ref += f" (compiled for {precision})"
            row = [name, str(t)] + [f"{v:.1f}" if v else "-" for v in (fused, unfused, ov_us)]
            row += [f"{ov_us / fused:.2f}" if fused and ov_us else "-", "yes", ov_ref]
            print("| " + " | ".join(row) + " |" if args.markdown else " | ".join(row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
