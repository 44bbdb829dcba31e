"""Reading a reader reply as the official harness does: the last `\\boxed{...}` and the UNKNOWN rule.

`extract_boxed` takes the last literal `\\boxed{` and scans to the brace that balances it (inner
braces kept; an escaped `\\}` still closes); an unclosed box runs to the end; an empty box, or no box,
gives the whole reply stripped. `is_unknown` is exactly `unknown` after Python's strip and lower, so
NBSP and newlines around it are whitespace and `UNKNOWN.` is not UNKNOWN.
"""

from __future__ import annotations

__all__ = ["BOX", "extract_boxed", "is_unknown"]

BOX = "\\boxed{"


def extract_boxed(reply: str) -> str:
    """The official boxed answer of a reply (the whole reply stripped when no non-empty box)."""
    start = reply.rfind(BOX)
    if start < 0:
        return reply.strip()
    begin = start + len(BOX)
    depth, end = 1, len(reply)
    for index in range(begin, len(reply)):
        char = reply[index]
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                end = index
                break
    content = reply[begin:end].strip()
    return content or reply.strip()


def is_unknown(parsed: str) -> bool:
    """True when the boxed answer is UNKNOWN (which forces a score of 0, whatever the gold)."""
    return parsed.strip().lower() == "unknown"
