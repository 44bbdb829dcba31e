"""Ledger speed against bare sqlite3 storing the same events, in the same process.

The baseline is the least code that stores these typed events with sqlite3: dump each event's
JSON once (`model_dump_json`) and insert rows with the same columns into a table with no
constraints, triggers or chain, with the same journal mode (WAL) and synchronous setting
(FULL). So a ratio shows what the ledger's guarantees cost (hash chain, idempotency lookup,
positions, guard triggers, unique indexes, typed rows handed back), not what the disk or the
JSON costs. The `_prebuilt` figures are stricter: their baseline inserts rows whose JSON was
dumped before the clock started, so they also charge the ledger for serialising.
The three writers take turns batch by batch and the median of a few rounds is kept, which damps
the noise of a shared machine.
"""

from __future__ import annotations

import gc
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

from benchledger.bench import goal, register
from benchledger.bench.synthetic import fill_ledger, question_events
from benchledger.ledger.events import Event
from benchledger.ledger.store import Ledger

__all__ = ["append_single_ratio", "append_batched_ratio", "verify_events_per_s", "read_events_per_s"]

ROUNDS = 5
_BARE_TABLE = """CREATE TABLE events (seq INTEGER PRIMARY KEY AUTOINCREMENT, run_id TEXT,
    position INTEGER, type TEXT, schema_version INTEGER, recorded_at TEXT, idempotency_key TEXT,
    payload TEXT, prev_hash TEXT, hash TEXT)"""
_BARE_INSERT = "INSERT INTO events VALUES (NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
_ZEROS = "0" * 64

goal("append_single_ratio", at_least=0.75, baseline="append_single_bare_per_s")
goal("append_batched_ratio", at_least=0.55, baseline="append_batched_bare_per_s")


def _bare_connection(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = FULL")
    conn.execute(_BARE_TABLE)
    return conn


def _bare_rows(events: list[Event], start: int = 0) -> list[tuple]:
    """The rows a bare store would write: same columns and payload JSON, placeholder hashes."""
    return [("run", start + i + 1, e.type, 1, "2025-01-01T00:00:00.000000Z", e.idempotency_key(),
             e.model_dump_json(), _ZEROS, _ZEROS) for i, e in enumerate(events)]


def _append_figures(prefix: str, n: int, batch: int) -> dict[str, float]:
    """Rates of the ledger and of both baselines, appending `batch` events per commit.

    The three writers take turns batch by batch, each on its own file, so a burst of load on
    the shared machine (or a slow fsync) falls on all of them alike; each round uses new files
    and the ratios are the median over rounds.
    """
    events = list(question_events(n))
    prebuilt = _bare_rows(events)
    gc.collect()
    gc.freeze()  # the inputs are long-lived: keep the collector from rescanning them each round
    ratios: dict[str, list[float]] = {"bare": [], "prebuilt": []}
    rates: dict[str, list[float]] = {"ledger": [], "bare": [], "prebuilt": []}
    with tempfile.TemporaryDirectory() as workdir:
        for round_ in range(ROUNDS):
            ledger = Ledger.open(Path(workdir) / f"ledger{round_}.db")
            bare = _bare_connection(Path(workdir) / f"bare{round_}.db")
            bare_prebuilt = _bare_connection(Path(workdir) / f"prebuilt{round_}.db")
            spent = dict.fromkeys(rates, 0.0)
            for start in range(0, n, batch):
                clock = time.perf_counter()
                ledger.writer.append("run", events[start:start + batch])
                spent["ledger"] += time.perf_counter() - clock

                clock = time.perf_counter()
                rows = _bare_rows(events[start:start + batch], start)
                bare.execute("BEGIN")
                bare.executemany(_BARE_INSERT, rows)
                bare.execute("COMMIT")
                spent["bare"] += time.perf_counter() - clock

                clock = time.perf_counter()
                bare_prebuilt.execute("BEGIN")
                bare_prebuilt.executemany(_BARE_INSERT, prebuilt[start:start + batch])
                bare_prebuilt.execute("COMMIT")
                spent["prebuilt"] += time.perf_counter() - clock
            for connection in (ledger, bare, bare_prebuilt):
                connection.close()
            for side, seconds in spent.items():
                rates[side].append(n / seconds)
            for side in ratios:
                ratios[side].append(spent[side] / spent["ledger"])
    gc.unfreeze()
    return {
        f"{prefix}_ratio": round(statistics.median(ratios["bare"]), 3),
        f"{prefix}_ratio_prebuilt": round(statistics.median(ratios["prebuilt"]), 3),
        f"{prefix}_per_s": round(statistics.median(rates["ledger"])),
        f"{prefix}_bare_per_s": round(statistics.median(rates["bare"])),
        f"{prefix}_prebuilt_per_s": round(statistics.median(rates["prebuilt"])),
    }


@register("append_single_ratio")
def append_single_ratio(quick: bool) -> dict[str, float]:
    """Durable one-event appends per second, ledger over bare insert+commit."""
    return _append_figures("append_single", 100 if quick else 1000, batch=1)


@register("append_batched_ratio")
def append_batched_ratio(quick: bool) -> dict[str, float]:
    """Events per second appended 500 per transaction, ledger over bare executemany."""
    return _append_figures("append_batched", 5_000 if quick else 50_000, batch=500)


@register("verify_events_per_s")
def verify_events_per_s(quick: bool) -> float:
    """Rows re-hashed and checked per second by a whole-ledger verify."""
    n = 5_000 if quick else 50_000
    with tempfile.TemporaryDirectory() as workdir:
        with fill_ledger(Path(workdir) / "ledger.db", "run", n) as ledger:
            started = time.perf_counter()
            result = ledger.reader.verify()
            elapsed = time.perf_counter() - started
    if not result.ok or result.checked != n:
        raise RuntimeError(f"verify of a fresh ledger failed: {result}")
    return round(n / elapsed)


@register("read_events_per_s")
def read_events_per_s(quick: bool) -> float:
    """Typed events per second from a cold `Ledger.reader.events` of one run (JSON validated)."""
    n = 5_000 if quick else 50_000
    with tempfile.TemporaryDirectory() as workdir:
        path = Path(workdir) / "ledger.db"
        fill_ledger(path, "run", n).close()
        with Ledger.open(path, create=False) as ledger:
            started = time.perf_counter()
            events = ledger.reader.events("run")
            elapsed = time.perf_counter() - started
    if len(events) != n:
        raise RuntimeError(f"read {len(events)} events of {n}")
    return round(n / elapsed)
