"""Mem2ActBench's report section: action scores per level, grounding and temporal conflict, why actions failed.

Folded from the run's events alone (`RunState`): each task this scorer judged is re-scored from its
recorded answer (the action record) by `scoring.py`, and attributed from its recorded recall
(`attribution.py`). Per level (L1-L4), for the temporal-conflict tasks and overall: tool selected,
exact action (the paper's Tool Accuracy as described, and EM), argument F1 and BLEU-1, each a mean
over tasks with a seeded percentile bootstrap interval (95%, 2000 resamples, seed 0). Per grounding
type: the share of gold arguments of that type the call got right, over arguments, with the same
interval. Then the calls that were no call (missing or unparseable, counted apart from operational
failures), the interface each answer was asked through, the failure attribution counts, evidence
recall as a diagnostic of the memory (never the score), and the release's defects on the planned
tasks. The headline is the overall argument F1.

`question_notes` gives the same for one task, for `benchledger question`.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from typing import Any

from benchledger.adapters.benchmarks.mem2actbench.attribution import LABELS, attribute
from benchledger.adapters.benchmarks.mem2actbench.schema import GROUNDING_TYPES, LEVELS
from benchledger.adapters.benchmarks.mem2actbench.scoring import SCORING_VERSION, ActionScore
from benchledger.adapters.models.tool_calls import Action, read_action
from benchledger.projections.report import Section
from benchledger.projections.retrieval import question_scores
from benchledger.projections.state import QuestionState, RunState
from benchledger.projections.stats import bootstrap_mean
from benchledger.tables import SEPARATOR, render_table

__all__ = ["actions_section", "question_notes", "task_rows", "HEADLINE_METRIC"]

HEADLINE_METRIC = "Mem2ActBench argument F1"
_METRICS = ("tool_selected", "exact", "f1", "bleu1")
_HEADERS = ("tasks", "n", "tool selected", "exact action", "argument F1", "BLEU-1")


@dataclass(frozen=True)
class TaskRow:
    question_id: str
    level: str
    temporal: bool
    action: Action
    score: ActionScore
    label: str
    causes: dict[str, str]
    grounding: dict[str, Any]
    defects: tuple[str, ...]


def _recalled(question: QuestionState) -> set[str]:
    return {doc for item in question.recalled.items for doc in item.named()} if question.recalled else set()


def _row(question: QuestionState) -> TaskRow:
    assert question.answered is not None
    planned = question.planned
    action = read_action(question.answered.answer)
    label, score, causes = attribute(action, planned.extra, _recalled(question))
    return TaskRow(planned.question_id, planned.kind, planned.extra.get("temporal_conflict") == "true", action,
                   score, label, causes, json.loads(planned.extra.get("grounding", "{}")),
                   tuple(json.loads(planned.extra.get("defects", "[]"))))


def task_rows(state: RunState, scorer: str | None) -> list[TaskRow]:
    """Every planned task this scorer judged, scored and attributed, in plan order."""
    return [_row(q) for q in state.questions.values()
            if q.answered is not None and scorer is not None and scorer in q.judged and "gold_call" in q.planned.extra]


def _value(score: ActionScore, metric: str) -> float:
    return float(getattr(score, metric))


def _interval(values: list[float]) -> dict[str, float | int | None]:
    if not values:
        return {"n": 0, "mean": None, "ci_low": None, "ci_high": None}
    mean, low, high = bootstrap_mean(values)
    return {"n": len(values), "mean": mean, "ci_low": low, "ci_high": high}


def _cell(stat: dict[str, Any]) -> str:
    if stat["mean"] is None:
        return "-"
    return f"{100 * stat['mean']:.1f} [{100 * stat['ci_low']:.1f}, {100 * stat['ci_high']:.1f}]"


def _group(rows: list[TaskRow]) -> dict[str, Any]:
    return {"n": len(rows), **{metric: _interval([_value(r.score, metric) for r in rows]) for metric in _METRICS}}


def _groundings(rows: list[TaskRow]) -> dict[str, dict[str, Any]]:
    right: dict[str, list[float]] = {kind: [] for kind in GROUNDING_TYPES}
    for row in rows:
        for name, grounded in row.grounding.items():
            kind = grounded.get("type")
            if kind in right:
                right[kind].append(0.0 if not row.score.tool_selected or name in row.score.wrong else 1.0)
    return {kind: _interval(values) for kind, values in right.items()}


def _counts(rows: list[TaskRow]) -> dict[str, Any]:
    no_call = [r for r in rows if not r.score.called]
    return {
        "attribution": {label: sum(r.label == label for r in rows) for label in LABELS},
        "no_call": {"total": len(no_call), "missing": sum(r.action.missing for r in no_call)},
        "interfaces": dict(sorted(Counter(r.action.interface for r in rows).items())),
        "defects": dict(sorted(Counter(d.split(":", 1)[0] for r in rows for d in r.defects).items())),
    }


def _evidence_recall(state: RunState) -> dict[str, Any]:
    scored = [s.recall for _, s in question_scores(state).values() if s is not None]
    return {"recall": sum(scored) / len(scored) if scored else None, "n": len(scored),
            "k": state.started.config.settings.k if state.started else None}


def _lines(values: dict[str, Any]) -> list[str]:
    groups = values["groups"]
    table: list[list[Any] | str] = [[name, groups[name]["n"], *(_cell(groups[name][m]) for m in _METRICS)]
                                    for name in (*LEVELS, "temporal conflict") if groups[name]["n"]]
    table += [SEPARATOR, ["overall", groups["overall"]["n"], *(_cell(groups["overall"][m]) for m in _METRICS)]]
    lines = render_table(table, _HEADERS).splitlines()
    grounding = [[kind, stat["n"], _cell(stat)] for kind, stat in values["grounding"].items() if stat["n"]]
    lines += ["", *render_table(grounding, ("grounding", "arguments", "right")).splitlines()]
    counts = values["counts"]
    no_call = counts["no_call"]
    lines += ["", f"no valid call: {no_call['total']} (missing {no_call['missing']}, unparseable "
                  f"{no_call['total'] - no_call['missing']}): wrong actions, scored 0, apart from operational failures",
              "answers by interface: " + (", ".join(f"{k} {n}" for k, n in counts["interfaces"].items()) or "none"),
              "failure attribution (from the recorded recall and answer): " + ", ".join(
                  f"{label} {n}" for label, n in counts["attribution"].items()), ]
    recall = values["evidence_recall"]
    shown = "n/a" if recall["recall"] is None else f"{recall['recall']:.3f}"
    lines.append(f"evidence recall@{recall['k']} (did recall hold the evolution chain's turns? a diagnostic of the "
                 f"memory, never the score): {shown} over {recall['n']} tasks with evidence")
    defects = counts["defects"]
    lines.append("release defects on the planned tasks: " + (", ".join(f"{kind} {n}" for kind, n in defects.items())
                                                              or "none"))
    return lines


def actions_section(state: RunState, scorer: str | None) -> Section | None:
    rows = task_rows(state, scorer)
    if not rows:
        return None
    groups = {level: _group([r for r in rows if r.level == level]) for level in LEVELS}
    groups["temporal conflict"] = _group([r for r in rows if r.temporal])
    groups["overall"] = _group(rows)
    values = {"groups": groups, "grounding": _groundings(rows), "counts": _counts(rows),
              "evidence_recall": _evidence_recall(state), "scoring_version": SCORING_VERSION,
              "bootstrap": {"resamples": 2000, "seed": 0, "level": 0.95}}
    return Section(
        name="mem2actbench.actions", scorer_id=scorer, values=values, lines=_lines(values),
        title=(f"Mem2ActBench actions, scorer {scorer} (protocol: as the paper describes it; benchledger's rules, "
               "docs/benchmarks/mem2actbench.md): mean % with 95% bootstrap intervals"),
        headline=groups["overall"]["f1"]["mean"], headline_metric=HEADLINE_METRIC)


def question_notes(state: RunState, question_id: str, scorer: str | None) -> list[str]:
    """The task's action scores and failure attribution, for `benchledger question`."""
    question = state.questions.get(question_id)
    if question is None or question.answered is None or "gold_call" not in question.planned.extra:
        return []
    row = _row(question)
    call = "no valid call" if row.action.call is None else json.dumps(row.action.call, ensure_ascii=False)
    lines = [f"action ({row.action.interface}): {call}" + (f" ({row.action.error})" if row.action.error else ""),
             f"scores: tool selected {'yes' if row.score.tool_selected else 'no'}, exact {'yes' if row.score.exact else 'no'}, "
             f"argument P {row.score.precision:.3f} R {row.score.recall:.3f} F1 {row.score.f1:.3f}, "
             f"BLEU-1 {row.score.bleu1:.3f}",
             f"attribution: {row.label}" + (" (" + "; ".join(f"{n}: {c}" for n, c in row.causes.items()) + ")"
                                            if row.causes else "")]
    lines += [f"release defect: {defect}" for defect in row.defects]
    return lines
