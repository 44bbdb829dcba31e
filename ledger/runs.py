"""Listing the runs a ledger holds, and turning what a user typed into one run id.

A run has no row of its own: it is the events sharing a run_id. Its summary comes from its first
event, its RunStarted (found through the partial index on run markers) and its last RunFinished.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from benchledger.errors import AmbiguousRun, LedgerCorrupt, RunNotFound
from benchledger.ledger.backend import LedgerConnection
from benchledger.ledger.run_ids import is_token, is_ulid, shown

__all__ = ["RunSummary", "WriterSpan", "list_runs", "resolve_run", "run_writers"]


def _runs_sql(conn: LedgerConnection) -> str:
    def config(*path: str) -> str:
        return conn.json_text("s.payload", ("config", *path))

    return f"""SELECT r.run_id, r.n,
    COALESCE(s.recorded_at, (SELECT f.recorded_at FROM events f WHERE f.seq = r.first_seq)),
    {config("benchmark")}, {config("subset")}, {config("memory")},
    COALESCE({config("settings", "mode")}, {config("extra", "mode")}, 'qa'),
    (SELECT {conn.json_text("x.payload", ("status",))} FROM events x
     WHERE x.run_id = r.run_id AND x.type = 'RunFinished' ORDER BY x.position DESC LIMIT 1)
  FROM (SELECT run_id, MIN(seq) AS first_seq, COUNT(*) AS n FROM events GROUP BY run_id) AS r
  LEFT JOIN events s ON s.run_id = r.run_id AND s.type = 'RunStarted'
  ORDER BY r.first_seq DESC"""


class RunSummary(BaseModel):
    """One run as `benchledger runs` lists it."""

    model_config = ConfigDict(frozen=True)

    run_id: str
    started_at: str
    benchmark: str | None
    subset: str | None
    memory: str | None
    events: int
    mode: str = "qa"
    """"qa" (recall, answer, judge) or "retrieval" (recall only)."""
    finished: str | None
    """Status of the last RunFinished ("completed" or "aborted"); None while unfinished."""


def list_runs(conn: LedgerConnection) -> list[RunSummary]:
    """Every run, newest (latest first event) first."""
    fields = ("run_id", "events", "started_at", "benchmark", "subset", "memory", "mode", "finished")
    return [RunSummary(**dict(zip(fields, row))) for row in conn.execute(_runs_sql(conn))]


def resolve_run(conn: LedgerConnection, ref: str) -> str:
    """A full run id from a full id, a unique prefix, or "latest" (see `_resolve`); an id the
    ledger holds that no append would take (not a `run_ids.TOKEN`: written by hand) is refused
    with LedgerCorrupt, shown escaped."""
    run_id = _resolve(conn, ref)
    if not is_token(run_id):
        raise LedgerCorrupt(f"run id {shown(run_id)} is not one benchledger records (the ledger was written "
                            "to by hand); nothing is read from it")
    return run_id


def _resolve(conn: LedgerConnection, ref: str) -> str:
    """A full run id from a full id, a unique prefix, or "latest"; RunNotFound / AmbiguousRun.

    "latest" is the run started last, the first one `list_runs` shows. An id or prefix in another
    case matches too (run ids are upper-case ULIDs; people type them in lower case). A prefix
    never silently picks one of several runs: an id that is also a prefix of others is chosen
    only when it is a full ULID (as every run benchledger starts is), else AmbiguousRun lists
    them all, so a run pushed under a short prefix of another's id cannot stand in for it.
    """
    if ref == "latest":
        # Position 1 is a run's first event; walking seq backwards stops at the newest one.
        row = conn.execute(
            "SELECT run_id FROM events WHERE position = 1 ORDER BY seq DESC LIMIT 1").fetchone()
        if row is None:
            raise RunNotFound("the ledger has no runs yet; start one with `benchledger run`")
        return str(row[0])
    if not ref:
        raise RunNotFound("no run id given; pass a run id, a unique prefix of one, or 'latest'")
    condition, params = conn.prefix_match("run_id", ref)
    matches: list[str] = [str(r) for (r,) in conn.execute(
        f"SELECT DISTINCT run_id FROM events WHERE {condition} ORDER BY run_id", params)]
    if ref in matches and (len(matches) == 1 or is_ulid(ref)):
        return ref
    if not matches:  # the same prefix in any case: each run's first event, compared case-folded
        folded = ref.casefold()
        matches = [str(r) for (r,) in conn.execute("SELECT run_id FROM events WHERE position = 1 ORDER BY run_id")
                   if str(r).casefold().startswith(folded)]
        exact = [r for r in matches if r.casefold() == folded]
        if len(exact) == 1 and (len(matches) == 1 or is_ulid(exact[0])):
            return exact[0]
    if not matches:
        raise RunNotFound(f"no run matches {ascii(ref)}; list runs with `benchledger runs`")
    if len(matches) > 1:
        listed = ", ".join(shown(match) for match in matches[:5]) + (", ..." if len(matches) > 5 else "")
        raise AmbiguousRun(f"{ascii(ref)} matches {len(matches)} runs ({listed}); "
                           "give more characters of the run id (its full ULID names one run)")
    return str(matches[0])


class WriterSpan(BaseModel):
    """Consecutive events of a run written by one role (a shared PostgreSQL ledger records it)."""

    model_config = ConfigDict(frozen=True)

    writer: str | None
    """The role the server recorded; None for rows written before migration p002."""
    first_position: int
    last_position: int


def run_writers(conn: LedgerConnection, run_id: str) -> list[WriterSpan]:
    """Who wrote the run, in order: its owner first (the writer of its first event); [] where the
    ledger records no writers (a file)."""
    if not conn.records_writers:
        return []
    spans: list[WriterSpan] = []
    for position, writer in conn.execute(
            "SELECT position, writer FROM events WHERE run_id = ? ORDER BY position", (run_id,)):
        if spans and spans[-1].writer == writer:
            spans[-1] = spans[-1].model_copy(update={"last_position": int(position)})
        else:
            spans.append(WriterSpan(writer=writer, first_position=int(position), last_position=int(position)))
    return spans
