"""What differs between two runs' configurations, field by field of the typed models they recorded.

`RunStarted` holds a `RunConfig` (with the `RunSettings` and the benchmark's `Selection` inside)
and a `Provenance`. Both are walked field by field, nested models and mappings by their own
fields and keys (a selection's benchmark-specific fields too), so a diff can say "settings.k: 10
vs 5" or "selection.question_limit: none vs 3" before any statistic: numbers from runs that were
configured differently are read with that in mind.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import PurePath
from typing import Any

from pydantic import BaseModel, ConfigDict

from benchledger.ledger.events import RunStarted

__all__ = ["ConfigDifference", "config_differences"]


class ConfigDifference(BaseModel):
    """One field that differs: its dotted path and the value in each run (None: not set)."""

    model_config = ConfigDict(frozen=True)

    field: str
    a: Any
    b: Any


def _fields(value: Any) -> dict[str, Any] | None:
    """The named parts of a model (declared fields, then extra ones) or a mapping; None for a leaf."""
    if isinstance(value, BaseModel):
        named = {name: getattr(value, name) for name in type(value).model_fields}
        named.update(value.model_extra or {})
        return named
    if isinstance(value, Mapping):
        return dict(value)
    return None


def _plain(value: Any) -> Any:
    if isinstance(value, PurePath):
        return str(value)
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    return value


def _walk(path: str, a: Any, b: Any) -> Iterator[ConfigDifference]:
    fields_a, fields_b = _fields(a), _fields(b)
    if fields_a is None or fields_b is None:
        if _plain(a) != _plain(b):
            yield ConfigDifference(field=path, a=_plain(a), b=_plain(b))
        return
    for name in [*fields_a, *(n for n in fields_b if n not in fields_a)]:
        yield from _walk(f"{path}.{name}" if path else name, fields_a.get(name), fields_b.get(name))


def config_differences(a: RunStarted | None, b: RunStarted | None) -> list[ConfigDifference]:
    """Every configuration and provenance field whose value differs between two runs, in field order."""
    if a is None or b is None:
        return [] if a is b else [ConfigDifference(field="run_started", a=a is not None, b=b is not None)]
    return [*_walk("", a.config, b.config), *_walk("provenance", a.provenance, b.provenance)]
