"""Appends per second with 1, 4 and 16 writers at once, on PostgreSQL and on SQLite, in one run.

Each writer is a process of its own with its own connection (a `Ledger` opened on the same
ledger), appending its own run one durable event per transaction, as a run's failures and
single stages are committed. The processes import, connect and wait for a common start; the
figure is every event appended over the time from that start to the last writer's end. Both
ledgers are durable: the SQLite file commits with `synchronous=FULL`, the PostgreSQL server
(a throwaway cluster, `pg_cluster`, on the same disk) with its defaults (`fsync`,
`synchronous_commit`). Appends to one ledger take turns at its tail (SQLite's write lock, the
PostgreSQL ledger's advisory tail lock), so more writers do not make more appends per second;
what the figures show is how each backend holds up as writers queue. `concurrent_pg_vs_sqlite_N`
is the ratio of the two rates at N writers, measured in the same run. Without a PostgreSQL
server on the machine the PostgreSQL figures are left out (None), saying why on stderr.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

from benchledger.bench import goal, register
from benchledger.bench.pg_cluster import ClusterUnavailable, start_cluster
from benchledger.bench.together import start_together
from benchledger.ledger.store import Ledger, init_ledger

__all__ = ["concurrent_appends"]

WRITERS = (1, 4, 16)
_START_DELAY_S = 1.5
_READY_TIMEOUT_S = 120.0

goal("concurrent_pg_1_per_s", at_least=1000, baseline="concurrent_sqlite_1_per_s")

_WRITER = textwrap.dedent("""
    import json, sys, time
    from benchledger.ledger.events import Failed
    from benchledger.ledger.store import Ledger

    target, run_id, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    events = [Failed(stage="answer", question_id=f"q{n}", error_class="E", message="m") for n in range(count)]
    with Ledger.open(target) as ledger:
        ledger.reader.runs()
        print("ready", flush=True)
        start_at = float(sys.stdin.readline())
        time.sleep(max(0.0, start_at - time.time()))
        for event in events:
            ledger.writer.append(run_id, [event])
        print(json.dumps({"end": time.time(), "written": len(ledger.reader.events(run_id))}), flush=True)
""")


def _rate(target: str, writers: int, each: int, round_: int) -> float:
    """Events per second appended by `writers` processes at once, `each` events apiece."""
    procs = [subprocess.Popen([sys.executable, "-c", _WRITER, target, f"r{round_}-w{index}", str(each)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
             for index in range(writers)]
    try:
        start_at = start_together(procs, delay=_START_DELAY_S, what=f"a writer on {target}")
        ends = []
        for proc in procs:
            assert proc.stdout is not None
            out = proc.stdout.read()
            proc.wait(timeout=600)
            done = json.loads(out.strip().splitlines()[-1])
            if proc.returncode != 0 or done["written"] != each:
                raise RuntimeError(f"a writer lost events on {target}: {done}")
            ends.append(done["end"])
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
    return writers * each / (max(ends) - start_at)


def _check(target: str, expected: int) -> None:
    with Ledger.open(target) as ledger:
        result = ledger.reader.verify()
    if not result.ok or result.checked != expected:
        raise RuntimeError(f"the ledger at {target} does not verify after the writers: {result}")


@register("concurrent_appends")
def concurrent_appends(quick: bool) -> dict[str, float | None]:
    """Durable single-event appends per second for 1, 4 and 16 writers, PostgreSQL and SQLite."""
    each_total = 64 if quick else 1600  # events per writer count, shared among its writers
    figures: dict[str, float | None] = {}
    try:
        cluster = start_cluster(fsync=True)
    except ClusterUnavailable as exc:
        print(f"bench: no PostgreSQL figures: {exc}", file=sys.stderr)
        cluster = None
    try:
        with tempfile.TemporaryDirectory(prefix="benchledger-bench-") as workdir:
            sqlite = str(Path(workdir) / "ledger.db")
            init_ledger(sqlite)
            postgres = None
            if cluster is not None:
                postgres = cluster.url()
                init_ledger(postgres)
            written = 0
            for round_, writers in enumerate(WRITERS):
                each = max(1, each_total // writers)
                written += writers * each
                sqlite_rate = round(_rate(sqlite, writers, each, round_))
                figures[f"concurrent_sqlite_{writers}_per_s"] = sqlite_rate
                if postgres is not None:
                    pg_rate = round(_rate(postgres, writers, each, round_))
                    figures[f"concurrent_pg_{writers}_per_s"] = pg_rate
                    figures[f"concurrent_pg_vs_sqlite_{writers}"] = round(pg_rate / sqlite_rate, 3)
                else:
                    figures[f"concurrent_pg_{writers}_per_s"] = figures[f"concurrent_pg_vs_sqlite_{writers}"] = None
            _check(sqlite, written)
            if postgres is not None:
                _check(postgres, written)
    finally:
        if cluster is not None:
            cluster.stop()
    return figures
