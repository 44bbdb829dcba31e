"""Copying one run between two ledgers (`benchledger push` and `pull`), byte for byte.

`copy_run(source, target, run_ref)` reads the run from the source once it verifies there
(`Ledger.reader.run_copy`: chain, positions, blobs, cached responses, in one snapshot), appends what
the target lacks under the target's writer lock for that run (`Ledger.writer.copy_in`: the rows with
their bytes and hashes, each checked again and given the target's seq and ledger link; the
blobs, responses and views they name), then verifies the run in the target and requires its
head to be the source's. Any two ledgers will do: a file and a server, two files, two schemas.
Copying a run the target already holds in full writes nothing. A run that does not verify, a
run written before chain version 2 that cannot keep its hashes elsewhere, or a target whose run
has diverged from the source's is refused with one line, and nothing is written.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from benchledger.errors import CheckFailed
from benchledger.ledger.store import Ledger

__all__ = ["CopyResult", "copy_run"]


class CopyResult(BaseModel):
    """What a copy did."""

    model_config = ConfigDict(frozen=True)

    run_id: str
    source: str
    """Where the run came from (a path, or a URL without credentials)."""
    target: str
    events: int
    """Events of the run."""
    copied: int
    """Events appended to the target (0 when it held the run already)."""
    head: str
    """Hash of the run's last event, the same in both ledgers."""
    checked: int
    """Events of the run the target's verify checked after the copy."""


def copy_run(source: Ledger, target: Ledger, run_ref: str) -> CopyResult:
    """Copy the run `run_ref` names in `source` into `target`; see the module docstring."""
    run_id = source.reader.resolve_run(run_ref)
    copy = source.reader.run_copy(run_id)
    copied = target.writer.copy_in(copy)
    result = target.reader.verify(run_id)
    if not result.ok:
        where = f" at seq {result.first_bad_seq}" if result.first_bad_seq is not None else ""
        raise CheckFailed(f"run {run_id} does not verify in {target.where} after the copy{where}: {result.problem}")
    if result.head != copy.head:
        raise CheckFailed(f"run {run_id} ends at {result.head} in {target.where}, not at the source's head "
                          f"{copy.head}")
    return CopyResult(run_id=run_id, source=source.where, target=target.where, events=len(copy.rows),
                      copied=copied, head=copy.head, checked=result.checked)
