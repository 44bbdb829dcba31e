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
- `harness_bare_calls_questions_per_s`, the baseline of the first: the same two calls per question
  to the same server through the openai SDK on as many threads, and nothing else (no recall, no
  ledger, no cache), right after the run; `harness_vs_bare_calls` is the ratio of the two.
- `harness_cpu_ms_per_question` and `harness_bare_calls_cpu_ms_per_question`: the CPU time of this
  process (every thread; the loopback is another process) per question, for the run and for the
  baseline: what a shared machine's load inflates least, so the figure to compare across runs.
"""

from __future__ import annotations

import os
import time
from concurrent.futures import ThreadPoolExecutor
from typing import NamedTuple

from benchledger.adapters.benchmarks.base import Dataset
from benchledger.bench import goal, register
from benchledger.bench.corpus import scratch_dir, synth_dataset, with_questions
from benchledger.bench.loopback_process import served_loopback
from benchledger.cli.logging_setup import configure_logging
from benchledger.ledger.store import Ledger
from benchledger.orchestration.session import run_dataset
from benchledger.settings import RunSettings
from benchledger.values import Question

__all__ = ["Timed", "timed_run", "harness_questions_per_s", "concurrency_efficiency"]

_KEY_ENV = "BENCHLEDGER_BENCH_KEY"

goal("harness_questions_per_s", at_least=200, baseline="harness_bare_calls_questions_per_s")
goal("concurrency_efficiency", at_least=0.9, baseline="concurrency_ideal_s")


class Timed(NamedTuple):
    """What `timed_run` measured, in seconds."""

    elapsed: float
    """The whole run, wall time."""
    prepare: float
    """Its preparation (ingest and build), wall time."""
    cpu: float
    """The whole run, CPU time of this process."""
    bare: float | None = None
    """The same model calls alone, wall time (None unless asked for)."""
    bare_cpu: float | None = None
    """... and their CPU time."""


def timed_run(messages: int, questions: int, *, latency: float, concurrency: int,
              name: str, bare_calls: bool = False) -> Timed:
    """One run against the loopback, timed (and its model calls alone after it, if `bare_calls`)."""
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
        started, cpu = time.perf_counter(), time.process_time()
        run_id = run_dataset(ledger, dataset, settings, progress=progress)
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
        calls = server.count()
        bare = _bare_calls(server.base_url, dataset, concurrency) if bare_calls else (None, None)
    if calls != 2 * questions:
        raise RuntimeError(f"run {run_id}: expected {2 * questions} model calls, the server saw {calls}")
    return Timed(elapsed, prepared.get("at", started) - started, cpu, *bare)


def _bare_calls(base_url: str, dataset: Dataset, concurrency: int) -> tuple[float, float]:
    """(wall, CPU) seconds to make two chat calls per question of `dataset` through the openai
    SDK on `concurrency` threads sharing one client, as the run's workers do: the model-call floor."""
    from openai import OpenAI

    client = OpenAI(base_url=base_url, api_key=os.environ[_KEY_ENV], max_retries=0)

    def ask(question: Question) -> None:
        for role in ("answer", "judge"):
            reply = client.chat.completions.create(model="gpt-5", messages=[
                {"role": "user", "content": f"{role}: {question.text}"}])
            if not reply.choices:
                raise RuntimeError("the loopback answered no choice")

    started, cpu = time.perf_counter(), time.process_time()
    with ThreadPoolExecutor(concurrency) as pool:
        list(pool.map(ask, dataset.questions))
    return time.perf_counter() - started, time.process_time() - cpu


@register("harness_questions_per_s")
def harness_questions_per_s(quick: bool) -> dict[str, float]:
    questions = 200 if quick else 1000
    timed = timed_run(3000, questions, latency=0.0, concurrency=4, name=f"harness-{questions}",
                      bare_calls=True)
    assert timed.bare is not None and timed.bare_cpu is not None
    return {"harness_questions_per_s": round(questions / timed.elapsed, 1),
            "harness_prepare_s": round(timed.prepare, 3),
            "harness_bare_calls_questions_per_s": round(questions / timed.bare, 1),
            "harness_vs_bare_calls": round(timed.bare / timed.elapsed, 3),
            "harness_cpu_ms_per_question": round(1000 * timed.cpu / questions, 3),
            "harness_bare_calls_cpu_ms_per_question": round(1000 * timed.bare_cpu / questions, 3)}


@register("concurrency_efficiency")
def concurrency_efficiency(quick: bool) -> dict[str, float]:
    questions, concurrency, latency = (64 if quick else 160), 16, 0.2
    elapsed = timed_run(200, questions, latency=latency, concurrency=concurrency,
                        name=f"concurrency-{questions}").elapsed
    ideal = questions * 2 * latency / concurrency
    return {"concurrency_efficiency": round(ideal / elapsed, 3), "concurrency_ideal_s": round(ideal, 3),
            "concurrency_run_s": round(elapsed, 3)}
