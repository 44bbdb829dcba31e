"""The layers point one way: every import inside benchledger is checked against their order.

    bench -> cli -> testing -> orchestration -> adapters -> projections -> ledger -> bottom

The bottom is the `benchledger` folder's own modules (errors, clock, values, text), which every
layer may import. A benchmark adapter may read projections (it declares its publishable
conditions as folds over a run); projections never read adapters. `testing` (the contracts plug-in
authors run) stands on the adapters and below the CLI, whose `check-memory` runs the memory
contract against a live server. `python -m pytest
tests/project/test_layers.py -s` prints the matrix of module edges between the layers.
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

from conftest import REPO

LAYERS = {"bottom": 0, "ledger": 1, "projections": 2, "adapters": 3, "orchestration": 4, "testing": 5, "cli": 6,
          "bench": 7}
FOLDERS = {"benchledger": "bottom", **{name: name for name in LAYERS if name != "bottom"}}
TOP_NAMES = set(FOLDERS) - {"benchledger"}


def _layer_of_module(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "benchledger":
        return None
    return parts[1] if len(parts) > 1 and parts[1] in LAYERS else "bottom"


def _modules():
    for folder, layer in FOLDERS.items():
        for path in sorted((REPO / folder).rglob("*.py")):
            rel = path.relative_to(REPO / folder).with_suffix("")
            parts = [p for p in rel.parts if p != "__init__"]
            prefix = ["benchledger"] if folder == "benchledger" else ["benchledger", folder]
            yield ".".join(prefix + parts), layer, path


def _imports(path: Path, module: str) -> list[tuple[str, int]]:
    found = []
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                found.append((".".join(base + ([node.module] if node.module else [])), node.lineno))
            elif node.module:
                found.append((node.module, node.lineno))
    return found


def _edges():
    for module, layer, path in _modules():
        for target, line in _imports(path, module):
            yield module, layer, path, target, line


def test_no_import_points_up_or_sideways() -> None:
    wrong = []
    for module, layer, path, target, line in _edges():
        target_layer = _layer_of_module(target)
        if target_layer is None or target_layer == layer:
            continue
        if LAYERS[target_layer] >= LAYERS[layer]:
            wrong.append(f"{path.relative_to(REPO)}:{line} ({layer}) imports {target} ({target_layer})")
    assert not wrong, "imports against the layer order:\n" + "\n".join(wrong)


def test_code_imports_only_the_benchledger_name() -> None:
    """No module imports a folder by its bare name (`ledger`, `cli`...): installed, only `benchledger` exists."""
    bare = [f"{path.relative_to(REPO)}:{line} imports {target}" for _, _, path, target, line in _edges()
            if target.split(".")[0] in TOP_NAMES]
    assert not bare, "\n".join(bare)


def test_print_the_layer_matrix() -> None:
    counts: Counter[tuple[str, str]] = Counter()
    for module, layer, path, target, line in _edges():
        target_layer = _layer_of_module(target)
        if target_layer is not None and target_layer != layer:
            counts[(layer, target_layer)] += 1
    names = list(LAYERS)
    print("\nmodule edges, row imports column")
    print(" " * 14 + "".join(f"{n:>14}" for n in names))
    for row in names:
        print(f"{row:<14}" + "".join(f"{counts[(row, col)] if row != col else '-':>14}" for col in names))
    assert counts[("ledger", "adapters")] == 0 and counts[("projections", "adapters")] == 0
