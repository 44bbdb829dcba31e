"""Ingest and build with each memory system in the box, on the same synthetic release.

- `memory_ingest_<system>_docs_per_s`: `prepare_scopes` (ingest, then build, with the ledger's
  MessagesIngested / ChunkExtracted events) into a fresh store of each system at `--concurrency 1`,
  documents per second: sqlite, bm25-reference, structured, full-context, mem0 with `infer=false`
  (an embedding per message through benchledger's recording proxy to the loopback's WordLlama),
  mem0 with `infer=true, granularity=session` (one extraction chat call per channel run, then
  embeddings) and Graphiti (several `json_schema` chat calls and embeddings per message).
- `memory_ingest_<system>_concurrency_4_ratio`: the same preparation at `--concurrency 4` over
  the same four scopes, as a ratio of documents per second against concurrency 1 measured just
  before in the same process (1.0 for a system that prepares one scope at a time: the baselines).
- `memory_model_calls_mem0_infer_per_doc`, `memory_model_calls_graphiti_per_doc`: the memory's
  own model calls per document, counted from the MemoryModelCalled events the run recorded.

The release is split into four scopes of consecutive messages so there is something to overlap;
one scope is prepared first, unmeasured, so imports and model loads fall on neither clock.
Graphiti is measured on fewer messages (it makes several model calls a message). The loopback
endpoint runs in this process, so its replies and WordLlama's embeddings share the interpreter
with the memory system: a concurrency ratio here is a floor for an endpoint elsewhere.
A system whose extra is not installed gives None and says so.
"""

from __future__ import annotations

import sys
import time

from benchledger.adapters.benchmarks.base import Dataset
from benchledger.adapters.memory.registry import available_memories, open_memory
from benchledger.bench import register
from benchledger.bench.corpus import scratch_dir, synth_dataset
from benchledger.ledger.events import MemoryModelCalled
from benchledger.ledger.store import Ledger
from benchledger.orchestration.prepare import prepare_scopes

__all__ = ["memory_ingest_figures", "in_scopes"]

SYSTEMS: tuple[tuple[str, str, dict[str, str]], ...] = (
    ("sqlite", "sqlite", {}), ("bm25_reference", "bm25-reference", {}), ("structured", "structured", {}),
    ("full_context", "full-context", {}), ("mem0", "mem0", {"infer": "false"}),
    ("mem0_infer", "mem0", {"infer": "true", "granularity": "session"}), ("graphiti", "graphiti", {}),
)
SCOPES = 4
CALLS_PER_DOC = ("mem0_infer", "graphiti")


def in_scopes(dataset: Dataset, count: int) -> Dataset:
    """The dataset's documents as `count` scopes of consecutive messages."""
    docs = [doc for scope in dataset.scopes.values() for doc in scope]
    size = -(-len(docs) // count)
    scopes = {f"part-{n}": tuple(docs[n * size:(n + 1) * size]) for n in range(count) if docs[n * size:(n + 1) * size]}
    return dataset.model_copy(update={"scopes": scopes})


def _prepare(label: str, name: str, options: dict[str, str], dataset: Dataset, concurrency: int) -> tuple[float, int]:
    """Seconds to prepare the dataset into a fresh store, and the memory's model calls recorded."""
    folder = scratch_dir() / f"memory-{label}-c{concurrency}"
    folder.mkdir()
    memory = open_memory(name, folder / "memory.sqlite", **options)
    try:
        with Ledger.open(folder / "ledger.db") as ledger:
            started = time.perf_counter()
            prepare_scopes(ledger.writer, "memory-bench", dataset, memory, preparation=1, batch_size=1000,
                           concurrency=concurrency)
            elapsed = time.perf_counter() - started
            calls = sum(1 for row in ledger.reader.events("memory-bench") if isinstance(row.event, MemoryModelCalled))
    finally:
        memory.close()
    return elapsed, calls


@register("memory_ingest_sqlite_docs_per_s")
def memory_ingest_figures(quick: bool) -> dict[str, float | None]:
    installed = available_memories()
    figures: dict[str, float | None] = {}
    for label, name, options in SYSTEMS:
        key = f"memory_ingest_{label}_docs_per_s"
        ratio = f"memory_ingest_{label}_concurrency_4_ratio"
        if name not in installed or installed[name].error:
            print(f"bench: {key}: {name} is not installed ({installed.get(name)})", file=sys.stderr)
            figures[key] = figures[ratio] = None
            continue
        messages = (20 if quick else 120) if name == "graphiti" else (60 if quick else 2000)
        dataset = in_scopes(synth_dataset(messages), SCOPES)
        warm = dataset.model_copy(update={"scopes": dict(list(dataset.scopes.items())[:1])})
        _prepare(f"{label}-warm", name, options, warm, 1)  # imports, model loads: paid before either clock
        one, calls = _prepare(label, name, options, dataset, 1)
        four, _ = _prepare(label, name, options, dataset, 4)
        figures[key] = round(messages / one, 1)
        figures[ratio] = round(one / four, 2)
        if label in CALLS_PER_DOC:
            figures[f"memory_model_calls_{label}_per_doc"] = round(calls / messages, 3)
    return figures
