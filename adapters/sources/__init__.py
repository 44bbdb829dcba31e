"""Releases from their sources: declarations (`spec`), fetching (`fetch`), receipts and locating.

A benchmark declares a `ReleaseSource` (`Benchmark.source`); `fetch_release` lays it out checked;
`fetched_release` finds a fetched release by benchmark command for `run`, `retrieval` and
`conformance` when no path is given.
"""

from benchledger.adapters.sources.fetch import FetchResult, fetch_release
from benchledger.adapters.sources.receipt import Receipt, find_receipt, read_receipt
from benchledger.adapters.sources.settings import FetchSettings, data_dir, release_dir
from benchledger.adapters.sources.spec import GitHubFiles, HubFiles, Literal, ReleaseSource, RemoteFile, TemplateRecipe

__all__ = [
    "FetchResult", "fetch_release", "Receipt", "find_receipt", "read_receipt", "FetchSettings", "data_dir",
    "release_dir", "GitHubFiles", "HubFiles", "Literal", "ReleaseSource", "RemoteFile", "TemplateRecipe",
]
