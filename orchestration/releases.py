"""What a run records of the release it read: every file's SHA-256, and where it came from.

The benchmark says which files its load read (`Benchmark.files_read`). Each is hashed as it is
now; one inside a folder `benchledger fetch` laid out, whose bytes are still the ones the receipt
lists, is recorded with the receipt's source, revision and published hash. Any other file (given by
path, or changed since it was fetched) is recorded by its hash alone. The benchmark's
`official_release` condition judges the result (a pure fold over `RunConfig.release_files`).
"""

from __future__ import annotations

from pathlib import Path

from benchledger.adapters.benchmarks.base import Dataset
from benchledger.adapters.benchmarks.registry import Benchmark
from benchledger.adapters.sources.download import sha256_file
from benchledger.adapters.sources.receipt import find_receipt
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
    found = find_receipt(source)
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
                                            revision=entry.revision, published=entry.published))
                continue
        recorded.append(ReleaseFile(path=_relative(path, root), sha256=digest, bytes=size))
    return tuple(recorded)
