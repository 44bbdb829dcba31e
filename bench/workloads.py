"""One benchmark's workload in this process, timed in CPU and wall time: for comparing two versions
of the code back to back, where a shared machine makes one full bench run against another noise.

    .venv/bin/python bench/workloads.py NAME          # this checkout
    PYTHONPATH=OLD_TREE .venv/bin/python bench/workloads.py NAME

run as a file, so `OLD_TREE` (a folder holding `benchledger/` laid out as installed: links to an
older checkout's folders, as `.ci/typecheck` makes them) supplies every module it imports. Each
prints one JSON object. NAME is one of: `batched` (20,000 synthetic run events, 500 an append, to a
fresh file), `single` (600 of them one an append), `read` (the checked read and fold of a
50,000-event run, best of 3 in CPU), `pg` (600 one-event appends to a throwaway PostgreSQL cluster),
`harness` (a whole 1,000-question run against the loopback), `recall` (the recall figures). Only
APIs older versions share are used.
"""

from __future__ import annotations

import gc
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


def _appends(n: int, batch: int) -> dict[str, Any]:
    from benchledger.bench.synthetic import question_events
    from benchledger.ledger.store import Ledger

    events = list(question_events(n))
    gc.collect()
    gc.freeze()
    with tempfile.TemporaryDirectory() as folder, Ledger.open(Path(folder) / "ledger.db") as ledger:
        cpu, wall = time.process_time(), time.perf_counter()
        for start in range(0, n, batch):
            ledger.writer.append("run", events[start:start + batch])
        return {"cpu_us_per_event": 1e6 * (time.process_time() - cpu) / n,
                "wall_us_per_event": 1e6 * (time.perf_counter() - wall) / n}


def _read() -> dict[str, Any]:
    from benchledger.bench.fold_bench import run_events
    from benchledger.bench.synthetic import BODY
    from benchledger.ledger.store import Ledger
    from benchledger.projections.state import fold_run

    events = run_events(50_000)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "ledger.db"
        with Ledger.open(path) as ledger:
            for start in range(0, len(events), 1000):
                ledger.writer.append("r", events[start:start + 1000], blobs=[BODY] if start == 0 else [])
        best = float("inf")
        for _ in range(3):
            cpu = time.process_time()
            with Ledger.open(path, create=False) as ledger:
                checked = ledger.reader.verified_events("r")
            fold_run("r", checked)
            best = min(best, time.process_time() - cpu)
    return {"read_verify_fold_cpu_s": best}


def _postgres() -> dict[str, Any]:
    from benchledger.bench.pg_cluster import start_cluster
    from benchledger.ledger.events import Failed
    from benchledger.ledger.store import Ledger, init_ledger

    cluster = start_cluster(fsync=True)
    try:
        url = cluster.url()
        init_ledger(url)
        events = [Failed(stage="answer", question_id=f"q{n}", error_class="E", message="m") for n in range(600)]
        with Ledger.open(url) as ledger:
            ledger.writer.append("warm", [events[0]])
            cpu, wall = time.process_time(), time.perf_counter()
            for event in events:
                ledger.writer.append("r", [event])
            return {"pg_client_cpu_us_per_append": 1e6 * (time.process_time() - cpu) / len(events),
                    "pg_appends_per_s": len(events) / (time.perf_counter() - wall)}
    finally:
        cluster.stop()


def _harness() -> dict[str, Any]:
    from benchledger.bench import harness_bench

    cpu, wall = time.process_time(), time.perf_counter()
    harness_bench.timed_run(3000, 1000, latency=0.0, concurrency=4, name="harness")
    return {"harness_cpu_ms_per_question": time.process_time() - cpu,  # seconds over 1,000 questions
            "harness_questions_per_s": 1000 / (time.perf_counter() - wall)}


def _recall() -> dict[str, Any]:
    from benchledger.bench import recall_bench

    figures: Any = recall_bench.recall_figures(False)
    return {name: figures[name] for name in ("recall_p50_ms", "recall_p95_ms", "recall_speedup_vs_rank_bm25")}


WORKLOADS = {"batched": lambda: _appends(20_000, 500), "single": lambda: _appends(600, 1), "read": _read,
             "pg": _postgres, "harness": _harness, "recall": _recall}

if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in WORKLOADS:
        sys.exit(f"usage: bench/workloads.py {{{','.join(WORKLOADS)}}}")
    print(json.dumps(WORKLOADS[sys.argv[1]]()))
