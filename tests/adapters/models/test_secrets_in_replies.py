"""A secret an endpoint echoes in a successful reply, or that a base URL carries in its query, is never
recorded or printed.

Real `benchledger` processes run against the loopback server with the API key in a variable of
the user's choosing (`--api-key-env`) whose value matches no key pattern, while every reply echoes
it past character 500 (fault `echo_key`); the run is then shown, inspected, exported and verified.
Every byte of every file under the test folder (ledger, -wal, reports, exports, every blob
decompressed) and everything printed is searched: the key is nowhere, and the echo is there,
masked. A `--base-url` carrying `?api-key=...` is stripped like userinfo in what is recorded and
masked in what is printed. The store itself refuses an append holding a registered secret.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from benchledger.adapters.models.loopback import LoopbackOpenAI
from benchledger.errors import LedgerError
from benchledger.ledger.events import RunFinished
from benchledger.ledger.store import Ledger
from benchledger.redaction import redact, register_secret_env, strip_url_credentials
from conftest import MINI

pytestmark = pytest.mark.slow

KEY = "correct-horse-battery-staple-4417"  # no sk-, no Bearer in the echo: only its value can be known
QUERY_KEY = "QueryKey9f2c81ab"


def bl(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "benchledger.cli.main", "--ledger", str(tmp_path / "ledger.db"),
                           *args], capture_output=True, cwd=tmp_path, timeout=300,
                          env={**os.environ, "TEAM_LLM_KEY": KEY, "OPENAI_API_KEY": "unused-other-key-77"})


def everything_written(tmp_path: Path) -> list[tuple[str, bytes]]:
    found = []
    for path in (p for p in tmp_path.rglob("*") if p.is_file()):
        data = path.read_bytes()
        found.append((str(path), data))
        if data.startswith(b"SQLite format 3\x00"):
            conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
            for (body,) in conn.execute("SELECT body FROM blobs") if "blobs" in {
                    r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")} else ():
                found.append((f"{path} blob", zlib.decompress(body)))
            conn.close()
    return found


def test_a_key_echoed_in_successful_replies_is_recorded_and_printed_nowhere(tmp_path: Path) -> None:
    printed = []
    with LoopbackOpenAI() as server:
        server.faults.always("echo_key")
        ran = bl(tmp_path, "-vv", "run", "groupmem", str(MINI), "--domain", "Demo", "--agent-model", "gpt-5",
                 "--base-url", server.base_url, "--api-key-env", "TEAM_LLM_KEY", "--question-limit", "4",
                 "--out", str(tmp_path / "report.json"))
        assert f"Bearer {KEY}" in server.authorization_seen, "the key was really sent"
        assert server.faults.fired.count("echo_key") >= 8, "answers and verdicts both echoed it"
    assert ran.returncode == 0, ran.stderr.decode()[-2000:]
    printed.append(("run", ran.stdout + ran.stderr))
    run_id = json.loads((tmp_path / "report.json").read_text())["run_id"]
    for args in (("show", run_id), ("events", run_id, "--json"), ("question", run_id, "temporal_1"),
                 ("question", run_id, "temporal_1", "--json"), ("verify", run_id),
                 ("export", run_id, "--format", "html", "--out", str(tmp_path / "export.html")),
                 ("export", run_id, "--format", "json", "--out", str(tmp_path / "export.json"))):
        result = bl(tmp_path, *args)
        assert result.returncode == 0, (args, result.stderr.decode())
        printed.append((" ".join(args[:1]), result.stdout + result.stderr))
    written = everything_written(tmp_path) + printed
    assert not [where for where, data in written if KEY.encode() in data or KEY[:16].encode() in data]
    blobs = [data for where, data in written if where.endswith(" blob")]
    assert any(b"I was called with ***." in data for data in blobs), "the echo is recorded, masked"
    assert all(len(data) > 500 for data in blobs if b"I was called with" in data), "past the message cap"


def test_credentials_in_a_base_url_query_are_stripped_where_recorded_and_masked_where_printed(
        tmp_path: Path) -> None:
    assert strip_url_credentials(f"https://u:pw@llm.example/v1?api-version=2&api-key={QUERY_KEY}") == \
        "https://llm.example/v1?api-version=2"
    for name in ("key", "token", "access_token", "password", "secret", "API-KEY"):
        assert QUERY_KEY not in redact(f"asked https://h/v1?x=1&{name}={QUERY_KEY}; it failed")
    assert redact("the key= prose and a ?keyboard=1 query stay") == "the key= prose and a ?keyboard=1 query stay"
    with LoopbackOpenAI() as server:
        result = bl(tmp_path, "run", "groupmem", str(MINI), "--domain", "Demo", "--agent-model", "gpt-5",
                    "--base-url", f"{server.base_url}?api-key={QUERY_KEY}", "--api-key-env", "TEAM_LLM_KEY",
                    "--question-limit", "1")
        shown = bl(tmp_path, "show", "latest", "--json") if (tmp_path / "ledger.db").exists() else result
    leaks = [where for where, data in everything_written(tmp_path) + [("run", result.stdout + result.stderr),
                                                                      ("show", shown.stdout + shown.stderr)]
             if QUERY_KEY.encode() in data]
    assert not leaks, leaks


def test_the_store_refuses_an_append_that_holds_a_registered_secret(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("TEAM_LLM_KEY", KEY)
    register_secret_env("TEAM_LLM_KEY")
    with Ledger.open(tmp_path / "l.db") as ledger:
        with pytest.raises(LedgerError, match=r"refused to record the value of \$TEAM_LLM_KEY") as caught:
            ledger.writer.append("01HZZZZZZZZZZZZZZZZZZZZZZZ", [RunFinished(status="completed", reason=f"echo {KEY}")])
        assert KEY not in str(caught.value)
        with pytest.raises(LedgerError, match="refused to record"):
            ledger.writer.append("01HZZZZZZZZZZZZZZZZZZZZZZZ", [RunFinished(status="completed")],
                                 blobs=[f"a body with {KEY} in it".encode()])
        assert ledger.reader.runs() == []
        ledger.writer.append("01HZZZZZZZZZZZZZZZZZZZZZZZ", [RunFinished(status="completed", reason="clean")])
        assert len(ledger.reader.events("01HZZZZZZZZZZZZZZZZZZZZZZZ")) == 1
    monkeypatch.setenv("TEAM_LLM_KEY", "none")  # a local endpoint's placeholder key is an ordinary word
    with Ledger.open(tmp_path / "l.db") as ledger:
        ledger.writer.append("01HYYYYYYYYYYYYYYYYYYYYYYY", [RunFinished(status="completed", reason="none of it failed")],
                             blobs=[b"none of the documents"])
        assert len(ledger.reader.events("01HYYYYYYYYYYYYYYYYYYYYYYY")) == 1
    assert redact("none of it") == "*** of it", "it is still masked where printed"
