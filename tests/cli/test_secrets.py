"""No secret lands anywhere benchledger writes or prints.

Real `benchledger` processes run against the loopback server with a distinctive OPENAI_API_KEY,
in both log formats at debug verbosity, with a 401 whose body echoes the Authorization header and
with server errors and a dead endpoint (the exception paths); then the run is shown, inspected
and exported as JSON, CSV and HTML. A second run goes through a memory server guarded by a bearer
token, whose error body (longer than the 500-character message cap) echoes that token, bare, across
the cap, and through a `--base-url` that carries a user and password. Every byte of every file
under the test folder (the ledger and its -wal/-shm, the memory store, reports, exports), every
value of every SQLite table in them with each zlib blob decompressed, and everything the processes
printed is searched for the secrets: they must appear nowhere. The servers prove they were sent.
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
from benchledger.adapters.memory.http_server import MemoryServer
from benchledger.adapters.memory.registry import open_memory
from benchledger.adapters.models.loopback import LoopbackOpenAI
from benchledger.text import MESSAGE_CAP
from conftest import MINI
from scripted_remote import Remote

pytestmark = pytest.mark.slow

SECRET_CORE = "Zq8Wx3Kp7Rt2Vn9Ym4Lh6"
KEY = f"proj-{SECRET_CORE}-noprefix"  # no sk-: when echoed bare, only its registered value can be known
NEEDLES = (KEY.encode(), SECRET_CORE.encode(), SECRET_CORE[:12].encode(), SECRET_CORE[:6].encode())


MEMORY_TOKEN = "mtok-SECRET123-abcdef"
PASSWORD = "Pw0rd-Hx7Tq2Ly5"
MEMORY_NEEDLES = (MEMORY_TOKEN.encode(), MEMORY_TOKEN[:9].encode(), PASSWORD.encode(), b"bench-user:")


def bl(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "benchledger.cli.main", "--ledger", str(tmp_path / "ledger.db"), *args],
                          capture_output=True, cwd=tmp_path, timeout=300,
                          env={**os.environ, "OPENAI_API_KEY": KEY, "MEMORY_TOKEN": MEMORY_TOKEN})


def leaks(data: bytes, needles: tuple[bytes, ...] = NEEDLES) -> list[bytes]:
    return [needle for needle in needles if needle in data]


def database_values(path: Path) -> tuple[list[bytes], int]:
    """Every value of every table of a SQLite file as bytes, zlib bodies decompressed; and how many were."""
    values, inflated = [], 0
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        tables = [row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        for table in tables:
            for row in conn.execute(f'SELECT * FROM "{table}"'):
                for value in row:
                    if isinstance(value, bytes):
                        values.append(value)
                        try:
                            values.append(zlib.decompress(value))
                            inflated += 1
                        except zlib.error:
                            pass
                    elif isinstance(value, str):
                        values.append(value.encode())
    finally:
        conn.close()
    return values, inflated


def find_leaks(tmp_path: Path, printed: list[tuple[str, bytes]], needles: tuple[bytes, ...]) -> tuple[list, int]:
    """(where each needle was found, how many blobs were decompressed to search them)."""
    found, inflated = [], 0
    for path in (p for p in tmp_path.rglob("*") if p.is_file()):
        data = path.read_bytes()
        if leaks(data, needles):
            found.append((str(path), leaks(data, needles)))
        if data.startswith(b"SQLite format 3\x00"):
            values, count = database_values(path)
            inflated += count
            found += [(f"{path} (a value)", leaks(v, needles)) for v in values if leaks(v, needles)]
    found += [(label, leaks(data, needles)) for label, data in printed if leaks(data, needles)]
    return found, inflated


def question_texts() -> list[str]:
    lines = (MINI / "questions" / "Demo" / "temporal.jsonl").read_text().splitlines()
    return [json.loads(line)["question"] for line in lines]


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def over_the_cap(model: str) -> str:
    """A 401 message (`{key}` is the bare key) that puts the key across the last character a recorded
    message keeps: the client's message is `<model>: HTTP 401: Error code: 401 - <this>`, cut at
    MESSAGE_CAP. Redacted before the cut it is masked whole; cut first, half of it would be kept."""
    before = len(f"{model}: HTTP 401: Error code: 401 - ")
    head = "the credentials you sent were refused; we received "
    return head + "." * (MESSAGE_CAP - before - len(head) - len(KEY) // 2) + "{key}" + " and nothing else." + "." * 200


def test_the_api_key_appears_in_no_file_and_no_output(tmp_path):
    printed: list[tuple[str, bytes]] = []

    def record(label: str, result: subprocess.CompletedProcess, *ok_codes: int) -> None:
        assert result.returncode in ok_codes, (label, result.stderr.decode()[-2000:])
        printed.extend([(f"{label} stdout", result.stdout), (f"{label} stderr", result.stderr)])

    first, second, third, fourth = question_texts()[:4]
    with LoopbackOpenAI() as server:
        server.faults.always("401", role="agent", contains=first)   # the body echoes "Bearer <key>"
        server.faults.always("401", role="agent", contains=fourth, text=over_the_cap("gpt-5"))  # bare, across the cap
        server.faults.always("500", role="judge", contains=second)  # retried, then given up
        server.faults.always("401", role="judge", contains=third)
        runs = {}
        for log_format in ("json", "console"):
            out = tmp_path / f"report-{log_format}.json"
            result = bl(tmp_path, "--log-format", log_format, "-vv", "run", "groupmem", str(MINI),
                        "--domain", "Demo", "--agent-model", "gpt-5", "--base-url", server.base_url,
                        "--max-attempts", "2", "--keep", "--out", str(out))
            record(f"run {log_format}", result, 3)  # finished with 4 operational failures
            runs[log_format] = json.loads(out.read_text())
            assert runs[log_format]["failed"] == 4
            if log_format == "json":  # an open reader keeps the -wal and -shm on disk to be searched
                holder = sqlite3.connect(tmp_path / "ledger.db")
                holder.execute("SELECT count(*) FROM events").fetchone()
        assert {f"Bearer {KEY}"} == set(server.authorization_seen), "the key must really have been sent"
        assert server.faults.fired.count("401") >= 4

        run_id = runs["json"]["run_id"]
        for log_format in ("json", "console"):  # resume against a dead endpoint: the probe stops it
            record(f"resume {log_format}", bl(tmp_path, "--log-format", log_format, "-vv", "resume", run_id,
                                              "--base-url", f"http://127.0.0.1:{closed_port()}/v1",
                                              "--max-attempts", "1"), 2)
        server.faults.clear()
        server.faults.always("401")  # every call refused: the run ends with every question failed
        record("run all-401", bl(tmp_path, "--log-format", "json", "-v", "run", "groupmem", str(MINI),
                                 "--domain", "Demo", "--agent-model", "gpt-5", "--base-url", server.base_url,
                                 "--question-limit", "1", "--out", str(tmp_path / "report-401.json")), 2, 3)

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
    [capped] = [m["message"] for m in messages if "the credentials you sent were refused" in m["message"]]
    assert len(capped) <= MESSAGE_CAP and "..*** and nothing" in capped, \
        "the bare key across the cap is masked whole before the message is cut"

    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    names = {p.name for p in files}
    assert {"ledger.db", "ledger.db-wal", "ledger.db-shm", "export.json", "export.csv", "export.html",
            "report-json.json"} <= names
    assert any(p.suffix == ".sqlite" for p in files), "the kept memory store is searched too"
    found, inflated = find_leaks(tmp_path, printed, NEEDLES)
    holder.close()
    assert inflated > 0, "the ledger's blobs must be decompressed and searched"
    assert not found, f"the API key leaked into: {found}"


def long_error_body(token: str) -> bytes:
    """A proxy's error page, longer than the message cap, that echoes the bearer token three times: in
    its header (a pattern catches it), and bare across character 200 (where the memory client cuts
    what a server said) and across the message cap: no pattern knows the bare token, only its value,
    redacted before each cut, can be masked."""
    head = f"upstream memory gateway refused the request (Authorization: Bearer {token}); the token was "
    bare = head + "." * (200 - len(head) - len(token) // 2) + token
    bare += "; and again " + "." * (MESSAGE_CAP - len(bare) - len("; and again ") - len(token) // 2) + token
    return (bare + "; check the gateway's configuration and try again later." + "." * 80).encode()


def test_the_memory_token_and_url_credentials_appear_in_no_file_and_no_output(tmp_path):
    printed: list[tuple[str, bytes]] = []

    def record(label: str, result: subprocess.CompletedProcess, *ok_codes: int) -> None:
        assert result.returncode in ok_codes, (label, result.stderr.decode()[-2000:])
        printed.extend([(f"{label} stdout", result.stdout), (f"{label} stderr", result.stderr)])

    body = long_error_body(MEMORY_TOKEN)
    start = body.rindex(MEMORY_TOKEN.encode())
    first = body.index(MEMORY_TOKEN.encode(), body.index(b"token was"))
    assert first < 200 < first + len(MEMORY_TOKEN), "the token straddles character 200"
    assert len(body) > MESSAGE_CAP and start < MESSAGE_CAP < start + len(MEMORY_TOKEN), "and the message cap"
    assert not any(p in MEMORY_TOKEN for p in ("sk-", "Bearer")), "a token no pattern matches"
    victim = json.dumps(question_texts()[0]).encode()
    with MemoryServer(open_memory("sqlite", tmp_path / "served.sqlite"), token=MEMORY_TOKEN) as served, \
            Remote(upstream=served.url) as remote, LoopbackOpenAI() as llm:
        remote.script = lambda method, path, sent: (400, body) if path.endswith("/recall") and victim in sent else None
        endpoint = llm.base_url
        with_credentials = endpoint.replace("http://", f"http://bench-user:{PASSWORD}@")
        runs = {}
        for log_format in ("json", "console"):
            out = tmp_path / f"report-{log_format}.json"
            result = bl(tmp_path, "--log-format", log_format, "-vv", "run", "groupmem", str(MINI),
                        "--domain", "Demo", "--agent-model", "gpt-5", "--base-url", with_credentials,
                        "--memory", "http", "--memory-url", remote.url, "--memory-token-env", "MEMORY_TOKEN",
                        "--out", str(out))
            record(f"run {log_format}", result, 0, 3)
            runs[log_format] = json.loads(out.read_text())
        assert f"Bearer {MEMORY_TOKEN}" in {auth for _, _, auth in remote.seen}, "the token was really sent"
        assert llm.count() > 0, "the endpoint with credentials was really asked"

    run_id = runs["json"]["run_id"]
    for fmt in ("json", "csv", "html"):
        record(f"export {fmt}", bl(tmp_path, "export", run_id, "--format", fmt,
                                   "--out", str(tmp_path / f"export.{fmt}")), 0)
    for args in (("show", run_id, "--json"), ("show", run_id), ("failures", run_id, "--json"),
                 ("events", run_id, "--json"), ("runs",)):
        record(" ".join(args), bl(tmp_path, *args), 0)

    report = json.loads(bl(tmp_path, "show", run_id, "--json").stdout)
    assert report["base_url"] == endpoint, "the endpoint is recorded without its credentials"
    [failure] = json.loads(bl(tmp_path, "failures", run_id, "--json").stdout)
    assert failure["stage"] == "recall" and "HTTP 400" in failure["message"]
    assert "Bearer ***" in failure["message"], "the echoed token is masked, not dropped"

    found, inflated = find_leaks(tmp_path, printed, MEMORY_NEEDLES)
    assert inflated > 0, "the ledger's blobs must be decompressed and searched"
    assert not found, f"a memory token or URL credential leaked into: {found}"
