"""Read-only code takes the reading side, and mypy refuses it an append.

A snippet written as a contributor would write it is type-checked against the package (laid out as
it is installed, as `.ci/typecheck` does): a function typed `EventReader` that appends, a whole
`Ledger` handed to a function that only reads, and a whole store asked for `events`, are each a
mypy error naming the line; the same code written against the side it needs checks clean. Run:

    python -m pytest tests/ledger/test_reader_types.py
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO

_LINKED = ("ledger", "projections", "adapters", "orchestration", "cli", "bench", "examples", "testing")

_CODE = """\
from benchledger.ledger.events import Failed
from benchledger.ledger.recorder import EventReader, Recorder
from benchledger.ledger.store import Ledger
from benchledger.orchestration.recorded import recorded_run


def count(reader: EventReader, run_id: str) -> int:
    return len(reader.events(run_id))


def sneaks_a_write(reader: EventReader, run_id: str) -> None:
    reader.append(run_id, [Failed(stage="answer", question_id="q", error_class="E", message="m")])  # REFUSED


def reads_with_the_whole_store(ledger: Ledger, run_id: str) -> int:
    return count(ledger, run_id)  # REFUSED


def folds_with_the_whole_store(ledger: Ledger, run_id: str) -> object:
    return recorded_run(ledger, run_id)  # REFUSED


def asks_the_store_itself(ledger: Recorder, run_id: str) -> int:
    return len(ledger.events(run_id))  # REFUSED


def takes_the_side_it_needs(ledger: Recorder, run_id: str) -> int:
    ledger.writer.append(run_id, [Failed(stage="answer", question_id="q", error_class="E", message="m")])
    return count(ledger.reader, run_id) + len(recorded_run(ledger.reader, run_id).events)
"""


def _package_tree(root: Path) -> Path:
    """The package as installed, in links (mypy cannot follow the editable install's hook)."""
    package = root / "benchledger"
    package.mkdir(parents=True)
    for module in (REPO / "benchledger").glob("*.py"):
        (package / module.name).symlink_to(module)
    for folder in _LINKED:
        (package / folder).symlink_to(REPO / folder)
    return root


@pytest.mark.slow
def test_mypy_refuses_an_append_from_read_only_code_and_the_whole_store_where_a_reader_is_taken(tmp_path):
    tree = _package_tree(tmp_path / "tree")
    snippet = tree / "contributor.py"
    snippet.write_text(_CODE)
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(REPO / "pyproject.toml"), "--cache-dir",
         str(tmp_path / "cache"), "--follow-imports", "silent", str(snippet)],
        cwd=tree, capture_output=True, text=True, timeout=900, env={**os.environ, "MYPYPATH": str(tree)})
    refused_lines = {number for number, line in enumerate(_CODE.splitlines(), 1) if line.endswith("# REFUSED")}
    errors = re.findall(r"^contributor\.py:(\d+): error: (.*)$", result.stdout, re.M)
    assert result.returncode == 1, result.stdout + result.stderr
    assert {int(number) for number, _ in errors} == refused_lines, result.stdout
    messages = dict((int(number), text) for number, text in errors)
    ordered = sorted(refused_lines)
    assert '"EventReader" has no attribute "append"' in messages[ordered[0]]
    assert 'incompatible type "Ledger"; expected "EventReader"' in messages[ordered[1]]
    assert 'incompatible type "Ledger"; expected "EventReader"' in messages[ordered[2]]
    assert '"Recorder" has no attribute "events"' in messages[ordered[3]]
