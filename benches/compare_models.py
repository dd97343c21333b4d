#!/usr/bin/env python3
"""The nodes of real models (the `model` group of `bcast bench`: BERT-base, GPT-2, a
LLaMA-7B-style decoder, ResNet-50, MobileNetV2, ViT-B/16, YOLOv8n, Whisper-tiny) through bcast
beside OpenVINO's CPU plugin, ONNX Runtime and PyTorch, in interleaved rounds, in microseconds
per call.

The cases are `bcast bench --group model --list` (the one table of the shapes, in
crates/bcast-cli/src/bench_model.rs): every runner here builds the same node from it. Each
round runs, at every thread count, one process per runner (their order turns by one each
round, so no runner always follows the same one):

- bcast (Rust): `bcast bench --group model --json --threads N`: `PreparedOp::run` (the node
  prepared once, as OpenVINO and ONNX Runtime compile theirs before the node times read here)
  into one reused, written output; the median over
  batches of at least 2 ms, a case's batches one after another (as every peer here times
  its node: cases taking turns batch by batch leave a large node's operands cold);
- bcast_c: benches/model_bench_c.c (built here with the C compiler against
  target/release/libbcast_c.so): the one-shot `bcast_binary` / `bcast_select` with
  `threads = N`, planning included, timed the same way;
- openvino: a one-node model (every operand a Parameter, the node built with opset13),
  compiled on "CPU" with PERF_COUNT YES, INFERENCE_NUM_THREADS N, PERFORMANCE_HINT LATENCY and
  the case's type as INFERENCE_PRECISION_HINT; the node's `real_time` from
  `get_profiling_info()` after each `infer()`, median over the infers;
- ort: a one-node ONNX model (opset 18), `intra_op_num_threads` N, IOBinding into a
  preallocated output, `enable_profiling`; the node's `kernel_time` events of the profile
  JSON, median over the runs;
- torch: `torch.add(a, b, out=o)` (sub, mul, div, minimum; `torch.where(c, x, y, out=o)`)
  after `torch.set_num_threads(N)`, under `inference_mode`; the median over batches of at
  least 2 ms of seconds per call, from Python (a call's Python overhead included).

Each peer's output is compared, bit for bit, with the op's formula computed by numpy on the
same operands. A peer that computes something else (OpenVINO's CPU plugin divides f32 as
a * (1/b): 21,989 of the ResNet input divide's 150,528 outputs differ from a / b) is shown with a *
and is not counted as the best peer: bcast's results are the formula's.

Every peer process also gets OMP_NUM_THREADS and MKL_NUM_THREADS = N. OpenVINO's and ONNX
Runtime's profilers count whole microseconds, cutting, not rounding (RESOLUTION_US: an
OpenVINO reading r means the node's mean call lies in [r, r + 2) microseconds, an ONNX Runtime
one in [r, r + 1)), so nodes of a few microseconds read coarsely: where the best peer's
reading leaves its time uncertain by more than 5%, the ratio is shown as the range the
readings allow ("0.80-1.20"), and a case counts as a lead only where the whole range is at
least 1, as behind only where it is wholly below (a tie at the counters' resolution
otherwise). A reading of 0 shows as "<1". A runner's call overhead outside the node (Python, the infer request, layers
OpenVINO adds beside the node, such as a Convert of Select's condition: in the raw lines) is
not in their figures, and is in bcast's and torch's.

The table gives, per case and thread count, the median over the rounds of each runner's
microseconds per call, the best peer, and bcast's ratio to it (best peer's time / bcast's
time: above 1, bcast is faster), for the Rust and the C calls. The first line names the CPU
and the versions. A peer that is not installed is skipped with a word.

    python3 benches/compare_models.py [--threads 1,2,all] [--rounds 3] [--budget-ms 300]
        [--case NAME ...] [--peers openvino,ort,torch] [--raw FILE] [--markdown]
        [--bcast target/release/bcast]

Build first: `cargo build --release -p bcast-cli -p bcast-c` (the script compiles the C
harness into target/release/model_bench_c when it is missing or older than its sources).
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from compare import cpu_model, have  # noqa: E402

PEERS = ["openvino", "ort", "torch"]
# How far below a node's mean time per call a profiler's reading can lie, in microseconds.
# OpenVINO's CPU plugin (src/plugins/intel_cpu/src/perf_count.h) adds each call's time cut to
# whole microseconds (duration_cast truncates) to a total, and `real_time` is that total over
# the calls so far, cut again (integer division): up to 2 below. ONNX Runtime's profiler cuts
# each call's `dur` to whole microseconds: up to 1 below. torch is timed by the clock here.
RESOLUTION_US = {"openvino": 2.0, "ort": 1.0, "torch": 0.0}
# The least time of a timed batch, as bench_model.rs's BATCH_SECONDS.
BATCH_SECONDS = 2e-3
# Each op by its bcast name: ONNX's op type, the OpenVINO opset function and torch's function
# (the node, not its shapes: those come from `bcast bench --list`).
ONNX_OP = {"add": "Add", "subtract": "Sub", "multiply": "Mul", "divide": "Div",
           "minimum": "Min", "maximum": "Max", "select": "Where"}
OV_OP = {"add": "add", "subtract": "subtract", "multiply": "multiply", "divide": "divide",
         "minimum": "minimum", "maximum": "maximum", "select": "select"}
TORCH_OP = {"add": "add", "subtract": "sub", "multiply": "mul", "divide": "div",
            "minimum": "minimum", "maximum": "maximum", "select": "where"}
NUMPY_DTYPE = {"f32": "float32", "f16": "float16", "f64": "float64", "boolean": "bool"}


def operand_dtypes(case):
    """Each operand's type name (Select's condition is boolean)."""
    return ["boolean" if case["op"] == "select" and j == 0 else case["dtype"]
            for j in range(len(case["shapes"]))]


def operands(np, case):
    """The operands as bench_model.rs makes them: ((i*7 + salt) % 251 + 1) * 0.5, salt 3j;
    booleans alternate, so that Select takes both branches."""
    out = []
    for j, (shape, dt) in enumerate(zip(case["shapes"], operand_dtypes(case))):
        n = 1
        for d in shape:
            n *= d
        v = (np.arange(n, dtype=np.int64) * 7 + 3 * j) % 251 + 1
        if dt == "boolean":
            a = v % 2 == 0
        else:
            a = (v.astype(np.float32) * 0.5).astype(NUMPY_DTYPE[dt])
        out.append(np.ascontiguousarray(a.reshape(shape)))
    return out


def median_us_per_call(f, budget):
    """Median microseconds per call over batches of at least BATCH_SECONDS, for about
    `budget` seconds (at least 5 batches)."""
    f()
    start = time.perf_counter()
    f()
    one = max(time.perf_counter() - start, 1e-9)
    batch = max(1, int(BATCH_SECONDS / one + 0.999))
    samples = []
    end = time.perf_counter() + budget
    while len(samples) < 5 or (time.perf_counter() < end and len(samples) < 201):
        start = time.perf_counter()
        for _ in range(batch):
            f()
        samples.append((time.perf_counter() - start) / batch)
    return statistics.median(samples) * 1e6, batch, len(samples)


def repeat_for(f, budget, least=50, most=5000):
    """Calls `f` for about `budget` seconds, at least `least` and at most `most` times."""
    end = time.perf_counter() + budget
    n = 0
    while n < least or (time.perf_counter() < end and n < most):
        f()
        n += 1
    return n


def first_line(e):
    lines = [l for l in str(e).splitlines() if l.strip()]
    return (lines[-1] if lines else type(e).__name__)[:200]


# The op's formula in numpy, in the operands' type (numpy computes an f16 op in f32 and rounds
# once, which is the correctly rounded f16 result for these ops): what every peer's output is
# compared with, bit for bit.
NUMPY_OP = {"add": "add", "subtract": "subtract", "multiply": "multiply", "divide": "divide",
            "minimum": "minimum", "maximum": "maximum", "select": "where"}


def exactness(np, case, arrays, out):
    """How the peer's output `out` compares with the spec's formula on the same operands:
    {"exact": True} or {"exact": False, "mismatches": n, "of": size}."""
    want = getattr(np, NUMPY_OP[case["op"]])(*arrays)
    got = np.asarray(out).reshape(want.shape)
    if got.dtype != want.dtype:
        return {"exact": False, "mismatches": int(want.size), "of": int(want.size),
                "why": f"output type {got.dtype}, not {want.dtype}"}
    same = (got == want) | (np.isnan(got) & np.isnan(want)) if want.dtype.kind == "f" \
        else got == want
    bad = int(want.size - np.count_nonzero(same))
    return {"exact": True} if bad == 0 else {"exact": False, "mismatches": bad,
                                             "of": int(want.size)}


def openvino_worker(args, cases, emit):
    import numpy as np
    import openvino as ov
    try:
        from openvino import opset13 as ops
    except ImportError:
        from openvino.runtime import opset13 as ops
    version = ov.__version__
    core = ov.Core()
    for case in cases:
        arrays = operands(np, case)
        params = [ops.parameter(list(a.shape), ov.Type(a.dtype), name=f"in{j}")
                  for j, a in enumerate(arrays)]
        f = getattr(ops, OV_OP[case["op"]])
        node = f(*params, auto_broadcast=case["rule"], name="node")
        model = ov.Model([node], params, case["case"])
        hint = "f16" if case["dtype"] == "f16" else "f32"
        try:
            compiled = core.compile_model(model, "CPU", {
                "PERF_COUNT": "YES",
                "INFERENCE_NUM_THREADS": args.threads_one,
                "INFERENCE_PRECISION_HINT": hint,
                "PERFORMANCE_HINT": "LATENCY",
            })
        except Exception as e:  # noqa: BLE001 - a plugin that refuses the node is reported
            emit(case, skipped="compile_model fails: " + first_line(e))
            continue
        request = compiled.create_infer_request()
        for j, a in enumerate(arrays):
            request.set_input_tensor(j, ov.Tensor(a))
        for _ in range(3):
            request.infer()
        nodes = [p for p in request.get_profiling_info() if p.node_name == "node"]
        if not nodes:
            # The plugin renamed the node: take the executed layer that is neither an input,
            # an output nor a conversion.
            nodes = [p for p in request.get_profiling_info()
                     if p.node_type not in ("Parameter", "Input", "Result", "Output",
                                            "Reorder", "Convert")
                     and str(p.status).endswith("EXECUTED")]
        if len(nodes) != 1:
            emit(case, skipped="cannot find the node among the profiled layers: "
                 + ", ".join(f"{p.node_name}/{p.node_type}" for p in request.get_profiling_info()))
            continue
        name = nodes[0].node_name
        times, others_times = [], []

        def run():
            request.infer()
            others = 0.0
            for p in request.get_profiling_info():
                if p.node_name == name:
                    times.append(p.real_time.total_seconds() * 1e6)
                else:
                    others += p.real_time.total_seconds() * 1e6
            others_times.append(others)

        start = time.perf_counter()
        runs = repeat_for(run, args.budget)
        wall = (time.perf_counter() - start) / runs
        others = [f"{p.node_name}/{p.node_type}/{p.exec_type}"
                  for p in request.get_profiling_info() if p.node_name != name
                  and p.real_time.total_seconds() > 0]
        checked = exactness(np, case, arrays, request.get_output_tensor(0).data)
        precision = compiled.get_property("INFERENCE_PRECISION_HINT")
        precision = precision.to_string() if hasattr(precision, "to_string") else str(precision)
        # Layers beside the node (a Convert of a boolean condition, say) are not the node's
        # time; they are kept in the raw lines.
        emit(case, us_per_call=statistics.median(times), mean_us=statistics.fmean(times),
             runs=runs, infer_us=wall * 1e6, exec_type=nodes[0].exec_type,
             node_type=nodes[0].node_type, other_layers=others,
             other_layers_us=statistics.median(others_times), precision=precision,
             version=version, **checked)


def ort_worker(args, cases, emit):
    import numpy as np
    import onnxruntime as ort
    from onnx import TensorProto, helper
    elem = {"f32": TensorProto.FLOAT, "f16": TensorProto.FLOAT16, "f64": TensorProto.DOUBLE,
            "boolean": TensorProto.BOOL}
    version = ort.__version__
    folder = tempfile.mkdtemp(prefix="compare_models_ort_")
    try:
        for case in cases:
            arrays = operands(np, case)
            names = [f"in{j}" for j in range(len(arrays))]
            ins = [helper.make_tensor_value_info(n, elem[dt], list(a.shape))
                   for n, dt, a in zip(names, operand_dtypes(case), arrays)]
            out = np.empty(case["out_shape"], NUMPY_DTYPE[case["out_dtype"]])
            y = helper.make_tensor_value_info("y", elem[case["out_dtype"]], case["out_shape"])
            graph = helper.make_graph(
                [helper.make_node(ONNX_OP[case["op"]], names, ["y"], name="node")],
                case["case"], ins, [y])
            model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
            so = ort.SessionOptions()
            so.intra_op_num_threads = args.threads_one
            so.inter_op_num_threads = 1
            so.enable_profiling = True
            so.profile_file_prefix = os.path.join(folder, case["case"])
            try:
                sess = ort.InferenceSession(model.SerializeToString(), so,
                                            providers=["CPUExecutionProvider"])
            except Exception as e:  # noqa: BLE001 - an op/type pair ORT does not implement
                emit(case, skipped="InferenceSession fails: " + first_line(e))
                continue
            io = sess.io_binding()
            for n, a in zip(names, arrays):
                io.bind_cpu_input(n, a)
            io.bind_output("y", "cpu", 0, out.dtype, list(out.shape), out.ctypes.data)
            warm = 3
            for _ in range(warm):
                sess.run_with_iobinding(io)
            start = time.perf_counter()
            runs = repeat_for(lambda: sess.run_with_iobinding(io), args.budget)
            wall = (time.perf_counter() - start) / runs
            profile = sess.end_profiling()
            with open(profile) as f:
                events = json.load(f)
            os.remove(profile)
            times = [e["dur"] for e in events
                     if e.get("cat") == "Node" and e.get("name") == "node_kernel_time"]
            # The profile holds every run, the untimed warm-up ones first.
            times = times[warm:]
            if not times:
                emit(case, skipped="no node_kernel_time event in the profile")
                continue
            provider = next((e.get("args", {}).get("provider") for e in events
                             if e.get("name") == "node_kernel_time"), None)
            emit(case, us_per_call=statistics.median(times), mean_us=statistics.fmean(times),
                 runs=len(times), run_us=wall * 1e6, provider=provider, version=version,
                 **exactness(np, case, arrays, out))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def torch_worker(args, cases, emit):
    import numpy as np
    import torch
    torch.set_num_threads(args.threads_one)
    version = torch.__version__
    for case in cases:
        arrays = operands(np, case)
        tensors = [torch.from_numpy(a) for a in arrays]
        dt = {"f32": torch.float32, "f16": torch.float16, "f64": torch.float64,
              "boolean": torch.bool}[case["out_dtype"]]
        out = torch.empty(case["out_shape"], dtype=dt)
        f = getattr(torch, TORCH_OP[case["op"]])
        try:
            with torch.inference_mode():
                f(*tensors, out=out)
                us, batch, batches = median_us_per_call(lambda: f(*tensors, out=out),
                                                        args.budget)
        except Exception as e:  # noqa: BLE001 - an op/type pair torch does not implement
            emit(case, skipped="torch fails: " + first_line(e))
            continue
        emit(case, us_per_call=us, batch=batch, batches=batches, version=version,
             **exactness(np, case, arrays, out.numpy()))


def peer(args):
    """Worker mode: one peer at one thread count, one JSON line per case."""
    cases = list_cases(args)
    who = args.peer

    def emit(case, **kw):
        print(json.dumps({"who": who, "case": case["case"], "threads": args.threads_one, **kw}),
              flush=True)

    need = {"openvino": ["openvino", "numpy"], "ort": ["onnxruntime", "onnx", "numpy"],
            "torch": ["torch", "numpy"]}[who]
    missing = [m for m in need if not have(m)]
    if missing:
        for case in cases:
            emit(case, skipped=f"{missing[0]} is not installed")
        return 0
    {"openvino": openvino_worker, "ort": ort_worker, "torch": torch_worker}[who](
        args, cases, emit)
    return 0


def run_lines(cmd, env=None, stdin=None):
    """The JSON lines a command prints; raises with its stderr when it fails."""
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, input=stdin)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {p.stderr.strip()[-800:]}")
    return [json.loads(l) for l in p.stdout.splitlines() if l.strip().startswith("{")]


def list_cases(args):
    """`bcast bench --group model --list`: every case, or those --case names (in the table's
    order)."""
    cases = run_lines([args.bcast, "bench", "--group", "model", "--list"])
    return [c for c in cases if not args.case or c["case"] in args.case]


def c_case_line(case):
    shapes = [",".join(str(d) for d in s) if s else "-" for s in case["shapes"]]
    return " ".join([case["case"], str(case["c_code"]), case["dtype"], case["rule"],
                     str(case["axis"]), str(len(shapes))] + shapes)


def build_c_harness(args):
    """The C harness's path, compiled when missing or older than its sources; or None and
    why."""
    lib_dir = os.path.dirname(os.path.abspath(args.bcast))
    lib = os.path.join(lib_dir, "libbcast_c.so")
    src = os.path.join(HERE, "model_bench_c.c")
    header = os.path.join(ROOT, "bindings", "c", "include", "bcast.h")
    exe = os.path.join(lib_dir, "model_bench_c")
    if not os.path.exists(lib):
        return None, f"{lib} is missing (cargo build --release -p bcast-c)"
    # The library in target/ asks to be loaded by its SONAME, a name only `make install`
    # makes: a folder of the harness's own holds that name, linked to target/'s library.
    p = subprocess.run(["readelf", "-d", lib], capture_output=True, text=True)
    soname = next((l.split("[", 1)[1].split("]", 1)[0] for l in p.stdout.splitlines()
                   if "(SONAME)" in l), None) if p.returncode == 0 else None
    if soname is None:
        return None, f"cannot read the SONAME of {lib} (readelf -d)"
    links = exe + ".lib"
    os.makedirs(links, exist_ok=True)
    link = os.path.join(links, soname)
    if os.path.realpath(link) != os.path.realpath(lib):
        if os.path.lexists(link):
            os.remove(link)
        os.symlink(lib, link)
    newest = max(os.path.getmtime(p) for p in (lib, src, header, __file__))
    if os.path.exists(exe) and os.path.getmtime(exe) >= newest:
        return exe, None
    cc = os.environ.get("CC", "cc")
    if not shutil.which(cc):
        return None, f"no C compiler ({cc})"
    cmd = [cc, "-O2", "-std=c11", "-Wall", "-o", exe, src, "-I", os.path.dirname(header),
           "-L", lib_dir, "-lbcast_c", f"-Wl,-rpath,{links}"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        return None, f"{' '.join(cmd)} failed: {p.stderr.strip()[-500:]}"
    return exe, None


def peer_env(threads):
    env = dict(os.environ)
    for k in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        env[k] = str(threads)
    return env


def thread_counts(text):
    cores = os.cpu_count() or 1
    counts = []
    for t in text.split(","):
        n = cores if t.strip() == "all" else int(t)
        if n < 1:
            raise ValueError("a thread count must be at least 1")
        if n not in counts:
            counts.append(n)
    return counts


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--threads", default="1,2,all",
                    help="comma list of thread counts; 'all' is every core (default 1,2,all)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--bcast", default=os.path.join(ROOT, "target", "release", "bcast"))
    ap.add_argument("--budget-ms", type=int, default=300,
                    help="timing per case, runner and thread count in a round")
    ap.add_argument("--case", action="append", default=[], help="only this case (repeatable)")
    ap.add_argument("--peers", default=",".join(PEERS),
                    help="which peers to run (default: all of " + ",".join(PEERS) + ")")
    ap.add_argument("--raw", default=None, help="write every measurement here (JSON lines)")
    ap.add_argument("--markdown", action="store_true", help="print a Markdown table")
    # Worker mode (the script runs itself once per peer and thread count).
    ap.add_argument("--peer", choices=PEERS, help=argparse.SUPPRESS)
    ap.add_argument("--threads-one", type=int, default=1, help=argparse.SUPPRESS)
    args = ap.parse_args()
    args.budget = args.budget_ms / 1000
    if args.peer:
        return peer(args)
    if not os.path.exists(args.bcast):
        print(f"compare_models: {args.bcast} is missing "
              "(cargo build --release -p bcast-cli -p bcast-c)", file=sys.stderr)
        return 2
    try:
        cases = list_cases(args)
    except RuntimeError as e:
        print(f"compare_models: {e}", file=sys.stderr)
        return 2
    names = [c["case"] for c in cases]
    unknown = [n for n in args.case if n not in names]
    if unknown or not cases:
        known = ", ".join(c["case"] for c in run_lines(
            [args.bcast, "bench", "--group", "model", "--list"]))
        print(f"compare_models: unknown case {unknown[0] if unknown else ''} (known: {known})",
              file=sys.stderr)
        return 2
    counts = thread_counts(args.threads)
    case_args = [a for n in names for a in ("--case", n)]
    peers = [p for p in args.peers.split(",") if p]
    for p in peers:
        if p not in PEERS:
            print(f"compare_models: unknown peer {p} (known: {', '.join(PEERS)})",
                  file=sys.stderr)
            return 2
    need = {"openvino": ["openvino"], "ort": ["onnxruntime", "onnx"], "torch": ["torch"]}
    words = {"openvino": "OpenVINO", "ort": "ONNX Runtime", "torch": "PyTorch"}
    for p in list(peers):
        missing = [m for m in need[p] + ["numpy"] if not have(m)]
        if missing:
            print(f"compare_models: {missing[0]} is not installed here; {words[p]} skipped",
                  file=sys.stderr)
            peers.remove(p)
    c_exe, why = build_c_harness(args)
    if c_exe is None:
        print(f"compare_models: bcast's C harness skipped: {why}", file=sys.stderr)
    c_input = "".join(c_case_line(c) + "\n" for c in cases)

    def run_bcast(t):
        return run_lines([args.bcast, "bench", "--group", "model", "--json", "--threads",
                          str(t), "--budget-ms", str(args.budget_ms)] + case_args)

    def run_c(t):
        return run_lines([c_exe, "--threads", str(t), "--budget-ms", str(args.budget_ms)],
                         stdin=c_input)

    def run_peer(p):
        return lambda t: run_lines(
            [sys.executable, os.path.abspath(__file__), "--peer", p, "--threads-one", str(t),
             "--budget-ms", str(args.budget_ms), "--bcast", args.bcast] + case_args,
            env=peer_env(t))

    runners = [("bcast", run_bcast)]
    if c_exe:
        runners.append(("bcast_c", run_c))
    runners += [(p, run_peer(p)) for p in peers]
    us = {}  # (who, case, threads) -> [us per call, one per round]
    skipped = {}  # (who, case) -> reason
    inexact = {}  # (who, case) -> (mismatches, of): a peer whose output is not the formula's
    raw = []
    machine, versions = None, {}
    for r in range(args.rounds):
        for t in counts:
            turn = r % len(runners)
            for who, run in runners[turn:] + runners[:turn]:
                for d in run(t):
                    if "machine" in d:
                        machine = d["machine"]
                        continue
                    d.setdefault("who", who)
                    raw.append({"round": r, **d})
                    if "skipped" in d or "error" in d:
                        skipped[(who, d["case"])] = d.get("skipped") or d.get("error")
                        continue
                    if d.get("exact") is False:
                        inexact[(who, d["case"])] = (d.get("mismatches"), d.get("of"))
                    if d.get("version"):
                        versions[who] = d["version"]
                    us.setdefault((who, d["case"], d["threads"]), []).append(d["us_per_call"])
        print(f"# round {r + 1} of {args.rounds} done", file=sys.stderr, flush=True)
    if args.raw:
        with open(args.raw, "w") as f:
            for d in raw:
                f.write(json.dumps(d) + "\n")
    for (who, case), reason in sorted(skipped.items()):
        print(f"compare_models: {who} skipped {case}: {reason}", file=sys.stderr)
    for (who, case), (bad, of) in sorted(inexact.items()):
        print(f"compare_models: {who}'s {case} is not the op's formula: {bad} of {of} outputs "
              "differ from numpy's (shown with *, not counted as the best peer)", file=sys.stderr)
    who_all = [w for w, _ in runners]
    shown = {"bcast_c": "bcast C"}
    version_text = ", ".join(
        f"{k} {str(v).split('-')[0]}" for k, v in versions.items() if k not in ("bcast", "bcast_c"))
    if "bcast_c" in versions:
        version_text = f"bcast {versions['bcast_c']}" + (", " + version_text if version_text else "")
    # bcast's machine line names the CPU as /proc/cpuinfo does, and its strategies.
    head = (f"{machine or 'cpu: ' + cpu_model()}; {version_text}; {os.cpu_count()} cores; "
            f"medians of {args.rounds} interleaved rounds, microseconds per call; "
            "ratio = best peer's time / bcast's (above 1: bcast faster); "
            "* = the peer's output is not the op's formula bit for bit (not a best peer)")
    print(("" if args.markdown else "# ") + head)
    cols = (["case", "threads"] + [shown.get(w, w) for w in who_all]
            + ["best peer", "ratio"] + (["ratio C"] if c_exe else []))
    if args.markdown:
        print("\n| " + " | ".join(cols) + " |")
        print("|" + "---|" * len(cols))
    else:
        widths = [34, 7] + [10] * (len(cols) - 2)
        print(" ".join(f"{c:>{w}}" for c, w in zip(cols, widths)))

    def med(w, name, t):
        v = us.get((w, name, t))
        return statistics.median(v) if v else None

    def cell(v):
        # The profilers count whole microseconds: a median of 0 is a node under one.
        return "-" if v is None else "<1" if v == 0 else f"{v:.2f}"

    def ratio_range(peer_times, mine):
        """bcast's ratio to the best peer as the range the peers' readings allow: the least
        reading over `mine`, and the least upper end of a reading (RESOLUTION_US) over it."""
        lo = min(v for v, _ in peer_times) / mine
        hi = min(v + RESOLUTION_US[p] for v, p in peer_times) / mine
        return lo, hi

    tally = {}  # (runner, threads) -> [leads, ties at the counters' resolution, behind, ratios]

    for name in names:
        for t in counts:
            m = {w: med(w, name, t) for w in who_all}
            cells = [cell(m[w]) + ("*" if (w, name) in inexact else "") for w in who_all]
            peer_times = [(m[p], p) for p in peers
                          if m[p] is not None and (p, name) not in inexact]
            best = min(peer_times) if peer_times else None
            row = [name, str(t)] + cells + [best[1] if best else "-"]
            for w in ["bcast"] + (["bcast_c"] if c_exe else []):
                if not best or not m[w]:
                    row.append("-")
                    continue
                lo, hi = ratio_range(peer_times, m[w])
                t_tally = tally.setdefault((w, t), [0, 0, 0, []])
                t_tally[0 if lo >= 1 else 2 if hi < 1 else 1] += 1
                t_tally[3].append((lo + hi) / 2)
                if best[0] == 0:
                    # Under one microsecond: the ratio is below what the counter's step gives.
                    row.append(f"<{hi:.2f}")
                elif hi > lo * 1.05:
                    row.append(f"{lo:.2f}-{hi:.2f}")
                else:
                    row.append(f"{lo:.2f}")
            if args.markdown:
                print("| " + " | ".join(row) + " |")
            else:
                print(" ".join(f"{c:>{w}}" for c, w in zip(row, widths)))
    print()
    for (w, t), (leads, ties, behind, ratios) in tally.items():
        print(f"{shown.get(w, w)} at {t} thread{'s' if t > 1 else ''}: at or above the best peer "
              f"on {leads} of {leads + ties + behind} cases, below on {behind}, within the "
              f"counters' resolution on {ties}; median ratio {statistics.median(ratios):.2f} "
              "(a range's middle)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
