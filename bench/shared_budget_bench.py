"""Several processes on one API key: one provider budget in the database against each its own.

One loopback endpoint in its own process enforces `ratelimit_bench`'s limit (`RATE` requests and
`TOKENS` tokens a second, long-tailed latency). Against it, in one run of the bench:

- `independent_4`: 4 processes, each a run on its own SQLite ledger, each pacing itself from the
  provider's headers alone (the anchor: what N `run`s on one key do today);
- `shared_1`, `shared_2`, `shared_4`: 1, 2 and 4 processes whose runs share one PostgreSQL ledger
  (a throwaway cluster, `pg_cluster`), so their schedulers keep one budget in its database
  (`adapters.models.budget_room.SharedRoom`).

Every mode asks the same number of questions in all, split among its processes, which start
together. Figures per mode: `shared_budget_<mode>_share`, the requests (or tokens, the higher) the
endpoint admitted over what its limit allowed in the span (1.0 is exactly at the limit), and
`shared_budget_<mode>_refused`, the share of requests refused with 429. The goal (issue 35 item 3):
with 4 processes sharing the budget, share >= 0.9 and refused < 1%. Without PostgreSQL on the
machine the shared figures are left out (None), saying why on stderr.
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
from benchledger.bench.loopback_process import served_loopback
from benchledger.bench.pg_cluster import ClusterUnavailable, start_cluster
from benchledger.bench.ratelimit_bench import MEDIAN_S, RATE, SIGMA, TOKENS
from benchledger.bench.together import start_together
from benchledger.ledger.store import init_ledger

__all__ = ["shared_budget"]

goal("shared_budget_shared_4_share", at_least=0.9, baseline="shared_budget_independent_4_share")
goal("shared_budget_shared_4_refused", at_most=0.01, baseline="shared_budget_independent_4_refused")

_START_DELAY_S = 2.0
_KEY_ENV = "BENCHLEDGER_BENCH_KEY"
_WORKER = textwrap.dedent("""
    import json, os, sys, time
    from pathlib import Path
    from benchledger.bench.corpus import synth_dataset, with_questions
    from benchledger.cli.logging_setup import configure_logging
    from benchledger.ledger.store import Ledger
    from benchledger.orchestration.session import run_dataset
    from benchledger.settings import RunSettings

    target, base_url, questions, folder = sys.argv[1], sys.argv[2], int(sys.argv[3]), Path(sys.argv[4])
    configure_logging()
    os.environ["BENCHLEDGER_BENCH_KEY"] = "sk-bench-shared-not-a-secret"
    dataset = with_questions(synth_dataset(400), questions)
    settings = RunSettings(memory_store=folder / "memory.db", agent_model="gpt-5", judge_model="gpt-5",
                           base_url=base_url, api_key_env="BENCHLEDGER_BENCH_KEY", concurrency=64)
    with Ledger.open(target) as ledger:
        ledger.reader.runs()
        print("ready", flush=True)
        start_at = float(sys.stdin.readline())
        time.sleep(max(0.0, start_at - time.time()))
        run_dataset(ledger, dataset, settings)
    print(json.dumps({"end": time.time()}), flush=True)
""")


def _mode(targets: list[str], questions: int, workdir: Path) -> dict[str, float]:
    """Processes, one per target, asking `questions` in all against a fresh limited endpoint."""
    each = max(1, questions // len(targets))
    with served_loopback(MEDIAN_S, limit=(RATE, TOKENS, 1.0), tail=SIGMA) as server:
        procs = []
        for index, target in enumerate(targets):
            folder = workdir / f"p{index}-{time.monotonic_ns()}"
            folder.mkdir()
            procs.append(subprocess.Popen([sys.executable, "-c", _WORKER, target, server.base_url, str(each),
                                           str(folder)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True))
        try:
            start_together(procs, delay=_START_DELAY_S, what="a run on one key")
            for proc in procs:
                assert proc.stdout is not None
                out = proc.stdout.read()
                if proc.wait(timeout=1800) != 0:
                    raise RuntimeError(f"a process failed: {out[-500:]}")
        finally:
            for proc in procs:
                if proc.poll() is None:
                    proc.kill()
        stats = server.limit_stats()
    span = max(1e-9, stats["last_at"] - stats["first_at"])
    share = max(stats["admitted"] / (RATE + RATE * span), stats["admitted_tokens"] / (TOKENS + TOKENS * span))
    asked = stats["admitted"] + stats["refused"]
    return {"share": round(share, 3), "refused": round(stats["refused"] / max(1, asked), 4)}


@register("shared_budget")
def shared_budget(quick: bool) -> dict[str, float | None]:
    """Share of the limit and 429s: 4 independent runs, and 1, 2, 4 runs sharing one budget."""
    questions = 80 if quick else 600
    figures: dict[str, float | None] = {}
    with tempfile.TemporaryDirectory(prefix="benchledger-bench-") as scratch:
        workdir = Path(scratch)
        alone = [str(workdir / f"independent-{n}.db") for n in range(4)]
        for target in alone:
            init_ledger(target)
        for name, value in _mode(alone, questions, workdir).items():
            figures[f"shared_budget_independent_4_{name}"] = value
        try:
            cluster = start_cluster(fsync=False)
        except ClusterUnavailable as exc:
            print(f"bench: no shared-budget figures: {exc}", file=sys.stderr)
            return {**figures, **{f"shared_budget_shared_{n}_{name}": None for n in (1, 2, 4)
                                  for name in ("share", "refused")}}
        try:
            url = cluster.url()
            init_ledger(url)
            for processes in (1, 2, 4):
                for name, value in _mode([url] * processes, questions, workdir).items():
                    figures[f"shared_budget_shared_{processes}_{name}"] = value
                print(f"bench: shared budget, {processes} process(es): {json.dumps(figures)}", file=sys.stderr)
        finally:
            cluster.stop()
    return figures
