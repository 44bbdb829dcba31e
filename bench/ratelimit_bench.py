"""A whole run at a provider's rate limit: adaptive pacing against fixed concurrency 4 and 64.

Each mode makes one complete run (`run_dataset`: plan, prepare, recall, answer, judge, purge) of
500 questions (1,000 calls; 60 with --quick) against the loopback endpoint in its own process
(`bench.loopback_process`), which enforces token buckets of `RATE` requests and `TOKENS` tokens
per second (a provider's per-minute limit scaled down sixty-fold so a run takes seconds), refuses
with 429, `Retry-After` and the `x-ratelimit-*` headers, and answers after a long-tailed latency
(log-normal, median `MEDIAN_S`, sigma `SIGMA`: mean ~1.4x the median, p99 ~6x).

Figures, per mode (`adaptive`, `fixed4`, `fixed64`):
- `ratelimit_<mode>_share`: requests the endpoint admitted over what its limit allowed in the same
  span (the first admission to the last: the burst plus `RATE` x span), the higher of the request
  and token shares; 1.0 is running exactly at the limit.
- `ratelimit_<mode>_refused`: the share of requests the endpoint answered with 429.
- `ratelimit_<mode>_wall_s`: the run's wall time, preparation included (`ratelimit_prepare_s`, the
  same for every mode, is reported once).
- `ratelimit_<mode>_failed`: questions that ended Failed (retries exhausted).
The goal of issue 24: adaptive share >= 0.9 with refused < 0.01, where fixed 4 is latency-bound
(4 / mean latency is well under the limit) and fixed 64 storms (64 in flight ask ~6x the limit).
"""

from __future__ import annotations

import os
import sys
import time

from benchledger.bench import register
from benchledger.bench.corpus import scratch_dir, synth_dataset, with_questions
from benchledger.bench.loopback_process import served_loopback
from benchledger.cli.logging_setup import configure_logging
from benchledger.ledger.store import Ledger
from benchledger.orchestration.session import run_dataset
from benchledger.projections.state import fold_run
from benchledger.settings import Pacing, RunSettings

__all__ = ["ratelimit_run", "RATE", "TOKENS", "MEDIAN_S", "SIGMA"]

RATE = 50.0
"""Requests per second the endpoint allows (3,000 a minute, scaled down sixty-fold)."""
TOKENS = 200_000.0
"""Tokens per second the endpoint allows: above what RATE requests of this corpus ask, so requests bind."""
MEDIAN_S = 0.12
SIGMA = 0.8
MODES: dict[str, tuple[Pacing, int]] = {"adaptive": ("adaptive", 64), "fixed4": ("fixed", 4), "fixed64": ("fixed", 64)}
_KEY_ENV = "BENCHLEDGER_BENCH_KEY"


def ratelimit_run(mode: str, questions: int) -> dict[str, float]:
    """One run in `mode` against a fresh rate-limited endpoint: its figures."""
    pacing, concurrency = MODES[mode]
    configure_logging()
    dataset = with_questions(synth_dataset(400), questions)
    folder = scratch_dir() / f"ratelimit-{mode}-{questions}"
    folder.mkdir()
    os.environ[_KEY_ENV] = "sk-bench-not-a-secret"
    with served_loopback(MEDIAN_S, limit=(RATE, TOKENS, 1.0), tail=SIGMA) as server, \
            Ledger.open(folder / "ledger.db") as ledger:
        settings = RunSettings(memory_store=folder / "memory.db", agent_model="gpt-5", judge_model="gpt-5",
                               base_url=server.base_url, api_key_env=_KEY_ENV, concurrency=concurrency,
                               pacing=pacing)
        started = time.perf_counter()
        run_id = run_dataset(ledger, dataset, settings)
        wall = time.perf_counter() - started
        state = fold_run(run_id, ledger.reader.events(run_id))
        stats = server.limit_stats()
    span = max(1e-9, stats["last_at"] - stats["first_at"])
    share = max(stats["admitted"] / (RATE + RATE * span), stats["admitted_tokens"] / (TOKENS + TOKENS * span))
    asked = stats["admitted"] + stats["refused"]
    failed = sum(1 for q in state.questions.values() if q.failures and not q.judged)
    paced = state.pacing[-1] if state.pacing else None
    print(f"bench: ratelimit {mode}: {stats['admitted']} admitted, {stats['refused']} refused over {span:.1f}s; "
          f"peak {paced.peak_in_flight if paced else '-'} mean {paced.mean_in_flight if paced else '-'} in flight",
          file=sys.stderr)
    return {f"ratelimit_{mode}_share": round(share, 3), f"ratelimit_{mode}_refused": round(stats["refused"] / asked, 4),
            f"ratelimit_{mode}_wall_s": round(wall, 1), f"ratelimit_{mode}_failed": float(failed)}


@register("ratelimit")
def ratelimit(quick: bool) -> dict[str, float]:
    questions = 60 if quick else 500
    figures: dict[str, float] = {}
    for mode in MODES:
        figures.update(ratelimit_run(mode, questions))
    return figures
