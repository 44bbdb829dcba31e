"""The default memory (`sqlite`) at GroupMemBench scale: preparing 30,000 messages and recalling.

- `ingest_build_30k_s`: `prepare_scopes` into a fresh `sqlite` memory with a real Ledger, so the
  MessagesIngested / ChunkExtracted events (one transaction per 1,000-message batch) are paid.
- `recall_index_load_s`: the first recall of the scope, which reads its postings from FTS5 once.
- `recall_p50_ms`, `recall_p95_ms`: every question of the synthetic release as a recall (its text
  and asking user, k=10, no budget), three rounds, the median round per question.
- `recall_speedup_vs_rank_bm25`: on every twelfth question, `rank_bm25.BM25Okapi.get_top_n` over
  the same messages (tokens: the same lowercased words) against the memory's recall, timed in
  turn in this process; the ratio of their mean times (`recall_rank_bm25_ms`: rank_bm25's mean).
"""

from __future__ import annotations

import re
import statistics
import time
from benchledger.adapters.memory.sqlite_fts import SqliteMemory
from benchledger.bench import goal, register
from benchledger.bench.corpus import scratch_dir, synth_dataset
from benchledger.orchestration.prepare import prepare_scopes, scope_names
from benchledger.ledger.store import Ledger

__all__ = ["ingest_build_30k_s", "recall_figures"]

ROUNDS = 3

goal("recall_speedup_vs_rank_bm25", at_least=50, baseline="recall_rank_bm25_ms")
_WORD = re.compile(r"\w+")


def _size(quick: bool) -> int:
    return 3000 if quick else 30_000


def _prepared_memory(messages: int, purpose: str) -> tuple[SqliteMemory, str, float]:
    """A new `sqlite` memory holding the release, its scope, and the seconds preparing it took."""
    dataset = synth_dataset(messages)
    folder = scratch_dir() / f"{purpose}-{messages}"
    folder.mkdir()
    memory = SqliteMemory(folder / "memory.db")
    with Ledger.open(folder / "ledger.db") as ledger:
        started = time.perf_counter()
        prepare_scopes(ledger.writer, "prepare-bench", dataset, memory, preparation=1, batch_size=1000)
        elapsed = time.perf_counter() - started
    state = memory.state(scope_names(dataset)["default"])
    if state.documents != messages or state.pending_chunks:
        raise RuntimeError(f"prepared {state.documents} of {messages} messages, {state.pending_chunks} pending")
    return memory, scope_names(dataset)["default"], elapsed


@register("ingest_build_30k_s")
def ingest_build_30k_s(quick: bool) -> float:
    memory, _, elapsed = _prepared_memory(_size(quick), "ingest-build")
    memory.close()
    return round(elapsed, 3)


def _timed_recall(memory: SqliteMemory, scope: str, text: str, user: str | None) -> float:
    started = time.perf_counter()
    got = memory.recall(scope, text, asking_user=user, k=10, token_budget=None)
    elapsed = time.perf_counter() - started
    if not got:
        raise RuntimeError(f"recall found nothing for {text!r}")
    return elapsed


@register("recall_p50_ms")
def recall_figures(quick: bool) -> dict[str, float]:
    from rank_bm25 import BM25Okapi  # a test extra; only this benchmark needs it

    messages = _size(quick)
    dataset = synth_dataset(messages)
    queries = [(q.text, q.asking_user) for q in dataset.questions]
    memory, scope, _ = _prepared_memory(messages, "recall")
    try:
        started = time.perf_counter()
        memory.recall(scope, "warm up", asking_user=None, k=10, token_budget=None)
        index_load = time.perf_counter() - started
        rounds = [[_timed_recall(memory, scope, text, user) for text, user in queries] for _ in range(ROUNDS)]
        per_query = sorted(statistics.median(times) for times in zip(*rounds))
        documents = dataset.scopes["default"]
        baseline = BM25Okapi([_WORD.findall(doc.text.lower()) for doc in documents])
        ours, theirs = [], []
        for text, user in queries[::12]:
            ours.append(_timed_recall(memory, scope, text, user))
            started = time.perf_counter()
            baseline.get_top_n(_WORD.findall(f"{text} {user or ''}".lower()), documents, n=10)
            theirs.append(time.perf_counter() - started)
    finally:
        memory.close()
    return {
        "recall_index_load_s": round(index_load, 3),
        "recall_p50_ms": round(1000 * per_query[len(per_query) // 2], 3),
        "recall_p95_ms": round(1000 * per_query[min(len(per_query) - 1, int(0.95 * len(per_query)))], 3),
        "recall_speedup_vs_rank_bm25": round(statistics.mean(theirs) / statistics.mean(ours), 1),
        "recall_rank_bm25_ms": round(1000 * statistics.mean(theirs), 3),
    }
