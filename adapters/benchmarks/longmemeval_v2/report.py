"""LongMemEval-V2's report sections: the official aggregates of one run, its LAFS point, and the web+enterprise
combination the leaderboard takes.

`official_section` folds the scorer of method `longmemeval-v2-official`: one record per judged
question (its verdict's score, UNKNOWN from the recorded boxed answer, its category, abstention by
its spec, the reader's usage, and its memory-query seconds from the recorded recall latency), then
`aggregate_metrics`. The memory-context token counts are not recorded per question, so that block is
left out. A question that Failed is not a record: where the official harness would have ended the
whole run (`OfficialRunAbort`, or a reader failure) the section says so, and the official harness
would have written no `aggregated_metrics.json`.

The LAFS point of one run is (100 · overall_full_set, mean memory-query seconds); the leaderboard
point is the combination of a web and an enterprise run of the same tier (`benchledger combine`,
`combined_section`), whose gain over the tier's reference frontier is shown.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from benchledger.adapters.benchmarks.longmemeval_v2.aggregate import (
    ABSTENTION, COMBINED, NON_ABSTENTION, aggregate_metrics, combine_metrics, metric_overview,
)
from benchledger.adapters.benchmarks.longmemeval_v2.answers import is_unknown
from benchledger.adapters.benchmarks.longmemeval_v2.lafs import Point, lafs_summary
from benchledger.adapters.benchmarks.longmemeval_v2.official import METHOD
from benchledger.adapters.benchmarks.longmemeval_v2.spec import CATEGORY_MAP
from benchledger.adapters.benchmarks.sections import missing_scorer_section, scorer_of_method
from benchledger.errors import BadInput
from benchledger.projections.report import Section
from benchledger.projections.state import RunState

__all__ = ["official_section", "combined_section", "run_records", "run_aggregates", "official_ending"]

_TITLE = "LongMemEval-V2 official aggregates (harness aggregate_metrics)"
_ABORTS = "OfficialRunAbort"


def run_records(state: RunState, scorer: str) -> list[dict[str, Any]]:
    """The harness's per-question records, as far as the run recorded them, in plan order."""
    records = []
    for q in state.questions.values():
        verdict = q.judged.get(scorer)
        if verdict is None or q.planned.kind not in CATEGORY_MAP:
            continue
        answered = q.answered
        usage = answered.usage if answered else None
        prompt, completion = (usage.prompt_tokens, usage.completion_tokens) if usage else (0, 0)
        records.append({
            "question_id": q.planned.question_id, "category": CATEGORY_MAP[q.planned.kind],
            "is_abstention_problem": q.planned.abstention, "score_bool": verdict.verdict == "correct",
            "score": 1.0 if verdict.verdict == "correct" else 0.0,
            "is_unknown": is_unknown(answered.answer) if answered else False,
            "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion},
            "memory_context_original_token_count": 0, "memory_context_token_count": 0,
            "memory_context_was_truncated": False,
            "memory_query_duration_seconds": (q.recalled.latency_ms / 1000.0) if q.recalled else 0.0,
            "memory_post_query_duration_seconds": 0.0,
        })
    return records


def run_aggregates(state: RunState, scorer: str) -> dict[str, Any]:
    metrics = aggregate_metrics(run_records(state, scorer))
    metrics.pop("memory_context")
    metrics.pop("memory_post_query")
    return metrics


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.2f}"


def _bucket_lines(metrics: dict[str, Any]) -> list[str]:
    lines = ["category                 n  correct%  unknown%  wrong%"]
    for section, names in (("non_abstention_by_category", NON_ABSTENTION), ("abstention_by_category", ABSTENTION),
                           ("combined_abstention_by_category", COMBINED)):
        suffix = " (with -abs)" if section.startswith("combined") else ""
        for name in names:
            b = metrics[section][name]
            lines.append(f"{(name + suffix):<22} {b['count']:>2}  {_pct(b['pct_correct']):>8}  "
                         f"{_pct(b['pct_unknown']):>8}  {_pct(b['pct_answered_wrong']):>6}")
    return lines


def official_ending(stage: str, error_class: str, message: str) -> str:
    """What the official harness does where benchledger recorded this Failed: abort the run, or (a
    reader HTTP 400) score the question 0 and go on."""
    if stage == "answer" and "HTTP 400" in message:
        return "the official harness would have scored it 0 (an empty reply) and gone on"
    if error_class == _ABORTS or stage in ("answer", "judge"):
        return "the official harness would have ended the whole run there and written no aggregated_metrics.json"
    return "the official harness has no such stage failure (benchledger's memory or store failed)"


def _how_the_official_run_ends(state: RunState, scorer: str) -> list[str]:
    failures = [(q.planned.question_id, f) for q in state.questions.values() if scorer not in q.judged
                for f in q.failures[-1:]]
    if not failures:
        return []
    qid, first = failures[0]
    ending = official_ending(first.stage, first.error_class, first.message)
    return [f"{len(failures)} question(s) Failed and are not in these aggregates; first {qid} ({first.stage}: "
            f"{first.error_class}: {first.message[:160]}): {ending}"]


def _overall_lines(metrics: dict[str, Any]) -> list[str]:
    o = metrics["overall"]
    return [f"overall_full_set {_pct(o['overall_full_set'])}% of {o['count_all_questions']}; "
            f"non-abstention {_pct(o['overall_non_abstention_only'])}% of {o['count_non_abstention']}; "
            f"abstention {_pct(o['overall_abstention_only'])}% of {o['count_abstention']}"]


def _timing_line(timing: dict[str, Any]) -> str:
    if timing.get("avg_seconds") is None:
        return "memory query: no recall recorded"
    shown = ", ".join(f"{key.removesuffix('_seconds')} {timing[key]:.3f}" for key in
                      ("avg_seconds", "p50_seconds", "p95_seconds", "max_seconds") if timing.get(key) is not None)
    return f"memory query seconds: {shown}"


def official_section(state: RunState, report_scorer: str | None) -> Section | None:
    scorer = scorer_of_method(state, report_scorer, METHOD)
    if scorer is None:
        return missing_scorer_section("longmemeval_v2.official", _TITLE, "official LongMemEval-V2 scorer")
    started = state.scorers[scorer]
    metrics = run_aggregates(state, scorer)
    selection = state.started.config.selection if state.started else None
    tier = str(getattr(selection, "tier", None) or (selection.model_extra or {}).get("tier", "small")) \
        if selection is not None else "small"
    acc, latency = metrics["overall"]["overall_full_set"], metrics["memory_query"]["avg_seconds"]
    lines = _overall_lines(metrics) + _bucket_lines(metrics) + [_timing_line(metrics["memory_query"])]
    values: dict[str, Any] = {"aggregated_metrics": metrics, "tier": tier}
    if acc is not None and latency:
        gain = lafs_summary(tier, [Point("this run", acc * 100, latency)])["lafs_gain"]
        values["lafs_point"] = {"accuracy": acc * 100, "memory_query_avg_seconds": latency, "one_domain_gain": gain}
        lines.append(f"LAFS point: accuracy {acc * 100:.2f} @ {latency:.3f} s mean memory query "
                     f"(one domain; the leaderboard point combines web and enterprise: benchledger combine)")
    lines += _how_the_official_run_ends(state, scorer)
    if started.offline:
        lines.append(f"LLM checkers judged by the offline {started.judge_model}, standing in for gpt-5.2")
    return Section(name="longmemeval_v2.official", title=f"{_TITLE}, scorer {scorer} (judge {started.judge_model})",
                   scorer_id=scorer, official=not started.offline, values=values, lines=lines)


def _selection_value(state: RunState, key: str) -> str:
    selection = state.started.config.selection if state.started else None
    if selection is None:
        return ""
    return str(getattr(selection, key, None) or (selection.model_extra or {}).get(key, ""))


def combined_section(states: Sequence[RunState], scorers: Sequence[str | None]) -> Section:
    """The leaderboard's operating point: one web run and one enterprise run of the same tier."""
    by_domain = {_selection_value(s, "domain"): s for s in states}
    tiers = {_selection_value(s, "tier") for s in states}
    if len(states) != 2 or set(by_domain) != {"web", "enterprise"} or len(tiers) != 1:
        raise BadInput("LongMemEval-V2 combines one web run and one enterprise run of the same tier", field="runs")
    tier = tiers.pop()
    chosen = {}
    for domain, state in by_domain.items():
        scorer = scorer_of_method(state, None, METHOD)
        if scorer is None:
            raise BadInput(f"the {domain} run {state.run_id} has no official LongMemEval-V2 scorer", field="runs")
        chosen[domain] = run_aggregates(state, scorer)
    blank = {"avg_original_tokens": None, "avg_final_tokens": None, "num_truncated_sequences": 0}
    web, enterprise = ({**chosen[d], "memory_context": blank, "memory_post_query": {"total_seconds": 0.0}}
                       for d in ("web", "enterprise"))
    combined = combine_metrics(web, enterprise)
    combined.pop("memory_context")
    combined.pop("memory_post_query")
    overview = metric_overview(combined)
    lines = _overall_lines(combined) + _bucket_lines(combined) + [_timing_line(combined["memory_query"])]
    values: dict[str, Any] = {"combined_metrics": combined, "metric_overview": overview, "tier": tier}
    acc, latency = overview["overall_full_set"], overview["memory_query_avg_seconds"]
    if acc is not None and latency:
        summary = lafs_summary(tier, [Point("this submission", acc * 100, latency)])
        values["lafs"] = summary
        lines.append(f"LAFS point: accuracy {acc * 100:.2f} @ {latency:.3f} s mean memory query; LAFS "
                     f"{summary['submission_lafs']:.4f} vs the {tier} reference {summary['reference_lafs']:.4f}: "
                     f"gain {summary['lafs_gain']:+.4f}")
    return Section(name="longmemeval_v2.combined", title=f"LongMemEval-V2 leaderboard point ({tier} tier: web + "
                   "enterprise, combine_metrics)", official=True, values=values, lines=lines)
