"""benchledger: run published memory benchmarks and keep every stage on an append-only ledger.

The one import name of the distribution. Its folders sit at the top of the repository and are
mapped here by `pyproject.toml`; the layers point one way:

    benchledger.cli -> benchledger.orchestration -> benchledger.adapters -> benchledger.projections
        -> benchledger.ledger -> this package's own modules (errors, clock, values, text,
           redaction, retry, files)

`tests/project/test_layers.py` walks every import and fails on an edge against that order.
"""

from importlib.metadata import PackageNotFoundError, version as _version

try:
    __version__ = _version("benchledger")
except PackageNotFoundError:  # running from a checkout that is not installed
    __version__ = "0.0.0+checkout"

__all__ = ["__version__"]
