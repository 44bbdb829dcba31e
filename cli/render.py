"""Showing a run's report: the scorecard (or a retrieval run's recall metrics) on stdout, the JSON to
--out, written whole or not at all; and the one function that makes terminal output inert.

Text from a corpus, a model, a memory system or a ledger may carry terminal controls (a clear
screen `ESC[2J`, a window title `ESC]0;...`, a clipboard write `ESC]52;...`, BEL, C1 codes such
as CSI U+009B, bidirectional overrides). `inert(text)` writes every such character as a visible
`\\uXXXX` escape and keeps only newline and tab; the escape is also valid inside a JSON string,
so `--json` output stays parseable. Rather than trusting each command to call it, `inert_output()`
(entered by the command group around every command) puts stdout and stderr behind a filter that
applies it, after the one redaction (`benchledger.redaction.redact`), to everything written, text
or bytes, so nothing raw reaches the terminal whichever
command printed it. `unfiltered(stream)` is the way out for the two writers that must send bytes
as they are: a progress bar drawing on a terminal, and `blob` writing a body into a file or pipe.
"""

from __future__ import annotations

import codecs
import io
import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

import click
from benchledger.errors import RunIncomplete
from benchledger.files import write_atomic
from benchledger.redaction import redact
from benchledger.text import inert
from benchledger.orchestration.reports import report_of
from benchledger.projections.memory_costs import memory_cost_lines
from benchledger.projections.prices import Costs, cost_lines
from benchledger.projections.report import Report
from benchledger.projections.state import fold_run
from benchledger.projections.scorecard import render_brief, render_scorecard
from benchledger.tables import SEPARATOR, current_width, render_table, wrap_prose

__all__ = [
    "inert", "inert_output", "unfiltered", "report_for", "show_report", "show_retrieval", "render_metrics", "write_json_atomic",
    "require_every_question_judged",
]


class _InertBytes(io.RawIOBase):
    """A binary writer that decodes what it is given as UTF-8, makes it inert and passes it on."""

    def __init__(self, target: TextIO) -> None:
        super().__init__()
        self.target = target
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        text = self._decoder.decode(bytes(data))
        if text:
            self.target.write(inert(redact(text)))
        return len(data)

    def flush(self) -> None:
        self.target.flush()

    def isatty(self) -> bool:
        return self.target.isatty()

    def fileno(self) -> int:
        return self.target.fileno()


def _inert_stream(target: TextIO) -> TextIO:
    wrapper = io.TextIOWrapper(_InertBytes(target), encoding="utf-8", errors="strict", newline="\n",  # type: ignore[type-var]
                               line_buffering=True, write_through=True)
    wrapper.unfiltered = target  # type: ignore[attr-defined]
    return wrapper


def unfiltered(stream: TextIO) -> TextIO:
    """The stream `inert_output` wrapped (the stream itself outside it)."""
    return getattr(stream, "unfiltered", stream)


@contextmanager
def inert_output() -> Iterator[None]:
    """Within the block, everything written to stdout and stderr goes through `inert`."""
    saved = sys.stdout, sys.stderr
    if hasattr(sys.stdout, "unfiltered"):
        yield  # already inside (a command invoking another)
        return
    sys.stdout, sys.stderr = _inert_stream(sys.stdout), _inert_stream(sys.stderr)
    try:
        yield
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        sys.stdout, sys.stderr = saved


def report_for(ledger, run_id: str, *, scorer_id: str | None = None, scoring_rule: int | None = None) -> Report:
    """The report of a recorded run under its benchmark's conditions."""
    rule = {"scoring_rule": scoring_rule} if scoring_rule is not None else {}
    return report_of(fold_run(run_id, ledger.reader.events(run_id)), scorer_id=scorer_id, **rule)


def write_json_atomic(path: Path, value) -> None:
    """Write `value` as indented JSON, whole or not at all (`benchledger.files.write_atomic`)."""
    write_atomic(path, json.dumps(value, indent=2, ensure_ascii=False, default=str) + "\n")


def require_every_question_judged(report: Report, *, next_step: str, run_failures: bool = False) -> None:
    """RunIncomplete (exit 3) unless every planned question was judged and, for `run_failures`
    (run and resume, which retry them), no run-level failure such as a failed purge is open: a run
    with operational failures is never done, and the line says how to finish it."""
    open_run_level = list(dict.fromkeys(f.stage for f in report.failures if f.question_id is None)) if run_failures else []
    if report.judged >= report.total and report.run_status == "completed":
        if not open_run_level:
            return
        raise RunIncomplete(f"run {report.run_id}: every question was judged but the {', '.join(open_run_level)} "
                            f"failed; retry it with `{next_step}`")
    missing = report.total - report.judged
    raise RunIncomplete(f"run {report.run_id}: {missing} of {report.total} planned question(s) not judged "
                        f"({report.failed} failed); finish it with `{next_step}`")


def show_report(report: Report, *, out: Path | None = None, as_json: bool = False, costs: Costs | None = None,
                brief: bool = False) -> None:
    """The scorecard (or its JSON), and with a price table its dollars (`costs`: shown, never saved in a view)."""
    if costs is None:
        if out is not None:
            write_json_atomic(out, report.model_dump(mode="json"))
        if as_json:
            click.echo(report.model_dump_json(indent=2))
            return
    else:
        value = {**report.model_dump(mode="json"), "costs": costs.as_json()}
        if out is not None:
            write_json_atomic(out, value)
        if as_json:
            click.echo(json.dumps(value, indent=2, ensure_ascii=False))
            return
    click.echo(wrap_prose(render_brief(report) if brief else render_scorecard(report), current_width()))
    if costs is not None and not brief:
        click.echo("\n".join(cost_lines(costs)))


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def render_metrics(metrics: dict, k: int) -> str:
    """Retrieval metrics as a table, one row per category then overall."""
    rows: list = [(cat, m["n"], _fmt(m["recall"]), _fmt(m["recall_all"]), _fmt(m["ndcg"]))
                  for cat, m in metrics["by_category"].items()]
    rows += [SEPARATOR, ("overall", metrics["n"], _fmt(metrics["recall"]), _fmt(metrics["recall_all"]),
                         _fmt(metrics["ndcg"]))]
    table = render_table(rows, ("category", "n", f"recall@{k}", f"recall_all@{k}", f"ndcg@{k}"), indent="  ")
    notes = [f"  evidence level: {metrics['evidence_level']}",
             f"  excluded (no evidence): {metrics['excluded']}",
             f"  not recalled (failed): {metrics['not_recalled']}"]
    if official := metrics.get("official"):
        notes += ["", f"  {official['title']}", *(f"    {line}".rstrip() for line in official["lines"])]
    if candidates := metrics.get("candidates"):
        notes.append(f"  {candidates['derived']} of {candidates['recalled']} recalled candidates are derived text "
                     f"counted toward the documents they name ({candidates.get('mean_sources', '?')} on average: "
                     f"a wide attribution is credited with every document it names); "
                     f"{candidates['unattributed']} name none and count toward no evidence")
    notes += memory_cost_lines(metrics.get("memory_calls"))
    if note := metrics.get("diagnostic"):
        notes.append(f"  DIAGNOSTIC: {note}")
    return "\n".join([table, "", *notes])


def show_retrieval(state, metrics: dict, *, as_json: bool = False, out: Path | None = None,
                   costs: Costs | None = None) -> None:
    """A retrieval run's recall metrics (no scorecard: it asked no model), as text or JSON; with a price
    table the memory's own calls in dollars."""
    cfg = state.started.config
    value = {"run_id": state.run_id, "mode": "retrieval", "benchmark": cfg.benchmark, "subset": cfg.subset,
             "memory": cfg.memory, "memory_version": cfg.memory_version, **metrics, "ledger_head": state.head,
             **({"costs": costs.as_json()} if costs is not None else {})}
    if out is not None:
        write_json_atomic(out, value)
    if as_json:
        click.echo(json.dumps(value, indent=2, ensure_ascii=False, default=str))
        return
    click.echo(f"RETRIEVAL  {cfg.benchmark} / {cfg.subset}  run {state.run_id}")
    click.echo(f"  memory {cfg.memory} {cfg.memory_version}  k={metrics['k']}  "
               f"{state.finished.status if state.finished else 'unfinished'}")
    click.echo(render_metrics(metrics, metrics["k"]))
    if costs is not None:
        click.echo("\n".join(cost_lines(costs)))
    click.echo(f"  ledger head {state.head}")
