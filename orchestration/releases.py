"""What a run records of the release it read: every file's SHA-256, and where it came from.

The benchmark says which files its load read (`Benchmark.files_read`). Each is hashed as it is
now. When the release folder itself (the folder given, or the given file's own folder; never a
parent) holds a fetch's receipt, a file whose bytes are still the ones it lists is recorded with the
receipt's record of it: source, revision, URL and what it was checked against. Any other file (given
by path, or changed since it was fetched) is recorded by its hash alone. The record is information
for the scorecard; the benchmark's `official_release` judges the hashes against its pin table (a
pure fold over `RunConfig.release_files`), so no receipt can make a release official.
"""

from __future__ import annotations

from pathlib import Path

from benchledger.adapters.benchmarks.base import Dataset
from benchledger.adapters.benchmarks.registry import Benchmark
from benchledger.adapters.sources.download import sha256_file
from benchledger.adapters.sources.receipt import receipt_of
from benchledger.ledger.events import ReleaseFile

__all__ = ["release_files"]


def _relative(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.name


def release_files(benchmark: Benchmark, dataset: Dataset) -> tuple[ReleaseFile, ...]:
    """Every file the dataset's load read, hashed, with its fetched source where it has one."""
    source = Path(dataset.source).resolve()
    found = receipt_of(source)
    folder, receipt = found if found is not None else (None, None)
    root = source if source.is_dir() else source.parent
    recorded = []
    for path in benchmark.files_read(source, dataset):
        path = path.resolve()
        digest, size = sha256_file(path), path.stat().st_size
        if folder is not None and receipt is not None:
            rel = _relative(path, folder)
            entry = receipt.files.get(rel)
            if entry is not None and entry.sha256 == digest:
                recorded.append(ReleaseFile(path=rel, sha256=digest, bytes=size, origin=entry.origin,
                                            revision=entry.revision, published=entry.published, url=entry.url))
                continue
        recorded.append(ReleaseFile(path=_relative(path, root), sha256=digest, bytes=size))
    return tuple(recorded)
