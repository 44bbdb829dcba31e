"""The one table renderer for every table the CLI prints (scorecards, runs, diffs, failures, ...).

Built on `tabulate` (plain text that pipes, diffs and greps well; no terminal needed), so no
command aligns columns by hand. Callers format each cell as the text they want shown (percent
signs, intervals, "-" for none); the renderer only lays the cells out: the first column
left-aligned and the others right-aligned unless `align` says otherwise, a rule under the header,
and `SEPARATOR` rows drawn as a rule (before a total line). `indent` shifts the whole table, so a
table sits inside an indented report.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import textwrap
from collections.abc import Iterable, Sequence
from typing import Literal

from tabulate import SEPARATING_LINE, tabulate

__all__ = ["render_table", "fit_columns", "output_width", "wrap_prose", "SEPARATOR", "Align"]

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


def output_width() -> int | None:
    """The width tables must fit: the terminal's, else $COLUMNS, else None (a pipe or file gets all)."""
    if sys.stdout.isatty():
        return shutil.get_terminal_size().columns
    columns = os.environ.get("COLUMNS", "")
    return int(columns) if columns.isdigit() and int(columns) > 0 else None


def fit_columns(rows: Sequence[Sequence[object]], headers: Sequence[str], *, width: int | None,
                drop_order: Sequence[str], align: Sequence[Align] | None = None,
                indent: str = "") -> str:
    """`render_table`, leaving out columns in `drop_order` (by header) until the table fits `width`.

    Columns not named in `drop_order` are always shown; a table that still does not fit is printed
    whole rather than cut mid-cell (`--wide` callers pass width=None to keep every column).
    """
    keep = list(range(len(headers)))
    right: list[Align] = ["right"] * (len(headers) - 1)
    default: list[Align] = ["left", *right]
    aligns: list[Align] = list(align) if align is not None else default
    pending = [headers.index(name) for name in drop_order if name in headers]

    def render() -> str:
        return render_table([[row[i] for i in keep] for row in rows], [headers[i] for i in keep],
                            align=[aligns[i] for i in keep], indent=indent)

    text = render()
    while width is not None and pending and max(map(len, text.splitlines()), default=0) > width:
        keep.remove(pending.pop(0))
        text = render()
    return text


_MARKER = re.compile(r"\[(ok  |FAIL|[A-Za-z ]{4})\] ")


def _is_prose(content: str) -> bool:
    """A sentence to wrap, not a table row (columns stand two spaces apart) or a markdown table."""
    body = _MARKER.sub("", content, count=1) if content.startswith("[") else content
    if any(len(word) > 40 for word in body.split(" ")):  # a digest: wrapping would only orphan it
        return False
    return bool(body) and "  " not in body and not body.startswith(("|", "-"))


def wrap_prose(text: str, width: int | None) -> str:
    """`text` with every prose line longer than `width` wrapped under its own indentation (a
    condition line `[FAIL] name: ...` under its name); table rows, rules and lines carrying a digest
    are left whole. width=None: the text as it is (a pipe or a file gets whole lines)."""
    if width is None:
        return text
    out: list[str] = []
    for line in text.split("\n"):
        content = line.lstrip(" ")
        if len(line) <= width or not _is_prose(content):
            out.append(line)
            continue
        indent = line[:len(line) - len(content)]
        hanging = indent + (" " * 7 if _MARKER.match(content) else "  ")
        out.extend(textwrap.wrap(content, width=width, initial_indent=indent, subsequent_indent=hanging,
                                 break_long_words=False, break_on_hyphens=False))
    return "\n".join(out)
