"""Every event field is documented, and docs/events.md is what the event models generate today.

The read models everything consumes (`Report`, `RunState`, `QuestionState`) are held to the same rule:
a docstring under each field, read from their source (a dataclass keeps no field docstrings at run time).
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import textwrap

from conftest import REPO

from benchledger.ledger.events.docs import documented_models, render_events_markdown, undocumented_fields
from benchledger.projections.report import Report
from benchledger.projections.state import QuestionState, RunState

READ_MODELS = (Report, RunState, QuestionState)


def _field_names(model: type) -> list[str]:
    if dataclasses.is_dataclass(model):
        return [f.name for f in dataclasses.fields(model)]
    return list(model.model_fields)


def undocumented_attributes(model: type) -> tuple[list[str], list[str]]:
    """(every annotated field in the class body, those with no docstring right under them)."""
    body = ast.parse(textwrap.dedent(inspect.getsource(model))).body[0].body
    seen, missing = [], []
    for node, after in zip(body, [*body[1:], None]):
        if not isinstance(node, ast.AnnAssign) or not isinstance(node.target, ast.Name):
            continue
        seen.append(node.target.id)
        if not (isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant)
                and isinstance(after.value.value, str) and after.value.value.strip()):
            missing.append(f"{model.__name__}.{node.target.id}")
    return seen, missing


def test_every_event_field_and_nested_field_has_a_docstring() -> None:
    assert undocumented_fields() == []
    names = {model.__name__ for model in documented_models()}
    assert {"RunStarted", "RunConfig", "RunSettings", "Selection", "Question", "Failed"} <= names


def test_the_committed_event_reference_is_not_stale() -> None:
    committed = (REPO / "docs" / "events.md").read_text(encoding="utf-8")
    assert committed == render_events_markdown(), (
        "docs/events.md is stale: run `python -m benchledger.ledger.events.docs > docs/events.md`")


def test_every_read_model_field_has_a_docstring() -> None:
    for model in READ_MODELS:
        seen, missing = undocumented_attributes(model)
        assert seen == _field_names(model), model.__name__  # the source read is the model's every field
        assert missing == [], missing


@dataclasses.dataclass
class _HalfDocumented:
    said: int
    """A field with its docstring."""
    unsaid: int = 0


def test_the_read_model_check_names_a_field_without_a_docstring() -> None:
    assert undocumented_attributes(_HalfDocumented) == (["said", "unsaid"], ["_HalfDocumented.unsaid"])
