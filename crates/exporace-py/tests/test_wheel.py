"""The built wheel installs into a clean virtual environment, and the
README's Python example runs there."""

from __future__ import annotations

import os
import re
import subprocess
import venv

import pytest

from conftest import REPO


def readme_example() -> str:
    text = (REPO / "crates/exporace-py/README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert blocks, "the README has a Python example"
    return blocks[0]


def test_the_wheel_installs_and_the_readme_example_runs(tmp_path):
    wheels = os.environ.get("EXPORACE_WHEELS")
    if not wheels:
        pytest.skip("EXPORACE_WHEELS names no folder of built wheels (scripts/test-python.sh sets it)")
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    py = str(env_dir / "bin" / "python")
    # The built wheel and numpy's, from the folder alone: pip resolves the
    # wheel's one dependency without the network.
    subprocess.run([py, "-m", "pip", "install", "--no-index", "--find-links", wheels, "-q",
                    "exporace"], check=True)
    example = tmp_path / "example.py"
    example.write_text(readme_example())
    clean = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    out = subprocess.run([py, str(example)], capture_output=True, text=True, env=clean,
                         cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("[42 42]"), out.stdout
    where = subprocess.run([py, "-c", "import exporace; print(exporace.__file__)"],
                           capture_output=True, text=True, env=clean, cwd=tmp_path)
    assert where.stdout.startswith(str(env_dir)), where.stdout + where.stderr
