"""`benchledger fetch BENCHMARK --from DIR`: a copy the user already has, checked against the pins, laid out.

Each file of the pin table is looked for in DIR at its release path (a folder laid out as `run`
reads it) or at its path at the source (a clone of the repository, a hub snapshot): for Memora,
`DIR/weekly/...` or `DIR/data/weekly/...`; for the official code, `DIR/source/<path>` or
`DIR/<path>`. It is copied into the release folder beside its final name and hashed as it is copied,
so what is checked is what lands (not the copy's size, and not a file that may change after the
check), and it takes its name only when it may: a pinned file that hashes to its pin is `ok`, one
that does not `differs from the pin` and is not laid out; a file the table has no pin for is laid out
as `no pin` (a run of it is diagnostic and says so); a file not in DIR is `missing`. Files other than
the table's are left alone.

When every file is `ok` or `no pin`, the templates are read out of the official code (as a fetch
does) and the receipt is written, recording `file://DIR` as where each file came from. Otherwise
nothing claims the folder is a release: the files that were `ok` stay in place, so a later `fetch`
(online) downloads only what is missing or wrong.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from benchledger.adapters.sources.download import CHUNK, INCOMPLETE
from benchledger.adapters.sources.fetch import PROGRESS_STAGE, write_templates
from benchledger.adapters.sources.plan import release_path
from benchledger.adapters.sources.receipt import RECEIPT, FetchedFile, Receipt, write_receipt
from benchledger.adapters.sources.spec import ReleaseSource
from benchledger.clock import now_iso
from benchledger.errors import BadInput
from benchledger.pins import Pin, Unpinned

__all__ = ["Checked", "CopyResult", "lay_out_copy", "OK", "DIFFERS", "NO_PIN", "MISSING"]

Status = Literal["ok", "differs from the pin", "no pin", "missing"]
OK: Status = "ok"
DIFFERS: Status = "differs from the pin"
NO_PIN: Status = "no pin"
MISSING: Status = "missing"


@dataclass(frozen=True)
class Checked:
    path: str
    """Its path in the release folder."""
    status: Status
    found: Path | None
    """Where it was found in DIR."""
    sha256: str | None = None
    pinned: str | None = None


@dataclass(frozen=True)
class CopyResult:
    folder: Path
    run_path: Path
    checked: tuple[Checked, ...]
    receipt: Receipt | None
    """None when a file differs or is missing: the folder is not laid out as a release."""

    def count(self, status: str) -> int:
        return sum(1 for c in self.checked if c.status == status)


def _find(copy: Path, entry: Pin | Unpinned) -> Path | None:
    for candidate in dict.fromkeys((entry.path, entry.source_path)):
        path = copy / candidate
        if path.is_file():
            return path
    return None


def _copy_hashing(found: Path, partial: Path, report: Callable[[int], None]) -> tuple[str, int]:
    digest, size = hashlib.sha256(), 0
    partial.parent.mkdir(parents=True, exist_ok=True)
    with open(found, "rb") as src, open(partial, "wb") as out:
        for block in iter(lambda: src.read(CHUNK), b""):
            digest.update(block)
            out.write(block)
            size += len(block)
            report(len(block))
    return digest.hexdigest(), size


def lay_out_copy(command: str, source: ReleaseSource, folder: Path, copy: Path,
                 progress: Callable[[str, int, int], None] = lambda stage, done, total: None) -> CopyResult:
    """Check the copy in `copy` against the pins and lay out what may be (see the module docstring)."""
    copy, folder = Path(copy), Path(folder)
    if not copy.is_dir():
        raise BadInput("is not a folder: --from takes the folder of a copy of the release", file=str(copy))
    if copy.resolve() == folder.resolve():
        raise BadInput("is the release folder itself: --from takes another copy to check and lay out here",
                       file=str(copy))
    (folder / RECEIPT).unlink(missing_ok=True)
    entries = list(source.pins)
    total = sum(entry.bytes for entry in entries if isinstance(entry, Pin))
    done = 0

    def report(n: int) -> None:
        nonlocal done
        done += n
        progress(PROGRESS_STAGE, done, max(total, done))

    checked: list[Checked] = []
    files: dict[str, FetchedFile] = {}
    where = f"file://{copy.resolve()}"
    for entry in entries:
        target = folder / release_path(entry.path)
        found = _find(copy, entry)
        if found is None:
            checked.append(Checked(entry.path, MISSING, None))
            continue
        partial = target.with_name(target.name + INCOMPLETE)
        sha, size = _copy_hashing(found, partial, report)
        pinned = entry if isinstance(entry, Pin) else None
        if pinned is not None and (sha, size) != (pinned.sha256, pinned.bytes):
            partial.unlink()
            checked.append(Checked(entry.path, DIFFERS, found, sha, pinned.sha256))
            continue
        os.replace(partial, target)
        checked.append(Checked(entry.path, OK if pinned else NO_PIN, found, sha, pinned.sha256 if pinned else None))
        files[entry.path] = FetchedFile(
            sha256=sha, bytes=size, origin=entry.origin, revision=entry.revision or "", path=entry.source_path,
            url=where, published=f"copied, pinned sha256 {pinned.sha256}" if pinned else "copied, no pin")
    receipt = None
    if all(c.status in (OK, NO_PIN) for c in checked):
        if source.templates:
            files.update(write_templates(folder, source))
        receipt = Receipt(benchmark=command, run_path=source.run_path, files=files, fetched_at=now_iso())
        write_receipt(folder, receipt)
    return CopyResult(folder, folder / source.run_path, tuple(checked), receipt)
