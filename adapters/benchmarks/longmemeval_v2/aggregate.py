"""The official aggregates of one domain run, the web+enterprise combination, and the metric overview.

`aggregate_metrics(records)` follows the harness: the three overall means (over all records, the
non-abstention and the abstention records; abstention is the eval function `llm_abstention_checker`,
not the question type), `breakdown` per bucket (`pct_correct` = scored and not UNKNOWN, `pct_unknown`,
`pct_answered_wrong` = the rest; None when empty), the four sections, token sums and averages, the
memory-context averages and truncation count, and the query timings (avg = total/n with the total
summed in record order; p50 = sorted[n//2], the upper median; p95 = sorted[min(n-1, int(0.95n))]).

`combine_metrics(left, right)` is the leaderboard's: count-weighted means of means and percentages
(a None value or a zero count skipped; no weight gives None), counts and token totals summed
(integral floats back to ints), timing avg = Σ totals / Σ n with max and total kept and p50/p95
dropped. `metric_overview` picks the five accuracies and the mean memory-query seconds LAFS uses.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["Record", "NON_ABSTENTION", "ABSTENTION", "COMBINED", "breakdown", "aggregate_metrics",
           "combine_metrics", "metric_overview"]

Record = Mapping[str, Any]
NON_ABSTENTION = ("static", "dynamic", "procedure", "gotchas")
ABSTENTION = ("static-abs", "dynamic-abs", "procedure-abs")
COMBINED = ("static", "dynamic", "procedure")
_OVERALL_WEIGHTS = {"overall_full_set": "count_all_questions", "overall_non_abstention_only": "count_non_abstention",
                    "overall_abstention_only": "count_abstention"}
_TOKENS = ("prompt_tokens", "completion_tokens", "total_tokens")


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def breakdown(rows: Sequence[Record]) -> dict[str, Any]:
    n = len(rows)
    if n == 0:
        return {"count": 0, "pct_correct": None, "pct_answered_wrong": None, "pct_unknown": None}
    correct = sum(1 for r in rows if r["score_bool"] and not r["is_unknown"])
    unknown = sum(1 for r in rows if r["is_unknown"])
    return {"count": n, "pct_correct": correct / n, "pct_answered_wrong": (n - correct - unknown) / n,
            "pct_unknown": unknown / n}


def _timing(values: Sequence[float]) -> dict[str, Any]:
    n = len(values)
    if n == 0:
        return {"avg_seconds": None, "p50_seconds": None, "p95_seconds": None, "max_seconds": None,
                "total_seconds": 0.0}
    total = 0.0
    for value in values:
        total += value
    ordered = sorted(values)
    return {"avg_seconds": total / n, "p50_seconds": ordered[n // 2],
            "p95_seconds": ordered[min(n - 1, int(0.95 * n))], "max_seconds": ordered[-1], "total_seconds": total}


def aggregate_metrics(records: Sequence[Record], *, shared_haystack_ids: Sequence[str] | None = None) -> dict[str, Any]:
    """`aggregated_metrics.json` of one run (without its completion time)."""
    abstention = [r for r in records if r["is_abstention_problem"]]
    others = [r for r in records if not r["is_abstention_problem"]]
    n = len(records)
    usage = {key: sum(int((r.get("usage") or {}).get(key) or 0) for r in records) for key in _TOKENS}
    result: dict[str, Any] = {
        "overall": {
            "overall_full_set": _mean([r["score"] for r in records]),
            "overall_non_abstention_only": _mean([r["score"] for r in others]),
            "overall_abstention_only": _mean([r["score"] for r in abstention]),
            "count_all_questions": n, "count_non_abstention": len(others), "count_abstention": len(abstention),
        },
        "non_abstention_by_category": {c: breakdown([r for r in others if r["category"] == c]) for c in NON_ABSTENTION},
        "abstention_by_category": {c: breakdown([r for r in abstention if r["category"] == c]) for c in ABSTENTION},
        "combined_abstention_by_category": {
            c: breakdown([r for r in records if r["category"] in (c, f"{c}-abs")]) for c in COMBINED},
        "abstention_overall": breakdown(abstention),
        "tokens": {**usage, **{f"avg_{key}": (usage[key] / n if n else None) for key in _TOKENS}},
        "memory_context": {
            "avg_original_tokens": _mean([r["memory_context_original_token_count"] for r in records]),
            "avg_final_tokens": _mean([r["memory_context_token_count"] for r in records]),
            "num_truncated_sequences": sum(1 for r in records if r["memory_context_was_truncated"]),
        },
        "memory_query": _timing([r["memory_query_duration_seconds"] for r in records]),
        "memory_post_query": _timing([r["memory_post_query_duration_seconds"] for r in records]),
        "shared_haystack": shared_haystack_ids is not None,
    }
    if shared_haystack_ids is not None:
        result["shared_haystack_ids"] = list(shared_haystack_ids)
    return result


def _weighted(pairs: Sequence[tuple[Any, Any]]) -> float | None:
    total = weight = 0.0
    for value, count in pairs:
        if value is None or not count:
            continue
        total += value * count
        weight += count
    return total / weight if weight else None


def _clean(number: Any) -> Any:
    return int(number) if isinstance(number, float) and number.is_integer() else number


def _combine_breakdowns(left: Mapping[str, Any], right: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in [*left, *(k for k in right if k not in left)]:
        a, b = left.get(key) or {"count": 0}, right.get(key) or {"count": 0}
        bucket: dict[str, Any] = {"count": a.get("count", 0) + b.get("count", 0)}
        for field in ("pct_correct", "pct_answered_wrong", "pct_unknown"):
            bucket[field] = _weighted([(a.get(field), a.get("count")), (b.get(field), b.get("count"))])
        out[key] = bucket
    return out


def _combine_timing(left: Mapping[str, Any], right: Mapping[str, Any], n_left: int, n_right: int) -> dict[str, Any]:
    total = (left.get("total_seconds") or 0.0) + (right.get("total_seconds") or 0.0)
    maxima = [value for value in (left.get("max_seconds"), right.get("max_seconds")) if value is not None]
    return {"avg_seconds": total / (n_left + n_right) if n_left + n_right else None,
            "max_seconds": max(maxima) if maxima else None, "total_seconds": total}


def combine_metrics(left: Mapping[str, Any], right: Mapping[str, Any]) -> dict[str, Any]:
    """The leaderboard's combination of two domain runs' aggregated metrics (without its volatile fields)."""
    lo, ro = left["overall"], right["overall"]
    n_left, n_right = lo["count_all_questions"], ro["count_all_questions"]
    overall: dict[str, Any] = {key: _weighted([(lo.get(key), lo.get(w)), (ro.get(key), ro.get(w))])
                               for key, w in _OVERALL_WEIGHTS.items()}
    overall.update({w: lo.get(w, 0) + ro.get(w, 0) for w in _OVERALL_WEIGHTS.values()})
    tokens: dict[str, Any] = {key: _clean(left["tokens"][key] + right["tokens"][key]) for key in _TOKENS}
    tokens.update({f"avg_{key}": _weighted([(left["tokens"].get(f"avg_{key}"), n_left),
                                            (right["tokens"].get(f"avg_{key}"), n_right)]) for key in _TOKENS})
    lm, rm = left["memory_context"], right["memory_context"]
    return {
        "overall": overall,
        "abstention_overall": _combine_breakdowns({"a": left["abstention_overall"]},
                                                  {"a": right["abstention_overall"]})["a"],
        "tokens": tokens,
        "memory_context": {
            "avg_original_tokens": _weighted([(lm["avg_original_tokens"], n_left),
                                              (rm["avg_original_tokens"], n_right)]),
            "avg_final_tokens": _weighted([(lm["avg_final_tokens"], n_left), (rm["avg_final_tokens"], n_right)]),
            "num_truncated_sequences": lm["num_truncated_sequences"] + rm["num_truncated_sequences"],
        },
        "memory_query": _combine_timing(left["memory_query"], right["memory_query"], n_left, n_right),
        "memory_post_query": _combine_timing(left["memory_post_query"], right["memory_post_query"], n_left, n_right),
        **{section: _combine_breakdowns(left[section], right[section])
           for section in ("non_abstention_by_category", "abstention_by_category", "combined_abstention_by_category")},
    }


def metric_overview(combined: Mapping[str, Any]) -> dict[str, Any]:
    """`metric_overview.json`: the accuracies the leaderboard shows and the LAFS latency."""
    combined_by = combined["combined_abstention_by_category"]
    return {
        "overall_full_set": combined["overall"]["overall_full_set"],
        "gotchas_accuracy": combined["non_abstention_by_category"]["gotchas"]["pct_correct"],
        **{f"{c}_accuracy": combined_by[c]["pct_correct"] for c in COMBINED},
        "memory_query_avg_seconds": combined["memory_query"]["avg_seconds"],
    }
