"""Inputs that used to end in a traceback, or in a run that went on, now stop in one line, exit 2.

Each is refused before any ledger is created or any model is asked: an integer longer than Python
reads, a question file that is a symbolic-link loop, a memory store that is not an evaluation store.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

from click.testing import CliRunner

from benchledger.cli.main import cli
from conftest import MINI


def refused(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and "Traceback" not in result.output
    assert not Path("ledger.db").exists() and not Path("ledger.memory").exists()
    return lines[0]


def copy_release(tmp_path: Path) -> Path:
    release = tmp_path / "release"
    shutil.copytree(MINI, release)
    return release


def test_an_integer_longer_than_python_reads_names_its_file_and_line(tmp_path):
    release = copy_release(tmp_path)
    path = release / "questions" / "Demo" / "temporal.jsonl"
    lines = path.read_text().splitlines()
    record = json.loads(lines[2])
    lines[2] = json.dumps(record)[:-1] + ', "n": ' + "7" * 5000 + "}"
    path.write_text("\n".join(lines) + "\n")
    line = refused("run", "groupmem", str(release), "--domain", "Demo")
    assert f"{path}:3" in line and "5000 digits" in line


def test_an_integer_longer_than_python_reads_in_a_json_release_file(tmp_path):
    path = tmp_path / "lme.json"
    path.write_text('[\n  {"question_id": "q", "n": ' + "1" * 4400 + "}\n]\n")
    line = refused("run", "longmemeval", str(path))
    assert f"{path}:2" in line and "4400 digits" in line


def test_a_question_file_that_is_a_symbolic_link_loop_is_bad_input_not_an_absent_kind(tmp_path):
    release = copy_release(tmp_path)
    path = release / "questions" / "Demo" / "temporal.jsonl"
    path.unlink()
    path.symlink_to(path.name)  # links to itself
    line = refused("run", "groupmem", str(release), "--domain", "Demo")
    assert str(path) in line and "symbolic link" in line
    checked = CliRunner().invoke(cli, ["check", "groupmem", str(release), "--domain", "Demo"])
    assert checked.exit_code == 2 and "symbolic link that leads nowhere" in checked.output
    assert "no questions file for kind 'temporal'" not in checked.output


def test_a_memory_store_that_is_not_an_evaluation_store_is_refused_untouched(tmp_path):
    text = tmp_path / "notes.sqlite"
    text.write_text("my notes, not a database")
    line = refused("run", "groupmem", str(MINI), "--domain", "Demo", "--memory-store", str(text))
    assert "not a SQLite file" in line and text.read_text() == "my notes, not a database"
    other = tmp_path / "app.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE accounts (id INTEGER)")
    before = other.read_bytes()
    line = refused("run", "groupmem", str(MINI), "--domain", "Demo", "--memory-store", str(other))
    assert "not a benchledger evaluation store" in line and other.read_bytes() == before
