"""Ingest and build with each memory system in the box, on the same synthetic release.

- `memory_ingest_<system>_docs_per_s`: `prepare_scopes` (ingest, then build, with the ledger's
  MessagesIngested / ChunkExtracted events) into a fresh store of each system, documents per second:
  sqlite, bm25-reference, structured, full-context, mem0 with `infer=false` (an embedding per
  message through benchledger's recording proxy to the loopback's WordLlama) and mem0 with
  `infer=true, granularity=session` (one extraction chat call per channel run, then embeddings).
- `memory_model_calls_mem0_infer_per_doc`: the memory's own model calls per document for the last,
  counted from the MemoryModelCalled events the run recorded.

A system whose extra is not installed (mem0 without `benchledger[mem0]`) gives None and says so.
"""

from __future__ import annotations

import sys
import time

from benchledger.adapters.memory.registry import available_memories, open_memory
from benchledger.bench import register
from benchledger.bench.corpus import scratch_dir, synth_dataset
from benchledger.ledger.events import MemoryModelCalled
from benchledger.ledger.store import Ledger
from benchledger.orchestration.prepare import prepare_scopes

__all__ = ["memory_ingest_figures"]

SYSTEMS: tuple[tuple[str, str, dict[str, str]], ...] = (
    ("sqlite", "sqlite", {}), ("bm25_reference", "bm25-reference", {}), ("structured", "structured", {}),
    ("full_context", "full-context", {}), ("mem0", "mem0", {"infer": "false"}),
    ("mem0_infer", "mem0", {"infer": "true", "granularity": "session"}),
)


@register("memory_ingest_sqlite_docs_per_s")
def memory_ingest_figures(quick: bool) -> dict[str, float | None]:
    messages = 60 if quick else 2000
    dataset = synth_dataset(messages)
    installed = available_memories()
    figures: dict[str, float | None] = {}
    for label, name, options in SYSTEMS:
        key = f"memory_ingest_{label}_docs_per_s"
        if name not in installed or installed[name].error:
            print(f"bench: {key}: {name} is not installed ({installed.get(name)})", file=sys.stderr)
            figures[key] = None
            continue
        folder = scratch_dir() / f"memory-{label}"
        folder.mkdir()
        memory = open_memory(name, folder / "memory.sqlite", **options)
        try:
            with Ledger.open(folder / "ledger.db") as ledger:
                started = time.perf_counter()
                prepare_scopes(ledger, "memory-bench", dataset, memory, preparation=1, batch_size=1000)
                elapsed = time.perf_counter() - started
                calls = sum(1 for row in ledger.events("memory-bench") if isinstance(row.event, MemoryModelCalled))
        finally:
            memory.close()
        figures[key] = round(messages / elapsed, 1)
        if label == "mem0_infer":
            figures["memory_model_calls_mem0_infer_per_doc"] = round(calls / messages, 3)
    return figures
