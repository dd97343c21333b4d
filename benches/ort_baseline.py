#!/usr/bin/env python3
"""ONNX Runtime on the shapes of `bcast bench`: one single-node ONNX model per case (Expand for
the broadcast cases; Add, Mul, Sub, Max, Greater or Where for the element-wise ones), run with
IOBinding into a preallocated output, `intra_op_num_threads` = the thread count. One JSON line
per case and thread count, `ort_gbps` in GB/s of output, like `torch_baseline.py`:

    python3 benches/ort_baseline.py [--threads 1,2] [--budget 0.4] [--case NAME ...]

The case tables are `torch_baseline.py`'s (one table for both peers). Without onnxruntime,
onnx or numpy it says so and exits 0, so scripts can call it anywhere.
"""

import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_baseline import CASES, ELT_CASES, timed  # noqa: E402

ONNX_OP = {"add": "Add", "mul": "Mul", "sub": "Sub", "maximum": "Max", "gt": "Greater"}


def operand(np, shape, dtype, salt):
    n = 1
    for d in shape:
        n *= d
    v = (np.arange(max(n, 1)) * 7 + salt) % 251 + 1
    if dtype == np.bool_:
        return (v % 2 == 0)[:n].reshape(shape)
    return (v * (1 if dtype == np.uint8 else 0.5)).astype(dtype)[:n].reshape(shape)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", default=None, help="comma list of thread counts")
    ap.add_argument("--budget", type=float, default=0.4, help="seconds per case")
    ap.add_argument("--case", action="append", default=[])
    args = ap.parse_args()
    try:
        import numpy as np
        import onnx
        import onnxruntime as ort
        from onnx import TensorProto, helper
    except ImportError as e:
        print(f"ort_baseline: {e.name} is not installed here; nothing measured", file=sys.stderr)
        return 0
    cores = os.cpu_count() or 1
    threads = [int(t) for t in args.threads.split(",")] if args.threads else sorted(
        {1, cores} | {2**k for k in range(1, 8) if 2**k < cores})
    elem = {"float32": TensorProto.FLOAT, "float16": TensorProto.FLOAT16,
            "float64": TensorProto.DOUBLE, "uint8": TensorProto.UINT8, "bool": TensorProto.BOOL}

    def vi(name, dtype, shape):
        return helper.make_tensor_value_info(name, elem[dtype], shape)

    jobs = []  # (name, model bytes, {input: array}, out array)
    for name, data, target, dtype, _axis in CASES:
        if args.case and name not in args.case:
            continue
        x = operand(np, data, np.dtype(dtype), 0)
        shape = helper.make_tensor("shape", TensorProto.INT64, [len(target)], target)
        node = helper.make_node("Expand", ["x", "shape"], ["y"])
        graph = helper.make_graph([node], "case", [vi("x", dtype, data)], [vi("y", dtype, target)],
                                  initializer=[shape])
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
        jobs.append((name, m.SerializeToString(), {"x": x}, np.empty(target, np.dtype(dtype))))
    for name, op, a_shape, b_shape, dtype in ELT_CASES:
        if args.case and name not in args.case:
            continue
        out_shape = list(np.broadcast_shapes(tuple(a_shape), tuple(b_shape)))
        if op is None:
            feeds = {"c": operand(np, a_shape, np.bool_, 0), "a": operand(np, b_shape, np.dtype(dtype), 1),
                     "b": operand(np, [], np.dtype(dtype), 2)}
            node = helper.make_node("Where", ["c", "a", "b"], ["y"])
            ins = [vi("c", "bool", a_shape), vi("a", dtype, b_shape), vi("b", dtype, [])]
            out_dtype = dtype
        else:
            feeds = {"a": operand(np, a_shape, np.dtype(dtype), 0), "b": operand(np, b_shape, np.dtype(dtype), 3)}
            node = helper.make_node(ONNX_OP[op], ["a", "b"], ["y"])
            ins = [vi("a", dtype, a_shape), vi("b", dtype, b_shape)]
            out_dtype = "bool" if op == "gt" else dtype
        graph = helper.make_graph([node], "case", ins, [vi("y", out_dtype, out_shape)])
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
        np_out = np.bool_ if out_dtype == "bool" else np.dtype(out_dtype)
        jobs.append((name, m.SerializeToString(), feeds, np.empty(out_shape, np_out)))

    for name, blob, feeds, out in jobs:
        for t in threads:
            so = ort.SessionOptions()
            so.intra_op_num_threads = t
            so.inter_op_num_threads = 1
            try:
                sess = ort.InferenceSession(blob, so, providers=["CPUExecutionProvider"])
            except Exception as e:  # an op/type pair ORT does not implement
                print(f"ort_baseline: {name}: {str(e).splitlines()[0]}", file=sys.stderr)
                break
            io = sess.io_binding()
            for k, v in feeds.items():
                io.bind_cpu_input(k, v)
            io.bind_output("y", "cpu", 0, out.dtype, list(out.shape), out.ctypes.data)

            def kernel():
                sess.run_with_iobinding(io)
            batch, rounds = timed(kernel, args.budget)
            k = []
            for _ in range(rounds):
                s = time.perf_counter()
                for _ in range(batch):
                    kernel()
                k.append((time.perf_counter() - s) / batch)
            kt = statistics.median(k)
            print(json.dumps({"case": name, "bytes": out.nbytes, "threads": t,
                              "ort_gbps": out.nbytes / kt / 1e9, "ns_per_call": kt * 1e9,
                              "ort": ort.__version__}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
