"""Derived keys name their subjects (issue 32 item 5), and a ledger written before they did stays valid.

A key rule is frozen history (`ledger/events/keys.py`): the `failed:` key of schema 1 did not tell a
question from a scope, so the rule changed under schema 2, with the old rule kept as the legacy form
of schema-1 rows. Here: an old-form ledger (its rows written as benchledger before the change wrote
them: schema 1, legacy keys) verifies and says which rows are in the legacy form; a question and a
scope of one name now get two keys and are both recorded; a key in neither form (or in the form of
the other version) is refused. A property test (hypothesis) generates events of every declared type
and checks that two events share a key only when they are about the same subject, and that a fold
never changes when the store is offered again an event it holds (issue 37 Build 2).
"""

from __future__ import annotations

import tempfile
import types
import typing
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from events_factory import stream
from ledger_cli import invoke
from ledger_contract import forge

from benchledger.ledger.events import DECLARATIONS, KEYS, Failed, Judged, MemoryModelCalled, ScorerStarted, derive_key
from benchledger.ledger.events.keys import stored_key_rule
from benchledger.ledger.rules import rules_problem
from benchledger.ledger.store import Ledger
from benchledger.projections.state import fold_run

RUN = "01JKEYS0000000000000000RVN"


def _question_failure(name: str = "x") -> Failed:
    return Failed(stage="purge", question_id=name, error_class="E", message="m")


def _scope_failure(name: str = "x") -> Failed:
    return Failed(stage="purge", scope_key=name, error_class="E", message="m")


def _legacy(event: Any) -> str:
    return stored_key_rule(event.type, 1)(event)


def _old_ledger(path: Path) -> None:
    """A run as benchledger wrote it before keys named their subjects: schema-1 rows, legacy keys."""
    with Ledger.open(path) as ledger:
        for event in (ScorerStarted(scorer_id="s:1", judge_model="j", protocol="reference"),
                      Judged(question_id="q1", scorer_id="s:1", verdict="correct", model="j"),
                      _question_failure()):
            forge(ledger, RUN, event, _legacy(event), version=1)


def test_a_ledger_written_in_the_legacy_form_verifies_and_names_its_legacy_rows(tmp_path):
    path = tmp_path / "old.db"
    _old_ledger(path)
    for args in (("verify",), ("verify", RUN)):
        result = invoke(*args, ledger=path)
        assert result.exit_code == 0, result.output
        assert (f"note: run {RUN}: 3 row(s) in the legacy key form" in result.output
                and "ScorerStarted seq 1; Judged seq 2; Failed seq 3" in result.output), result.output
    listed = invoke("events", RUN, ledger=path).output
    assert listed.count("(legacy key form)") == 3
    # what benchledger now appends to the old run is in today's form, and named as such
    with Ledger.open(path, create=False) as ledger:
        (row,) = ledger.writer.append(RUN, [_scope_failure()])
        assert row.idempotency_key == "failed:scope:x:purge:1" != _legacy(_scope_failure()) == "failed:purge:-:x:1"
    result = invoke("verify", ledger=path)
    assert result.exit_code == 0 and "3 row(s) in the legacy key form" in result.output, result.output
    assert invoke("events", RUN, ledger=path).output.count("(legacy key form)") == 3


def test_a_row_written_without_a_key_change_reads_no_legacy_note(tmp_path):
    with Ledger.open(tmp_path / "new.db") as ledger:
        ledger.writer.append(RUN, [_question_failure()])
    result = invoke("verify", ledger=tmp_path / "new.db")
    assert result.exit_code == 0 and "legacy" not in result.output
    assert "legacy" not in invoke("events", RUN, ledger=tmp_path / "new.db").output


def test_a_question_and_a_scope_of_one_name_get_two_keys_and_two_rows(tmp_path):
    question, scope = _question_failure("x"), _scope_failure("x")
    assert _legacy(question) == _legacy(scope)  # the collision of issue 32 item 5, in the legacy form
    assert derive_key(question) == "failed:question:x:purge:1" and derive_key(scope) == "failed:scope:x:purge:1"
    assert derive_key(Failed(stage="run", error_class="E", message="m")) == "failed:run:run:1"
    with Ledger.open(tmp_path / "l.db") as ledger:
        assert len(ledger.writer.append(RUN, [question, scope])) == 2
        assert ledger.reader.verify().ok


@pytest.mark.parametrize("form", ["neither", "legacy under schema 2", "today's under schema 1"])
def test_a_key_in_neither_form_of_its_rows_version_is_refused(tmp_path, form):
    event = Judged(question_id="q1", scorer_id="s:1", verdict="correct", model="j")
    assert derive_key(event) != _legacy(event)
    key, version = {"neither": ("judge:scorer:s%3A1:question:q2", 2),
                    "legacy under schema 2": (_legacy(event), 2),
                    "today's under schema 1": (derive_key(event), 1)}[form]
    with Ledger.open(tmp_path / "l.db") as ledger:
        ledger.writer.append(RUN, [_scope_failure()])
        seq = forge(ledger, RUN, event, key, version=version)
        result = ledger.reader.verify()
    assert (result.ok, result.first_bad_seq) == (False, seq), result
    assert "not written by the store" in result.problem
    assert invoke("verify", ledger=tmp_path / "l.db").exit_code == 1


def test_one_subject_is_one_row_across_the_two_forms(tmp_path):
    """A legacy row and a row of today's form about the same subject: the second repeats the first."""
    with Ledger.open(tmp_path / "l.db") as ledger:
        old = _question_failure()
        forge(ledger, RUN, old, _legacy(old), version=1)
        seq = forge(ledger, RUN, old, derive_key(old))
        result = ledger.reader.verify()
    assert (result.ok, result.first_bad_seq) == (False, seq)
    assert "repeats subject" in result.problem and "of seq 1" in result.problem


def _memory_call(session: str, call: int = 1) -> MemoryModelCalled:
    return MemoryModelCalled(session=session, call=call, stage="recall", endpoint="chat", model_asked="m",
                             latency_ms=1.0, status=200, upstream="loopback", request_digest="d" * 64)


def test_a_memory_calls_key_keeps_its_session(tmp_path):
    """Each proxy session numbers its calls from 1 (a run's start, then each resume): a key without
    its session would make a resume's first call the start's first call, and drop it."""
    start, resume = _memory_call("session-a"), _memory_call("session-b")
    assert derive_key(start) != derive_key(resume)
    assert derive_key(_memory_call("session-a", 2)) != derive_key(start)
    with Ledger.open(tmp_path / "l.db") as ledger:
        assert len(ledger.writer.append(RUN, [start, resume, _memory_call("session-a")])) == 2


# -- properties over generated events of every declared type -----------------------------------

def _key_words() -> list[str]:
    """The words the key rules put between their parts (`judge`, `scorer`, `question`, ...): the
    values that make one subject's parts read as another's, where a part is not quoted."""
    from benchledger.ledger.events.keys import key_form, legacy_key_form

    forms = [key_form(name) for name in DECLARATIONS] + [form for name in DECLARATIONS for _, form in
                                                         legacy_key_form(name)]
    return sorted({word for form in forms for word in form.split(":") if word and not word.startswith("<")})


_WORDS = ["a", "b", "-", "%", "%3A", "", *_key_words()]
_TEXT = st.one_of(st.lists(st.sampled_from(_WORDS), min_size=1, max_size=3).map(":".join), st.text(":%-ab", max_size=4))


def _strategy(annotation: Any) -> st.SearchStrategy[Any] | None:
    """Values for a scalar field (the kinds a key can read), None for any other field."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is typing.Literal:
        return st.sampled_from(args)
    if origin in (typing.Union, types.UnionType):
        inner = [_strategy(arg) for arg in args if arg is not type(None)]
        if len(inner) != 1 or inner[0] is None:
            return None
        return st.one_of(st.none(), inner[0]) if type(None) in args else inner[0]
    return {str: _TEXT, int: st.integers(0, 3), bool: st.booleans(), float: st.sampled_from([0.0, 1.0])}.get(annotation)


def _is_text(annotation: Any) -> bool:
    return annotation is str or (typing.get_origin(annotation) in (typing.Union, types.UnionType)
                                 and str in typing.get_args(annotation))


_SCALARS = {name: {field: strategy for field, info in d.cls.model_fields.items()
                   if field != "type" and (strategy := _strategy(info.annotation)) is not None}
            for name, d in DECLARATIONS.items()}
_TEXTS = {name: [field for field, info in d.cls.model_fields.items()
                 if field in _SCALARS[name] and _is_text(info.annotation)] for name, d in DECLARATIONS.items()}
_OPTIONAL = {name: [field for field, info in d.cls.model_fields.items()
                    if field in _SCALARS[name] and type(None) in typing.get_args(info.annotation)]
             for name, d in DECLARATIONS.items()}


def _event(name: str) -> st.SearchStrategy[Any]:
    """An event of the type: every scalar field drawn (the others, which no key reads, left out)."""
    cls = DECLARATIONS[name].cls
    return st.fixed_dictionaries(_SCALARS[name]).map(lambda values: cls.model_construct(**values))


class _Reads:
    """Stands in for an event and notes each field its key rule reads, with the value read."""

    def __init__(self, event: Any) -> None:
        self._event, self.read = event, {}

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._event, name)
        self.read[name] = value
        return value


def _subject(event: Any) -> tuple[str, frozenset[tuple[str, Any]]]:
    """What the key is about: the type and every field its rule reads, as read."""
    reads = _Reads(event)
    KEYS[event.type](reads)
    return event.type, frozenset(reads.read.items())


def _pairs(name: str) -> st.SearchStrategy[tuple[Any, Any]]:
    """Two events of one type, the second built to collide with the first: some fields drawn again,
    optional ones set to None or to another's value, and text fields cut from the first's key (a
    run of its `:`-separated parts), which is how a part that is not quoted passes for another."""
    cls, fields, texts, optional = DECLARATIONS[name].cls, _SCALARS[name], _TEXTS[name], _OPTIONAL[name]

    @st.composite
    def pair(draw: st.DrawFn) -> tuple[Any, Any]:
        first = draw(st.fixed_dictionaries(fields))
        second = dict(first)
        for field in draw(st.sets(st.sampled_from(sorted(fields)))) if fields else ():
            second[field] = draw(fields[field])
        pieces = derive_key(cls.model_construct(**first)).split(":")
        for field in draw(st.sets(st.sampled_from(texts))) if texts else ():
            start = draw(st.integers(0, len(pieces)))
            second[field] = ":".join(pieces[start:draw(st.integers(start, len(pieces)))])
        for field in draw(st.sets(st.sampled_from(optional))) if optional else ():
            second[field] = draw(st.sampled_from([None, *(first[other] for other in texts)]))
        return cls.model_construct(**first), cls.model_construct(**second)

    return pair()


@pytest.mark.parametrize("name", list(DECLARATIONS))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_two_events_of_a_type_share_a_key_only_when_they_are_about_one_subject(name, data):
    first, second = data.draw(_pairs(name))
    if derive_key(first) == derive_key(second):
        assert _subject(first) == _subject(second), (derive_key(first), first, second)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mixed=st.lists(st.one_of([_event(name) for name in DECLARATIONS]), min_size=2, max_size=20))
def test_events_of_every_type_share_a_key_only_when_they_are_about_one_subject(mixed):
    by_key: dict[str, Any] = {}
    for event in mixed:
        earlier = by_key.setdefault(derive_key(event), event)
        assert _subject(earlier) == _subject(event), (derive_key(event), earlier, event)


def _unread_fields(event: Any) -> list[str]:
    """The scalar fields of an event its key rule does not read (changing one keeps the key)."""
    return sorted(set(_SCALARS[event.type]) - {field for field, _ in _subject(event)[1]})


_OUTCOMES = st.dictionaries(st.sampled_from(["q1", "q2", "q:3", "q-"]),
                            st.tuples(st.just("temporal"),
                                      st.sampled_from(["correct", "incorrect", "unclear", "failed:answer",
                                                       "failed:judge", "pending"])),
                            min_size=1, max_size=4)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(outcomes=_OUTCOMES, finished=st.booleans(), data=st.data())
def test_the_fold_never_changes_when_a_recorded_event_is_offered_again(outcomes, finished, data):
    events = stream(outcomes, finished=finished)
    with tempfile.TemporaryDirectory() as folder, Ledger.open(Path(folder) / "l.db") as ledger:
        ledger.writer.append(RUN, events)
        before = fold_run(RUN, ledger.reader.events(RUN))
        again = data.draw(st.lists(st.sampled_from(events), min_size=1, max_size=4), label="offered again")
        changed = []
        for event in again:  # the same key, another payload: a later verdict, answer or failure
            unread = _unread_fields(event)
            field = data.draw(st.sampled_from(unread), label="changed") if unread else None
            if field is None:
                changed.append(event)
                continue
            value = data.draw(_SCALARS[event.type][field].filter(lambda v: v != getattr(event, field)),
                              label=field)
            try:
                variant = type(event).model_validate({**event.model_dump(), field: value})
            except ValidationError:  # a value the field's own constraints refuse: offer the event as it was
                variant = event
            assert derive_key(variant) == derive_key(event)
            changed.append(variant)
        assert ledger.writer.append(RUN, changed) == []
        held = ledger.reader.events(RUN)
        assert fold_run(RUN, held) == before and rules_problem(held) is None
