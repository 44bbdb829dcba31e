"""Flat analysis tables of recorded runs: runs, questions, recalls, answers, verdicts, failures.

What `benchledger export RUN... --format sqlite` writes (with sqlite-utils, see
`orchestration.analysis_db`), for pandas, notebooks and Datasette: one row per run, per planned
question, per recall, per answer, per verdict (every scorer) and per failure, keyed by run_id
and question_id. Every table and column is declared here once, with its SQL type and a
description; the exported file carries them in its `documentation` table and
`docs/analysis-tables.md` is generated from them (`python -m benchledger.projections.analysis`).
The rows are folded from the events like every projection; `get_blob` is the one outside call
(a recalled context's text).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from benchledger.ledger.events import Failed
from benchledger.projections.report import Report
from benchledger.projections.retrieval import question_scores, retrieval_metrics_of
from benchledger.projections.state import RunState

__all__ = ["AnalysisColumn", "AnalysisTable", "ANALYSIS_TABLES", "ANALYSIS_VERSION", "analysis_rows",
           "render_tables_markdown"]

ANALYSIS_VERSION = 1


@dataclass(frozen=True)
class AnalysisColumn:
    name: str
    type: type
    description: str


@dataclass(frozen=True)
class AnalysisTable:
    name: str
    description: str
    pk: tuple[str, ...]
    columns: tuple[AnalysisColumn, ...]
    full_text: tuple[str, ...] = ()
    """Columns indexed for full-text search (an FTS5 table `<name>_fts`)."""


def _c(name: str, type_: type, description: str) -> AnalysisColumn:
    return AnalysisColumn(name, type_, description)


_RUN_ID = _c("run_id", str, "The run (its id on the ledger).")
_QID = _c("question_id", str, "The question's id in the release.")

ANALYSIS_TABLES: tuple[AnalysisTable, ...] = (
    AnalysisTable("runs", "One row per exported run: configuration, status and headline numbers under its default "
                  "scorer (the headline `show` leads with).", ("run_id",), (
        _RUN_ID,
        _c("started_at", str, "When the run started (UTC)."),
        _c("benchmark", str, "Benchmark name."),
        _c("subset", str, "GroupMemBench domain, LoCoMo or LongMemEval file, Memora split."),
        _c("mode", str, "qa (recall, answer, judge) or retrieval (recall only)."),
        _c("memory", str, "The memory system under test."),
        _c("memory_version", str, "Its version."),
        _c("k", int, "Candidates recalled per question."),
        _c("token_budget", int, "Estimated-token budget of the packed context (null: none)."),
        _c("protocol", str, "reference, typed or official (null for a retrieval run)."),
        _c("agent_model", str, "The answer model ('none' for a retrieval run)."),
        _c("judge_model", str, "The judge model of the scorer used."),
        _c("offline_models", int, "1 when a deterministic offline model answered or judged."),
        _c("scorer_id", str, "The scorer the numbers come from (null for a retrieval run)."),
        _c("status", str, "publishable or diagnostic (null for a retrieval run)."),
        _c("run_status", str, "completed, aborted or unfinished."),
        _c("planned", int, "Questions planned."),
        _c("judged", int, "Questions judged by the scorer."),
        _c("correct", int, "Questions judged correct."),
        _c("failed", int, "Questions with an unresolved operational failure."),
        _c("accuracy", float, "correct / judged (unclear counts as not correct)."),
        _c("ci_low", float, "95% Wilson interval of accuracy, low end."),
        _c("ci_high", float, "95% Wilson interval of accuracy, high end."),
        _c("strict_accuracy", float, "correct / planned."),
        _c("recall", float, "Mean evidence recall@k over questions with evidence (null when none has evidence)."),
        _c("ndcg", float, "Mean NDCG@k over questions with evidence."),
        _c("fingerprint", str, "SHA-256 fingerprint of the selected corpus."),
        _c("selection", str, "The benchmark selection as JSON (domain, kinds, limits, ...)."),
        _c("corpus_path", str, "Where the release was read from."),
        _c("package_version", str, "benchledger version that ran."),
        _c("git_commit", str, "Commit of the benchledger checkout that ran."),
        _c("ledger_head", str, "Hash of the run's last event: quote it beside a score."),
    )),
    AnalysisTable("questions", "One row per planned question of each run, with its status and verdict under the "
                  "run's default scorer.", ("run_id", "question_id"), (
        _RUN_ID, _QID,
        _c("plan_order", int, "Position in the run's plan, from 1."),
        _c("kind", str, "The benchmark's question category."),
        _c("question", str, "The question as released."),
        _c("gold", str, "The released gold answer."),
        _c("asking_user", str, "Who asks (recall and answering happen as this user)."),
        _c("abstention", int, "1 when the correct behaviour is to say the information is not there."),
        _c("evidence", str, "JSON list of the documents or sessions the release labels as evidence."),
        _c("status", str, "judged, failed, answered, recalled or pending (under the default scorer)."),
        _c("verdict", str, "correct, incorrect or unclear (null unless judged)."),
    ), full_text=("question", "gold")),
    AnalysisTable("recalls", "What the memory system recalled for each question, with the evidence recall of "
                  "that recall where the release labels evidence.", ("run_id", "question_id"), (
        _RUN_ID, _QID,
        _c("query", str, "The text sent to the memory system."),
        _c("k", int, "Candidates asked for."),
        _c("doc_ids", str, "JSON list of the recalled document ids, in rank order."),
        _c("scores", str, "JSON list of the memory system's scores, in rank order."),
        _c("context_tokens", int, "Estimated tokens of the packed context."),
        _c("latency_ms", float, "How long the recall took, in milliseconds."),
        _c("recall", float, "Fraction of the evidence in the top k (null: no evidence)."),
        _c("recall_all", float, "1 when every evidence item is in the top k (null: no evidence)."),
        _c("ndcg", float, "NDCG@k with binary relevance (null: no evidence)."),
        _c("context", str, "The packed context exactly as shown to the answer model."),
    )),
    AnalysisTable("answers", "The answer model's answer to each question.", ("run_id", "question_id"), (
        _RUN_ID, _QID,
        _c("answer", str, "The answer as parsed from the model output."),
        _c("abstained", int, "1 when the answer says the information is not there."),
        _c("model", str, "The model that answered, as the endpoint reported it."),
        _c("prompt_tokens", int, "Tokens of the request."),
        _c("completion_tokens", int, "Tokens of the reply."),
        _c("cache_hit", int, "1 when the response came from the ledger's response cache."),
        _c("latency_ms", float, "How long the call took, in milliseconds."),
    ), full_text=("answer",)),
    AnalysisTable("verdicts", "Every scorer's verdict on every answer (s1 is the run's own; rejudges add s2, ...).",
                  ("run_id", "question_id", "scorer_id"), (
        _RUN_ID, _QID,
        _c("scorer_id", str, "The scorer that judged."),
        _c("verdict", str, "correct, incorrect or unclear."),
        _c("reason", str, "The judge's reason."),
        _c("model", str, "The judge model, as the endpoint reported it."),
        _c("prompt_tokens", int, "Tokens of the request."),
        _c("completion_tokens", int, "Tokens of the reply."),
        _c("latency_ms", float, "How long the call took, in milliseconds."),
    )),
    AnalysisTable("failures", "Every operational failure, resolved or not: never a wrong answer.",
                  ("run_id", "seq"), (
        _RUN_ID,
        _c("seq", int, "Order of the failure within the export of its run, from 1."),
        _c("stage", str, "prepare, verify, recall, answer, judge, purge or run."),
        _c("question_id", str, "The question it concerns (null for a run-level failure)."),
        _c("kind", str, "The question's kind (null for a run-level failure)."),
        _c("scorer_id", str, "For a judge failure, the scorer whose call failed."),
        _c("error_class", str, "The error's class name."),
        _c("message", str, "The error message, capped, secrets redacted."),
        _c("attempt", int, "1 for the first run of the stage; resume retries under higher attempts."),
        _c("resolved", int, "1 when a later retry or resume completed the stage."),
    )),
)


def _run_row(state: RunState, report: Report | None, get_metrics: dict[str, Any] | None) -> dict[str, Any]:
    assert state.started is not None
    cfg, provenance = state.started.config, state.started.provenance
    row = {
        "run_id": state.run_id, "started_at": None, "benchmark": cfg.benchmark, "subset": cfg.subset,
        "mode": state.mode, "memory": cfg.memory, "memory_version": cfg.memory_version, "k": cfg.settings.k,
        "token_budget": cfg.settings.token_budget, "protocol": cfg.settings.protocol,
        "agent_model": cfg.agent_model, "judge_model": cfg.judge_model, "offline_models": cfg.offline_models,
        "run_status": state.finished.status if state.finished else "unfinished",
        "planned": len(state.questions), "fingerprint": state.corpus.fingerprint if state.corpus else None,
        "selection": cfg.selection.model_dump_json(), "corpus_path": cfg.corpus_path,
        "package_version": provenance.package_version, "git_commit": provenance.git_commit,
        "ledger_head": state.head,
        "recall": get_metrics.get("recall") if get_metrics else None,
        "ndcg": get_metrics.get("ndcg") if get_metrics else None,
    }
    if report is not None:
        row.update(judge_model=report.judge_model, protocol=report.protocol, scorer_id=report.scorer_id,
                   status=report.status, judged=report.judged, correct=report.correct, failed=report.failed,
                   accuracy=report.accuracy, ci_low=report.ci_low, ci_high=report.ci_high,
                   strict_accuracy=report.strict_accuracy)
    else:
        row["failed"] = len(state.questions) - len(question_scores(state))
    return row


def analysis_rows(state: RunState, report: Report | None, get_blob: Callable[[str], bytes], *,
                  started_at: str | None = None) -> dict[str, list[dict[str, Any]]]:
    """table name -> rows of one run. `report` is the run's report (None for a retrieval run)."""
    if state.started is None:
        raise ValueError(f"run {state.run_id} has no RunStarted event")
    has_evidence = any(q.planned.evidence for q in state.questions.values())
    scores = question_scores(state) if has_evidence or state.mode == "retrieval" else {}
    metrics = retrieval_metrics_of(state) if scores else None
    runs = [{**_run_row(state, report, metrics), "started_at": started_at}]
    scorer = report.scorer_id if report is not None else None
    questions, recalls, answers, verdicts = [], [], [], []
    for order, (qid, q) in enumerate(state.questions.items(), start=1):
        planned = q.planned
        questions.append({"run_id": state.run_id, "question_id": qid, "plan_order": order, "kind": planned.kind,
                          "question": planned.text, "gold": planned.gold, "asking_user": planned.asking_user,
                          "abstention": planned.abstention, "evidence": list(planned.evidence),
                          "status": "recalled" if state.mode == "retrieval" and q.recalled else q.status(scorer),
                          "verdict": q.judged[scorer].verdict if scorer in q.judged else None})
        if q.recalled is not None:
            r = q.recalled
            score = scores.get(qid, ("", None))[1]
            items = sorted(r.items, key=lambda item: item.rank)
            recalls.append({"run_id": state.run_id, "question_id": qid, "query": r.query, "k": r.k,
                            "doc_ids": [i.doc_id for i in items], "scores": [i.score for i in items],
                            "context_tokens": r.context_tokens, "latency_ms": r.latency_ms,
                            "recall": score.recall if score else None,
                            "recall_all": score.recall_all if score else None,
                            "ndcg": score.ndcg if score else None,
                            "context": get_blob(r.context_hash).decode("utf-8", "replace")})
        if q.answered is not None:
            a = q.answered
            answers.append({"run_id": state.run_id, "question_id": qid, "answer": a.answer, "abstained": a.abstained,
                            "model": a.model, "prompt_tokens": a.usage.prompt_tokens,
                            "completion_tokens": a.usage.completion_tokens, "cache_hit": a.cache_hit,
                            "latency_ms": a.latency_ms})
        for scorer_id, j in q.judged.items():
            verdicts.append({"run_id": state.run_id, "question_id": qid, "scorer_id": scorer_id, "verdict": j.verdict,
                             "reason": j.reason, "model": j.model, "prompt_tokens": j.usage.prompt_tokens,
                             "completion_tokens": j.usage.completion_tokens, "latency_ms": j.latency_ms})
    failures = _failure_rows(state, scorer)
    return {"runs": runs, "questions": questions, "recalls": recalls, "answers": answers, "verdicts": verdicts,
            "failures": failures}


def _failure_rows(state: RunState, scorer: str | None) -> list[dict[str, Any]]:
    unresolved_run = {id(f) for f in state.unresolved_run_failures}
    rows: list[tuple[Failed, str | None, bool]] = [(f, None, id(f) not in unresolved_run) for f in state.run_failures]
    for q in state.questions.values():
        open_failure = q.unresolved_failure(scorer)
        rows += [(f, q.planned.kind, f is not open_failure) for f in q.failures]
    return [{"run_id": state.run_id, "seq": seq, "stage": f.stage, "question_id": f.question_id, "kind": kind,
             "scorer_id": f.scorer_id, "error_class": f.error_class, "message": f.message, "attempt": f.attempt,
             "resolved": resolved} for seq, (f, kind, resolved) in enumerate(rows, start=1)]


def render_tables_markdown() -> str:
    """docs/analysis-tables.md: every table and column of the sqlite export."""
    lines = ["# Analysis tables (`benchledger export RUN... --format sqlite`)", "",
             "Generated from `projections/analysis.py` (`python -m benchledger.projections.analysis > "
             "docs/analysis-tables.md`); do not edit by hand. The same descriptions are in the exported file's "
             "`documentation` table. Lists are stored as JSON text; booleans as 0/1. Full-text search: "
             "`questions_fts` (question, gold) and `answers_fts` (answer), e.g. `sqlite-utils search analysis.db "
             "questions deadline` or `SELECT * FROM questions WHERE rowid IN (SELECT rowid FROM questions_fts "
             "WHERE questions_fts MATCH 'deadline')`.", ""]
    for table in ANALYSIS_TABLES:
        lines += [f"## {table.name}", "", table.description, "",
                  f"Primary key: ({', '.join(table.pk)})"
                  + (f"; full-text search on {', '.join(table.full_text)}." if table.full_text else "."), "",
                  "| column | type | meaning |", "|---|---|---|"]
        lines += [f"| `{c.name}` | {c.type.__name__} | {c.description} |" for c in table.columns]
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


if __name__ == "__main__":  # pragma: no cover - exercised by tests/projections/test_export_sqlite.py
    sys.stdout.write(render_tables_markdown())
