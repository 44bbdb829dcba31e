"""The receipt a fetch leaves in a release folder: every file, its SHA-256, and where it came from.

`.benchledger-release.json` is written last, after every file was checked and every template came
out at its pin, so its presence means "this folder is the release as its sources published it". A
run reads it to record, for each file it read, the source, revision and published hash
(`provenance_of`); a file that is not in the receipt, or whose bytes changed since, is recorded by
its hash alone, as any file given by path.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from benchledger.adapters.sources.download import sha256_file

__all__ = [
    "RECEIPT", "FetchedFile", "Receipt", "read_receipt", "write_receipt", "find_receipt", "verify_present",
    "fetched_run_path",
]

RECEIPT = ".benchledger-release.json"


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class FetchedFile(_Frozen):
    """One file of a fetched release."""

    sha256: str
    bytes: int
    origin: str
    """github.com/<owner>/<repo> or huggingface.co/datasets/<repo>."""
    revision: str
    """The commit it was fetched at."""
    path: str
    """Its path at the source."""
    published: str
    """What the source published for it: "pinned sha256 <hex>", "hub sha256 <hex>", "hub git-blob <hex>", or
    "derived from <path>" for a template read out of the official code."""


class Receipt(_Frozen):
    benchmark: str
    """The benchmark's command."""
    run_path: str
    files: dict[str, FetchedFile]
    """Path inside the release folder -> the fetched file."""


def write_receipt(folder: Path, receipt: Receipt) -> Path:
    path = folder / RECEIPT
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(receipt.model_dump_json(indent=1), encoding="utf-8")
    os.replace(tmp, path)
    return path


def read_receipt(folder: Path) -> Receipt | None:
    """The receipt of a fetched release folder, or None (no receipt, or one that does not parse)."""
    path = Path(folder) / RECEIPT
    if not path.is_file():
        return None
    try:
        return Receipt.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (ValueError, ValidationError):
        return None


def find_receipt(path: Path) -> tuple[Path, Receipt] | None:
    """The fetched release folder holding `path` (a file or the folder itself) and its receipt."""
    path = Path(path).resolve()
    for folder in (path, *path.parents) if path.is_dir() else path.parents:
        receipt = read_receipt(folder)
        if receipt is not None:
            return folder, receipt
    return None


def verify_present(folder: Path, receipt: Receipt) -> list[str]:
    """Paths of the receipt whose bytes are missing or changed (empty when the folder is intact)."""
    bad = []
    for rel, entry in receipt.files.items():
        file = folder / rel
        if not file.is_file() or file.stat().st_size != entry.bytes or sha256_file(file) != entry.sha256:
            bad.append(rel)
    return bad


def fetched_run_path(command: str) -> Path | None:
    """What `run <command>` reads when given no path: the fetched release in the per-user data folder."""
    from benchledger.adapters.sources.settings import release_dir

    folder = release_dir(command)
    receipt = read_receipt(folder)
    return None if receipt is None else folder / receipt.run_path
