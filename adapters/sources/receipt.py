"""The receipt a fetch leaves in a release folder: the record of what it laid out, never a voucher.

`.benchledger-release.json` is written last, after every file was checked and every template came
out at its pin. It records, per file: the SHA-256 and size seen, its source, revision and path
there, the URL it was actually read from (a mirror or `--hub` shows here; `file://DIR` for a copy
`fetch --from DIR` laid out), and what it was checked against; and when the fetch ran. A run copies
that record beside each file it read whose bytes are still the ones the receipt lists
(`orchestration/releases.py`), so the scorecard can say where the release came from. Nothing is
decided from it: `official_release` compares the recorded hashes with the package's pins, so a
receipt written by hand, or one of another folder, changes what the scorecard says about origin
and nothing else.

Only the release folder's own receipt is read (the folder given, or the folder of the file given),
never one found in a parent folder.
"""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from benchledger.errors import BadInput
from benchledger.json_input import MiB, load_file

__all__ = ["RECEIPT", "FetchedFile", "Receipt", "read_receipt", "write_receipt", "receipt_of", "fetched_run_path"]

RECEIPT = ".benchledger-release.json"
RECEIPT_LIMIT = 256 * MiB
"""The largest receipt read (Memora's, 27,647 files, is about 12 MB); past it, or nested past the
bounded loader's depth, a receipt is no record (`benchledger.json_input`)."""


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class FetchedFile(_Frozen):
    """One file of a fetched release, as the fetch saw it."""

    sha256: str
    bytes: int
    origin: str
    """github.com/<owner>/<repo> or huggingface.co/datasets/<repo>."""
    revision: str
    """The commit it was fetched at."""
    path: str
    """Its path at the source."""
    published: str
    """What it was checked against: "pinned sha256 <hex>", "hub sha256 <hex>", "hub git-blob <hex>",
    "copied, pinned sha256 <hex>", "copied, no pin", or "derived from <path>" for a template."""
    url: str | None = None
    """The URL it was read from (`file://<folder>` for a copy); None for a derived template."""


class Receipt(_Frozen):
    benchmark: str
    """The benchmark's command."""
    run_path: str
    files: dict[str, FetchedFile]
    """Path inside the release folder -> the fetched file."""
    fetched_at: str | None = None
    """When the fetch finished (UTC, ISO 8601)."""


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
        value, _ = load_file(path, limit=RECEIPT_LIMIT)
        return Receipt.model_validate(value)
    except (BadInput, ValueError, ValidationError):  # a record that does not read is no record
        return None


def receipt_of(source: Path) -> tuple[Path, Receipt] | None:
    """The release folder `source` names (the folder itself, or a file's own folder) and its receipt."""
    source = Path(source).resolve()
    folder = source if source.is_dir() else source.parent
    receipt = read_receipt(folder)
    return None if receipt is None else (folder, receipt)


def fetched_run_path(command: str) -> Path | None:
    """What `run <command>` reads when given no path: the fetched release in the per-user data folder."""
    from benchledger.adapters.sources.settings import release_dir

    folder = release_dir(command)
    receipt = read_receipt(folder)
    return None if receipt is None else folder / receipt.run_path
