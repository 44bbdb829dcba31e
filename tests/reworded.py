"""A benchmark's publishable conditions as a reworded copy of its own module would declare them.

What a contributor does when rewording a condition is edit the text of the file; `reworded_conditions`
does exactly that to a copy (the real `adapters/benchmarks/<folder>/publishable.py`, one phrase
replaced), imports the copy as a module of its own and hands back its `CONDITIONS`, so a test can put
them on the registered benchmark (`monkeypatch.setattr(type(benchmark), "conditions", ...)`) and see
what a saved view written before the edit reads as.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from conftest import REPO

__all__ = ["reworded_conditions", "SOLVABILITY_REWORD"]

SOLVABILITY_REWORD = ("is not a solvability-filtered domain", "lies outside the solvability-filtered domains")
"""GroupMemBench's solvability condition, reworded (the demo release's domain is not one, so its reason says it)."""


def reworded_conditions(folder: str, old: str, new: str, where: Path) -> tuple:
    source = (REPO / "adapters" / "benchmarks" / folder / "publishable.py").read_text()
    assert old in source, f"{folder}/publishable.py says no {old!r}"
    path = where / f"reworded_{folder}_publishable.py"
    path.write_text(source.replace(old, new))
    name = f"benchledger.adapters.benchmarks.{folder}.reworded_publishable"  # a benchledger module, as the real one
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[name]
    return module.CONDITIONS
