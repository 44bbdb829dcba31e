"""An event type is declared once (`@declare` beside its class) and everything else is derived from it.

Every event class in `ledger/events` has a declaration with every part; the union, the key table,
the blob table, the seal's openers and closers and the fold's dispatch are read off the
declarations; a declaration that names a field its class lacks, or a fold handler the fold lacks,
is refused when its module loads. The example event type of docs/contributing.md, dropped into the
package (a child process adds a folder to the package's path before it loads), is recorded, keyed,
sealed, checked for its blob, folded and documented with no other file touched.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import subprocess
import sys
import textwrap
from typing import Literal

from conftest import REPO
import pytest
from pydantic import ValidationError

import benchledger.ledger.events as events_package
from benchledger.ledger import seal
from benchledger.ledger.events import DECLARATIONS, EVENT_CLASSES, EVENT_TYPES, KEYS, Event, any_event_adapter
from benchledger.ledger.events.declaration import OPEN_RUN_ONLY, Housekeeping, Joins, declare
from benchledger.ledger.references import BLOB_FIELDS
from benchledger.projections import state


def _event_classes_in_the_package() -> set[type]:
    found = set()
    for module in pkgutil.iter_modules(events_package.__path__):
        loaded = importlib.import_module(f"benchledger.ledger.events.{module.name}")
        found |= {obj for _, obj in inspect.getmembers(loaded, inspect.isclass)
                  if issubclass(obj, Event) and obj is not Event and obj.__module__ == loaded.__name__}
    return found


def test_every_event_class_in_the_package_is_declared_and_in_the_union() -> None:
    assert _event_classes_in_the_package() == set(EVENT_CLASSES) == {d.cls for d in DECLARATIONS.values()}
    assert len(EVENT_CLASSES) >= 22
    for name in EVENT_TYPES:  # the union picks the class by its type (then misses its required fields)
        with pytest.raises(ValidationError) as refused:
            any_event_adapter.validate_python({"type": name})
        assert refused.value.errors()[0]["loc"][0] == name


def test_the_tables_are_read_off_the_declarations() -> None:
    assert set(KEYS) == set(EVENT_TYPES) == set(seal.SEALING)
    assert {name: KEYS[name] for name in DECLARATIONS} == {name: d.key for name, d in DECLARATIONS.items()}
    assert BLOB_FIELDS == {name: d.blobs for name, d in DECLARATIONS.items() if d.blobs}
    assert BLOB_FIELDS["ContextRecalled"] == (("context_hash",), ("candidates_hash",))
    assert seal.CLOSERS == {"RunFinished"}
    assert seal.OPENERS == {"RunResumed", "ScorerStarted", "ScorerContinued", "AuditStarted", "AuditContinued"}
    assert sorted(seal.CONTROL_KEY_RANGES) == [("audit:", "audit;"), ("run:", "run;"), ("scorer:", "scorer;")]
    assert {cls: handler for cls, handler in state._HANDLERS.items()} == {
        d.cls: state.FOLD_HANDLERS[d.fold] for d in DECLARATIONS.values()}


def test_every_fold_handler_is_named_by_a_declaration() -> None:
    used = {d.fold for d in DECLARATIONS.values()}
    assert used <= set(state.FOLD_HANDLERS)
    assert set(state.FOLD_HANDLERS) - used <= {"not_folded"}


class _Lacking(Event):
    type: Literal["_Lacking"] = "_Lacking"
    """The event type."""
    note: str = ""
    """A note."""


def test_a_declaration_lacking_a_part_or_naming_a_missing_field_is_refused() -> None:
    with pytest.raises(TypeError, match="fold"):
        declare(key=lambda e: "x", blobs=(), sealing=OPEN_RUN_ONLY)(_Lacking)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="names body_hash, not fields of _Lacking"):
        declare(key=lambda e: "x", blobs=("body_hash",), sealing=OPEN_RUN_ONLY, fold="not_folded")(_Lacking)
    with pytest.raises(TypeError, match="names scorer_id"):
        declare(key=lambda e: "x", blobs=(), sealing=(Joins("scorer", owner="scorer_id"),), fold="x")(_Lacking)
    with pytest.raises(TypeError, match="type literal is the class name"):
        declare(key=lambda e: "x", blobs=(), sealing=OPEN_RUN_ONLY, fold="x")(type("Other", (_Lacking,), {}))
    with pytest.raises(TypeError, match="fold handler's name"):
        declare(key=lambda e: "x", blobs=(), sealing=(Housekeeping(when=("note", "n")),), fold="")(_Lacking)
    with pytest.raises(TypeError, match="declared twice"):
        declare(key=lambda e: "x", blobs=(), sealing=OPEN_RUN_ONLY, fold="failed")(EVENT_TYPES["Failed"])
    assert "_Lacking" not in DECLARATIONS


def test_the_fold_refuses_to_load_while_a_declared_handler_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    declaration = DECLARATIONS["EndpointPaced"]
    monkeypatch.setitem(DECLARATIONS, "EndpointPaced", type(declaration)(
        declaration.cls, declaration.key, declaration.blobs, declaration.sealing, "paced_nowhere"))
    with pytest.raises(ImportError, match="event type EndpointPaced declares fold handler 'paced_nowhere'"):
        state._dispatch()


def _example_from_the_contributing_page() -> str:
    """The code block of docs/contributing.md's "Adding an event type": the test runs what the page shows."""
    page = (REPO / "docs" / "contributing.md").read_text(encoding="utf-8")
    section = page.split("## Adding an event type", 1)[1]
    return section.split("```python\n", 1)[1].split("```", 1)[0]


CHILD = '''
import hashlib, importlib.util, sqlite3, sys
spec = importlib.util.find_spec("benchledger.ledger.events")
package = importlib.util.module_from_spec(spec)
package.__path__.append(sys.argv[1])  # as if example_notes.py stood in ledger/events/
sys.modules[spec.name] = package
spec.loader.exec_module(package)

from notes_check import check
check(sys.argv[2])
'''

CHECK = '''
import hashlib, sqlite3
import pytest
from benchledger.errors import RunSealed
from benchledger.ledger.events import EVENT_TYPES, KEYS, RunFinished
from benchledger.ledger.events.docs import render_events_markdown
from benchledger.ledger.store import Ledger
from benchledger.projections.state import fold_run

def check(path):
    Noted = EVENT_TYPES["ExampleNoted"]
    body = b"the note"
    digest = hashlib.sha256(body).hexdigest()
    run = "01JN0TE0000000000000000000"
    with Ledger.open(path) as ledger:
        ledger.writer.append(run, [Noted(note_id="n:1", body_hash=digest), Noted(note_id="n", attempt=1)],
                             blobs=[body])
        ledger.writer.append(run, [Noted(note_id="n:1", body_hash=digest)])  # its key: recorded once
        ledger.writer.append(run, [RunFinished(status="completed")])
        with pytest.raises(RunSealed, match="a ExampleNoted after it finished"):  # OPEN_RUN_ONLY
            ledger.writer.append(run, [Noted(note_id="n2")])
        events = ledger.reader.verified_events(run)
        assert [e.idempotency_key for e in events] == ["example:note:n%3A1:1", "example:note:n:1", "run:finish:1"]
        assert type(events[0].event) is Noted and fold_run(run, events).finished is not None
    conn = sqlite3.connect(path)  # the file's owner deletes the body, guard put back as it was
    (guard,) = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'blobs_no_delete'").fetchone()
    conn.execute("DROP TRIGGER blobs_no_delete")
    conn.execute("DELETE FROM blobs WHERE digest = ?", (digest,))
    conn.execute(guard)
    conn.commit()
    conn.close()
    with Ledger.open(path) as ledger:
        result = ledger.reader.verify(run)
        assert not result.ok and digest in result.problem, result
    reference = render_events_markdown()
    assert "## ExampleNoted (schema 1)" in reference and "`example:note:<note_id>:<attempt>`" in reference
    print("picked up")
'''


def test_a_throwaway_event_type_dropped_into_the_package_is_picked_up_everywhere(tmp_path) -> None:
    (tmp_path / "types").mkdir()
    (tmp_path / "types" / "example_notes.py").write_text(_example_from_the_contributing_page(), encoding="utf-8")
    (tmp_path / "notes_check.py").write_text(textwrap.dedent(CHECK), encoding="utf-8")
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(CHILD), str(tmp_path / "types"),
                           str(tmp_path / "ledger.db")], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0 and done.stdout.strip() == "picked up", done.stderr[-3000:]
