"""A run's stored rows, read to be copied into another ledger and written there byte for byte.

`read_run` reads, in the caller's read snapshot, everything of one run a ledger holds: its event
rows exactly as stored, the blobs its events name (their stored bodies), the cached responses
its events recorded, and its saved views. It first checks the run as `verify RUN` does (chain,
positions, blobs, cached responses) and refuses a run that does not verify. A run can only be
copied when its rows form a chain of their own (each links to the run's previous row, the first
to `GENESIS`): every run written under chain version 2 does; a run written before m003 linked
its rows through other runs' rows, so it is copied only in the rare case it never did (it was
the first in its ledger and nothing was written between its events), and refused otherwise
with one line that says so.

`write_run`, in the caller's write transaction, appends the rows the target lacks: the target
must hold a prefix of the same run (the same hash at every position it holds) or nothing of it;
each row is checked again (its bytes hash to its hash, it links to the run's previous row) and
given the target's next seq and link, so the run keeps its hashes and the target keeps one chain.
Blobs and responses are inserted if absent, and a view only over an older one, so copying the
same run twice writes nothing.

Bodies travel raw: `read_run` inflates each (bounded by its recorded size) and re-hashes it, so
a run whose body was edited is not pushed; `write_run` re-hashes what it is handed and stores it
in the target's own encoding (`blobs.insert`), so nothing a copy carries is taken on trust.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from benchledger.errors import BadInput, LedgerError, VerificationFailed
from benchledger.ledger import blobs as blob_table
from benchledger.ledger.backend import LedgerConnection, select_in
from benchledger.ledger.cache import INSERT_SQL as INSERT_RESPONSE
from benchledger.ledger.chain import GENESIS, ledger_link
from benchledger.ledger.mapper import EventRow, rows_to_stored
from benchledger.ledger.references import blob_references
from benchledger.ledger.run_ids import check_ulid
from benchledger.ledger.verify import check_run_in_full
from benchledger.ledger.tails import INSERT_EVENT, ledger_tail
from benchledger.ledger.walk import ChainWalk

__all__ = ["CopiedRow", "RunCopy", "read_run", "write_run"]

class CopiedRow(NamedTuple):
    """An event row as it travels between ledgers: `EventRow` without its `seq` (the target gives
    its own), the payload as text."""

    run_id: str
    position: int
    type: str
    schema_version: int
    recorded_at: str
    idempotency_key: str | None
    payload: str
    prev_hash: str
    hash: str

_INSERT_VIEW = """INSERT INTO views (run_id, name, version, position, value) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (run_id, name, version) DO UPDATE SET position = excluded.position,
    value = excluded.value WHERE views.position < excluded.position"""


@dataclass(frozen=True)
class RunCopy:
    """Everything of one run, as one ledger stores it."""

    run_id: str
    rows: list[CopiedRow]
    blobs: list[tuple[str, bytes]] = field(default_factory=list)
    """(digest, raw body) of every blob the run's events name, each re-hashed when it was read."""
    responses: list[tuple[str, str, str, str, str, str, str]] = field(default_factory=list)
    """Rows of the guarded response cache the run's events recorded."""
    views: list[tuple[str, int, int, str]] = field(default_factory=list)
    """(name, version, position, value JSON) of the run's saved views."""

    @property
    def head(self) -> str:
        """Hash of the run's last event: the same in every ledger holding the run."""
        return self.rows[-1].hash


def _own_chain_problem(run_id: str, checked: list[EventRow]) -> str | None:
    """Why the run's rows, checked where they stand, do not also form a chain of their own."""
    problem = ChainWalk.of_run(run_id).walk(checked)
    if problem is None:
        return None
    seq = problem[0]
    position = next(row.position for row in checked if row.seq == seq)
    return (f"run {run_id} cannot be copied to another ledger: it was recorded under chain "
            f"version 1 (before migration m003), and its event at position {position} (seq "
            f"{seq}) links to another run's event, so its hashes verify only in this ledger's "
            "chain; copy the whole ledger file instead")


def read_run(conn: LedgerConnection, run_id: str) -> RunCopy:
    """The run's rows, blobs, responses and views (see the module docstring), in one snapshot."""
    check_ulid(run_id, "copied to another ledger")
    checked, problem = check_run_in_full(conn, run_id)
    if problem is not None:
        seq, what = problem
        where = f" at seq {seq}" if seq is not None else ""
        raise VerificationFailed(f"run {run_id} does not verify{where}: {what}; it is not copied",
                                 first_bad_seq=seq, problem=what)
    rows = [CopiedRow(row.run_id, row.position, row.type, row.schema_version, row.recorded_at,
                      row.idempotency_key,
                      row.payload.decode("utf-8") if isinstance(row.payload, bytes) else row.payload,
                      row.prev_hash, row.hash)
            for row in checked]
    refusal = _own_chain_problem(run_id, checked)
    if refusal:
        raise BadInput(refusal)
    digests = sorted({digest for _, digest in blob_references(rows_to_stored(checked))})
    blob_rows = []
    for digest, size, encoding, body in select_in(
            conn, "SELECT digest, size, encoding, body FROM blobs WHERE digest IN ({marks}) ORDER BY digest", digests):
        try:
            blob_rows.append((str(digest), blob_table.unpack(str(digest), size, encoding, body)))
        except blob_table.BadBlob as exc:
            raise VerificationFailed(f"run {run_id} does not verify: {exc}; it is not copied",
                                     problem=str(exc)) from None
    responses = [(str(digest), str(text), str(text_digest), str(model), str(run), str(key), str(at))
                 for digest, text, text_digest, model, run, key, at in conn.execute(
                     "SELECT request_digest, response, response_digest, model, run_id, idempotency_key, "
                     "recorded_at FROM responses WHERE run_id = ? ORDER BY request_digest", (run_id,))
                 ] if conn.has_responses() else []
    views = [(str(name), int(version), int(position), str(value)) for name, version, position, value in conn.execute(
        "SELECT name, version, position, value FROM views WHERE run_id = ? ORDER BY name, version", (run_id,))]
    return RunCopy(run_id, rows, blob_rows, responses, views)


def _held(conn: LedgerConnection, run_id: str) -> list[tuple[int, str]]:
    return [(int(position), str(hash_)) for position, hash_ in conn.execute(
        "SELECT position, hash FROM events WHERE run_id = ? ORDER BY position", (run_id,))]


def write_run(conn: LedgerConnection, copy: RunCopy) -> int:
    """Append the rows of the run the target lacks, with what they name; how many were appended.

    LedgerError, writing nothing, when the target's run is not a prefix of the copy (the two
    have diverged) or a row does not check.
    """
    check_ulid(copy.run_id, "copied into this ledger")
    if any(row.run_id != copy.run_id for row in copy.rows):
        raise LedgerError(f"the copy of run {copy.run_id} carries rows of another run; nothing was copied")
    held = _held(conn, copy.run_id)
    for (position, hash_), row in zip(held, copy.rows):
        if (position, hash_) != (row.position, row.hash):
            raise LedgerError(f"run {copy.run_id} differs at position {position} between the two "
                              "ledgers (they have diverged); nothing was copied")
    if len(held) > len(copy.rows):
        raise LedgerError(f"run {copy.run_id} has {len(held)} events where it is copied to, more than the "
                          f"{len(copy.rows)} of the copy; copy the other way round")
    seq, value = ledger_tail(conn)
    walk = ChainWalk.of_run(copy.run_id, len(held), held[-1][1] if held else GENESIS)
    to_insert: list[tuple[object, ...]] = []
    for row in copy.rows[len(held):]:
        seq += 1
        if walk.step(EventRow(seq, *row)):
            raise LedgerError(f"the copy of run {copy.run_id} does not check at position {row.position}; "
                              "nothing was copied")
        value = ledger_link(value, row.hash)
        to_insert.append((seq, *row, value))
    if to_insert:
        conn.executemany(INSERT_EVENT, to_insert)
    bodies = []
    for digest, raw in copy.blobs:
        body = blob_table.encode(raw)
        if body.digest != digest:
            raise LedgerError(f"the copy of run {copy.run_id} carries a body under blob {digest} that does not "
                              "hash to it; nothing was copied")
        bodies.append(body)
    blob_table.insert(conn, bodies)
    if copy.responses:
        conn.executemany(INSERT_RESPONSE, copy.responses)
    if copy.views:
        conn.executemany(_INSERT_VIEW, [(copy.run_id, *view) for view in copy.views])
    return len(to_insert)
