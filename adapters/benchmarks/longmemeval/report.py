"""LongMemEval's report sections: `print_qa_metrics` of the official judge's labels, and the official
retrieval metrics of what a memory recalled.

`qa_section` folds the scorer of method `longmemeval-judge`: each judged question is one
`autoeval_label` (its type, the verdict, the judge model asked), and `qa_metrics` /
`print_qa_metrics` give the official numbers and printout: per type (abstention questions
included), task-averaged over the six types (`nan` when a type has no question, as the official
script prints), overall, and abstention accuracy over `_abs` ids. The official script refuses
labels from any judge but gpt-4o-2024-08-06; the section says when that is so.

`official_retrieval` rebuilds, from the haystack labels the run recorded (`loader.haystack_labels`),
the official turn-level corpus of each question (`corpus_ids`), ranks it by the turns the memory
recalled (user turns only: the official corpus has no assistant rows) and scores it with
`metrics_for_question` at the official k values (turn level, and session level widened to k
distinct sessions); the averages and printout are `print_retrieval_metrics`'s (`_abs` questions
dropped). A question whose answer session leaves a user turn unlabelled cannot be indexed by the
official code and is counted, not scored. Metrics at k larger than the run's k count only what
was recalled.
"""

from __future__ import annotations

import json

from benchledger.adapters.benchmarks.longmemeval.corpus_ids import (
    HaystackCorpus, haystack_corpus, haystack_position,
)
from benchledger.adapters.benchmarks.longmemeval.judge import OFFICIAL_JUDGE_MODEL
from benchledger.adapters.benchmarks.longmemeval.loader import HAYSTACK_LABELS
from benchledger.adapters.benchmarks.longmemeval.official import JUDGE_METHOD
from benchledger.adapters.benchmarks.longmemeval.prompts import QUESTION_TYPES
from benchledger.adapters.benchmarks.longmemeval.qa_metrics import QaLabel, print_qa_metrics, qa_metrics
from benchledger.adapters.benchmarks.longmemeval.retrieval_metrics import metrics_for_question
from benchledger.adapters.benchmarks.longmemeval.retrieval_printout import (
    averaged_retrieval_metrics, print_retrieval_metrics,
)
from benchledger.adapters.benchmarks.sections import missing_scorer_section, scorer_of_method
from benchledger.errors import BadInput
from benchledger.projections.report import Section
from benchledger.projections.state import RunState
from benchledger.values import Question

__all__ = ["qa_section", "official_retrieval", "official_corpus"]


def qa_section(state: RunState, report_scorer: str | None) -> Section | None:
    title = "LongMemEval official QA metrics (print_qa_metrics)"
    scorer = scorer_of_method(state, report_scorer, JUDGE_METHOD)
    if scorer is None:
        return missing_scorer_section("longmemeval.qa", title, "official judge")
    started = state.scorers[scorer]
    labels = [QaLabel(q.planned.question_id, q.planned.kind, q.judged[scorer].verdict == "correct",
                      started.judge_model)
              for q in state.questions.values() if scorer in q.judged and q.planned.kind in QUESTION_TYPES]
    metrics = qa_metrics(labels)
    lines = print_qa_metrics(metrics, require_official_judge=False).strip("\n").split("\n")
    if started.offline:
        lines.append(f"judged by the offline {started.judge_model}, standing in for the official judge")
    elif not metrics.official_judge:
        lines.append(f"judged by {started.judge_model}: print_qa_metrics.py asserts {OFFICIAL_JUDGE_MODEL} "
                     "and would refuse these labels")
    if unjudged := len(state.questions) - len(labels):
        lines.append(f"{unjudged} planned question(s) not judged by scorer {scorer} (failed, pending or not a "
                     "LongMemEval type)")
    values = {"by_type": {t: {"accuracy": mean, "n": n} for t, (mean, n) in metrics.by_type.items()},
              "task_averaged": metrics.task_averaged, "overall": metrics.overall,
              "abstention": metrics.abstention, "abstention_n": metrics.abstention_n,
              "official_judge": metrics.official_judge and not started.offline}
    return Section(name="longmemeval.qa", title=f"{title}, scorer {scorer} (judge {started.judge_model})",
                   scorer_id=scorer, official=values["official_judge"], values=_finite(values), lines=lines)


def _finite(value):
    """nan (a type with no question) as None, so the report stays strict JSON."""
    if isinstance(value, float) and value != value:
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    return value


def official_corpus(question: Question) -> HaystackCorpus | None:
    """The official turn-level corpus of a question, from its recorded haystack labels (None when
    the run recorded none, or the official indexer would refuse the haystack)."""
    if HAYSTACK_LABELS not in question.extra:
        return None
    session_ids, sessions = [], []
    for position, entry in enumerate(json.loads(question.extra[HAYSTACK_LABELS])):
        session_id, roles = entry[0], entry[1]
        evidence, unlabelled = (set(entry[2]), set(entry[3])) if session_id is not None else (set(), set())
        session_ids.append(session_id if session_id is not None else f"s{position}")
        sessions.append([{"role": "user" if role == "u" else "assistant", "content": "",
                          **({} if i in unlabelled else {"has_answer": i in evidence})}
                         for i, role in enumerate(roles)])
    try:
        return haystack_corpus(session_ids, sessions, "turn")
    except BadInput:
        return None


def official_retrieval(state: RunState, k: int) -> dict | None:
    entries, unindexable = [], 0
    for question in state.questions.values():
        if question.recalled is None:
            continue
        corpus = official_corpus(question.planned)
        if corpus is None:
            unindexable += 1
            continue
        items = sorted(question.recalled.items, key=lambda item: item.rank)[:k]
        recalled = [place for item in items if item.author == "user"
                    and (place := haystack_position(item.doc_id)) is not None]
        rankings = corpus.rankings(recalled)
        entries.append((question.planned.question_id,
                        metrics_for_question(rankings, corpus.correct_docs, corpus.ids, "turn")))
    if not entries and not unindexable:
        return None
    lines = print_retrieval_metrics(entries).rstrip("\n").split("\n")
    if unindexable:
        lines.append(f"{unindexable} question(s) not scored: the run recorded no haystack labels, or an answer "
                     "session has a user turn without has_answer (the official indexer refuses it)")
    lines.append(f"(turn level, session level widened to k distinct sessions; a memory recalled {k} turns per "
                 "question, so metrics @30 and @50 count only those)")
    return {"title": "LongMemEval official retrieval metrics (evaluate_retrieval, print_retrieval_metrics)",
            "averaged": averaged_retrieval_metrics(entries), "questions": len(entries),
            "not_scored": unindexable, "lines": lines}
