"""The event reference, generated from the event models themselves: `docs/events.md`.

Every event field carries a one-line docstring; this module renders them, with each field's type
and whether it is required, for people who read the ledger with sqlite3 or Datasette. Run
`python -m benchledger.ledger.events.docs > docs/events.md`; a test fails when the committed file
is stale or a field has no docstring.
"""

from __future__ import annotations

import sys
import typing
from collections.abc import Iterator
from typing import Any

from benchledger.ledger.events import DECLARATIONS, EVENT_CLASSES
from benchledger.ledger.events.declaration import Closes, Declaration, Housekeeping, Joins, Opens, SealRule
from benchledger.ledger.events.keys import key_form, legacy_key_form
from benchledger.ledger.events.base import fields_of, is_validated_type

__all__ = ["render_events_markdown", "documented_models", "undocumented_fields", "key_form"]

_INTRO = """# Ledger events

Generated from the event models (`python -m benchledger.ledger.events.docs > docs/events.md`);
do not edit by hand. Each row of the `events` table holds one event: `type` names its class below,
`schema_version` the version it was written under (older versions are upcast on read), and
`payload` its JSON, whose fields are listed here. Under each event, what its declaration says
(`@declare` in `ledger/events`): its idempotency key, the fields naming a blob body, what it may
do once its run has finished, and the fold handler that takes it. Nested values (config,
settings, questions, recalled items, token usage) are described after the events.
"""


def _type_name(annotation: Any) -> str:
    text = repr(annotation) if not isinstance(annotation, type) else annotation.__name__
    for prefix in ("typing.", "benchledger.settings.", "benchledger.values.", "benchledger.ledger.events.run.",
                   "benchledger.ledger.events.question.", "pathlib.", "datetime."):
        text = text.replace(prefix, "")
    return text.replace("NoneType", "None").replace("|", "\\|")


def _nested(annotation: Any) -> Iterator[type]:
    if is_validated_type(annotation):
        yield annotation
    for arg in typing.get_args(annotation):
        yield from _nested(arg)


def documented_models() -> list[type]:
    """The event classes, then every model nested in them, each once, in first-seen order."""
    seen: dict[type, None] = {}
    todo: list[type] = list(EVENT_CLASSES)
    while todo:
        model = todo.pop(0)
        if model in seen:
            continue
        seen[model] = None
        for field in fields_of(model).values():
            todo.extend(_nested(field.annotation))
    return list(seen)


def undocumented_fields() -> list[str]:
    """`Model.field` of every field with no docstring."""
    return [f"{model.__name__}.{name}" for model in documented_models()
            for name, field in fields_of(model).items() if not field.description]


def _sealing(rule: SealRule) -> str:
    when = f" when `{rule.when[0]}` is {rule.when[1]}" if isinstance(rule, (Joins, Housekeeping)) and rule.when else ""
    if isinstance(rule, Opens):
        return ("opens the run again (a resume)" if rule.segment == "run"
                else f"opens a segment of the {rule.segment} it names (`{rule.owner}`)")
    if isinstance(rule, Closes):
        return "seals the run"
    if isinstance(rule, Joins):
        return f"joins only the open segment of its own {rule.segment} (`{rule.owner}`){when}"
    return f"admitted anywhere as housekeeping{when}"


def _declared(declaration: Declaration) -> list[str]:
    """What the type's declaration says (`ledger/events/declaration.py`), as the reference prints it."""
    blobs = ", ".join(f"`{'.'.join(path)}`" for path in declaration.blobs) or "none"
    sealing = "; ".join(_sealing(rule) for rule in declaration.sealing) or "refused (it joins an open run only)"
    legacy = [f"- legacy key form, of rows written under schema {through} or older (still verified, and named "
              f"so by `verify` and `events`): `{form}`" for through, form in legacy_key_form(declaration.type)]
    return [f"- idempotency key (derived by the store): `{key_form(declaration.type)}`", *legacy, f"- blob fields: {blobs}",
            f"- once its run has finished: {sealing}", f"- fold handler: `{declaration.fold}`", ""]


def _section(model: type) -> list[str]:
    doc = (model.__doc__ or "").strip().split("\n\n")[0].replace("\n", " ")
    version = getattr(model, "schema_version", None)
    is_event = model.__name__ in {c.__name__ for c in EVENT_CLASSES}
    heading = f"## {model.__name__}" + (f" (schema {version})" if version is not None and is_event else "")
    lines = [heading, "", doc, ""]
    if is_event:
        lines += _declared(DECLARATIONS[model.__name__])
    lines += ["| field | type | required | meaning |", "|---|---|---|---|"]
    for name, field in fields_of(model).items():
        description = (field.description or "").replace("\n", " ").replace("|", "\\|")
        lines.append(f"| `{name}` | {_type_name(field.annotation)} | {'yes' if field.is_required() else 'no'} "
                     f"| {description} |")
    return lines + [""]


def render_events_markdown() -> str:
    parts = [_INTRO]
    for model in documented_models():
        parts.extend(_section(model))
    return "\n".join(parts).rstrip() + "\n"


if __name__ == "__main__":  # pragma: no cover - exercised by tests/ledger/test_event_docs.py
    sys.stdout.write(render_events_markdown())
