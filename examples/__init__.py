"""This project's own example data, shipped inside the package as `benchledger.examples`.

`groupmem-mini/` is a small GroupMemBench-format release written for benchledger (seeded by its
`generate.py`): the quick start runs it from any install with `benchledger run groupmem --demo`.
"""

from __future__ import annotations

from importlib.resources import as_file, files
from pathlib import Path

__all__ = ["example_path"]


def example_path(name: str) -> Path:
    """The folder of a shipped example (`groupmem-mini`), from a checkout or an installed wheel."""
    resource = files(__name__) / name
    with as_file(resource) as path:  # a real folder for an installed wheel and an editable checkout
        return Path(path)
