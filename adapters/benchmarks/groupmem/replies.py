"""GroupMemBench reply parsing and verdict rules, exactly as the official evaluation code behaves.

Source: CoalMem @ ad676f47, `baselines/common.py` (`extract_final`, `split_reasoning_and_final`,
`parse_judgment`) and `task_synthesis/summarize_typed_eval.py` (`_is_correct`). Conformance quirks
30 and 31 (`../shared/data/conformance/README.md`):

- A final line is one that, stripped, *starts* with "final:" or "final answer:" (any case). The
  LAST such line wins, even an empty "Final:". "**Final:** x", "- Final: x" and "Final - x" are
  not final lines. With no final line the answer is the last non-empty line, stripped.
- The text after the first ":" of the final line is the answer ("Final:: x" gives ": x").
- Two verdict rules exist. At run time (`run_time_verdict`) "incorrect", "wrong" or
  "not correct" anywhere in the lower-cased final means incorrect, else "correct" anywhere means
  correct, else unclear; so "Partially correct" and "In-correct" are correct. The published tables
  (`published_is_correct`) delete every non-letter and require exactly "correct".

Everything here is pure: text in, text or verdict out.
"""

from __future__ import annotations

import re
from typing import Literal

__all__ = [
    "extract_final", "split_reasoning_and_final", "parse_judgment", "run_time_verdict",
    "published_is_correct", "RunTimeVerdict",
]

RunTimeVerdict = Literal["Correct", "Incorrect", "Unclear"]
_FINAL_PREFIXES = ("final:", "final answer:")
_NON_LETTERS = re.compile(r"[^a-zA-Z]+")


def _is_final_line(line: str) -> bool:
    return line.strip().lower().startswith(_FINAL_PREFIXES)


def _after_colon(line: str) -> str:
    return line.split(":", 1)[1].strip()


def extract_final(text: str) -> str:
    """The answer of a reply: the last final line's text, else the last non-empty line."""
    if not text:
        return ""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for line in reversed(lines):
        if _is_final_line(line):
            return _after_colon(line)
    return lines[-1] if lines else text.strip()


def split_reasoning_and_final(text: str) -> tuple[str, str]:
    """(reasoning before the last final line, the final answer); the official fallback without one."""
    if not text:
        return "", ""
    lines = [line.rstrip() for line in text.splitlines()]
    for index in range(len(lines) - 1, -1, -1):
        if _is_final_line(lines[index]):
            return "\n".join(lines[:index]).strip(), _after_colon(lines[index])
    return text.strip(), extract_final(text)


def parse_judgment(text: str) -> bool | None:
    """The run-time rule: False on incorrect/wrong/not correct, True on correct, None otherwise."""
    final = extract_final(text).strip().lower()
    if "incorrect" in final or "wrong" in final or "not correct" in final:
        return False
    if "correct" in final:
        return True
    return None


def run_time_verdict(judge_final: str) -> RunTimeVerdict:
    """What the official run prints per question for a judge's split final."""
    judgment = parse_judgment(judge_final)
    return "Correct" if judgment is True else "Incorrect" if judgment is False else "Unclear"


def published_is_correct(judge_answer: str | None) -> bool:
    """The published tables' rule: letters only, lower-cased, exactly "correct"."""
    return _NON_LETTERS.sub("", judge_answer or "").lower() == "correct"
