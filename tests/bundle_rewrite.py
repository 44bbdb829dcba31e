"""A whole-file rewrite of a bundle, as an author could make one: change one event, re-chain the rest.

`rewritten(bundle, edit)` applies `edit(payload dict) -> bool` to the first row it accepts, then
recomputes the hash of that row and of every later one (each links to the one before), and names
the new head: a bundle consistent with itself, which `verify` alone cannot tell from the original.
`python tests/bundle_rewrite.py IN OUT` turns the first incorrect verdict correct (the show's case).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

from benchledger.ledger.chain import link_hash

__all__ = ["rewritten", "incorrect_to_correct"]


def incorrect_to_correct(row: list) -> bool:
    """Edit a Judged row's payload from incorrect to correct; False for any other row."""
    payload = json.loads(row[6])
    if row[2] != "Judged" or payload.get("verdict") != "incorrect":
        return False
    payload["verdict"] = "correct"
    row[6] = json.dumps(payload, separators=(",", ":"), ensure_ascii=False)
    return True


def rewritten(bundle: dict, edit: Callable[[list], bool] = incorrect_to_correct) -> dict:
    """`bundle` (the parsed JSON) with one row edited and every hash from it on recomputed."""
    rows = [list(row) for row in bundle["rows"]]
    first = next(i for i, row in enumerate(rows) if edit(row))
    for i in range(first, len(rows)):
        run_id, position, type_, version, at, key, payload, _, _ = rows[i]
        prev = rows[i - 1][8] if i else rows[i][7]
        rows[i][7] = prev
        rows[i][8] = link_hash(prev, run_id, position, type_, version, at, key, payload)
    return {**bundle, "rows": rows, "head": rows[-1][8]}


if __name__ == "__main__":
    source, target = Path(sys.argv[1]), Path(sys.argv[2])
    target.write_text(json.dumps(rewritten(json.loads(source.read_text()))))
    print(f"rewrote one verdict of {source} and re-chained it into {target}")
