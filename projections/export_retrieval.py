"""Exporting a retrieval run: one row per planned question with its evidence, what was recalled and
its recall@k, recall_all@k and NDCG@k, as JSON, CSV or one self-contained HTML page.

The metrics are the run's own (`projections.retrieval`), so the export says what `show` says.
Like the question-answering export, serialisers return strings; the HTML page uses the same
skeleton and styles (no script, no network) and escapes every piece of corpus text once.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from html import escape
from typing import Any

from benchledger.projections.export_html import PAGE, bar_chart
from benchledger.projections.retrieval import question_scores, retrieval_metrics_of
from benchledger.projections.state import QuestionState, RunState

__all__ = ["RETRIEVAL_ROW_FIELDS", "RETRIEVAL_CSV_FIELDS", "retrieval_rows", "export_retrieval"]

RETRIEVAL_ROW_FIELDS = (
    "question_id", "kind", "question", "status", "evidence", "recalled_doc_ids", "hit_ranks", "recall",
    "recall_all", "ndcg", "context_tokens", "recall_latency_ms", "failure_stage", "failure_class",
    "failure_message", "context",
)
RETRIEVAL_CSV_FIELDS = tuple(f for f in RETRIEVAL_ROW_FIELDS if f != "context")


def _e(value: Any) -> str:
    return escape("" if value is None else str(value), quote=True)


def _hit_ranks(state: RunState, question: QuestionState) -> list[int]:
    """Ranks (from 1) of recalled items that are evidence (by document or by session)."""
    if question.recalled is None:
        return []
    session_level = state.started is not None and state.started.config.evidence_level == "session"
    evidence = set(question.planned.evidence)
    return [item.rank for item in sorted(question.recalled.items, key=lambda i: i.rank)
            if set(item.named_channels() if session_level else item.named()) & evidence]


def retrieval_rows(state: RunState, get_blob: Callable[[str], bytes]) -> list[dict[str, Any]]:
    """One row per planned question, in plan order."""
    scores = question_scores(state)
    rows = []
    for qid, question in state.questions.items():
        recalled, score = question.recalled, scores.get(qid, ("", None))[1]
        failure = question.unresolved_failure(None)
        rows.append({
            "question_id": qid, "kind": question.planned.kind, "question": question.planned.text,
            "status": "recalled" if recalled else question.status(None),
            "evidence": list(question.planned.evidence),
            "recalled_doc_ids": [item.doc_id for item in recalled.items] if recalled else [],
            "hit_ranks": _hit_ranks(state, question),
            "recall": score.recall if score else None, "recall_all": score.recall_all if score else None,
            "ndcg": score.ndcg if score else None,
            "context_tokens": recalled.context_tokens if recalled else None,
            "recall_latency_ms": recalled.latency_ms if recalled else None,
            "failure_stage": failure.stage if failure else None,
            "failure_class": failure.error_class if failure else None,
            "failure_message": failure.message if failure else None,
            "context": get_blob(recalled.context_hash).decode("utf-8", "replace") if recalled else None,
        })
    return rows


def _summary(state: RunState) -> dict[str, Any]:
    assert state.started is not None
    cfg = state.started.config
    return {"run_id": state.run_id, "mode": "retrieval", "benchmark": cfg.benchmark, "subset": cfg.subset,
            "memory": cfg.memory, "memory_version": cfg.memory_version,
            "run_status": state.finished.status if state.finished else "unfinished",
            **retrieval_metrics_of(state), "ledger_head": state.head}


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _html(summary: dict[str, Any], rows: list[dict[str, Any]]) -> str:
    k = summary["k"]
    title = f"{summary['benchmark']} / {summary['subset']} · retrieval run {summary['run_id']} · benchledger"
    categories = summary["by_category"]
    chart = bar_chart({cat: m["recall"] for cat, m in categories.items()},
                      {cat: f"n={m['n']}" for cat, m in categories.items()},
                      overall=summary["recall"], axis_label=f"recall@{k}", percent=False)
    head = "".join(f"<th>{h}</th>" for h in ("category", "n", f"recall@{k}", f"recall_all@{k}", f"ndcg@{k}"))
    table_rows = [(cat, m) for cat, m in categories.items()] + [("overall", summary)]
    body_rows = "".join(
        f'<tr class="{"total" if cat == "overall" else ""}"><td>{_e(cat)}</td><td>{_e(m["n"])}</td>'
        f'<td>{_fmt(m["recall"])}</td><td>{_fmt(m["recall_all"])}</td><td>{_fmt(m["ndcg"])}</td></tr>'
        for cat, m in table_rows)
    cards = "".join(_card(row) for row in rows)
    body = "\n".join([
        f'<h1>{_e(summary["benchmark"])} / {_e(summary["subset"])}</h1>',
        f'<p class="sub">retrieval run <code>{_e(summary["run_id"])}</code> · memory {_e(summary["memory"])} '
        f'{_e(summary["memory_version"])} · {_e(summary["run_status"])}</p>',
        f'<div class="card hero"><div class="big">{_fmt(summary["recall"])}<small>recall@{k} over '
        f'{summary["n"]} questions with evidence · recall_all@{k} {_fmt(summary["recall_all"])} · '
        f'ndcg@{k} {_fmt(summary["ndcg"])}<br>evidence level {_e(summary["evidence_level"])}; excluded (no '
        f'evidence) {summary["excluded"]}; not recalled {summary["not_recalled"]}</small></div></div>',
        f'<h2>Recall by category</h2><div class="card">{chart}</div>',
        f'<table class="card"><thead><tr>{head}</tr></thead><tbody>{body_rows}</tbody></table>',
        f"<h2>Questions ({len(rows)})</h2>{cards}",
        f'<footer>Folded from the run\'s events; ledger head <code>{_e(summary["ledger_head"])}</code>.</footer>',
    ])
    return PAGE.substitute(title=_e(title), body=body)


def _card(row: dict[str, Any]) -> str:
    outcome = "correct" if row["recall_all"] == 1.0 else "incorrect" if row["recall"] is not None else "pending"
    hits = set(row["hit_ranks"])
    recalled = " ".join(f"<b>{_e(doc)}</b>" if rank in hits else _e(doc)
                        for rank, doc in enumerate(row["recalled_doc_ids"], start=1))
    failure = (f'<p class="failure">failed at {_e(row["failure_stage"])}: <b>{_e(row["failure_class"])}</b> '
               f'{_e(row["failure_message"])}</p>') if row["failure_class"] else ""
    context = (f"<details><summary>recalled context</summary><pre>{_e(row['context'])}</pre></details>"
               if row["context"] else "")
    return (f'<article class="q v-{outcome}" id="q-{_e(row["question_id"])}"><header>'
            f'<span class="badge">recall {_fmt(row["recall"])}</span><code>{_e(row["question_id"])}</code>'
            f'<span class="kindtag">{_e(row["kind"])}</span></header><p class="question">{_e(row["question"])}</p>'
            f'<dl class="qa"><dt>evidence</dt><dd>{_e(" ".join(row["evidence"]) or "none")}</dd>'
            f'<dt>recalled</dt><dd>{recalled or "<em>nothing</em>"}</dd></dl>{failure}{context}</article>')


def export_retrieval(state: RunState, get_blob: Callable[[str], bytes], fmt: str,
                     to_csv: Callable[[list[dict[str, Any]], tuple[str, ...]], str]) -> str:
    """A retrieval run as json, csv or html (`to_csv` is the question-answering export's CSV writer)."""
    rows = retrieval_rows(state, get_blob)
    if fmt == "csv":
        return to_csv(rows, RETRIEVAL_CSV_FIELDS)
    summary = _summary(state)
    if fmt == "json":
        return json.dumps({"export_version": 1, "report": summary, "questions": rows}, indent=2,
                          ensure_ascii=False) + "\n"
    return _html(summary, rows)
