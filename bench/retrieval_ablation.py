"""Retrieval ablation on LoCoMo: what each idea of the `structured` memory adds over BM25.

Run `python -m bench.retrieval_ablation [PATH] [--k 10]` (PATH defaults to
../shared/data/locomo/locomo-dev.json beside the checkout). It prints recall@k, recall_all@k and
NDCG@k overall and per question kind for `bm25-reference` (the published baseline), for
`structured` with every idea on, and for `structured` with each idea switched off in turn. It ends with leave-one-conversation-out
stability: the per-conversation recall of the full system and of BM25, and their spread.

Only the question text reaches a system (LoCoMo has no asking user or question time); evidence
labels are used to score and nothing else.
"""

from __future__ import annotations

import argparse
import math
import statistics
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, replace
from pathlib import Path

from adapters.benchmarks.base import Dataset
from adapters.benchmarks.locomo import load_locomo
from adapters.memory.protocol import MemorySystem
from adapters.memory.registry import open_memory
from adapters.memory.structured import StructuredMemory
from adapters.memory.structured.ranking import RankingOptions

__all__ = ["main", "Scores", "score_ranking", "load_dataset"]

DEFAULT_PATH = Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo" / "locomo-dev.json"
ABLATIONS = ("stemming", "image_field", "context_field", "feedback", "channel_grouping",
             "neighbour_smoothing", "speaker_match", "time_cues", "date_match")


def load_dataset(path: Path) -> Dataset:
    return load_locomo(path)


@dataclass
class Scores:
    recall: float = 0.0
    recall_all: float = 0.0
    ndcg: float = 0.0
    count: int = 0

    def add(self, ranked: list[str], evidence: set[str], k: int) -> None:
        top = ranked[:k]
        hits = [1.0 if doc_id in evidence else 0.0 for doc_id in top]
        found = sum(hits)
        self.recall += found / len(evidence)
        self.recall_all += 1.0 if found == len(evidence) else 0.0
        dcg = sum(h / math.log2(i + 2) for i, h in enumerate(hits))
        ideal = sum(1 / math.log2(i + 2) for i in range(min(k, len(evidence))))
        self.ndcg += dcg / ideal
        self.count += 1

    def means(self) -> tuple[float, float, float]:
        n = max(1, self.count)
        return self.recall / n, self.recall_all / n, self.ndcg / n


def score_ranking(dataset: Dataset, recall, k: int) -> dict[str, dict[str, Scores]]:
    """scope -> kind -> Scores (kind "all" included), for questions that have evidence."""
    table: dict[str, dict[str, Scores]] = defaultdict(lambda: defaultdict(Scores))
    for question in dataset.questions:
        evidence = set(question.evidence)
        if not evidence:
            continue
        ranked = recall(question.scope_key, question.text, question.asking_user, k)
        for kind in (question.kind, "all"):
            table[question.scope_key][kind].add(ranked, evidence, k)
            table["*"][kind].add(ranked, evidence, k)
    return table


class Loaded:
    """A memory system through its public protocol, holding every scope of the dataset."""

    def __init__(self, memory: MemorySystem, dataset: Dataset) -> None:
        self.memory = memory
        for scope, docs in dataset.scopes.items():
            memory.ingest(scope, docs)
            for _ in memory.build(scope):
                pass

    def recall(self, scope: str, query: str, asking_user: str | None, k: int) -> list[str]:
        found = self.memory.recall(scope, query, asking_user=asking_user, k=k, token_budget=None)
        return [c.document.doc_id for c in found]


def _kinds(table) -> list[str]:
    return sorted({kind for kind in table["*"] if kind != "all"})


def _row(label: str, table, kinds: list[str]) -> str:
    overall = table["*"]["all"].means()
    cells = [f"{label:<28}", " ".join(f"{v:.3f}" for v in overall)]
    cells += [f"{table['*'][kind].means()[0]:.3f}" for kind in kinds]
    return "  ".join(cells)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", type=Path, default=DEFAULT_PATH)
    parser.add_argument("--k", type=int, default=10)
    args = parser.parse_args(argv)
    dataset = load_dataset(args.path)
    k = args.k
    with tempfile.TemporaryDirectory() as tmp:
        reference = Loaded(open_memory("bm25-reference", Path(tmp) / "bm25.db"), dataset)
        tables = {"bm25-reference": score_ranking(dataset, reference.recall, k)}
        reference.memory.close()
        variants = [("structured", RankingOptions())]
        variants += [(f"  without {name}", replace(RankingOptions(), **{name: False}))
                     for name in ABLATIONS]
        timings = {}
        for index, (label, options) in enumerate(variants):
            system = Loaded(StructuredMemory(Path(tmp) / f"structured-{index}.db", options=options),
                            dataset)
            started = time.perf_counter()
            tables[label] = score_ranking(dataset, system.recall, k)
            timings[label] = (time.perf_counter() - started) / len(dataset.questions) * 1000
            system.memory.close()
    kinds = _kinds(tables["bm25-reference"])
    print(f"LoCoMo {args.path.name}: {len(dataset.questions)} questions, k={k}; recall by kind is recall@{k}")
    print("  ".join([f"{'system':<28}", f"recall@{k} all@{k} ndcg@{k}", *kinds]))
    for label, table in tables.items():
        print(_row(label, table, kinds))
    print(f"\nmean recall latency (ms/question, structured): {timings['structured']:.2f}")
    print(f"\nleave-one-conversation-out: recall@{k} per conversation")
    for label in ("bm25-reference", "structured"):
        table = tables[label]
        per_scope = {s: table[s]["all"].means()[0] for s in table if s != "*"}
        values = list(per_scope.values())
        print(f"{label:<16} " + " ".join(f"{s.split(':')[-1]}={v:.3f}" for s, v in sorted(per_scope.items())))
        print(f"{'':<16} min={min(values):.3f} max={max(values):.3f} "
              f"mean={statistics.mean(values):.3f} sd={statistics.pstdev(values):.3f}")


if __name__ == "__main__":
    main()
