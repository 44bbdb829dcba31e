"""Progress for long stages: a bar per stage for people, `progress` log events for machines.

The run library reports (stage, done, total); this module decides how that is shown. On a
terminal, click draws a bar on stderr; otherwise a line is printed at every tenth, and with
`--log-format json` the same steps are structured log events.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import click
import structlog

from benchledger.cli.render import unfiltered
__all__ = ["ProgressDisplay", "make_progress"]

log = structlog.get_logger("benchledger.progress")


class ProgressDisplay:
    def __init__(self, log_format: str, stream=None) -> None:
        self.log_format = log_format
        self.stream = stream or unfiltered(sys.stderr)  # the bar's own controls must reach the terminal
        self._bars: dict[str, Any] = {}  # click progress bars
        self._last_step: dict[str, int] = {}
        self._tty = self.stream.isatty() and log_format == "console"

    def __call__(self, stage: str, done: int, total: int) -> None:
        if total <= 0:
            return
        if self._tty:
            self._bar(stage, total).update(done - self._bar(stage, total).pos)
            if done >= total:
                self._bars.pop(stage).render_finish()
            return
        step = (10 * done) // total
        if self._last_step.get(stage) == step:
            return
        self._last_step[stage] = step
        if self.log_format == "json":
            log.info("progress", stage=stage, done=done, total=total)
        else:
            click.echo(f"  {stage}: {done}/{total}", file=self.stream)

    def _bar(self, stage: str, total: int):
        if stage not in self._bars:
            bar = click.progressbar(length=total, label=f"  {stage:<10}", file=self.stream, show_pos=True)
            unlabelled = bar.format_eta
            bar.format_eta = lambda: f"{unlabelled()} left" if unlabelled() else ""  # type: ignore[method-assign]
            bar.__enter__()
            self._bars[stage] = bar
        return self._bars[stage]

    def close(self) -> None:
        for bar in self._bars.values():
            bar.render_finish()
        self._bars.clear()


def make_progress(log_format: str) -> Callable[[str, int, int], None]:
    return ProgressDisplay(log_format)
