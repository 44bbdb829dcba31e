"""The one table renderer for every table the CLI prints (scorecards, runs, diffs, failures, ...).

Built on `tabulate` (plain text that pipes, diffs and greps well; no terminal needed), so no
command aligns columns by hand. Callers format each cell as the text they want shown (percent
signs, intervals, "-" for none); the renderer only lays the cells out: the first column
left-aligned and the others right-aligned unless `align` says otherwise, a rule under the header,
and `SEPARATOR` rows drawn as a rule (before a total line). `indent` shifts the whole table, so a
table sits inside an indented report.

Fitting: the CLI says once how wide its output may be (`fitted_to`, the terminal's width or
$COLUMNS; a pipe or a file 100 columns, or whole lines with COLUMNS=0), and every table rendered inside fits it. A table too
wide loses, in this order, its header padding; the columns its caller named in `drop` (least useful
first); then has its text cells, then its numbers, wrapped at spaces (tabulate's own wrapping, never
inside a number); then a long word of text (a path) broken; and a table of a few rows is turned on
its side. One that still does not fit is printed as it is rather than cut. `wrap_prose` fits what was
rendered earlier at full width (a saved report's sections) at the moment it is shown.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import textwrap
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Literal

import tabulate as tabulate_module
from tabulate import SEPARATING_LINE, tabulate

__all__ = ["render_table", "fit_columns", "fitted_to", "current_width", "output_width", "wrap_prose", "SEPARATOR",
           "Align"]

Align = Literal["left", "right", "center"]
SEPARATOR = SEPARATING_LINE
"""A row that is drawn as a rule across the table (e.g. before an overall line)."""


_WIDTH: ContextVar[int | None] = ContextVar("benchledger_table_width", default=None)


@contextmanager
def fitted_to(width: int | None) -> Iterator[None]:
    """Tables rendered inside fit `width` columns (None: as wide as they come, for files and pipes)."""
    token = _WIDTH.set(width)
    try:
        yield
    finally:
        _WIDTH.reset(token)


def current_width() -> int | None:
    """The width output must fit here (see `fitted_to`)."""
    return _WIDTH.get()


def render_table(rows: Iterable[Sequence[object] | str], headers: Sequence[str], *,
                 align: Sequence[Align] | None = None, indent: str = "", drop: Sequence[str] = ()) -> str:
    """Rows under headers as aligned plain text; `None` cells show as "-". Fits the current width
    (`fitted_to`) as the module docstring says; a table that fits is laid out as it always was."""
    cells = [row if row is SEPARATOR else ["-" if cell is None else str(cell) for cell in row] for row in rows]
    right: list[Align] = ["right"] * (len(headers) - 1)
    colalign: list[Align] = list(align) if align is not None else ["left", *right]
    table = _Table(cells, list(headers), colalign, indent)
    width = _WIDTH.get()
    text = table.layout()
    if width is None or _widest(text) <= width:
        return text
    # in order of what is lost: header padding, then the least useful columns, then text cells on
    # two lines, then numbers on two lines (split at a space: "[15.8," over "75.0]", never inside one)
    table.compact = True
    text = table.layout()
    pending = [name for name in drop if name in headers]
    while pending and _widest(text) > width:
        table = table.without(pending.pop(0))
        text = table.layout()
    text = table.wrapped(width, numbers=False)
    if _widest(text) <= width:
        return text
    text = table.wrapped(width, numbers=True)
    if _widest(text) > width:  # a long word of text (a path, an id) is broken across lines; a number never
        text = table.wrapped(width, numbers=True, words=True)
    turned = table.turned()
    if _widest(text) > width and turned is not None:  # a wide table of a few rows reads as well down the page
        text = turned.wrapped(width, numbers=True)
    return text


_NUMBER = re.compile(r"^[\[(+\-\u2212<>~]?\d")


class _Table:
    """One table's cells and how it is laid out (for `render_table` to try narrower layouts)."""

    def __init__(self, rows: list, headers: list[str], colalign: list[Align], indent: str) -> None:
        self.rows, self.headers, self.colalign, self.indent = rows, headers, colalign, indent
        self.compact = False

    def without(self, header: str) -> "_Table":
        i = self.headers.index(header)
        rows = [row if row is SEPARATOR else [*row[:i], *row[i + 1:]] for row in self.rows]
        table = _Table(rows, [*self.headers[:i], *self.headers[i + 1:]],
                       [*self.colalign[:i], *self.colalign[i + 1:]], self.indent)
        table.compact = self.compact
        return table

    def turned(self) -> "_Table | None":
        """The table turned on its side (a row per column, headed by the first column's cells), for a
        few rows under many columns; None when there are too many rows for that to read well."""
        body = [row for row in self.rows if row is not SEPARATOR]
        if not body or len(body) > 4 or len(self.headers) <= len(body) + 1:
            return None
        headers = [self.headers[0], *(row[0] for row in body)]
        rows = [[self.headers[i], *(row[i] for row in body)] for i in range(1, len(self.headers))]
        table = _Table(rows, headers, ["left"] * len(headers), self.indent)
        table.compact = True
        return table

    def layout(self, limits: list[int | None] | None = None, break_words: bool = False) -> str:
        with _TABULATE_GLOBALS:
            padding, tabulate_module.MIN_PADDING = tabulate_module.MIN_PADDING, 0 if self.compact else 2
            try:
                text = tabulate(self.rows, headers=self.headers, tablefmt="simple", colalign=self.colalign,
                                disable_numparse=True, maxcolwidths=limits,
                                maxheadercolwidths=limits,  # type: ignore[arg-type]  # tabulate takes None per column
                                break_long_words=break_words, break_on_hyphens=False)
            finally:
                tabulate_module.MIN_PADDING = padding
        return "\n".join(self.indent + line.rstrip() for line in text.splitlines())

    def wrapped(self, width: int, *, numbers: bool, words: bool = False) -> str:
        """Laid out with its widest wrappable columns wrapped at spaces (never below their longest
        word) until it fits `width` or nothing more can wrap."""
        columns = [[self.headers[i], *(row[i] for row in self.rows if row is not SEPARATOR)]
                   for i in range(len(self.headers))]
        natural = [max(len(line) for cell in column for line in cell.split("\n")) for column in columns]
        floor = [max((len(word) for cell in column for word in cell.split()), default=1) for column in columns]
        numeric = [all(_NUMBER.match(cell) or cell in ("-", "n/a", "") for cell in column[1:]) for column in columns]
        if words:
            floor = [f if numeric[i] else min(f, 12) for i, f in enumerate(floor)]
        limits: list[int] = list(natural)
        text = self.layout()
        over = _widest(text) - width
        while over > 0:
            shrinkable = [i for i in range(len(limits)) if limits[i] > floor[i] and (numbers or not numeric[i])]
            if not shrinkable:
                break
            widest = max(shrinkable, key=lambda i: limits[i] - floor[i])
            limits[widest] = max(floor[widest], limits[widest] - over)
            text = self.layout(list(limits), break_words=words)
            over = _widest(text) - width
        return text


_TABULATE_GLOBALS = threading.Lock()  # tabulate reads its header padding from a module global


def _widest(text: str) -> int:
    return max(map(len, text.splitlines()), default=0)


NOT_A_TERMINAL_WIDTH = 100
"""What a pipe or a file gets when $COLUMNS does not say: a width that reads well in a pager, an
issue or a log. `COLUMNS=0` (or a command's `--wide`) keeps every line whole, for grep and diff."""


def output_width() -> int | None:
    """The width tables must fit: the terminal's; else $COLUMNS (0: no limit); else 100."""
    if sys.stdout.isatty():
        return shutil.get_terminal_size().columns
    columns = os.environ.get("COLUMNS", "").strip()
    if columns.isdigit():
        return int(columns) or None
    return NOT_A_TERMINAL_WIDTH


def fit_columns(rows: Sequence[Sequence[object]], headers: Sequence[str], *, width: int | None,
                drop_order: Sequence[str], align: Sequence[Align] | None = None,
                indent: str = "") -> str:
    """`render_table` fitted to `width` (not the current one): `--wide` callers pass width=None to
    keep every column and every line whole."""
    with fitted_to(width):
        return render_table(rows, headers, align=align, indent=indent, drop=drop_order)


_MARKER = re.compile(r"\[(ok  |FAIL|[A-Za-z ]{4})\] ")
_MD_CELL = re.compile(r"(?<!\\)\|")


def _is_prose(content: str) -> bool:
    """A sentence to wrap, not a table row (columns stand two spaces apart) or a markdown table."""
    body = _MARKER.sub("", content, count=1) if content.startswith("[") else content
    return bool(body) and "  " not in body and not body.startswith(("|", "-"))


def _is_markdown_row(line: str) -> bool:
    content = line.strip()
    return len(content) > 1 and content.startswith("|") and content.endswith("|")


def _markdown_as_table(block: list[str], width: int) -> list[str]:
    """A markdown table too wide for the terminal, laid out as a plain table that fits (its cells
    whole; a pipe or a file still gets the markdown as written)."""
    indent = block[0][:len(block[0]) - len(block[0].lstrip(" "))]
    rows = [[cell.strip().replace("\\|", "|").strip("*") for cell in _MD_CELL.split(line.strip())[1:-1]]
            for line in block]
    rule = len(rows) > 1 and all(set(cell) <= set("-: ") for cell in rows[1])
    if not rule or any(len(row) != len(rows[0]) for row in rows):
        return block
    align: list[Align] = ["right" if cell.endswith(":") else "left" for cell in rows[1]]
    with fitted_to(width):
        return render_table(rows[2:], rows[0], align=align, indent=indent).splitlines()


_RULE = re.compile(r"^ *-+(  -+)*$")


def _spans(rule: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in re.finditer(r"-+", rule)]


def _cells(line: str, spans: list[tuple[int, int]]) -> list[str] | None:
    """A rendered row read back by its table's column spans; None when text stands outside them."""
    outside = line[:spans[0][0]] + "".join(line[b:c] for (_, b), (c, _) in zip(spans, spans[1:])) + line[spans[-1][1]:]
    return None if outside.strip() else [line[a:b].strip() for a, b in spans]


def _refit(block: list[str], width: int) -> list[str]:
    """A table rendered earlier at full width (a report's section, folded once and saved), read back
    by its rule's column spans and laid out again to fit `width`, each column aligned as it was."""
    spans = _spans(block[1])
    header = _cells(block[0], spans)
    body: list = [SEPARATOR if line == block[1] else _cells(line, spans) for line in block[2:]]
    if header is None or any(row is None for row in body):
        return block
    align: list[Align] = []
    for i, (a, b) in enumerate(spans):
        shown = [line[a:b].ljust(b - a) for line in block[2:] if line != block[1]]
        short = [text for text in shown if text.strip() and len(text.strip()) < b - a]
        flush_right = [text for text in short if not text.endswith(" ")]
        align.append("right" if short and len(flush_right) == len(short) else
                     "left" if short or i == 0 else "right")
    with fitted_to(width):
        return render_table(body, header, align=align, indent=" " * spans[0][0]).splitlines()


def wrap_prose(text: str, width: int | None) -> str:
    """`text` fitted to `width`: every prose line longer than it wrapped under its own indentation (a
    condition line `[FAIL] name: ...` under its name; a digest kept whole on a line of its own), a
    markdown table too wide laid out as a plain one; table rows and rules are left whole (they were
    fitted when rendered). width=None: the text as it is (a pipe or a file gets whole lines)."""
    if width is None:
        return text
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if i + 1 < len(lines) and _RULE.match(lines[i + 1]) and line.strip() and not _RULE.match(line):
            end, spans = i + 2, _spans(lines[i + 1])
            while end < len(lines) and lines[end].strip() and _cells(lines[end], spans) is not None:
                end += 1
            block = lines[i:end]
            out.extend(_refit(block, width) if _widest("\n".join(block)) > width else block)
            i = end
            continue
        if _is_markdown_row(line):
            end = i
            while end < len(lines) and _is_markdown_row(lines[end]):
                end += 1
            block = lines[i:end]
            out.extend(_markdown_as_table(block, width) if _widest("\n".join(block)) > width else block)
            i = end
            continue
        i += 1
        content = line.lstrip(" ")
        if len(line) <= width or not _is_prose(content):
            out.append(line)
            continue
        indent = line[:len(line) - len(content)]
        hanging = indent + (" " * 7 if _MARKER.match(content) else "  ")
        out.extend(textwrap.wrap(content, width=width, initial_indent=indent, subsequent_indent=hanging,
                                 break_long_words=False, break_on_hyphens=False))
    return "\n".join(out)
