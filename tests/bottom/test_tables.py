"""One table renderer for every table the CLI prints: layout rules, and no hand alignment left.

The scan reads the source of every CLI module and of the scorecard for padded format specs
(`:<18}`, `:>8}`) and `ljust`/`rjust`/`center`: a column aligned by hand drifts from its header
the first time a value is wider than the guess. `cli/progress.py` is left out: it pads a progress
bar's label, it prints no table.
"""

from __future__ import annotations

import re

from benchledger.tables import SEPARATOR, render_table
from conftest import REPO

HAND_ALIGNMENT = re.compile(r"\{[^{}]*:[^{}]?[<>^]\d+[^{}]*\}|\.(ljust|rjust|center)\(|:\d+\.\d+f\}")


def test_columns_line_up_under_their_headers_whatever_the_widths():
    text = render_table([("a", 1, "50.0%"), ("a much longer kind", 1234, None), SEPARATOR, ("overall", 1235, "n/a")],
                        ("kind", "n", "accuracy"), indent="  ")
    lines = text.splitlines()
    assert all(line.startswith("  ") for line in lines)
    header, rule, first, second, separator, total = lines
    assert set(rule.strip()) == {"-", " "} and separator == rule
    # the first column is left-aligned, the others right-aligned to the header's right edge
    assert first.index("a") == header.index("kind") and second.index("a much") == header.index("kind")
    for line in (first, second, total):
        assert len(line) == len(header)
    assert second.endswith("-") and total.endswith("n/a") and first.endswith("50.0%")


def test_no_cli_table_is_aligned_by_hand():
    sources = [path for path in sorted((REPO / "cli").rglob("*.py")) if path.name != "progress.py"]
    sources.append(REPO / "projections" / "scorecard.py")
    offenders = []
    for path in sources:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if HAND_ALIGNMENT.search(line):
                offenders.append(f"{path.relative_to(REPO)}:{number}: {line.strip()}")
    assert not offenders, "aligned by hand (use benchledger.tables.render_table):\n" + "\n".join(offenders)
