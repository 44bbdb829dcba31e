"""What ingesting one LongMemEval-V2 medium haystack costs: 500 trajectories (5,000 states) of the synthetic
generator, in one memory scope, as the harness builds memory per question on the medium tier.

The run is `benchledger retrieval longmemeval-v2 --tier medium --question-limit 1` (ingest, build,
one recall; no model) in a child process, started by a small Python process that reads its peak
resident set (`RUSAGE_CHILDREN`, as `footprint_bench` explains):
- `lmev2_medium_ingest_s`: the child's wall time (read, validate, ingest, build, recall, purge);
- `lmev2_medium_peak_rss_mb`: its peak resident set;
- `lmev2_medium_states`: the documents ingested (one per state), for context.
"""

from __future__ import annotations

import subprocess
import sys
import time

from benchledger.adapters.benchmarks.longmemeval_v2.synth import synthesize_longmemeval_v2
from benchledger.bench import register
from benchledger.bench.corpus import scratch_dir

__all__ = ["run_lmev2_ingest"]

_MEASURE = """import resource, subprocess, sys
done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(done.returncode)"""


@register("lmev2_medium_ingest_s")
def run_lmev2_ingest(quick: bool) -> dict[str, float]:
    trajectories = 30 if quick else 500
    folder = scratch_dir() / f"lmev2-{trajectories}"
    summary = synthesize_longmemeval_v2(folder / "release", trajectories=trajectories, questions=7)
    command = [sys.executable, "-c", _MEASURE,
               sys.executable, "-m", "benchledger.cli.main", "--ledger", str(folder / "ledger.db"),
               "--log-format", "json", "retrieval", "longmemeval-v2", str(folder / "release"), "--domain", "web",
               "--tier", "medium", "--question-limit", "1", "--memory-store", str(folder / "memory.db")]
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"the LongMemEval-V2 ingest run failed ({done.returncode}): {done.stderr[-2000:]}")
    peak_kb = int(done.stdout.strip().splitlines()[-1])
    return {"lmev2_medium_ingest_s": round(elapsed, 2), "lmev2_medium_peak_rss_mb": round(peak_kb / 1024, 1),
            "lmev2_medium_states": float(summary.states // 2)}
