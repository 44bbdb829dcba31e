"""The API key never lands anywhere benchledger writes or prints.

Real `benchledger` processes run against the loopback server with a distinctive OPENAI_API_KEY,
in both log formats at debug verbosity, with a 401 whose body echoes the Authorization header and
with server errors and a dead endpoint (the exception paths); then the run is shown, inspected
and exported as JSON, CSV and HTML. Every byte of every file under the test folder (the ledger
and its -wal/-shm, the memory store, reports, exports) and everything the processes printed is
searched for the key: it must appear nowhere. The server proves the key was really sent.
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from benchledger.adapters.models.loopback import LoopbackOpenAI
from conftest import REPO

pytestmark = pytest.mark.slow

MINI = REPO / "examples" / "groupmem-mini"
SECRET_CORE = "Zq8Wx3Kp7Rt2Vn9Ym4Lh6"
KEY = f"sk-proj-{SECRET_CORE}"
NEEDLES = (KEY.encode(), SECRET_CORE.encode(), SECRET_CORE[:12].encode())


def bl(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "benchledger.cli.main", "--ledger", str(tmp_path / "ledger.db"), *args],
                          capture_output=True, cwd=tmp_path, timeout=300,
                          env={**os.environ, "OPENAI_API_KEY": KEY})


def leaks(data: bytes) -> list[bytes]:
    return [needle for needle in NEEDLES if needle in data]


def question_texts() -> list[str]:
    lines = (MINI / "questions" / "Demo" / "temporal.jsonl").read_text().splitlines()
    return [json.loads(line)["question"] for line in lines]


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_the_api_key_appears_in_no_file_and_no_output(tmp_path):
    printed: list[tuple[str, bytes]] = []

    def record(label: str, result: subprocess.CompletedProcess, *ok_codes: int) -> None:
        assert result.returncode in ok_codes, (label, result.stderr.decode()[-2000:])
        printed.extend([(f"{label} stdout", result.stdout), (f"{label} stderr", result.stderr)])

    first, second, third = question_texts()[:3]
    with LoopbackOpenAI() as server:
        server.faults.always("401", role="agent", contains=first)   # the body echoes "Bearer <key>"
        server.faults.always("500", role="judge", contains=second)  # retried, then given up
        server.faults.always("401", role="judge", contains=third)
        runs = {}
        for log_format in ("json", "console"):
            out = tmp_path / f"report-{log_format}.json"
            result = bl(tmp_path, "--log-format", log_format, "-vv", "run", "groupmem", str(MINI),
                        "--domain", "Demo", "--agent-model", "gpt-5", "--base-url", server.base_url,
                        "--max-attempts", "2", "--keep", "--out", str(out))
            record(f"run {log_format}", result, 0)
            runs[log_format] = json.loads(out.read_text())
            assert runs[log_format]["failed"] == 3
            if log_format == "json":  # an open reader keeps the -wal and -shm on disk to be searched
                holder = sqlite3.connect(tmp_path / "ledger.db")
                holder.execute("SELECT count(*) FROM events").fetchone()
        assert {f"Bearer {KEY}"} == set(server.authorization_seen), "the key must really have been sent"
        assert server.faults.fired.count("401") >= 4

        run_id = runs["json"]["run_id"]
        for log_format in ("json", "console"):  # resume against a dead endpoint: connection errors
            record(f"resume {log_format}", bl(tmp_path, "--log-format", log_format, "-vv", "resume", run_id,
                                              "--base-url", f"http://127.0.0.1:{closed_port()}/v1",
                                              "--max-attempts", "1"), 0, 1)
        server.faults.clear()
        server.faults.always("401")  # every call refused: the run ends with every question failed
        record("run all-401", bl(tmp_path, "--log-format", "json", "-v", "run", "groupmem", str(MINI),
                                 "--domain", "Demo", "--agent-model", "gpt-5", "--base-url", server.base_url,
                                 "--question-limit", "1", "--out", str(tmp_path / "report-401.json")), 0, 1)

    for fmt in ("json", "csv", "html"):
        record(f"export {fmt}", bl(tmp_path, "export", run_id, "--format", fmt,
                                   "--out", str(tmp_path / f"export.{fmt}")), 0)
    for args in (("show", run_id, "--json"), ("show", run_id), ("failures", run_id),
                 ("failures", run_id, "--group-by", "error", "--json"), ("events", run_id, "--json"),
                 ("verify",), ("runs",)):
        record(" ".join(args), bl(tmp_path, *args), 0)
    qid = next(f["question_id"] for f in runs["json"]["failures"] if f["error_class"] == "ModelError")
    record("question", bl(tmp_path, "question", run_id, qid, "--json"), 0)

    messages = json.loads(bl(tmp_path, "failures", run_id, "--json").stdout)
    assert any("401" in m["message"] for m in messages), "the 401 failure must be recorded"
    assert any("***" in m["message"] for m in messages), "the echoed header must be masked, not dropped"

    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    names = {p.name for p in files}
    assert {"ledger.db", "ledger.db-wal", "ledger.db-shm", "export.json", "export.csv", "export.html",
            "report-json.json"} <= names
    assert any(p.suffix == ".sqlite" for p in files), "the kept memory store is searched too"
    found = [(str(p), leaks(p.read_bytes())) for p in files if leaks(p.read_bytes())]
    found += [(label, leaks(data)) for label, data in printed if leaks(data)]
    holder.close()
    assert not found, f"the API key leaked into: {found}"
