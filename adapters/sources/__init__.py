"""Releases from their sources: declarations (`spec`), fetching (`fetch`), receipts and locating.

A benchmark declares a `ReleaseSource` (`Benchmark.source`); `fetch_release` lays it out checked;
`fetched_release` finds a fetched release by benchmark command for `run`, `retrieval` and
`conformance` when no path is given.

The names below are imported from their modules when first asked for: every benchmark adapter
imports `spec`, which runs this file, and fetching (an HTTP client, progress bars) is the cost of
`benchledger fetch` alone, not of every start-up.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from benchledger.adapters.sources.fetch import FetchResult, fetch_release
    from benchledger.adapters.sources.receipt import Receipt, find_receipt, read_receipt
    from benchledger.adapters.sources.settings import FetchSettings, data_dir, release_dir
    from benchledger.adapters.sources.spec import (
        GitHubFiles, HubFiles, Literal, ReleaseSource, RemoteFile, TemplateRecipe,
    )

_MODULE_OF = {
    "FetchResult": "fetch", "fetch_release": "fetch",
    "Receipt": "receipt", "find_receipt": "receipt", "read_receipt": "receipt",
    "FetchSettings": "settings", "data_dir": "settings", "release_dir": "settings",
    "GitHubFiles": "spec", "HubFiles": "spec", "Literal": "spec", "ReleaseSource": "spec",
    "RemoteFile": "spec", "TemplateRecipe": "spec",
}

__all__ = list(_MODULE_OF)


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
