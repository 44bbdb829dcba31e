"""Reading the price table a reader gives with `--prices FILE`, once, before anything is shown or spent.

The table is JSON, model -> {"input": USD per million prompt tokens, "output": USD per million
completion tokens}, validated by `projections.prices.Price`. A table that is not one is a single
line naming the file, the line and the field (exit 2): the JSON reading and the line of a
validation error's path are the release readers' own (`adapters.benchmarks.json_source`). The
table's SHA-256 is taken over the bytes read, so what a report says it was priced with is the
file as it was read.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from pydantic import RootModel, ValidationError

from benchledger.adapters.benchmarks.json_source import line_of, read_json
from benchledger.errors import BadInput
from benchledger.projections.prices import Price, PriceTable

__all__ = ["read_prices"]

_SHAPE = '(expected {"MODEL": {"input": USD per 1M tokens, "output": USD per 1M tokens}, ...})'


class _Table(RootModel[dict[str, Price]]):
    pass


def read_prices(path: Path) -> PriceTable:
    """The price table in `path`; BadInput naming the file, line and field when it is not one."""
    data, text = read_json(path)
    if not isinstance(data, dict) or not data:
        raise BadInput(f"a price table is a non-empty JSON object {_SHAPE}", file=str(path), line=1)
    try:
        prices = _Table.model_validate(data).root
    except ValidationError as err:
        # a field written wrong names the line to fix; a field missing beside it is its consequence (a typo)
        first = min(err.errors(), key=lambda error: error["type"] == "missing")
        loc = tuple(str(part) for part in first["loc"])
        line = _line(text, data, loc, missing=first["type"] == "missing")
        raise BadInput(f"{first['msg']} {_SHAPE}", file=str(path), line=line, field=".".join(loc)) from None
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return PriceTable(prices=prices, path=str(path), sha256=digest)


def _line(text: str, data: dict, loc: tuple[str, ...], *, missing: bool) -> int:
    """The line of the model's entry, or of the named field within it when the field is written there
    (a missing field: the entry's line)."""
    model = loc[0]
    if not isinstance(data.get(model), dict):
        return _key_line(text, model, 0) or 1
    start = line_of(text, (model,))
    if len(loc) > 1 and not missing:
        offset = sum(len(line) for line in text.splitlines(keepends=True)[: start - 1])
        return _key_line(text, loc[1], offset) or start
    return start


def _key_line(text: str, key: str, offset: int) -> int | None:
    """The line of the first `"key":` at or after `offset` (None when it is not written there)."""
    match = re.compile(re.escape(json.dumps(key, ensure_ascii=False)) + r"\s*:").search(text, offset)
    return text.count("\n", 0, match.start()) + 1 if match else None
