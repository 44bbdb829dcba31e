"""`benchledger serve-memory` as a real subprocess, and a whole run through it.

A run of the mini example against `serve-memory --memory sqlite` over HTTP must give the same
recalls and verdicts as the same system in-process, and the ledger must say which system answered
and where (never the token).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from click.testing import CliRunner

from benchledger.adapters.memory.registry import available_memories
from benchledger.cli.main import cli
from conftest import MINI
from benchledger.ledger.store import Ledger

TOKEN = "tok-9f8e7d6c5b4a"


@contextmanager
def serve_memory(cwd: Path, *args: str, env: dict | None = None) -> Iterator[str]:
    """Start `benchledger serve-memory ... --port 0`, yield its URL, stop it with SIGTERM."""
    proc = subprocess.Popen([sys.executable, "-m", "benchledger.cli.main", "serve-memory", "--port", "0", *args],
                            cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = proc.stdout.readline()
        found = re.search(r"at (http://127\.0\.0\.1:\d+)$", first.strip())
        assert found, f"no URL on the first line: {first!r}; stderr: {proc.stderr.read() if proc.poll() is not None else ''}"
        yield found.group(1)
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=20)
    assert proc.returncode == 0, err
    assert "memory server stopped" in err


def run_mini(ledger: Path, out: Path, *memory_args: str, env: dict | None = None):
    result = CliRunner().invoke(cli, ["--ledger", str(ledger), "run", "groupmem", str(MINI), "--domain", "Demo",
                                      *memory_args, "--out", str(out)], catch_exceptions=False, env=env)
    assert result.exit_code == 0, result.output
    return json.loads(out.read_text())


def outcome(ledger_path: Path, run_id: str) -> tuple[dict, dict, object]:
    with Ledger.open(ledger_path) as ledger:
        events = ledger.reader.events(run_id)
    recalls = {e.event.question_id: [(i.doc_id, i.rank, i.score) for i in e.event.items]
               for e in events if e.type == "ContextRecalled"}
    verdicts = {e.event.question_id: e.event.verdict for e in events if e.type == "Judged"}
    return recalls, verdicts, events[0].event.config


def test_a_run_over_http_matches_the_same_system_in_process(tmp_path: Path) -> None:
    local = run_mini(tmp_path / "local.db", tmp_path / "local.json", "--memory", "sqlite")
    with serve_memory(tmp_path, "--memory", "sqlite", "--store", str(tmp_path / "served.sqlite")) as url:
        remote = run_mini(tmp_path / "remote.db", tmp_path / "remote.json", "--memory", "http", "--memory-url", url)
    local_recalls, local_verdicts, _ = outcome(tmp_path / "local.db", local["run_id"])
    recalls, verdicts, config = outcome(tmp_path / "remote.db", remote["run_id"])
    assert len(verdicts) == local["total"] == remote["total"] and remote["failed"] == 0
    assert recalls == local_recalls
    assert verdicts == local_verdicts
    assert (config.memory, config.memory_version) == ("http:sqlite", available_memories()["sqlite"].version)
    assert config.settings.memory_options == {"url": url}
    # the run makes the folder and its scope leases; the client keeps no store there
    assert [p.name for p in (tmp_path / "remote.memory").iterdir() if ".leases" not in p.name] == []


def test_a_token_guarded_server_serves_a_run_and_the_token_never_reaches_the_ledger(tmp_path: Path) -> None:
    env = {"SERVE_TOKEN": TOKEN, "RUN_TOKEN": TOKEN}
    with serve_memory(tmp_path, "--memory", "sqlite", "--token-env", "SERVE_TOKEN",
                      env={**os.environ, **env}) as url:
        report = run_mini(tmp_path / "l.db", tmp_path / "r.json", "--memory", "http", "--memory-url", url,
                          "--memory-token-env", "RUN_TOKEN", env=env)
        refused = CliRunner().invoke(cli, ["--ledger", str(tmp_path / "l2.db"), "run", "groupmem", str(MINI),
                                           "--domain", "Demo", "--memory", "http", "--memory-url", url],
                                     catch_exceptions=False)
    assert report["failed"] == 0 and report["total"] > 0
    _, _, config = outcome(tmp_path / "l.db", report["run_id"])
    assert config.settings.memory_options == {"url": url, "token_env": "RUN_TOKEN"}  # the name, never the value
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert TOKEN.encode() not in path.read_bytes(), path
    assert refused.exit_code == 1 and "HTTP 401" in refused.output and TOKEN not in refused.output


def test_serve_memory_refuses_bad_usage_with_one_line(tmp_path: Path) -> None:
    runner = CliRunner()
    unknown = runner.invoke(cli, ["serve-memory", "--memory", "nope", "--port", "0"])
    assert unknown.exit_code == 2 and "unknown memory system 'nope'" in unknown.output
    no_token = runner.invoke(cli, ["serve-memory", "--memory", "sqlite", "--token-env", "UNSET_VAR_X"],
                             env={"UNSET_VAR_X": ""})
    assert no_token.exit_code == 2 and "UNSET_VAR_X" in no_token.output
    no_url = runner.invoke(cli, ["run", "groupmem", str(MINI), "--domain", "Demo", "--memory", "http"])
    assert no_url.exit_code == 2 and "--memory-url" in no_url.output
    for url in ("ftp://127.0.0.1/x", "127.0.0.1:8765", "http://[::1"):
        bad_url = runner.invoke(cli, ["run", "groupmem", str(MINI), "--domain", "Demo", "--memory", "http",
                                      "--memory-url", url])
        assert bad_url.exit_code == 2 and "option --memory-url" in bad_url.output, bad_url.output
