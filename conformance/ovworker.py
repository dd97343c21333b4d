#!/usr/bin/env python3
"""OpenVINO element-wise oracle, run in a worker process (see generate_eltwise.py).

Three ways to compute one element-wise node on numpy arrays:

- "ref": the node's inputs are Constants; openvino.passes.ConstantFolding replaces it with a
  Constant computed by OpenVINO's reference implementation (the op's `evaluate`). When the
  reference has no evaluate for the op/type pair the node stays in the graph: "unfolded".
- "eval": the node's own `evaluate` called directly (the same reference code, for ops that
  ConstantFolding skips on purpose, such as FakeQuantize).
- "cpu": the inputs are Parameters; the model is compiled for the CPU plugin with
  INFERENCE_PRECISION_HINT=f32 and run.

Nodes are built with openvino.utils.node_factory.NodeFactory("opset13") so that every
attribute can be set, including the PDPD axis ("auto_broadcast.auto_broadcast_axis"), which
the opset builders do not take, and Divide's "m_pythondiv". A request may name another opset
("opset": "opset15" for BitwiseLeftShift / BitwiseRightShift).

Protocol: length-prefixed pickles on stdin/stdout; OpenVINO's own prints go to stderr.
Answers: ("ok", array), ("unfolded", msg), ("rejected", msg); the parent turns a dead or hung
worker into ("crashed", signal name).
"""

import os
import pickle
import struct
import sys

import numpy as np


def _last_line(e):
    lines = [ln.strip() for ln in str(e).splitlines() if ln.strip()]
    return lines[-1][:300] if lines else type(e).__name__


def serve():
    msg_out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    msg_in = sys.stdin.buffer
    import openvino as ov
    import openvino.opset13 as ops
    import openvino.passes as ovp
    from openvino.utils.node_factory import NodeFactory

    factories = {}
    core = ov.Core()

    def ov_type(a):
        if a.dtype == np.bool_:
            return ov.Type.boolean
        if a.dtype.kind == "U":
            return ov.Type.string
        return ov.Type(a.dtype)

    def handle(req):
        kind, op, attrs, arrays = req["kind"], req["op"], req["attrs"], req["arrays"]
        opset = req.get("opset", "opset13")
        if opset not in factories:
            factories[opset] = NodeFactory(opset)
        factory = factories[opset]
        if kind in ("ref", "eval"):
            srcs = [ops.constant(a) if a.dtype.kind != "U" else ops.constant(a, ov.Type.string)
                    for a in arrays]
        else:
            srcs = [ops.parameter(list(a.shape), ov_type(a), name=f"in{i}")
                    for i, a in enumerate(arrays)]
        try:
            node = factory.create(op, [s.output(0) for s in srcs], attrs)
        except Exception as e:  # noqa: BLE001
            return ("rejected", "build: " + _last_line(e))
        if kind == "eval":
            out = ov.Tensor(node.get_output_element_type(0), node.get_output_shape(0))
            if not node.evaluate([out], [ov.Tensor(np.ascontiguousarray(a)) for a in arrays]):
                return ("unfolded", f"{op} has no evaluate for these types")
            return ("ok", np.array(out.data).reshape(tuple(node.get_output_shape(0))).copy())
        if kind == "ref":
            model = ov.Model([node], [])
            pm = ovp.Manager()
            pm.register_pass(ovp.ConstantFolding())
            try:
                pm.run_passes(model)
            except Exception as e:  # noqa: BLE001
                return ("rejected", "fold: " + _last_line(e))
            res = model.get_results()[0].input_value(0).get_node()
            if res.get_type_name() != "Constant":
                return ("unfolded", f"{res.get_type_name()} left unfolded")
            out = res.get_data()
            if res.get_element_type() == ov.Type.string:
                out = np.array(res.get_value_strings() if hasattr(res, "get_value_strings")
                               else out, dtype=str).reshape(res.get_output_shape(0))
            return ("ok", np.array(out).copy())
        model = ov.Model([node], srcs)
        try:
            compiled = core.compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
            req_ = compiled.create_infer_request()
            for i, a in enumerate(arrays):
                if a.dtype.kind == "U":
                    req_.set_input_tensor(i, ov.Tensor(a))
                else:
                    req_.set_input_tensor(i, ov.Tensor(np.array(a, order="C", copy=True)))
            req_.infer()
            t = req_.get_output_tensor(0)
            if t.element_type == ov.Type.string:
                out = np.array(t.str_data)
            else:
                out = t.data.copy()
            return ("ok", np.array(out))
        except Exception as e:  # noqa: BLE001
            return ("rejected", "cpu: " + _last_line(e))

    while True:
        head = msg_in.read(8)
        if len(head) < 8:
            return
        req = pickle.loads(msg_in.read(struct.unpack("<Q", head)[0]))
        try:
            resp = handle(req)
        except Exception as e:  # noqa: BLE001
            resp = ("rejected", "worker: " + _last_line(e))
        blob = pickle.dumps(resp)
        msg_out.write(struct.pack("<Q", len(blob)) + blob)
        msg_out.flush()


class Worker:
    """Runs OpenVINO calls in a worker process; a crash or a hang is an answer. `script` names
    another worker speaking the same protocol (conformance/paddleworker.py)."""

    TIMEOUT_S = 30

    def __init__(self, script=None):
        self.script = script or os.path.abspath(__file__)
        self.proc = None
        self.calls = 0
        self.crashes = 0

    def _start(self):
        import subprocess
        self.proc = subprocess.Popen([sys.executable, self.script],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL)

    def call(self, kind, op, arrays, attrs, opset="opset13"):
        import select
        import signal
        self.calls += 1
        if self.proc is None or self.proc.poll() is not None:
            self._start()
        blob = pickle.dumps({"kind": kind, "op": op, "arrays": arrays, "attrs": attrs,
                             "opset": opset})
        try:
            self.proc.stdin.write(struct.pack("<Q", len(blob)) + blob)
            self.proc.stdin.flush()
            ready, _, _ = select.select([self.proc.stdout], [], [], self.TIMEOUT_S)
            if not ready:
                self.proc.kill()
                self.proc.wait()
                self.proc = None
                self.crashes += 1
                return ("crashed", f"hung, killed after {self.TIMEOUT_S} s")
            head = self.proc.stdout.read(8)
            if len(head) == 8:
                return pickle.loads(self.proc.stdout.read(struct.unpack("<Q", head)[0]))
        except BrokenPipeError:
            pass
        code = self.proc.wait()
        self.proc = None
        self.crashes += 1
        name = signal.Signals(-code).name if code < 0 else f"exit code {code}"
        return ("crashed", name)

    def close(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait()


if __name__ == "__main__":
    serve()
