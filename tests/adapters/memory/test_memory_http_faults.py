"""The client against remotes that misbehave: every failure is a typed `MemorySystemError`, never a score.

`Remote` (tests/scripted_remote.py) is a real HTTP server on 127.0.0.1 whose replies a test
scripts; by default it forwards to a real `MemoryServer`, so a test tampers with exactly one route. A run against such a remote
records Failed events (prepare aborts the run; a broken recall fails that question only).
"""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from benchledger.adapters.benchmarks.groupmem.loader import load_groupmem
from benchledger.adapters.memory.http_client import (
    BuildStalled, DocumentsLost, HttpMemory, MalformedReply, MemoryRejected, MemoryUnauthorized,
    MemoryUnavailable, ProtocolMismatch,
)
from benchledger.adapters.memory.http_server import MemoryServer
from benchledger.adapters.memory.protocol import MemorySystemError
from benchledger.adapters.memory.registry import open_memory
from benchledger.cli.main import cli
from conftest import MINI
from benchledger.ledger.store import Ledger
from benchledger.testing.memory_contract import SCOPE, contract_corpus
from scripted_remote import Remote, Reply

QUERY = "billing migration freeze audit budget vendor"


INFO = json.dumps({"name": "fake", "version": "9.9", "protocol": "1"}).encode()


@pytest.fixture
def served(tmp_path: Path):
    with MemoryServer(open_memory("sqlite", tmp_path / "served.db")) as server:
        yield server


@pytest.fixture
def remote(served: MemoryServer):
    fake = Remote(upstream=served.url)
    yield fake
    fake.close()


@pytest.fixture
def bare():
    fake = Remote()
    fake.script = lambda method, path, body: (200, INFO) if path == "/v1/info" else None
    yield fake
    fake.close()


def client(url: str, tmp_path: Path, **options) -> HttpMemory:
    return HttpMemory(tmp_path / "unused.db", url=url, backoff_base=0.01, **options)


def test_every_remote_failure_is_a_memory_error() -> None:
    for error in (MemoryUnavailable, MemoryRejected, MemoryUnauthorized, MalformedReply,
                  ProtocolMismatch, DocumentsLost, BuildStalled):
        assert issubclass(error, MemorySystemError)


def test_documents_acknowledged_then_missing_raise(remote: Remote, tmp_path: Path) -> None:
    memory = client(remote.url, tmp_path)
    corpus = contract_corpus()
    assert memory.ingest(SCOPE, corpus[:4]) == 4
    remote.script = lambda m, path, b: (
        (200, json.dumps({"new": 4, "documents": 5}).encode()) if path.endswith("/documents") else None)
    with pytest.raises(DocumentsLost, match="holds 5 documents but acknowledged 8"):
        memory.ingest(SCOPE, corpus[4:])
    remote.script = lambda m, path, b: (
        (200, b'{"documents": 2, "pending_chunks": 0}') if path.endswith("/state") else None)
    with pytest.raises(DocumentsLost, match="holds 2 documents"):
        memory.state(SCOPE)


def test_a_build_that_drops_documents_is_caught_when_it_finishes(remote: Remote, tmp_path: Path) -> None:
    memory = client(remote.url, tmp_path)
    memory.ingest(SCOPE, contract_corpus())
    remote.script = lambda m, path, b: (
        (200, b'{"documents": 3, "pending_chunks": 0}') if path.endswith("/state") else None)
    with pytest.raises(DocumentsLost):
        list(memory.build(SCOPE, batch_size=3))


def test_pending_chunks_that_never_drain_stop_the_build(bare: Remote, tmp_path: Path) -> None:
    base = bare.script
    stuck = json.dumps({"extracted": ["Msg_1"], "pending": 5}).encode()
    bare.script = lambda m, path, b: (200, stuck) if path.endswith("/build") else base(m, path, b)
    memory = client(bare.url, tmp_path, stall_rounds=4)
    with pytest.raises(BuildStalled, match="still reports 5 pending chunks after 4 build calls"):
        list(memory.build(SCOPE))
    assert bare.count("/build") == 5  # the first reply, then four with no progress


def test_a_build_that_progresses_slowly_is_not_stalled(bare: Remote, tmp_path: Path) -> None:
    base, left = bare.script, iter(range(9, -1, -1))

    def drain(method: str, path: str, body: bytes) -> Reply | None:
        if path.endswith("/build"):
            pending = next(left)
            return 200, json.dumps({"extracted": [f"c{pending}"], "pending": pending}).encode()
        if path.endswith("/state"):
            return 200, b'{"documents": 0, "pending_chunks": 0}'
        return base(method, path, body)

    bare.script = drain
    assert len(list(client(bare.url, tmp_path, stall_rounds=1).build(SCOPE))) == 10


@pytest.mark.parametrize("body", [
    b"<html>gateway</html>",
    b'{"candidates": [{"rank": 1, "score": 1.0}]}',
    b'{"candidates": "none"}',
])
def test_a_recall_that_is_not_the_protocol_raises_malformed(remote: Remote, tmp_path: Path, body: bytes) -> None:
    memory = client(remote.url, tmp_path)
    remote.script = lambda m, path, b: (200, body) if path.endswith("/recall") else None
    with pytest.raises(MalformedReply, match="not a RecallReply"):
        memory.recall(SCOPE, "billing", asking_user=None, k=3, token_budget=None)
    assert remote.count("/recall") == 1  # malformed is not retried


def test_too_many_or_misranked_candidates_are_malformed(remote: Remote, tmp_path: Path) -> None:
    memory = client(remote.url, tmp_path)
    memory.ingest(SCOPE, contract_corpus())
    list(memory.build(SCOPE))
    good = memory.recall(SCOPE, QUERY, asking_user=None, k=3, token_budget=None)
    assert [c.rank for c in good] == [1, 2, 3]
    swapped = [c.model_copy(update={"rank": 2 - i}) for i, c in enumerate(good[:2])]
    for candidates, k, match in ((good, 2, "k=2 and got 3"), (swapped, 3, r"ranks are \[2, 1\]")):
        payload = json.dumps({"candidates": [json.loads(c.model_dump_json()) for c in candidates]}).encode()
        remote.script = lambda m, path, b, payload=payload: (200, payload) if path.endswith("/recall") else None
        with pytest.raises(MalformedReply, match=match):
            memory.recall(SCOPE, QUERY, asking_user=None, k=k, token_budget=None)


def test_negative_counts_and_foreign_info_are_malformed(bare: Remote, tmp_path: Path) -> None:
    memory = client(bare.url, tmp_path)
    base = bare.script
    bare.script = lambda m, path, b: (
        (200, b'{"documents": -1, "pending_chunks": 0}') if path.endswith("/state") else base(m, path, b))
    with pytest.raises(MalformedReply, match="documents"):
        memory.state(SCOPE)
    bare.script = lambda m, path, b: (200, b'{"hello": "world"}')
    with pytest.raises(MalformedReply, match="not a Info"):
        client(bare.url, tmp_path)


def test_another_protocol_version_is_refused(bare: Remote, tmp_path: Path) -> None:
    bare.script = lambda m, path, b: (200, json.dumps({"name": "x", "version": "1", "protocol": "3"}).encode())
    with pytest.raises(ProtocolMismatch, match="protocol '3'"):
        client(bare.url, tmp_path)


def test_5xx_and_resets_are_retried_with_backoff_then_succeed(remote: Remote, tmp_path: Path) -> None:
    memory = client(remote.url, tmp_path, max_attempts=4)
    failures = iter([(503, b"busy"), (0, b""), (500, b'{"error": {"type": "internal", "message": "boom"}}')])
    remote.script = lambda m, path, b: next(failures, None) if path.endswith("/state") else None
    assert memory.state(SCOPE).documents == 0
    assert remote.count("/state") == 4


def test_5xx_on_every_attempt_gives_up_naming_the_last_error(remote: Remote, tmp_path: Path) -> None:
    memory = client(remote.url, tmp_path, max_attempts=3)
    remote.script = lambda m, path, b: (
        (500, b'{"error": {"type": "memory_error", "message": "disk full"}}') if path.endswith("/state") else None)
    with pytest.raises(MemoryUnavailable, match="after 3 attempt.*memory_error: disk full"):
        memory.state(SCOPE)
    assert remote.count("/state") == 3


def test_4xx_is_not_retried(remote: Remote, tmp_path: Path) -> None:
    memory = client(remote.url, tmp_path)
    remote.script = lambda m, path, b: (
        (400, b'{"error": {"type": "bad_request", "message": "no"}}') if path.endswith("/state") else None)
    with pytest.raises(MemoryRejected, match="HTTP 400: bad_request: no"):
        memory.state(SCOPE)
    assert remote.count("/state") == 1


def test_a_redirect_is_not_followed(bare: Remote, tmp_path: Path) -> None:
    memory = client(bare.url, tmp_path)
    bare.script = lambda m, path, b: (307, b"")
    with pytest.raises(MemoryRejected, match="redirects are not followed"):
        memory.state(SCOPE)


def test_nobody_listening_is_unavailable_after_every_attempt(tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(MemoryUnavailable, match="failed after 2 attempt.*ConnectError"):
        client(f"http://127.0.0.1:{port}", tmp_path, max_attempts=2)


def test_a_slow_remote_times_out(bare: Remote, tmp_path: Path) -> None:
    memory = client(bare.url, tmp_path, timeout=0.2, max_attempts=2)
    base = bare.script
    bare.script = lambda m, path, b: (time.sleep(0.6), None)[1] if path.endswith("/state") else base(m, path, b)
    with pytest.raises(MemoryUnavailable, match="Timeout"):
        memory.state(SCOPE)


def test_the_token_is_read_at_each_call_and_never_kept(
    served: MemoryServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    remote = Remote(upstream=served.url)
    try:
        monkeypatch.setenv("MEMORY_TOKEN", "first-token-1234")
        memory = client(remote.url, tmp_path, token_env="MEMORY_TOKEN")
        monkeypatch.setenv("MEMORY_TOKEN", "second-token-5678")
        memory.state(SCOPE)
        assert [auth for _, _, auth in remote.seen] == ["Bearer first-token-1234", "Bearer second-token-5678"]
        assert "token-" not in repr(vars(memory))
    finally:
        remote.close()


def test_a_wrong_token_is_unauthorized_and_the_error_does_not_carry_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMORY_TOKEN", "right-token-abcd")
    with MemoryServer(open_memory("sqlite", tmp_path / "s.db"), token="right-token-abcd") as server:
        memory = client(server.url, tmp_path, token_env="MEMORY_TOKEN")
        assert memory.state(SCOPE).documents == 0
        monkeypatch.setenv("MEMORY_TOKEN", "wrong-token-efgh")
        with pytest.raises(MemoryUnauthorized) as err:
            memory.state(SCOPE)
        assert "$MEMORY_TOKEN" in str(err.value)
        assert "token-abcd" not in str(err.value) and "token-efgh" not in str(err.value)
        monkeypatch.delenv("MEMORY_TOKEN")
        with pytest.raises(MemoryUnauthorized, match="MEMORY_TOKEN"):
            memory.state(SCOPE)


# -- in a run: Failed events, never a score --------------------------------------------------------

def run_mini(url: str, tmp_path: Path, *extra: str):
    return CliRunner().invoke(cli, ["run", "groupmem", str(MINI), "--domain", "Demo", "--memory", "http",
                                    "--memory-url", url, "--out", str(tmp_path / "r.json"), *extra],
                              catch_exceptions=False)


def test_a_stalled_remote_aborts_the_run_at_prepare(bare: Remote, tmp_path: Path) -> None:
    base = bare.script
    bare.script = lambda m, path, b: (
        (200, b'{"new": 0, "documents": 10000}') if path.endswith("/documents")
        else (200, b'{"extracted": [], "pending": 7}') if path.endswith("/build") else base(m, path, b))
    result = run_mini(bare.url, tmp_path)
    assert result.exit_code == 1 and "aborted at prepare" in result.output
    with Ledger.open(tmp_path / "ledger.db") as ledger:
        events = ledger.reader.events(ledger.reader.runs()[0].run_id)
    failed = [e.event for e in events if e.type == "Failed"]
    assert [(f.stage, f.error_class) for f in failed] == [("prepare", "BuildStalled")]
    assert not [e for e in events if e.type in ("ContextRecalled", "Judged")]
    assert events[-1].event.status == "aborted"


def test_a_malformed_recall_fails_that_question_only(remote: Remote, tmp_path: Path) -> None:
    broken = load_groupmem(MINI, "Demo").questions[0]
    needle = json.dumps(broken.text, ensure_ascii=False).encode()
    remote.script = lambda m, path, body: (
        (200, b"<html>oops</html>") if path.endswith("/recall") and needle in body else None)
    result = run_mini(remote.url, tmp_path)
    assert result.exit_code == 3, result.output  # finished with an operational failure: resume it
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["failed"] == 1 and report["pending"] == 0
    with Ledger.open(tmp_path / "ledger.db") as ledger:
        events = ledger.reader.events(report["run_id"])
    failed = [e.event for e in events if e.type == "Failed"]
    assert [(f.stage, f.question_id, f.error_class) for f in failed] == [
        ("recall", broken.question_id, "MalformedReply")]
    judged = {e.event.question_id for e in events if e.type == "Judged"}
    assert broken.question_id not in judged and len(judged) == report["total"] - 1
