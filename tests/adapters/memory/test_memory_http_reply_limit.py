"""A memory reply has a size limit (`max_reply_bytes`): read in chunks up to it, refused in one line as
soon as it passes it (nothing further read), and in a run that refusal is an operational failure of the
question it was for, never a wrong answer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchledger.adapters.benchmarks.groupmem.loader import load_groupmem
from benchledger.adapters.memory.http_client import MalformedReply, ReplyTooLarge
from benchledger.adapters.memory.http_protocol import scope_path
from benchledger.errors import BadInput
from benchledger.ledger.store import Ledger
from benchledger.testing.memory_contract import SCOPE, contract_corpus
from conftest import MINI
from scripted_remote import Remote, Streamed
from test_memory_http_faults import QUERY, client, remote, run_mini, served  # noqa: F401  (fixtures)

MiB = 1 << 20


def recall_reply(candidates: int) -> bytes:
    return json.dumps({"candidates": [{"rank": i + 1, "text": "x", "score": 1.0 - i / 100, "kind": "fact"}
                                      for i in range(candidates)]}).encode()


def test_a_reply_at_the_limit_is_read_and_one_byte_over_is_refused(remote: Remote, tmp_path: Path) -> None:
    body = recall_reply(3)
    remote.script = lambda m, path, b: (200, body) if path.endswith("/recall") else None
    at_limit = client(remote.url, tmp_path, max_reply_bytes=str(len(body)))  # as --memory-option gives it
    at_limit.ingest(SCOPE, contract_corpus()[:2])
    assert len(at_limit.recall(SCOPE, QUERY, asking_user=None, k=10, token_budget=None)) == 3
    below = client(remote.url, tmp_path, max_reply_bytes=len(body) - 1)
    with pytest.raises(ReplyTooLarge) as err:
        below.recall(SCOPE, QUERY, asking_user=None, k=10, token_budget=None)
    assert str(err.value) == (f"{remote.url}: POST {scope_path(SCOPE, 'recall')}: the reply declares {len(body):,} "
                              f"bytes, over the limit of {len(body) - 1:,} (max_reply_bytes); none of it was read")


def test_an_endless_reply_stops_at_the_limit_and_is_not_retried(remote: Remote, tmp_path: Path) -> None:
    memory = client(remote.url, tmp_path, max_reply_bytes=MiB)
    remote.script = lambda m, path, b: (200, Streamed(200 * MiB, chunk=64 * 1024)) if path.endswith("/recall") else None
    with pytest.raises(ReplyTooLarge, match=r"/recall: the reply passed the limit of 1,048,576 bytes"):
        memory.recall(SCOPE, QUERY, asking_user=None, k=10, token_budget=None)
    assert remote.count("/recall") == 1, "a reply too large is not asked again"
    assert remote.streamed_bytes < 50 * MiB, "the client hung up at its limit instead of reading on"


def test_a_compressed_reply_is_refused_since_its_size_could_not_be_bounded(tmp_path: Path) -> None:
    import gzip
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
    import threading

    body = gzip.compress(json.dumps({"name": "zip", "version": "1", "protocol": "1"}).encode())
    seen: list[str | None] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:
            pass

        def do_GET(self) -> None:
            seen.append(self.headers.get("Accept-Encoding"))
            self.send_response(200)
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    try:
        with pytest.raises(MalformedReply, match=r"compressed \('gzip'\) though the client asked for it uncompressed"):
            client(f"http://127.0.0.1:{server.server_address[1]}", tmp_path)
    finally:
        server.shutdown()
        server.server_close()
    assert seen == ["identity"]


@pytest.mark.parametrize("given", ["many", "0", "-5"])
def test_a_limit_that_is_not_a_positive_whole_number_is_bad_input(remote: Remote, tmp_path: Path, given: str) -> None:
    with pytest.raises(BadInput, match="max_reply_bytes"):
        client(remote.url, tmp_path, max_reply_bytes=given)


def test_in_a_run_a_recall_reply_over_the_limit_fails_that_question_only(remote: Remote, tmp_path: Path) -> None:
    broken = load_groupmem(MINI, "Demo").questions[0]
    needle = json.dumps(broken.text, ensure_ascii=False).encode()
    remote.script = lambda m, path, body: (
        (200, Streamed(8 * MiB)) if path.endswith("/recall") and needle in body else None)
    result = run_mini(remote.url, tmp_path, "--memory-option", f"max_reply_bytes={MiB}")
    assert result.exit_code == 3, result.output  # finished with an operational failure: resume it
    report = json.loads((tmp_path / "r.json").read_text())
    with Ledger.open(tmp_path / "ledger.db") as ledger:
        events = ledger.reader.events(report["run_id"])
    failed = [e.event for e in events if e.type == "Failed"]
    assert [(f.stage, f.question_id, f.error_class) for f in failed] == [("recall", broken.question_id, "ReplyTooLarge")]
    assert "passed the limit of 1,048,576 bytes (max_reply_bytes)" in failed[0].message
    assert broken.question_id not in {e.event.question_id for e in events if e.type == "Judged"}
