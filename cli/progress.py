"""Progress for long stages: a bar per stage for people, `progress` log events for machines.

The run library reports (stage, done, total, **detail); this module decides how that is shown. On
a terminal, click draws a bar on stderr; otherwise a line is printed at every tenth, and with
`--log-format json` the same steps are structured log events carrying the detail as fields.
Ingest and build add the scopes finished and the memory system's own model calls so far
(`memory_calls`, from its recording proxy): the bar shows them beside the count; a line is also
printed when a scope finishes, and when the calls moved and `_QUIET_S` passed since the last line,
so a long extraction batch (mem0 or Graphiti calling their model) is seen working between tenths.
"""

from __future__ import annotations

import sys
import time
from typing import Any

import click
import structlog

from benchledger.callbacks import Progress
from benchledger.cli.render import unfiltered

__all__ = ["ProgressDisplay", "SweepProgress", "make_progress"]

log = structlog.get_logger("benchledger.progress")

_QUIET_S = 10.0
"""Between tenths, a line for moved detail (the memory's calls) at most this often."""


def _detail_text(detail: dict[str, int]) -> str:
    parts = []
    if "scopes" in detail:
        parts.append(f"scopes {detail.get('scopes_done', 0)}/{detail['scopes']}")
    if detail.get("memory_calls"):
        parts.append(f"memory calls {detail['memory_calls']}")
    return ", ".join(parts)


class ProgressDisplay:
    def __init__(self, log_format: str, stream=None) -> None:
        self.log_format = log_format
        self.stream = stream or unfiltered(sys.stderr)  # the bar's own controls must reach the terminal
        self._bars: dict[str, Any] = {}  # click progress bars
        self._last_step: dict[str, int] = {}
        self._last_detail: dict[str, tuple[dict[str, int], float]] = {}
        self._tty = self.stream.isatty() and log_format == "console"

    def __call__(self, stage: str, done: int, total: int, /, **detail: int) -> None:
        if total <= 0:
            return
        if self._tty:
            bar = self._bar(stage, total)
            bar.update(done - bar.pos, current_item=_detail_text(detail))
            if done >= total:
                self._bars.pop(stage).render_finish()
            return
        step = (10 * done) // total
        now = time.monotonic()
        shown, at = self._last_detail.get(stage, ({}, now))
        calls_only = {k: v for k, v in detail.items() if k != "memory_calls"} == \
            {k: v for k, v in shown.items() if k != "memory_calls"}
        if self._last_step.get(stage) == step and calls_only and (detail == shown or now - at < _QUIET_S):
            return
        self._last_step[stage] = step
        self._last_detail[stage] = (detail, now)
        if self.log_format == "json":
            log.info("progress", stage=stage, done=done, total=total, **detail)
        else:
            extra = _detail_text(detail)
            click.echo(f"  {stage}: {done}/{total}" + (f" ({extra})" if extra else ""), file=self.stream)

    def _bar(self, stage: str, total: int):
        if stage not in self._bars:
            bar = click.progressbar(length=total, label=f"  {stage:<10}", file=self.stream, show_pos=True,
                                    item_show_func=lambda item: item or None)
            unlabelled = bar.format_eta
            bar.format_eta = lambda: f"{unlabelled()} left" if unlabelled() else ""  # type: ignore[method-assign]
            bar.__enter__()
            self._bars[stage] = bar
        return self._bars[stage]

    def close(self) -> None:
        for bar in self._bars.values():
            bar.render_finish()
        self._bars.clear()


def make_progress(log_format: str) -> Progress:
    return ProgressDisplay(log_format)


class SweepProgress:
    """A sweep's one display: each cell's stages under the cell's `[i/n]`, a fresh count per cell (a
    cell's questions start again at 0), every line from one `ProgressDisplay` stream."""

    def __init__(self, log_format: str, total: int, stream=None) -> None:
        self.log_format, self.total, self.stream = log_format, total, stream
        self._cells: dict[int, ProgressDisplay] = {}

    def for_cell(self, index: int) -> Progress:
        display = self._cells[index] = ProgressDisplay(self.log_format, self.stream)

        def progress(stage: str, done: int, total: int, /, **detail: int) -> None:
            display(f"[{index}/{self.total}] {stage}", done, total, **detail)
        return progress

    def close(self) -> None:
        for display in self._cells.values():
            display.close()
