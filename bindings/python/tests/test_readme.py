"""README.md's Python blocks run as written, in order, in one namespace (a later block uses the
imports and arrays of an earlier one, as a reader pasting them into one session would). Each
block checks its own results with `assert`; a block that raises fails the test, naming its
README line."""

import pathlib
import re

README = pathlib.Path(__file__).resolve().parents[3] / "README.md"


def python_blocks():
    """(README line of the opening fence, code) for every ```python block."""
    text = README.read_text(encoding="utf-8")
    blocks = []
    for m in re.finditer(r"^```python\n(.*?)^```$", text, flags=re.S | re.M):
        line = text.count("\n", 0, m.start()) + 1
        blocks.append((line, m.group(1)))
    return blocks


def test_the_readme_has_python_blocks():
    assert len(python_blocks()) >= 2


def test_python_blocks_run_in_order():
    namespace = {"__name__": "readme"}
    for line, code in python_blocks():
        compiled = compile(code, f"README.md:{line}", "exec")
        try:
            exec(compiled, namespace)
        except Exception as e:  # noqa: BLE001 - any failure of a block is the test's failure
            raise AssertionError(f"README.md:{line}: the Python block fails: {e!r}") from e
