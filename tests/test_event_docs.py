"""Every event field is documented, and docs/events.md is what the event models generate today."""

from __future__ import annotations

from conftest import REPO

from benchledger.ledger.events.docs import documented_models, render_events_markdown, undocumented_fields


def test_every_event_field_and_nested_field_has_a_docstring() -> None:
    assert undocumented_fields() == []
    names = {model.__name__ for model in documented_models()}
    assert {"RunStarted", "RunConfig", "RunSettings", "Selection", "Question", "Failed"} <= names


def test_the_committed_event_reference_is_not_stale() -> None:
    committed = (REPO / "docs" / "events.md").read_text(encoding="utf-8")
    assert committed == render_events_markdown(), (
        "docs/events.md is stale: run `python -m benchledger.ledger.events.docs > docs/events.md`")
