"""`fold_50k_s`: every projection a user looks at, over one run of 50,000 events.

The run is stored in a real ledger first (start, plan, a scorer, then per question a recall of
10 items, an answer and a judgment, with one question in fifty failing at answer and being
retried, and the finish), and read back once. The figure is the time of the projections a
`show` and a `failures` make from those stored events: `build_report`, `scorecard_value` (what
`verify` re-folds) and `failure_entries`. Beside it: `read_50k_s`, a plain read of the run's
typed events (`Ledger.reader.events`), and `read_verify_fold_50k_s`, what `show` does before it prints:
a checked read (`verified_events`: the run's chain segment re-hashed, the schema and the blobs
its events name checked, the events typed) and one fold (`fold_run`), from a fresh `Ledger`;
`read_verify_fold_50k_cpu_s`, the same in CPU time (what other processes on a shared machine
cannot inflate); and `read_baseline_50k_s`, the same rows typed the way reads were before (row by row, with the
cycle collector running), as the baseline both reads are measured against in this process.
Each is the best of a few rounds.
"""

from __future__ import annotations

import sqlite3
import time

from benchledger.adapters.benchmarks.groupmem.publishable import CONDITIONS as GROUPMEM_CONDITIONS
from benchledger.bench import goal, register
from benchledger.bench.corpus import scratch_dir
from benchledger.bench.synthetic import BODY, question_events, run_started
from benchledger.ledger.events import Event, Failed, RunFinished, ScorerStarted
from benchledger.ledger.mapper import ROW_COLUMNS, row_to_stored
from benchledger.ledger.store import Ledger
from benchledger.projections.inspect import failure_entries
from benchledger.projections.report import build_report
from benchledger.projections.state import fold_run
from benchledger.projections.views import scorecard_value

__all__ = ["run_events", "fold_50k_s"]

ROUNDS = 3

goal("read_verify_fold_50k_s", at_most=0.7, baseline="read_baseline_50k_s")


def run_events(n_events: int) -> list[Event]:
    """Exactly n_events events of a finished run, with some answer failures among them."""
    events: list[Event] = [*run_started(n_events // 3 + 1),
                           ScorerStarted(scorer_id="s1", judge_model="offline-judge", protocol="typed")]
    for index, event in enumerate(question_events(n_events)):
        if len(events) >= n_events - 1:
            break
        if index % 150 == 1:  # before the answer of every fiftieth question: a failed attempt
            events.append(Failed(stage="answer", question_id=getattr(event, "question_id"), error_class="APITimeoutError",
                                 message="Request timed out.", attempt=1))
        events.append(event)
    del events[n_events - 1:]
    events.append(RunFinished(status="completed"))
    return events


def _best(function, rounds: int = ROUNDS, clock=time.perf_counter) -> float:
    best = float("inf")
    for _ in range(rounds):
        started = clock()
        function()
        best = min(best, clock() - started)
    return best


@register("fold_50k_s")
def fold_50k_s(quick: bool) -> dict[str, float]:
    n_events = 10_000 if quick else 50_000
    events = run_events(n_events)
    run_id = "fold-bench"
    path = scratch_dir() / f"fold-{n_events}.db"
    with Ledger.open(path) as ledger:
        for start in range(0, len(events), 1000):
            ledger.writer.append(run_id, events[start:start + 1000], blobs=[BODY] if start == 0 else [])
    stored: list = []

    def read() -> None:  # a fresh Ledger each time: its cache of recently read runs starts empty
        with Ledger.open(path, create=False) as ledger:
            stored[:] = ledger.reader.events(run_id)

    def read_verify_fold() -> None:
        with Ledger.open(path, create=False) as ledger:
            checked = ledger.reader.verified_events(run_id)
        state = fold_run(run_id, checked)
        if state.finished is None or state.finished.status != "completed":
            raise RuntimeError("the checked read did not fold as a completed run")

    def read_baseline() -> None:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        rows = conn.execute(f"SELECT {ROW_COLUMNS} FROM events WHERE run_id = ? ORDER BY position",
                            (run_id,)).fetchall()
        conn.close()
        if len([row_to_stored(row) for row in rows]) != n_events:
            raise RuntimeError("the baseline read lost events")

    baseline_s = _best(read_baseline)
    read_s = _best(read)
    if len(stored) != n_events:
        raise RuntimeError(f"stored {len(stored)} events, expected {n_events}")
    checked_s = _best(read_verify_fold)
    checked_cpu_s = _best(read_verify_fold, clock=time.process_time)

    def project() -> None:
        report = build_report(run_id, stored, conditions=GROUPMEM_CONDITIONS)
        scorecard_value(run_id, stored, GROUPMEM_CONDITIONS)
        entries = failure_entries(fold_run(run_id, stored))
        if report.run_status != "completed" or not entries:
            raise RuntimeError("the synthetic run did not fold as a completed run with failures")

    return {"fold_50k_s": round(_best(project), 3), "read_50k_s": round(read_s, 3),
            "read_verify_fold_50k_s": round(checked_s, 3),
            "read_verify_fold_50k_cpu_s": round(checked_cpu_s, 3), "read_baseline_50k_s": round(baseline_s, 3)}
