"""benchledger: run published memory benchmarks and keep every stage on an append-only ledger.

The one import name of the distribution. Its folders sit at the top of the repository and are
mapped here by `pyproject.toml`; the layers point one way:

    benchledger.cli -> benchledger.orchestration -> benchledger.adapters -> benchledger.projections
        -> benchledger.ledger -> this package's own modules (errors, clock, values, text,
           redaction, retry, files)

`tests/project/test_layers.py` walks every import and fails on an edge against that order.
"""

from __future__ import annotations

__all__ = ["__version__"]


def __getattr__(name: str) -> str:
    """`__version__`, read from the installed distribution when first asked for (reading package
    metadata is a share of every command's start-up that only `--version` and provenance need)."""
    if name != "__version__":
        raise AttributeError(f"module 'benchledger' has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        found = version("benchledger")
    except PackageNotFoundError:  # running from a checkout that is not installed
        found = "0.0.0+checkout"
    globals()["__version__"] = found
    return found
