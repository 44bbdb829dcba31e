"""Exporting a run: one flat row per planned question, as JSON, CSV or one self-contained HTML page.

A retrieval run is exported the same three ways with its own rows and metrics
(`projections.export_retrieval`).

The rows are folded from the events like every projection; the only outside call is `get_blob`,
which turns a recalled context's hash into the text the answer model saw. Serialisers return
strings and never touch files: the CLI writes them atomically. CSV leaves the (long, multi-line)
packed context out; JSON and HTML keep it. Every CSV cell of text is inert
(`benchledger.text.inert_cell`): a control character escaped as on the terminal, and a cell that a
spreadsheet would run as a formula (a corpus text beginning with `=`, `+`, `-`, `@`, tab or CR)
prefixed with a single quote.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Sequence
from typing import Any

from benchledger.errors import BadInput
from benchledger.projections.diff import pick_scorer
from benchledger.projections.export_html import render_html
from benchledger.projections.export_retrieval import export_retrieval
from benchledger.projections.publishable import Check
from benchledger.projections.report import Report, SectionFold, report_from_state
from benchledger.projections.state import QuestionState, RunState
from benchledger.text import inert_cell
from benchledger.values import BenchmarkKind

__all__ = [
    "EXPORT_VERSION", "FORMATS", "ROW_FIELDS", "CSV_FIELDS", "export_rows", "export_json", "export_csv",
    "export_html", "export_run",
]

EXPORT_VERSION = 1

ROW_FIELDS = (
    "question_id", "kind", "asking_user", "question", "gold", "abstention_question", "status",
    "answer", "abstained", "verdict", "reason", "judge_model", "scorer_id", "recalled_doc_ids",
    "context_tokens", "recall_latency_ms", "answer_latency_ms", "judge_latency_ms",
    "answer_prompt_tokens", "answer_completion_tokens", "judge_prompt_tokens", "judge_completion_tokens",
    "failure_stage", "failure_class", "failure_message", "context",
)
CSV_FIELDS = tuple(f for f in ROW_FIELDS if f != "context")


def export_rows(state: RunState, get_blob: Callable[[str], bytes], *, scorer_id: str | None = None) -> list[dict[str, Any]]:
    """One row per planned question, in plan order, for one scorer (default: the newest)."""
    scorer = scorer_id or state.default_scorer
    return [_row(question, scorer, get_blob) for question in state.questions.values()]


def _row(question: QuestionState, scorer: str | None, get_blob: Callable[[str], bytes]) -> dict[str, Any]:
    planned, recalled, answered = question.planned, question.recalled, question.answered
    judged = question.judged.get(scorer) if scorer else None
    failure = question.unresolved_failure(scorer)
    return {
        "question_id": planned.question_id,
        "kind": planned.kind,
        "asking_user": planned.asking_user,
        "question": planned.text,
        "gold": planned.gold,
        "abstention_question": planned.abstention,
        "status": question.status(scorer),
        "answer": answered.answer if answered else None,
        "abstained": answered.abstained if answered else None,
        "verdict": judged.verdict if judged else None,
        "reason": judged.reason if judged else None,
        "judge_model": judged.model if judged else None,
        "scorer_id": scorer if judged else None,
        "recalled_doc_ids": [item.doc_id for item in recalled.items] if recalled else [],
        "context_tokens": recalled.context_tokens if recalled else None,
        "recall_latency_ms": recalled.latency_ms if recalled else None,
        "answer_latency_ms": answered.latency_ms if answered else None,
        "judge_latency_ms": judged.latency_ms if judged else None,
        "answer_prompt_tokens": answered.usage.prompt_tokens if answered else None,
        "answer_completion_tokens": answered.usage.completion_tokens if answered else None,
        "judge_prompt_tokens": judged.usage.prompt_tokens if judged else None,
        "judge_completion_tokens": judged.usage.completion_tokens if judged else None,
        "failure_stage": failure.stage if failure else None,
        "failure_class": failure.error_class if failure else None,
        "failure_message": failure.message if failure else None,
        "context": get_blob(recalled.context_hash).decode("utf-8", "replace") if recalled else None,
    }


def export_json(report: Report, rows: list[dict[str, Any]]) -> str:
    """The report and every question row as one JSON document."""
    document = {"export_version": EXPORT_VERSION, "report": report.model_dump(mode="json"), "questions": rows}
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def export_csv(rows: list[dict[str, Any]], fields: tuple[str, ...] = CSV_FIELDS) -> str:
    """One CSV row per question; lists joined by spaces, None as an empty cell, text made inert."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=fields, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({field: _cell(row.get(field)) for field in fields})
    return buffer.getvalue()


def _cell(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, (list, tuple)):
        return inert_cell(" ".join(str(v) for v in value))
    return inert_cell(value) if isinstance(value, str) else value


def export_html(report: Report, rows: list[dict[str, Any]], contexts: dict[str, str] | None = None) -> str:
    """One self-contained HTML page (see `projections.export_html`); contexts default to each row's."""
    if contexts is None:
        contexts = {row["question_id"]: row["context"] for row in rows if row.get("context")}
    return render_html(report, rows, contexts)


FORMATS = ("json", "csv", "html")


def export_run(state: RunState, get_blob: Callable[[str], bytes], fmt: str, *, conditions: Sequence[Check],
               scorer_id: str | None = None, sections: Sequence[SectionFold] = (),
               kind: BenchmarkKind | None = None) -> str:
    """A run exported in one of FORMATS, for one scorer (default: the run's default scorer). Pure but for get_blob.

    `conditions` are the run's benchmark's publishable conditions (the report's verdict), `sections`
    its own report sections."""
    if fmt not in FORMATS:
        raise BadInput(f"unknown export format {fmt!r}; use one of {', '.join(FORMATS)}", field="format")
    if state.mode == "retrieval":
        if scorer_id is not None:
            raise BadInput(f"run {state.run_id} is a retrieval run: it has no scorers; drop --scorer", field="scorer")
        return export_retrieval(state, get_blob, fmt, export_csv)
    scorer = pick_scorer(state, scorer_id)
    rows = export_rows(state, get_blob, scorer_id=scorer)
    if fmt == "csv":
        return export_csv(rows)
    report = report_from_state(state, conditions=conditions, scorer_id=scorer, sections=sections, kind=kind)
    return export_json(report, rows) if fmt == "json" else export_html(report, rows)
