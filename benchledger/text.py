"""Text helpers every layer shares: capping a message before it is recorded, and making text from
outside inert wherever it is shown (a terminal) or handed on (a CSV cell a spreadsheet opens).

`inert(text)` writes every terminal control (C0 but newline and tab, DEL, C1 such as CSI U+009B,
bidirectional overrides) as a visible `\\uXXXX` escape, which is also valid inside a JSON string.
`inert_cell(text)` is the same for a CSV cell, and also prefixes a cell that begins with `=`, `+`,
`-`, `@`, tab or CR with a single quote (OWASP's rule against CSV injection), so that a spreadsheet
shows a corpus text such as `=HYPERLINK(...)` as text instead of running it as a formula. Only
text is prefixed: a number the fold computed (a negative difference) stays a number.
"""

from __future__ import annotations

import re

__all__ = ["MESSAGE_CAP", "cap_message", "inert", "inert_cell", "FORMULA_STARTS"]

_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""What a cell may not begin with (OWASP, CSV injection): a spreadsheet reads it as a formula."""


def _escaped(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def inert(text: str) -> str:
    """`text` with every terminal control (C0 but newline and tab, DEL, C1, bidi overrides) escaped."""
    return _CONTROL.sub(_escaped, text)


def inert_cell(text: str) -> str:
    """`text` as a CSV cell: controls escaped as `inert` does, a formula's first character quoted."""
    return ("'" if text.startswith(FORMULA_STARTS) else "") + inert(text)

MESSAGE_CAP = 500


def cap_message(text: str, cap: int = MESSAGE_CAP) -> str:
    """Cap an error message so a huge exception text never bloats the ledger."""
    return text if len(text) <= cap else text[: cap - 1] + "…"
