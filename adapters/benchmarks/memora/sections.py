"""Memora's report section: the official FAMA of a run, its "failures excluded" view, and Table 3.

The section folds the scorer of method `memora-majority`: each judged question becomes the
official `QuestionResult` again from the judges' recorded readings (`Judged.judge_votes`, decided
by `vote.majority`), in the official evaluation order, and `report.official_report` gives the
overall FAMA and the FAMA per task (×100, an empty task 0.0 as the official report has it).
A scorer of another method (a typed or reference single judge) is folded the same way as one
judge voting alone, and labelled as not the official three-judge vote.

Answer failures are counted the official way: the official evaluator does not drop a question
whose answer call failed, it shows its judges "ERROR: <message>" and scores their verdicts. A run
records such a question as `Failed` and asks no judge, so here each of its criteria is taken as
every judge answering "no" to the error text (presence criteria missed, forgetting ones kept: a
FAMA of 0, as such a reply earns). The labelled `failures_excluded_report` beside it leaves those
questions out, and a question a judge could not be asked about at all (a judge call that failed)
is not in either: it is listed as not scored.

Table 3 (`table3.aggregate_table3`): one official report per persona of the run, the task FAMA of
each, averaged over personas per task (an empty task left out), for this run's split, printed as
`aggregate_results.py` prints it; the subject is the answer model.
"""

from __future__ import annotations

from benchledger.adapters.benchmarks.memora.judge_verdict import JudgeVerdict
from benchledger.adapters.benchmarks.memora.official import MAJORITY_METHOD, criterion_dict
from benchledger.adapters.benchmarks.memora.report import (
    FAILURES_EXCLUDED_LABEL, failures_excluded_report, in_official_order, official_report,
)
from benchledger.adapters.benchmarks.memora.scoring import TASK_TYPES, QuestionResult, question_result, task_type_of
from benchledger.adapters.benchmarks.memora.table3 import aggregate_table3, print_table3, table3_row
from benchledger.adapters.benchmarks.sections import scorer_of_method
from benchledger.projections.report import Section
from benchledger.projections.state import QuestionState, RunState
from benchledger.values import is_offline_model

__all__ = ["fama_section"]


def _official_question(question: QuestionState) -> dict:
    return {"question_id": question.planned.question_id, "task_type": task_type_of(question.planned.kind),
            "evaluation": {"evaluation_questions": [criterion_dict(c) for c in question.planned.criteria]}}


def _readings(question: QuestionState, scorer: str, judges: tuple[str, ...]) -> dict[str, dict[str, JudgeVerdict]]:
    judged = question.judged[scorer]
    out = {}
    for criterion in question.planned.criteria:
        cid = criterion.criterion_id
        answers = judged.judge_votes.get(cid) or {judges[0]: judged.criteria.get(cid, "unclear")}
        out[cid] = {judge: JudgeVerdict(answers.get(judge, "error"), answers.get(judge) == criterion.expected, 0.0)
                    for judge in judges}
    return out


def _answer_failed(question: QuestionState) -> str | None:
    failure = question.unresolved_failure(None)
    return failure.message if failure is not None and failure.stage == "answer" else None


def _results(state: RunState, scorer: str, judges: tuple[str, ...]) -> tuple[list[tuple[str, QuestionResult]], int]:
    """(persona, result) of every question the official count includes, and how many it cannot."""
    results, unscored = [], 0
    for question in state.questions.values():
        if not question.planned.criteria:
            continue
        official = _official_question(question)
        if scorer in question.judged:
            result = question_result(official, question.answered.answer if question.answered else "",
                                     _readings(question, scorer, judges), judges)
        elif (message := _answer_failed(question)) is not None:
            refused = {c.criterion_id: {judge: JudgeVerdict("no", c.expected == "no", 0.0) for judge in judges}
                       for c in question.planned.criteria}
            result = question_result(official, f"ERROR: {message}", refused, judges, answer_error=message)
        else:
            unscored += 1
            continue
        results.append((question.planned.scope_key, result))
    return results, unscored


def _tasks_line(report: dict) -> str:
    return "   ".join(f"{task} {report['by_task_type'][task]['fama']:.2f} "
                      f"({report['by_task_type'][task]['total_questions']})" for task in TASK_TYPES)


def _table3(results: list[tuple[str, QuestionResult]], judges: tuple[str, ...], state: RunState) -> tuple[dict, str]:
    cfg = state.started.config if state.started else None
    period, subject = (cfg.subset, cfg.agent_model) if cfg else ("unknown", "unknown")
    rows = []
    for persona in dict.fromkeys(p for p, _ in results):
        ordered = in_official_order(r for p, r in results if p == persona)
        path = f"{period}/{persona}/eval_results/{state.run_id}/eval_report.json"
        rows.append(table3_row(official_report(ordered, judges), path, {"model_name": subject}))
    table = aggregate_table3(rows)
    return table, print_table3(table)


def fama_section(state: RunState, report_scorer: str | None) -> Section | None:
    if not any(q.planned.criteria for q in state.questions.values()):
        return None
    scorer = scorer_of_method(state, report_scorer, MAJORITY_METHOD) or report_scorer
    if scorer is None or scorer not in state.scorers:
        return None
    started = state.scorers[scorer]
    judges = started.judge_models or (started.judge_model,)
    majority = started.method == MAJORITY_METHOD
    pairs, unscored = _results(state, scorer, judges)
    ordered = in_official_order(result for _, result in pairs)
    report = official_report(ordered, judges)
    excluded = failures_excluded_report(ordered, judges)
    overall = report["overall_metrics"]
    vote = (f"the valid judges' majority of {', '.join(judges)}" if majority else
            f"one {started.protocol} judge ({started.judge_model}), not Memora's three-judge vote")
    lines = [f"FAMA {overall['fama']:.2f} over {overall['total_questions']} questions "
             f"({overall['total_evaluation_questions']} criteria, accuracy {100 * overall['overall_accuracy']:.1f}%)",
             f"per task: {_tasks_line(report)}"]
    if answer_failures := sum(1 for r in ordered if r.answer_error is not None):
        lines.append(f"{answer_failures} answer failure(s) counted as the official evaluator counts them: its judges "
                     "score 'ERROR: <message>'; taken here as every judge answering no (FAMA 0)")
    lines.append(f"{FAILURES_EXCLUDED_LABEL}: FAMA {excluded.report['overall_metrics']['fama']:.2f} over "
                 f"{excluded.report['overall_metrics']['total_questions']} questions "
                 f"({len(excluded.excluded)} left out)")
    if unscored:
        lines.append(f"{unscored} question(s) not scored at all (judge call failed, or pending)")
    if dropped := _user_turns_left_out(state):
        lines.append(f"{dropped} recalled user turn(s) were left out of answer prompts: the official history "
                     "renders speakers 'user' and 'ai_agent' only, and the release names the user 'user_agent'")
    table, printed = _table3(pairs, judges, state)
    lines += ["Table 3 (aggregate_results.py: mean over personas of each task's FAMA):",
              *printed.rstrip("\n").split("\n")]
    return Section(
        name="memora.fama", scorer_id=scorer, official=majority and not started.offline,
        title=f"Memora official FAMA ({vote}; scorer {scorer})",
        values={"overall": overall,
                "by_task_type": {task: bucket["fama"] for task, bucket in report["by_task_type"].items()},
                "failures_excluded": {"label": excluded.label, "excluded": dict(excluded.excluded),
                                      "fama": excluded.report["overall_metrics"]["fama"]},
                "answer_failures": answer_failures, "not_scored": unscored, "table3": table},
        lines=lines, headline=overall["fama"] / 100 if ordered else None, headline_metric="Memora FAMA")


def _user_turns_left_out(state: RunState) -> int:
    """Recalled turns of speakers the official history does not render, in runs under the official protocol."""
    if state.started is None or state.started.config.settings.protocol != "official" \
            or is_offline_model(state.started.config.agent_model):
        return 0
    return sum(1 for q in state.questions.values() if q.recalled is not None
               for item in q.recalled.items if item.author not in ("user", "ai_agent", None))
