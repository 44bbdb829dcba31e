"""Retrieval ablation on LoCoMo: what each idea of the `structured` memory adds over BM25.

Run `python -m benchledger.bench.retrieval_ablation [PATH] [--k 10]` (PATH defaults to
../shared/data/locomo/locomo-dev.json beside the checkout). It prints recall@k, recall_all@k and
NDCG@k overall and per question kind for `bm25-reference` (the published baseline), for
`structured` with every idea on, and for `structured` with each idea switched off in turn; then the per-conversation recall of both and
its spread; then leave-one-conversation-out: the few constants set by looking at recall
(`TUNING_GRID`) are chosen again on six conversations and scored on the seventh, which estimates
recall on conversations never looked at; last, build and recall time on one 30,000-document scope.

Only the question text reaches a system (LoCoMo has no asking user or question time); evidence
labels are used to score and nothing else.
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import tempfile
import time
from collections import defaultdict
from dataclasses import replace
from pathlib import Path
from typing import Any

from benchledger.adapters.benchmarks.base import Dataset
from benchledger.adapters.benchmarks.locomo.loader import load_locomo
from benchledger.adapters.memory.protocol import MemorySystem
from benchledger.adapters.memory.registry import open_memory
from benchledger.adapters.memory.structured import StructuredMemory
from benchledger.adapters.memory.structured.ranking import RankingOptions
from benchledger.projections.retrieval import aggregate, score_question

__all__ = ["main", "score_ranking", "load_dataset", "ABLATIONS"]

DEFAULT_PATH = Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo" / "locomo-dev.json"
ABLATIONS = ("stemming", "image_field", "context_field", "feedback", "channel_grouping",
             "neighbour_smoothing", "speaker_match", "time_cues", "date_match")


def load_dataset(path: Path) -> Dataset:
    return load_locomo(path)


def score_ranking(dataset: Dataset, recall, k: int) -> dict[str, dict[str, object]]:
    """scope ("*" for all) -> `projections.retrieval.aggregate` of the scope's questions."""
    rows: dict[str, list] = defaultdict(list)
    for question in dataset.questions:
        ranked = recall(question.scope_key, question.text, question.asking_user, k)
        row = (question.kind, score_question(question.evidence, ranked, k))
        rows[question.scope_key].append(row)
        rows["*"].append(row)
    return {scope: aggregate(scope_rows) for scope, scope_rows in rows.items()}


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
        return [doc_id for c in found for doc_id in c.sources[:1]]


def _row(label: str, metrics: dict, kinds: list[str]) -> str:
    cells = [f"{label:<30}"] + [f"{metrics[m]:>9.3f}" for m in ("recall", "recall_all", "ndcg")]
    cells += [f"{metrics['by_category'][kind]['recall']:>11.3f}" for kind in kinds]
    return " ".join(cells)


def ablation_tables(dataset: Dataset, k: int, tmp: Path) -> dict[str, dict]:
    """bm25-reference, structured, and structured without each idea: label -> scope -> metrics."""
    reference = Loaded(open_memory("bm25-reference", tmp / "bm25.db"), dataset)
    tables = {"bm25-reference": score_ranking(dataset, reference.recall, k)}
    reference.memory.close()
    variants = [("structured", RankingOptions())]
    variants += [(f"  without {name}", replace(RankingOptions(), **{name: False})) for name in ABLATIONS]
    for index, (label, options) in enumerate(variants):
        system = Loaded(StructuredMemory(tmp / f"structured-{index}.db", options=options), dataset)
        tables[label] = score_ranking(dataset, system.recall, k)
        system.memory.close()
    return tables


TUNING_GRID = {"date_boost": (0.4, 0.8), "group_weight": (0.25, 0.5, 1.0),
               "neighbour_window": (1, 2), "context_weight": (0.15, 0.3)}
"""The constants chosen by looking at recall; leave-one-out re-chooses them without the held-out one."""


def leave_one_out(dataset: Dataset, k: int, tmp: Path) -> dict[str, tuple[float, float, dict[str, Any]]]:
    """held-out scope -> (recall with the defaults, recall with constants tuned on the others, choice)."""
    names = list(TUNING_GRID)
    per_setting: dict[tuple[float, ...], dict[str, Any]] = {}
    for index, values in enumerate(itertools.product(*TUNING_GRID.values())):
        chosen: dict[str, Any] = dict(zip(names, values))
        options = replace(RankingOptions(), **chosen)
        system = Loaded(StructuredMemory(tmp / f"grid-{index}.db", options=options), dataset)
        per_setting[values] = score_ranking(dataset, system.recall, k)
        system.memory.close()
    default = tuple(getattr(RankingOptions(), name) for name in names)
    scopes = [s for s in per_setting[default] if s != "*"]

    def pooled(table: dict, chosen: list[str]) -> float:
        return sum(table[s]["recall"] * table[s]["n"] for s in chosen) / sum(table[s]["n"] for s in chosen)

    result: dict[str, tuple[float, float, dict[str, Any]]] = {}
    for held_out in scopes:
        others = [s for s in scopes if s != held_out]
        best = max(per_setting, key=lambda values: pooled(per_setting[values], others))
        result[held_out] = (per_setting[default][held_out]["recall"],
                            per_setting[best][held_out]["recall"], dict(zip(names, best)))
    return result


def latency_at_scale(dataset: Dataset, tmp: Path, size: int = 30_000, queries: int = 300) -> tuple[int, float, float]:
    """(documents, build seconds, mean recall ms) for one scope of `size` documents made of copies
    of the release's turns (ids and channels made unique per copy)."""
    turns = [doc for docs in dataset.scopes.values() for doc in docs]
    big = [doc.model_copy(update={"doc_id": f"{copy}/{doc.doc_id}", "channel": f"{copy}/{doc.channel}",
                                  "position": copy * len(turns) + i})
           for copy in range(size // len(turns) + 1) for i, doc in enumerate(turns)][:size]
    memory = StructuredMemory(tmp / "scale.db")
    started = time.perf_counter()
    memory.ingest("scale", big)
    for _ in memory.build("scale"):
        pass
    memory.recall("scale", "warm up the index", asking_user=None, k=10, token_budget=None)
    built = time.perf_counter() - started
    asked = [q.text for q in dataset.questions[:queries]]
    started = time.perf_counter()
    for text in asked:
        memory.recall("scale", text, asking_user=None, k=10, token_budget=None)
    per_query = (time.perf_counter() - started) / len(asked) * 1000
    memory.close()
    return len(big), built, per_query


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", type=Path, default=DEFAULT_PATH)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--quick", action="store_true", help="Skip leave-one-out tuning and the 30k run.")
    args = parser.parse_args(argv)
    dataset = load_dataset(args.path)
    k = args.k
    with tempfile.TemporaryDirectory() as tmp:
        tables = ablation_tables(dataset, k, Path(tmp))
        overall = tables["bm25-reference"]["*"]
        kinds = list(overall["by_category"])
        print(f"LoCoMo {args.path.name}: {overall['n']} questions with evidence "
              f"({overall['excluded']} without), k={k}; per-kind columns are recall@{k}")
        print(" ".join([f"{'system':<30}", f"{'recall':>9}", f"{'all':>9}", f"{'ndcg':>9}",
                        *(f"{kind:>11}" for kind in kinds)]))
        for label, table in tables.items():
            print(_row(label, table["*"], kinds))
        print(f"\nper conversation: recall@{k}")
        for label in ("bm25-reference", "structured"):
            per_scope = {s: m["recall"] for s, m in tables[label].items() if s != "*"}
            values = list(per_scope.values())
            print(f"{label:<16} " + " ".join(f"{s}={v:.3f}" for s, v in sorted(per_scope.items())))
            print(f"{'':<16} min={min(values):.3f} max={max(values):.3f} "
                  f"mean={statistics.mean(values):.3f} sd={statistics.pstdev(values):.3f}")
        if args.quick:
            return
        print(f"\nleave-one-conversation-out: constants {list(TUNING_GRID)} chosen on the other "
              f"conversations, recall@{k} on the held-out one (defaults -> tuned)")
        held = leave_one_out(dataset, k, Path(tmp))
        for scope, (default, tuned, choice) in sorted(held.items()):
            print(f"  {scope}: {default:.3f} -> {tuned:.3f}  {choice}")
        recalls = [t for _, t, _ in held.values()]
        print(f"  held-out tuned recall: mean={statistics.mean(recalls):.3f} min={min(recalls):.3f} "
              f"max={max(recalls):.3f}")
        size, built, per_query = latency_at_scale(dataset, Path(tmp))
        print(f"\nscale: {size} documents in one scope: ingest+build+index {built:.1f} s, "
              f"recall {per_query:.1f} ms/question (mean over 300)")


if __name__ == "__main__":
    main()
