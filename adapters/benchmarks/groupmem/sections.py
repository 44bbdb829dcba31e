"""GroupMemBench's report section and its four-domain combination: both verdict rules, named.

The official code judges with one reply and counts it two ways (quirk 31): the run-time rule of
`eval_benchmark.py` (`parse_judgment`: "incorrect", "wrong" or "not correct" anywhere is incorrect,
else "correct" anywhere is correct, else unclear), which is the verdict the ledger records and the
table above the section counts, and the published-table rule of `summarize_typed_eval.py`
(`published_is_correct`: letters only, lower-cased, exactly "correct"), which the paper's tables
use. `rules_section` shows both for the report's scorer, the second as the official summary
prints it (`summary.format_markdown`, the memory system as the baseline). It reads the judge's
recorded split final (`Judged.reason`) for a reference-protocol judge; a typed or offline judge
has no such reply, so its verdict stands for it under both rules, and the section says so.
Questions that failed are in neither denominator, as the official result files leave skipped
questions out (quirk 32).

`combined_section` adds several runs up, one per domain with the same memory system, protocol and
models, into the micro-averaged total the paper reports over its four domains.
"""

from __future__ import annotations

from collections.abc import Sequence

from benchledger.adapters.benchmarks.groupmem.replies import published_is_correct
from benchledger.adapters.benchmarks.groupmem.summary import DEFAULT_QTYPES, Counts, format_markdown
from benchledger.errors import BadInput
from benchledger.projections.report import Section
from benchledger.projections.state import RunState

__all__ = ["RUN_TIME_RULE", "PUBLISHED_RULE", "rules_section", "combined_section", "DOMAINS"]

RUN_TIME_RULE = ("run-time rule (eval_benchmark.py parse_judgment: 'incorrect', 'wrong' or 'not correct' is "
                 "incorrect, else 'correct' is correct, else unclear)")
PUBLISHED_RULE = "published-table rule (summarize_typed_eval.py: letters only, exactly 'correct')"
DOMAINS = ("Finance", "Healthcare", "Manufacturing", "Technology")
"""The released domains the paper's total adds up."""


def _reads_replies(state: RunState, scorer: str) -> bool:
    started = state.scorers[scorer]
    return started.protocol == "reference" and not started.offline


def _cells(state: RunState, scorer: str) -> tuple[dict[str, Counts], dict[str, Counts]]:
    """Per kind, (run-time counts, published-table counts) of the scorer's judged questions."""
    replies = _reads_replies(state, scorer)
    run_time: dict[str, Counts] = {}
    published: dict[str, Counts] = {}
    for question in state.questions.values():
        judged = question.judged.get(scorer)
        if judged is None:
            continue
        kind = question.planned.kind
        answer = judged.reason if replies else judged.verdict.capitalize()
        for cells, correct in ((run_time, judged.verdict == "correct"), (published, published_is_correct(answer))):
            cell = cells.setdefault(kind, Counts())
            cell.total += 1
            cell.correct += correct
            cell.missing_judge += not answer.strip()
    return run_time, published


def _total(cells: dict[str, Counts]) -> tuple[int, int]:
    return sum(c.correct for c in cells.values()), sum(c.total for c in cells.values())


def _line(name: str, cells: dict[str, Counts]) -> str:
    correct, total = _total(cells)
    return f"{name}: {correct}/{total}" + (f" = {100 * correct / total:.1f}%" if total else "")


def _lines(baseline: str, run_time: dict[str, Counts], published: dict[str, Counts], replies: bool) -> list[str]:
    kinds = [k for k in DEFAULT_QTYPES if k in published] + sorted(set(published) - set(DEFAULT_QTYPES))
    lines = [_line(RUN_TIME_RULE, run_time), _line(PUBLISHED_RULE, published)]
    if not replies:
        lines.append("(this judge records no reply text to re-read, so its verdict stands under both rules)")
    lines += format_markdown({(baseline, k): c for k, c in published.items()}, [baseline], kinds).split("\n")
    return lines


def _values(run_time: dict[str, Counts], published: dict[str, Counts]) -> dict:
    return {rule: {"correct": _total(cells)[0], "total": _total(cells)[1],
                   "by_kind": {k: {"correct": c.correct, "total": c.total} for k, c in cells.items()}}
            for rule, cells in (("run_time", run_time), ("published_table", published))}


def rules_section(state: RunState, report_scorer: str | None) -> Section | None:
    if report_scorer is None or report_scorer not in state.scorers or state.started is None:
        return None
    run_time, published = _cells(state, report_scorer)
    replies = _reads_replies(state, report_scorer)
    failed = sum(1 for q in state.questions.values() if q.status(report_scorer) == "failed")
    lines = _lines(state.started.config.memory, run_time, published, replies)
    if failed:
        lines.append(f"{failed} failed question(s) are outside both counts, as the official result files leave "
                     "skipped questions out")
    return Section(name="groupmem.rules", scorer_id=report_scorer, official=replies,
                   title=f"GroupMemBench verdict rules, scorer {report_scorer} "
                         "(the table above counts the run-time rule)",
                   values=_values(run_time, published), lines=lines)


def _signature(state: RunState) -> tuple:
    cfg = state.started.config  # type: ignore[union-attr]
    return (cfg.benchmark, cfg.memory, cfg.memory_version, cfg.settings.protocol, cfg.agent_model, cfg.judge_model,
            cfg.settings.k)


def combined_section(states: Sequence[RunState], scorers: Sequence[str | None]) -> Section:
    """The micro-averaged total of runs over distinct domains with the same memory, protocol and models."""
    if not states or any(s.started is None for s in states):
        raise BadInput("every run to combine needs its RunStarted event", field="runs")
    if len({_signature(s) for s in states}) != 1:
        shown = "; ".join(f"{s.run_id}: {', '.join(map(str, _signature(s)[1:]))}" for s in states)
        raise BadInput("runs to combine must share memory system, protocol, models and k: " + shown, field="runs")
    domains = [s.started.config.subset for s in states]  # type: ignore[union-attr]
    if len(set(domains)) != len(domains):
        raise BadInput(f"runs to combine must cover distinct domains, not {', '.join(domains)}", field="runs")
    run_time: dict[str, Counts] = {}
    published: dict[str, Counts] = {}
    replies = True
    for state, scorer in zip(states, scorers):
        if scorer is None:
            raise BadInput(f"run {state.run_id} has no scorer to combine", field="runs")
        replies &= _reads_replies(state, scorer)
        for merged, cells in zip((run_time, published), _cells(state, scorer)):
            for kind, cell in cells.items():
                total = merged.setdefault(kind, Counts())
                total.correct, total.total = total.correct + cell.correct, total.total + cell.total
                total.missing_judge += cell.missing_judge
    missing = [d for d in DOMAINS if d not in domains]
    lines = [f"domains: {', '.join(domains)}" + (f" (the paper's total also has {', '.join(missing)})" if missing else
                                                  " (the paper's four)")]
    lines += _lines(states[0].started.config.memory, run_time, published, replies)  # type: ignore[union-attr]
    return Section(name="groupmem.combined", official=replies and not missing,
                   title=f"GroupMemBench over {len(states)} domain(s), micro-averaged as the paper's total",
                   values={"runs": [s.run_id for s in states], "domains": domains, **_values(run_time, published)},
                   lines=lines)
