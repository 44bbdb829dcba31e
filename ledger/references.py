"""Which event fields name a blob, declared once, read from typed events or from stored JSON.

An event holds the digest of a large body (a packed context, the candidates a memory returned,
which resume answers from, a raw model output, a released prompt) and the body lives in `blobs`.
Deleting bodies must not pass `verify`, so every digest an event names must be stored. Each event
type declares its blob fields with its class (`@declare(blobs=...)`: dotted paths of field names,
`*` meaning every value of a mapping) and `BLOB_FIELDS` collects them; "" (an empty digest) means
"no body", and the digest of the empty body (`blobs.EMPTY_DIGEST`) needs no row. A run copied to
another ledger (`copies`) takes exactly these bodies with it.

`config.prompt_hashes` and `ScorerStarted.prompt_hash` are not declared: a run stores the
released prompts it used (`reference_prompt_hashes`) but not the built-in prompts of the typed
protocol, so those digests name no stored body today.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from benchledger.ledger.backend import LedgerConnection
from benchledger.ledger.blobs import EMPTY_DIGEST
from benchledger.ledger.events import DECLARATIONS
from benchledger.ledger.mapper import StoredEvent

__all__ = ["BLOB_FIELDS", "blob_references", "named_digests", "missing_sql", "named_sql"]

BLOB_FIELDS: dict[str, tuple[tuple[str, ...], ...]] = {
    name: declaration.blobs for name, declaration in DECLARATIONS.items() if declaration.blobs}
"""Event type -> the paths of its fields naming a blob, as its declaration says (`@declare(blobs=...)`)."""


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


def named_digests(events: Iterable[StoredEvent]) -> set[str]:
    """Every digest the typed events name (what `blob_references` yields, without the seqs).

    A checked read asks only whether each is stored, and names a seq only when one is not: one
    set built in a loop of its own, rather than a pair per reference, is what it pays per event.
    """
    found: set[Any] = set()
    add, specs = found.add, _SPECS
    for stored in events:
        spec = specs.get(stored.type)
        if spec is None:
            continue
        fields, nested = spec
        event = stored.event
        for field in fields:
            add(getattr(event, field, None))
        for path in nested:
            for value in _walk(event, path):
                add(value)
    found.difference_update((None, "", EMPTY_DIGEST))
    return {digest for digest in found if isinstance(digest, str)}


def _plain_scan(conn: LedgerConnection, where: str) -> tuple[str, int]:
    """(a SELECT of seq, r0, r1, ... over one scan of the events, how many ref columns): column i
    holds the i-th plain path of every type, in one CASE."""
    plain = [(type_, [path for path in paths if "*" not in path]) for type_, paths in BLOB_FIELDS.items()]
    width = max((len(paths) for _, paths in plain), default=0)
    columns = []
    for index in range(width):
        whens = " ".join(f"WHEN '{type_}' THEN {conn.json_text('e.payload', paths[index])}"
                         for type_, paths in plain if len(paths) > index)
        columns.append(f"CASE e.type {whens} END AS r{index}")
    types = ", ".join(f"'{type_}'" for type_, paths in plain if paths)
    return f"SELECT e.seq AS seq, {', '.join(columns)} FROM events e WHERE e.type IN ({types}){where}", width


def _star_selects(conn: LedgerConnection, where: str) -> Iterator[str]:
    """One SELECT of (seq, ref) per `*` path: every value of the mapping it names."""
    for type_, paths in BLOB_FIELDS.items():
        for path in paths:
            if "*" in path:
                values = conn.json_values("e.payload", path[:path.index("*")])
                yield (f"SELECT e.seq, j.value AS ref FROM events e, {values} j "
                       f"WHERE e.type = '{type_}'{where}")


def _refs_sql(conn: LedgerConnection, one_run: bool) -> tuple[str, int]:
    """(WITH ... SELECT seq, ref of every non-empty digest an event names, how many run ids it takes)."""
    where = " AND e.run_id = ?" if one_run else ""
    scan, width = _plain_scan(conn, where)
    stars = list(_star_selects(conn, where))
    union = "\n  UNION ALL ".join([*(f"SELECT seq, r{index} AS ref FROM plain_refs" for index in range(width)),
                                   *stars])
    sql = (f"WITH plain_refs AS MATERIALIZED ({scan})\n"
           f"SELECT seq, ref FROM ({union}) AS refs WHERE ref IS NOT NULL AND ref != '' "
           f"AND ref != '{EMPTY_DIGEST}'")
    return sql, 1 + len(stars) if one_run else 0


def missing_sql(conn: LedgerConnection, *, one_run: bool) -> tuple[str, int]:
    """SQL giving (seq, digest) of the first referenced blob that is not stored, in the
    connection's dialect, and how many times it takes the run id (0 unless `one_run`).

    The plain paths are read in ONE scan of the events (materialised once, then one row per
    path), however many types and paths name a blob; each `*` path takes a scan of its type.
    """
    refs, uses = _refs_sql(conn, one_run)
    return (f"{refs} AND NOT EXISTS (SELECT 1 FROM blobs b WHERE b.digest = ref) ORDER BY seq LIMIT 1",
            uses)


def named_sql(conn: LedgerConnection) -> tuple[str, int]:
    """SQL giving every distinct digest one run's events name (the run id taken that many times)."""
    refs, uses = _refs_sql(conn, True)
    return f"SELECT DISTINCT ref FROM ({refs}) AS named", uses
