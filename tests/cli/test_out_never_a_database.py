"""`--out` never lands on a database: the ledger by any spelling, its sidecar files, or any SQLite file.

Each refusal is one line, exit 2, before any work (the ledger keeps its bytes, no run is added, no
temporary file is left); a plain path beside them is still written, and an analysis export may
replace an earlier analysis export (never a ledger).
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from pathlib import Path

import pytest

from benchledger.ledger.store import Ledger
from conftest import MINI
from ledger_cli import invoke


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def run_count(path: Path) -> int:
    with Ledger.open(path, create=False) as ledger:
        return len(ledger.reader.runs())


@pytest.fixture
def ledger(tmp_path: Path) -> Path:
    path = tmp_path / "runs" / "ledger.db"
    path.parent.mkdir()
    ran = invoke("--ledger", str(path), "run", "groupmem", str(MINI), "--domain", "Demo", "--question-limit", "1")
    assert ran.exit_code == 0, ran.output
    return path


def spellings(ledger: Path) -> dict[str, Path]:
    folder = ledger.parent
    (folder / "link.json").symlink_to(ledger)
    os.link(ledger, folder / "hard.json")
    (folder / "sub").mkdir()
    return {"same path": ledger, "relative": Path(os.path.relpath(folder / "sub" / ".." / ledger.name)),
            "symlink": folder / "link.json", "hard link": folder / "hard.json",
            "wal": ledger.with_name(ledger.name + "-wal")}


@pytest.mark.parametrize("command", ["show", "export", "run"])
def test_out_at_the_ledger_by_any_spelling_is_refused_before_any_work(ledger: Path, command: str) -> None:
    before, runs_before = digest(ledger), run_count(ledger)
    for name, out in spellings(ledger).items():
        args = {"show": ["show", "latest"], "export": ["export", "latest", "--format", "json"],
                "run": ["run", "groupmem", str(MINI), "--domain", "Demo", "--question-limit", "1"]}[command]
        result = invoke("--ledger", str(ledger), *args, "--out", str(out))
        assert result.exit_code == 2, (name, result.output)
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and "would overwrite the ledger" in lines[0], (name, result.output)
        assert digest(ledger) == before and run_count(ledger) == runs_before, name
    assert not [p for p in ledger.parent.iterdir() if p.name.endswith(".tmp")]


def test_out_at_another_sqlite_file_is_refused_and_a_plain_path_is_written(ledger: Path, tmp_path: Path) -> None:
    other = tmp_path / "report.json"  # a database whatever its name says
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.close()
    before = digest(other)
    for args in (["show", "latest"], ["export", "latest", "--format", "html"], ["export", "latest", "--format", "sqlite"]):
        result = invoke("--ledger", str(ledger), *args, "--out", str(other))
        assert result.exit_code == 2 and "existing SQLite database" in result.output, (args, result.output)
        assert digest(other) == before
    plain = tmp_path / "plain.json"
    assert invoke("--ledger", str(ledger), "show", "latest", "--out", str(plain)).exit_code == 0
    assert plain.read_text().startswith("{")


def test_an_analysis_export_replaces_an_analysis_export_but_never_a_ledger(ledger: Path, tmp_path: Path) -> None:
    analysis = tmp_path / "analysis.db"
    for _ in range(2):
        result = invoke("--ledger", str(ledger), "export", "latest", "--format", "sqlite", "--out", str(analysis))
        assert result.exit_code == 0, result.output
    second_ledger = tmp_path / "other-ledger.db"
    assert invoke("--ledger", str(second_ledger), "run", "groupmem", str(MINI), "--domain", "Demo",
                  "--question-limit", "1").exit_code == 0
    before = digest(second_ledger)
    result = invoke("--ledger", str(ledger), "export", "latest", "--format", "sqlite", "--out", str(second_ledger))
    assert result.exit_code == 2 and "existing SQLite database" in result.output
    assert digest(second_ledger) == before
    result = invoke("--ledger", str(ledger), "export", "latest", "--format", "json", "--out", str(analysis))
    assert result.exit_code == 2, "a json export never replaces a database, even an analysis export"
