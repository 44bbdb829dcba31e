"""What a complete run over 30,000 messages costs in memory and on disk.

The run is `benchledger run groupmem` on the synthetic release (every message, every question,
the offline models, the default memory) in a child process, as a user would start it.
- `peak_rss_mb`: the run's peak resident set, `getrusage(RUSAGE_CHILDREN).ru_maxrss` read by a
  small Python process that started the run and waited for it. Read here instead, it would be
  wrong: Linux counts in a child's peak the memory of the process that forked it, up to the
  child's exec, and this process may hold a large benchmark's data by then;
- `ledger_bytes_per_question`: the ledger file (with its WAL and shared-memory files, after the
  run closed it) over the questions asked;
- `footprint_run_s`: the child's wall time, for context.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from benchledger.bench import register
from benchledger.bench.corpus import DOMAIN, scratch_dir, synth_dataset, synth_release

__all__ = ["run_footprint"]

_MEASURE = """import resource, subprocess, sys
done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(done.returncode)"""
"""Run argv[1:] and print its peak resident set in kilobytes (Linux's unit for ru_maxrss)."""


@register("peak_rss_mb")
def run_footprint(quick: bool) -> dict[str, float]:
    messages = 3000 if quick else 30_000
    release, questions = synth_release(messages), len(synth_dataset(messages).questions)
    folder = scratch_dir() / f"footprint-{messages}"
    folder.mkdir()
    ledger = folder / "ledger.db"
    command = [sys.executable, "-c", _MEASURE,
               sys.executable, "-m", "benchledger.cli.main", "--ledger", str(ledger), "--log-format", "json",
               "run", "groupmem", str(release), "--domain", DOMAIN,
               "--memory-store", str(folder / "memory.db"), "--out", str(folder / "report.json")]
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"the footprint run failed ({done.returncode}): {done.stderr[-2000:]}")
    report = json.loads((folder / "report.json").read_text())
    if report["run_status"] != "completed" or report["judged"] != questions:
        raise RuntimeError(f"the footprint run judged {report['judged']} of {questions} questions")
    peak_kb = int(done.stdout.strip().splitlines()[-1])
    size = sum(path.stat().st_size for path in folder.glob("ledger.db*"))
    return {"peak_rss_mb": round(peak_kb / 1024, 1),
            "ledger_bytes_per_question": round(size / max(1, questions), 1),
            "footprint_run_s": round(elapsed, 2)}
