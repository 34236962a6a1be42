"""Python source from an installed package, loaded without importing the
package: a file as a module, or only a file's top-level definitions."""

from __future__ import annotations

import __future__
import ast
import importlib.util
import re
import subprocess
import sys
import types
from pathlib import Path


def load_file_module(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def top_level_code(path: Path, wanted=None, skip=()):
    """The top-level functions, classes and constants of a source file,
    compiled as written (annotations postponed, as the file asks), without
    its imports."""
    tree = ast.parse(path.read_text(), str(path))
    body, names = [], []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            name = node.name
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            name = node.target.id
        elif (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
        ):
            name = node.targets[0].id
        else:
            continue
        if (wanted is None or name in wanted) and name not in skip:
            body.append(node)
            names.append(name)
    if wanted is not None and set(wanted) - set(names):
        raise RuntimeError(f"{path}: missing {sorted(set(wanted) - set(names))}")
    code = compile(
        ast.Module(body=body, type_ignores=[]),
        str(path),
        "exec",
        flags=__future__.annotations.compiler_flag,
        dont_inherit=True,
    )
    return code, names


def exec_as_module(name: str, code, names: dict) -> dict:
    """Runs `code` as the body of a new module `name` that sees `names`."""
    module = types.ModuleType(name)
    module.__dict__.update(names)
    sys.modules[name] = module
    exec(code, module.__dict__)
    return module.__dict__


def probe_import(module: str) -> dict | None:
    """Imports `module` in a fresh interpreter; None if it imports, else the
    error and the chain of vLLM files that led to it."""
    r = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True, text=True)
    if r.returncode == 0:
        return None
    chain = [
        f"{m.group(1)}:{m.group(2)}"
        for m in re.finditer(r'File "[^"]*/site-packages/(vllm/[^"]+)", line (\d+)', r.stderr)
    ]
    return {"error": r.stderr.strip().splitlines()[-1], "chain": chain}
