"""Which event fields name a blob, declared once, read from typed events or from stored JSON.

An event holds the digest of a large body (a packed context, the candidates a memory returned,
which resume answers from, a raw model output, a released prompt) and the body lives in `blobs`. Deleting bodies must not pass `verify`, so every digest
an event names must be stored. `BLOB_FIELDS` declares them per event type as a path of field
names, `*` meaning every value of a mapping; "" (an empty digest) means "no body", and the
digest of the empty body (`blobs.EMPTY_DIGEST`) needs no row. A run copied to another ledger
(`copies`) takes exactly these bodies with it.

`config.prompt_hashes` and `ScorerStarted.prompt_hash` are not declared: a run stores the
released prompts it used (`reference_prompt_hashes`) but not the built-in prompts of the typed
protocol, so those digests name no stored body today.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from benchledger.ledger.backend import LedgerConnection
from benchledger.ledger.blobs import EMPTY_DIGEST
from benchledger.ledger.mapper import StoredEvent

__all__ = ["BLOB_FIELDS", "blob_references", "missing_sql"]

BLOB_FIELDS: dict[str, tuple[tuple[str, ...], ...]] = {
    "ContextRecalled": (("context_hash",), ("candidates_hash",)),
    "QuestionAnswered": (("raw_hash",),),
    "Judged": (("raw_hash",),),
    "RunStarted": (("config", "reference_prompt_hashes", "*"),),
}


def _walk(value: Any, path: tuple[str, ...]) -> Iterator[Any]:
    if not path:
        yield value
        return
    head, rest = path[0], path[1:]
    if head == "*":
        if isinstance(value, Mapping):
            for item in value.values():
                yield from _walk(item, rest)
        return
    found = value.get(head) if isinstance(value, Mapping) else getattr(value, head, None)
    if found is not None:
        yield from _walk(found, rest)


_SPECS = {type_: (tuple(path[0] for path in paths if len(path) == 1), tuple(path for path in paths if len(path) > 1))
          for type_, paths in BLOB_FIELDS.items()}
"""By event type: the fields naming a blob directly (read without a walk), and the other paths."""


def blob_references(events: Iterable[StoredEvent]) -> Iterator[tuple[int, str]]:
    """(seq, digest) of every blob the typed events name, in the order given."""
    for stored in events:
        spec = _SPECS.get(stored.type)
        if spec is None:
            continue
        fields, nested = spec
        for field in fields:
            digest = getattr(stored.event, field, None)
            if isinstance(digest, str) and digest and digest != EMPTY_DIGEST:
                yield stored.seq, digest
        for path in nested:
            for found in _walk(stored.event, path):
                if isinstance(found, str) and found and found != EMPTY_DIGEST:
                    yield stored.seq, found


def _selects(conn: LedgerConnection, where: str) -> Iterator[str]:
    """One SELECT of (seq, ref) per scan: the i-th plain path of every type in one CASE, so the
    events table is read once however many types name a blob, and one per `*` path."""
    plain = [(type_, [path for path in paths if "*" not in path]) for type_, paths in BLOB_FIELDS.items()]
    for index in range(max((len(paths) for _, paths in plain), default=0)):
        cases = [(type_, paths[index]) for type_, paths in plain if len(paths) > index]
        whens = " ".join(f"WHEN '{type_}' THEN {conn.json_text('e.payload', path)}" for type_, path in cases)
        types = ", ".join(f"'{type_}'" for type_, _ in cases)
        yield f"SELECT e.seq, CASE e.type {whens} END AS ref FROM events e WHERE e.type IN ({types}){where}"
    for type_, paths in BLOB_FIELDS.items():
        for path in paths:
            if "*" in path:
                values = conn.json_values("e.payload", path[:path.index("*")])
                yield (f"SELECT e.seq, j.value AS ref FROM events e, {values} j "
                       f"WHERE e.type = '{type_}'{where}")


def missing_sql(conn: LedgerConnection, *, one_run: bool) -> tuple[str, int]:
    """SQL giving (seq, digest) of the first referenced blob that is not stored, in the
    connection's dialect, and how many times it takes the run id (0 unless `one_run`)."""
    where = " AND e.run_id = ?" if one_run else ""
    selects = list(_selects(conn, where))
    union = "\n  UNION ALL ".join(selects)
    sql = (f"SELECT seq, ref FROM ({union}) AS refs WHERE ref IS NOT NULL AND ref != '' "
           f"AND ref != '{EMPTY_DIGEST}' AND NOT EXISTS (SELECT 1 FROM blobs b WHERE b.digest = ref) "
           "ORDER BY seq LIMIT 1")
    return sql, len(selects) if one_run else 0
