"""Releases from their sources: declarations (`spec`), fetching (`fetch`), copies (`copy`), receipts.

A benchmark declares a `ReleaseSource` (`Benchmark.source`) around its pin table
(`benchledger.pins`); `fetch_release` lays it out checked, `lay_out_copy` does the same for a copy
the user has (`fetch --from DIR`); `fetched_run_path` finds a fetched release by benchmark command
for `run`, `retrieval` and `conformance` when no path is given.

The names below are imported from their modules when first asked for: every benchmark adapter
imports `spec`, which runs this file, and fetching (an HTTP client, progress bars) is the cost of
`benchledger fetch` alone, not of every start-up.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from benchledger.adapters.sources.copy import CopyResult, lay_out_copy
    from benchledger.adapters.sources.fetch import FetchResult, fetch_release
    from benchledger.adapters.sources.receipt import Receipt, read_receipt, receipt_of
    from benchledger.adapters.sources.settings import FetchSettings, data_dir, release_dir
    from benchledger.adapters.sources.spec import Literal, ReleaseSource, TemplateRecipe

_MODULE_OF = {
    "CopyResult": "copy", "lay_out_copy": "copy",
    "FetchResult": "fetch", "fetch_release": "fetch",
    "Receipt": "receipt", "receipt_of": "receipt", "read_receipt": "receipt",
    "FetchSettings": "settings", "data_dir": "settings", "release_dir": "settings",
    "Literal": "spec", "ReleaseSource": "spec", "TemplateRecipe": "spec",
}

__all__ = list(_MODULE_OF)


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
