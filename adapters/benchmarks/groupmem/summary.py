"""The published GroupMemBench accuracy table, as `task_synthesis/summarize_typed_eval.py` makes it.

Source: CoalMem @ ad676f47. The script reads result files named `<baseline>__<qtype>.jsonl`
(other names, including `*.jsonl.skipped`, are ignored) in name order; per line: blank and
undecodable lines are skipped, every other record counts in the total, a record whose
`judge_answer` is missing, null or blank is also counted as "missing judge", and a record is
correct by `published_is_correct(judge_answer)` (letters only, exactly "correct", quirk 31).
Questions the run skipped after 5 empty replies are not in these files at all, so they leave the
denominator (quirk 32).

The tables: Markdown `| baseline | <qtypes> | overall |` with "27.3% (3/11)" cells, "—" for an
empty cell and a bold overall; TSV with "3/11" cells ("" when empty), overall correct, total and
accuracy to 4 places. `printout` is what `main` prints. Everything takes texts, never paths.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from benchledger.adapters.benchmarks.groupmem.replies import published_is_correct
from benchledger.json_input import JsonSyntaxError, load_json

__all__ = ["DEFAULT_QTYPES", "Counts", "scan_results", "format_markdown", "format_tsv", "printout"]

DEFAULT_QTYPES: tuple[str, ...] = (
    "multi_hop", "knowledge_update", "temporal", "user_implicit", "term_ambiguity", "abstention",
)
Stats = Mapping[tuple[str, str], "Counts"]


@dataclass
class Counts:
    """One (baseline, qtype) cell."""

    correct: int = 0
    total: int = 0
    missing_judge: int = 0


def _lines(text: str) -> list[str]:
    """Lines as a text-mode file yields them (universal newlines), nothing more."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def scan_results(files: Mapping[str, str]) -> dict[tuple[str, str], Counts]:
    """(baseline, qtype) -> counts, from result file names and their texts."""
    stats: dict[tuple[str, str], Counts] = {}
    for name in sorted(files):
        if not name.endswith(".jsonl") or "__" not in name:
            continue
        baseline, rest = name.split("__", 1)
        cell = stats.setdefault((baseline, rest[:-len(".jsonl")]), Counts())
        for number, line in enumerate(_lines(files[name]), start=1):
            line = line.strip()
            if not line:
                continue
            try:
                record = load_json(line, source=name, first_line=number)
            except JsonSyntaxError:
                continue
            judge = record.get("judge_answer", "") if isinstance(record, dict) else None
            judge = judge or ""
            if not isinstance(record, dict) or not isinstance(judge, str):
                raise ValueError(f"{name}:{number}: the official summary cannot read this record")
            cell.total += 1
            if not judge.strip():
                cell.missing_judge += 1
            if published_is_correct(judge):
                cell.correct += 1
    return stats


def _cells(stats: Stats, baseline: str, qtypes: Sequence[str]) -> tuple[list[Counts], int, int]:
    cells = [stats.get((baseline, qtype), Counts()) for qtype in qtypes]
    return cells, sum(c.correct for c in cells), sum(c.total for c in cells)


def format_markdown(stats: Stats, baselines: Sequence[str], qtypes: Sequence[str] = DEFAULT_QTYPES) -> str:
    # the official table's header; built from its cells, so a table with no kind yet is well formed
    lines = ["| " + " | ".join(["baseline", *qtypes, "overall"]) + " |", "|" + "---|" * (len(qtypes) + 2)]
    for baseline in baselines:
        cells, correct, total = _cells(stats, baseline, qtypes)
        row = [baseline] + [f"{c.correct / c.total * 100:.1f}% ({c.correct}/{c.total})" if c.total else "—"
                            for c in cells]
        row.append(f"**{correct / total * 100:.1f}% ({correct}/{total})**" if total else "—")
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def format_tsv(stats: Stats, baselines: Sequence[str], qtypes: Sequence[str] = DEFAULT_QTYPES) -> str:
    lines = ["\t".join(["baseline", *qtypes, "overall_correct", "overall_total", "overall_accuracy"])]
    for baseline in baselines:
        cells, correct, total = _cells(stats, baseline, qtypes)
        row = [baseline] + [f"{c.correct}/{c.total}" if c.total else "" for c in cells]
        row += [str(correct), str(total), f"{correct / total:.4f}" if total else ""]
        lines.append("\t".join(row))
    return "\n".join(lines)


def printout(stats: Stats, baselines: Sequence[str], qtypes: Sequence[str] = DEFAULT_QTYPES, *,
             out_markdown: str | None = None, out_tsv: str | None = None) -> str:
    """What the script prints (the table, the missing-judge note, the files it wrote)."""
    text = format_markdown(stats, baselines, qtypes) + "\n\n"
    if missing := sum(c.missing_judge for c in stats.values()):
        text += f"# {missing} records had empty judge_answer (counted as Incorrect).\n"
    if out_markdown:
        text += f"wrote markdown -> {out_markdown}\n"
    if out_tsv:
        text += f"wrote tsv -> {out_tsv}\n"
    return text
