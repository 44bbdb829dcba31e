"""Run-path speed: whole runs through `run_dataset`, answer and judge calls through the openai SDK.

The model endpoint is the loopback OpenAI-compatible server on 127.0.0.1, so every question pays
what a real run pays on our side (recall, the SDK's HTTP round trips, three ledger appends with
their blobs, the response cache) and nothing for a model thinking.

- `harness_questions_per_s`: questions over the wall time of one complete run (plan, prepare,
  verify, ask, purge, finish) of 1,000 questions over a 3,000-message synthetic domain, with
  zero model latency and the default concurrency; the run's prepare time is reported beside it.
- `concurrency_efficiency`: the same with 200 ms per model call at `--concurrency 16`; the ideal
  time is questions x 2 calls x 0.2 s / 16, and the figure is ideal over measured (1.0 = every
  slot busy all the time). The corpus is small so preparation does not dilute the figure.
"""

from __future__ import annotations

import os
import time

from benchledger.bench import register
from benchledger.bench.corpus import scratch_dir, synth_dataset, with_questions
from benchledger.bench.loopback_process import served_loopback
from benchledger.cli.logging_setup import configure_logging
from benchledger.ledger.store import Ledger
from benchledger.orchestration.session import run_dataset
from benchledger.settings import RunSettings

__all__ = ["timed_run", "harness_questions_per_s", "concurrency_efficiency"]

_KEY_ENV = "BENCHLEDGER_BENCH_KEY"


def timed_run(messages: int, questions: int, *, latency: float, concurrency: int,
              name: str) -> tuple[float, float]:
    """(seconds for the whole run, seconds spent preparing) of one run against the loopback."""
    configure_logging()  # as the CLI does: warnings only, on stderr (stdout is the figures)
    dataset = with_questions(synth_dataset(messages), questions)
    folder = scratch_dir() / name
    folder.mkdir()
    os.environ[_KEY_ENV] = "sk-bench-not-a-secret"
    prepared: dict[str, float] = {}

    def progress(stage: str, done: int, total: int, /, **detail: int) -> None:
        if stage == "build" and done == total:
            prepared["at"] = time.perf_counter()

    with served_loopback(latency) as server, Ledger.open(folder / "ledger.db") as ledger:
        settings = RunSettings(memory_store=folder / "memory.db", agent_model="gpt-5",
                               judge_model="gpt-5", base_url=server.base_url,
                               api_key_env=_KEY_ENV, concurrency=concurrency)
        started = time.perf_counter()
        run_id = run_dataset(ledger, dataset, settings, progress=progress)
        elapsed = time.perf_counter() - started
        calls = server.count()
    if calls != 2 * questions:
        raise RuntimeError(f"run {run_id}: expected {2 * questions} model calls, the server saw {calls}")
    return elapsed, prepared.get("at", started) - started


@register("harness_questions_per_s")
def harness_questions_per_s(quick: bool) -> dict[str, float]:
    questions = 200 if quick else 1000
    elapsed, prepare = timed_run(3000, questions, latency=0.0, concurrency=4,
                                 name=f"harness-{questions}")
    return {"harness_questions_per_s": round(questions / elapsed, 1),
            "harness_prepare_s": round(prepare, 3)}


@register("concurrency_efficiency")
def concurrency_efficiency(quick: bool) -> float:
    questions, concurrency, latency = (64 if quick else 160), 16, 0.2
    elapsed, _ = timed_run(200, questions, latency=latency, concurrency=concurrency,
                           name=f"concurrency-{questions}")
    ideal = questions * 2 * latency / concurrency
    return round(ideal / elapsed, 3)
