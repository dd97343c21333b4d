#!/usr/bin/env python3
"""OpenVINO's reference implementation (ConstantFolding on Constant inputs) as a runtime:
`python3 openvino_reference_adapter.py {case} {out}`. How each case becomes a model: _openvino.py.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _openvino import adapter  # noqa: E402

if __name__ == "__main__":
    adapter("reference")
