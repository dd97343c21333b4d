#!/usr/bin/env python3
"""OpenVINO's CPU plugin (INFERENCE_PRECISION_HINT=f32) as a runtime:
`python3 openvino_cpu_adapter.py {case} {out}`. How each case becomes a model: _openvino.py.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _openvino import adapter  # noqa: E402

if __name__ == "__main__":
    adapter("cpu")
