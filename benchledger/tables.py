"""The one table renderer for every table the CLI prints (scorecards, runs, diffs, failures, ...).

Built on `tabulate` (plain text that pipes, diffs and greps well; no terminal needed), so no
command aligns columns by hand. Callers format each cell as the text they want shown (percent
signs, intervals, "-" for none); the renderer only lays the cells out: the first column
left-aligned and the others right-aligned unless `align` says otherwise, a rule under the header,
and `SEPARATOR` rows drawn as a rule (before a total line). `indent` shifts the whole table, so a
table sits inside an indented report.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Literal

from tabulate import SEPARATING_LINE, tabulate

__all__ = ["render_table", "SEPARATOR", "Align"]

Align = Literal["left", "right", "center"]
SEPARATOR = SEPARATING_LINE
"""A row that is drawn as a rule across the table (e.g. before an overall line)."""


def render_table(rows: Iterable[Sequence[object] | str], headers: Sequence[str], *,
                 align: Sequence[Align] | None = None, indent: str = "") -> str:
    """Rows under headers as aligned plain text; `None` cells show as "-"."""
    rows = [row if row is SEPARATOR else ["-" if cell is None else cell for cell in row] for row in rows]
    colalign = list(align) if align is not None else ["left"] + ["right"] * (len(headers) - 1)
    text = tabulate(rows, headers=list(headers), tablefmt="simple", colalign=colalign,
                    disable_numparse=True)
    return "\n".join(indent + line.rstrip() for line in text.splitlines())
