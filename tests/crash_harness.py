"""Kill a real `benchledger run` subprocess with SIGKILL once the ledger holds N events.

The test watches the ledger file from outside (a read-only SQLite connection), so the kill lands
wherever the run happens to be: mid-ingest, mid-build or between question stages.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from conftest import REPO

__all__ = ["event_count", "run_and_kill_at", "normalised"]


def event_count(ledger: Path) -> int:
    if not ledger.exists():
        return 0
    try:
        conn = sqlite3.connect(f"file:{ledger}?mode=ro", uri=True, timeout=5)
        try:
            return conn.execute("SELECT count(*) FROM events").fetchone()[0]
        finally:
            conn.close()
    except sqlite3.OperationalError:  # the schema is not there yet
        return 0


def run_and_kill_at(ledger: Path, args: list[str], target: int, *, deadline_s: float = 120) -> bool:
    """Start `benchledger --ledger LEDGER ARGS`, SIGKILL it at >= target events. True if killed."""
    env = dict(os.environ)
    errors = ledger.parent / "run.stderr"
    with errors.open("wb") as stderr:
        proc = subprocess.Popen([sys.executable, "-m", "benchledger.cli.main", "--ledger", str(ledger), *args],
                                stdout=subprocess.DEVNULL, stderr=stderr, env=env, cwd=ledger.parent)
    started = time.monotonic()
    try:
        while proc.poll() is None:
            if event_count(ledger) >= target:
                proc.send_signal(signal.SIGKILL)
                proc.wait(timeout=30)
                return True
            if time.monotonic() - started > deadline_s:
                raise TimeoutError(f"run did not reach {target} events in {deadline_s}s")
            time.sleep(0.002)
        if proc.returncode != 0:  # it ended on its own, and not well: say why
            raise RuntimeError(f"the run exited {proc.returncode} before {target} events: "
                               f"{errors.read_text(errors='replace')[-2000:]}")
        return False
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


# Where a run stands in the ledger and how it got there (its segments, what the cache served) differ
# between a run that was killed and resumed and one that was not; its results may not.
_POSITIONAL = {"run_id", "ledger_head", "events", "last_seq", "failures_retried", "corpus_state", "segments",
               "answers_from_cache", "verdicts_from_cache", "scorer_lines"}


def normalised(report: dict) -> dict:
    """The parts of a report a crash must not change (ids, positions and retry history aside)."""
    out = {k: v for k, v in report.items() if k not in _POSITIONAL}
    out["conditions"] = [{k: v for k, v in c.items() if k != "reason"} for c in report["conditions"]]
    return out
