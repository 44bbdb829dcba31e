"""The ledger: append-only, hash-chained SQLite events, and the run that writes them.

`ledger.events` holds the typed events; `ledger.store` the SQLite store (writer and reader);
`ledger.run` the stages of a benchmark run that emit events. Projections over the events live in
the top-level `projections` package.
"""

from importlib.metadata import PackageNotFoundError, version as _version

try:
    __version__ = _version("benchledger")
except PackageNotFoundError:  # running from a checkout that is not installed
    __version__ = "0.0.0+checkout"
