"""Memora's Table 3 from per-persona reports, as `evals/model_eval/aggregate_results.py` builds it.

Each report is one run: one persona, one period, laid out as
`data/<period>/<persona>/eval_results/<run_id>/eval_report_*.json`; the path names the period,
the persona and the run. `table3_row` is the official row of one report; the subject is the
model name, suffixed " (no reasoning)" or " (reasoning)" by the run id (or the memory system's
name for the agent track). `aggregate_table3` gives subject -> task -> period -> the **mean of the
per-report task FAMAs** (not a per-question mean across personas), leaving out a report whose
task had no question (quirk 26). `print_table3` is the official printout.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import PurePath
from typing import Any

from benchledger.adapters.benchmarks.memora.scoring import TASK_TYPES

__all__ = ["PERIODS", "table3_row", "aggregate_table3", "print_table3"]

PERIODS = ("weekly", "monthly", "quarterly")


def _location(report_path: str) -> dict[str, str | None]:
    parts = PurePath(report_path).parts
    found: dict[str, str | None] = {"period": None, "persona": None, "run_id": None}
    if "eval_results" in parts:
        at = parts.index("eval_results")
        found["run_id"] = parts[at + 1] if at + 1 < len(parts) else None
        found["persona"] = parts[at - 1] if at >= 1 else None
        found["period"] = parts[at - 2] if at >= 2 else None
    return found


def _subject(metadata: Mapping[str, Any], run_id: str | None) -> str:
    if metadata.get("model_name"):
        suffix = ""
        if run_id and run_id.endswith("_no_reasoning"):
            suffix = " (no reasoning)"
        elif run_id and run_id.endswith("_reasoning"):
            suffix = " (reasoning)"
        return metadata["model_name"] + suffix
    return metadata.get("memory_system") or "<unknown>"


def table3_row(report: Mapping[str, Any], report_path: str,
               metadata: Mapping[str, Any]) -> dict[str, Any]:
    """The official row of one report; `metadata` is the report's (model_name or memory_system)."""
    overall = report.get("overall_metrics", {})
    by_task = report.get("by_task_type", {})
    where = _location(report_path)
    row: dict[str, Any] = {
        "report": report_path, "subject": _subject(metadata, where["run_id"]), **where,
        "total_questions": overall.get("total_questions"), "fama": overall.get("fama"),
        "overall_accuracy": overall.get("overall_accuracy"),
        "memory_presence_accuracy": overall.get("memory_presence_accuracy"),
        "forgetting_absence_accuracy": overall.get("forgetting_absence_accuracy"),
    }
    for task in TASK_TYPES:
        stats = by_task.get(task, {})
        row[f"fama_{task.lower()}"] = stats.get("fama")
        row[f"questions_{task.lower()}"] = stats.get("total_questions", 0)
    return row


def aggregate_table3(rows: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, dict[str, float]]]:
    cells: dict[str, dict[str, dict[str, list[float]]]] = {}
    for row in rows:
        period = row["period"] or "unknown"
        for task in TASK_TYPES:
            value = row.get(f"fama_{task.lower()}")
            if value is not None and row.get(f"questions_{task.lower()}", 0) > 0:
                (cells.setdefault(row["subject"], {}).setdefault(task, {})
                 .setdefault(period, []).append(float(value)))
    return {subject: {task: {period: sum(values) / len(values)
                             for period, values in by_period.items()}
                      for task, by_period in by_task.items()}
            for subject, by_task in cells.items()}


def print_table3(table: Mapping[str, Mapping[str, Mapping[str, float]]]) -> str:
    head = f"{'Subject':<45}" + "".join(f" {task[:4]}/{period[:4]:>5}"
                                         for task in TASK_TYPES for period in PERIODS)
    lines = [head, "-" * len(head)]
    for subject in sorted(table):
        row = f"{subject:<45}"
        for task in TASK_TYPES:
            for period in PERIODS:
                value = table[subject].get(task, {}).get(period)
                row += f" {value:>10.2f}" if value is not None else f" {'-':>10}"
        lines.append(row)
    return "\n".join(lines) + "\n"
