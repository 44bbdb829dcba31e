"""The official retrieval summaries: `print_retrieval_metrics.py` and the retrieval run's averages.

`print_retrieval_metrics(entries)` returns what the official script prints for a retrieval log:
abstention questions (`'_abs' in question_id`) are dropped, then one line of session metrics
(recall_all and ndcg_any at 5 and 10) and one of turn metrics (the same plus @50), each value the
numpy mean rounded numpy's way to 4 places. A bare try/except in the script drops a whole line
when any entry lacks one of its keys (quirk 17): a session-granularity log, whose "turn" metrics
are empty, prints an empty "Turn-level metrics:" section.

`averaged_retrieval_metrics(entries)` is the dict the official retrieval run prints at its end:
every metric key of the first entry, averaged over non-abstention entries, keys that some entry
lacks left out.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from benchledger.adapters.benchmarks.longmemeval.numpy_like import np_mean, np_round, np_str

__all__ = ["SESSION_PRINTED", "TURN_PRINTED", "print_retrieval_metrics",
           "averaged_retrieval_metrics", "is_abstention"]

SESSION_PRINTED = ("recall_all@5", "ndcg_any@5", "recall_all@10", "ndcg_any@10")
TURN_PRINTED = (*SESSION_PRINTED, "recall_all@50", "ndcg_any@50")

Metrics = Mapping[str, Mapping[str, float]]


def is_abstention(question_id: str) -> bool:
    """The official test everywhere in LongMemEval: the id contains `_abs`."""
    return "_abs" in question_id


def _column(metrics: Sequence[Metrics], level: str, name: str) -> list[float] | None:
    try:
        return [float(entry[level][name]) for entry in metrics]
    except (KeyError, TypeError):
        return None


def _line(metrics: Sequence[Metrics], level: str, names: Sequence[str]) -> str | None:
    columns = [column for name in names if (column := _column(metrics, level, name)) is not None]
    if len(columns) < len(names):
        return None
    return ", ".join(f"\t{name} = {np_str(np_round(np_mean(column), 4))}"
                     for name, column in zip(names, columns))


def print_retrieval_metrics(entries: Iterable[tuple[str, Metrics]]) -> str:
    """The official printout for (question_id, retrieval_results.metrics) pairs."""
    kept = [metrics for question_id, metrics in entries if not is_abstention(question_id)]
    lines = ["Session-level metrics:"]
    if (session := _line(kept, "session", SESSION_PRINTED)) is not None:
        lines.append(session)
    lines.append("Turn-level metrics:")
    if (turn := _line(kept, "turn", TURN_PRINTED)) is not None:
        lines.append(turn)
    return "\n".join(lines) + "\n"


def averaged_retrieval_metrics(entries: Sequence[tuple[str, Metrics]]
                               ) -> dict[str, dict[str, float]]:
    """The `averaged_results` of the official retrieval run (unrounded numpy means)."""
    averaged: dict[str, dict[str, float]] = {"session": {}, "turn": {}}
    if not entries:
        return averaged
    kept = [metrics for question_id, metrics in entries if not is_abstention(question_id)]
    for level in averaged:
        for name in entries[0][1].get(level, {}):
            if (column := _column(kept, level, name)) is not None:
                averaged[level][name] = np_mean(column)
    return averaged
