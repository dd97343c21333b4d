#!/usr/bin/env python3
"""Paddle element-wise oracle, run in a worker process (see generate_paddle.py).

Paddle's legacy `elementwise_*` kernels take the PDPD `axis` attribute only in a static program
of the old IR: FLAGS_enable_pir_api=0 is set before `import paddle`, and the op is appended with
LayerHelper.append_op. Paddle aborts the process on some bad axes, so it runs here, behind
ovworker.Worker's protocol (length-prefixed pickles; a dead worker is an answer).

Answers: ("ok", array) or ("rejected", message).
"""

import os
import pickle
import struct
import sys

os.environ["FLAGS_enable_pir_api"] = "0"
os.environ.setdefault("GLOG_minloglevel", "3")


def serve():
    msg_out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    msg_in = sys.stdin.buffer
    import warnings
    warnings.simplefilter("ignore")
    import paddle
    from paddle.base.layer_helper import LayerHelper
    paddle.enable_static()

    def handle(req):
        op, (x, y), axis = req["op"], req["arrays"], req["attrs"]["axis"]
        main, startup = paddle.static.Program(), paddle.static.Program()
        try:
            with paddle.static.program_guard(main, startup):
                X = paddle.static.data("x", list(x.shape), str(x.dtype))
                Y = paddle.static.data("y", list(y.shape), str(y.dtype))
                helper = LayerHelper(op)
                out = helper.create_variable_for_type_inference(dtype=X.dtype)
                helper.append_op(type=op, inputs={"X": X, "Y": Y}, outputs={"Out": out},
                                 attrs={"axis": axis})
            exe = paddle.static.Executor(paddle.CPUPlace())
            exe.run(startup)
            (res,) = exe.run(main, feed={"x": x, "y": y}, fetch_list=[out])
        except Exception as e:  # noqa: BLE001
            lines = [ln.strip() for ln in str(e).splitlines() if ln.strip() and "----" not in ln]
            errs = [ln for ln in lines if "Error" in ln and not ln.startswith("[operator")]
            why = errs[0] if errs else (lines[-1] if lines else type(e).__name__)
            return ("rejected", why[:300])
        return ("ok", res.copy())

    while True:
        head = msg_in.read(8)
        if len(head) < 8:
            return
        req = pickle.loads(msg_in.read(struct.unpack("<Q", head)[0]))
        resp = handle(req)
        blob = pickle.dumps(resp)
        msg_out.write(struct.pack("<Q", len(blob)) + blob)
        msg_out.flush()


if __name__ == "__main__":
    serve()
