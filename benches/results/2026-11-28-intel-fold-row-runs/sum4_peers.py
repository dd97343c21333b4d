#!/usr/bin/env python3
"""The bench's sum4_f32 (three [16,512,512] f32 and a [512] row) beside PyTorch, ONNX Runtime
and numpy on the same shapes, in interleaved rounds; GB/s of output, medians.

bcast: `bcast bench --json --group eltwise --case sum4_f32` (into a reused output, in its own
process). torch: `torch.add(a, b, out=o); o.add_(c); o.add_(d)` into a reused output.
numpy: the same with `np.add(..., out=o)`. ONNX Runtime: one Sum node of four inputs (it
allocates its output each run).

    python3 sum4_peers.py BCAST_BINARY THREADS ROUNDS
"""
import json, os, statistics, subprocess, sys, time

binary, threads, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
os.environ["OMP_NUM_THREADS"] = str(threads)
import numpy as np
import onnx
import onnxruntime as ort
import torch
from onnx import TensorProto, helper

torch.set_num_threads(threads)
rng = np.random.default_rng(0)
big = [rng.standard_normal((16, 512, 512), dtype=np.float32) for _ in range(3)]
row = rng.standard_normal(512, dtype=np.float32)
out = np.empty_like(big[0])
nbytes = out.nbytes
ta = [torch.from_numpy(x) for x in big]
tr, to = torch.from_numpy(row), torch.from_numpy(out.copy())

ins = [helper.make_tensor_value_info(n, TensorProto.FLOAT, s)
       for n, s in zip("abcd", [[16, 512, 512]] * 3 + [[512]])]
node = helper.make_node("Sum", list("abcd"), ["y"])
graph = helper.make_graph([node], "sum4", ins,
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [16, 512, 512])])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
so = ort.SessionOptions()
so.intra_op_num_threads = threads
sess = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
feeds = dict(zip("abcd", big + [row]))


def rate(f, reps=20):
    f()
    t = time.perf_counter()
    for _ in range(reps):
        f()
    return nbytes * reps / (time.perf_counter() - t) / 1e9


def torch_sum():
    torch.add(ta[0], ta[1], out=to)
    to.add_(ta[2])
    to.add_(tr)


def numpy_sum():
    np.add(big[0], big[1], out=out)
    np.add(out, big[2], out=out)
    np.add(out, row, out=out)


res = {k: [] for k in ["bcast", "torch", "onnxruntime", "numpy"]}
for _ in range(rounds):
    line = subprocess.run([binary, "bench", "--json", "--group", "eltwise", "--case", "sum4_f32",
                           "--threads", str(threads), "--budget-ms", "600"],
                          capture_output=True, text=True, check=True).stdout
    for l in line.splitlines():
        d = json.loads(l)
        if d.get("case") == "sum4_f32":
            res["bcast"].append(d["kernel_gbps"])
    res["torch"].append(rate(torch_sum))
    res["onnxruntime"].append(rate(lambda: sess.run(None, feeds)))
    res["numpy"].append(rate(numpy_sum))
med = {k: statistics.median(v) for k, v in res.items()}
best = max(v for k, v in med.items() if k != "bcast")
print(f"threads {threads}, {rounds} rounds, GB/s of output (medians): "
      + ", ".join(f"{k} {v:.2f}" for k, v in med.items())
      + f"; bcast / best peer {med['bcast'] / best:.2f}")
