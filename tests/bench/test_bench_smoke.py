"""`python -m benchledger.bench --quick --json` runs every benchmark and prints every named figure.

A smoke test, not a speed test: it checks that the entry point runs end to end in a real
subprocess (its scratch files under this test's tmp_path) and that each figure the performance
issue names comes out as a number, never that a number is good. Speed lives under `bench/`.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
pytestmark = pytest.mark.slow

NAMED_FIGURES = (
    "append_batched_ratio", "append_single_ratio", "verify_events_per_s",
    "fold_50k_s", "read_verify_fold_50k_s", "ingest_build_30k_s",
    "recall_p50_ms", "recall_p95_ms", "recall_speedup_vs_rank_bm25",
    "harness_questions_per_s", "concurrency_efficiency",
    "peak_rss_mb", "ledger_bytes_per_question",
    "concurrent_sqlite_1_per_s", "concurrent_sqlite_4_per_s", "concurrent_sqlite_16_per_s",
    "ratelimit_adaptive_share", "ratelimit_fixed4_share", "ratelimit_fixed64_share",
    "ratelimit_adaptive_wall_s", "ratelimit_fixed4_wall_s", "ratelimit_fixed64_wall_s",
    "cli_help_ratio", "cli_help_cpu_s",
)
# Measured against a throwaway PostgreSQL cluster, wherever one can be started (CI always can).
POSTGRES_FIGURES = ("concurrent_pg_1_per_s", "concurrent_pg_4_per_s", "concurrent_pg_16_per_s")


@pytest.mark.timeout(960)
def test_quick_bench_prints_one_json_object_with_every_named_figure(tmp_path: Path) -> None:
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "benchledger.bench", "--quick", "--json"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=900)  # about 2 min idle; a shared machine can take 3x
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 1, done.stdout  # exactly one JSON object, on one line
    figures = json.loads(lines[0])
    from benchledger.bench.pg_cluster import find_bindir

    named = NAMED_FIGURES + (POSTGRES_FIGURES if find_bindir() is not None else ())
    missing = [name for name in named if figures.get(name) is None]
    assert not missing, f"figures not measured: {missing}"
    for name in named:
        value = figures[name]
        assert isinstance(value, (int, float)) and math.isfinite(value) and value > 0, (name, value)
    assert 0 < figures["concurrency_efficiency"] <= 1.5
    assert figures["recall_p50_ms"] <= figures["recall_p95_ms"]
    assert not list(tmp_path.glob("benchledger-bench-*")), "scratch files outlived the run"
