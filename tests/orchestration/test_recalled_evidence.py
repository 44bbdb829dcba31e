"""What a memory returns is checked and kept as returned; a verdict is always about the recorded answer.

A real MemoryServer behind a scripted HTTP remote returns what a dishonest memory would: a document
the scope never ingested, or text that is not in the document it names (here, the gold answer). The
first fails that question's recall; the second reaches the answer model as returned, is recorded as
returned (resume answers from that, never from a rebuilt context) and is counted in the report.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from benchledger.adapters.benchmarks.groupmem.loader import load_groupmem
from benchledger.adapters.memory.http_server import MemoryServer
from benchledger.adapters.memory.registry import open_memory
from benchledger.adapters.models.loopback import LoopbackOpenAI
from benchledger.ledger.events import QuestionAnswered
from benchledger.ledger.store import Ledger
from benchledger.orchestration.session import run_with
from benchledger.projections.state import fold_run
from benchledger.settings import RunSettings
from conftest import MINI
from scripted_remote import Remote
from ledger_cli import invoke_expecting as invoke

DATASET = load_groupmem(MINI, "Demo", question_limit=1)
VICTIM = next(q for q in DATASET.questions if q.kind == "temporal")


@pytest.fixture
def remote(tmp_path: Path):
    with MemoryServer(open_memory("sqlite", tmp_path / "served.db")) as served, Remote(upstream=served.url) as fake:
        yield fake


def _rewrite_recall(remote: Remote, question_text: str, rewrite) -> None:
    """Forward every request; rewrite the recall reply for one question with `rewrite(reply_dict)`."""
    needle = json.dumps(question_text, ensure_ascii=False).encode()

    def once(method: str, path: str, body: bytes):
        if path.endswith("/recall") and needle in body:
            remote.script = lambda *_: None  # forward this one to the real server for the honest reply
            status, payload = remote.reply(method, path, body)
            remote.script = once
            reply = json.loads(payload)
            rewrite(reply)
            return status, json.dumps(reply).encode()
        return None

    remote.script = once


def test_a_candidate_naming_a_document_never_ingested_fails_that_question(remote, tmp_path):
    def invent(reply: dict) -> None:
        reply["candidates"][0]["document"]["doc_id"] = "Msg_999999"
        reply["candidates"][0]["sources"] = ["Msg_999999"]  # consistent, as a lying server would be

    _rewrite_recall(remote, VICTIM.text, invent)
    invoke("run", "groupmem", str(MINI), "--domain", "Demo", "--question-limit", "1", "--memory", "http",
           "--memory-url", remote.url, "--out", "r.json", expect=3)
    report = json.loads(Path("r.json").read_text())
    assert [(f["question_id"], f["stage"], f["error_class"]) for f in report["failures"]] == [
        (VICTIM.question_id, "recall", "UnknownDocument")]
    assert "Msg_999999" in report["failures"][0]["message"]


def test_text_the_memory_invented_is_recorded_as_returned_and_counted(remote, tmp_path, monkeypatch):
    invented = f"Decision: {VICTIM.gold} (INVENTED-BY-THE-MEMORY)"

    def tamper(reply: dict) -> None:
        reply["candidates"][0]["document"]["text"] = reply["candidates"][0]["text"] = invented

    _rewrite_recall(remote, VICTIM.text, tamper)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-evidence-test-0000")
    with LoopbackOpenAI() as server:
        server.faults.always("500", role="agent", contains=VICTIM.text)  # the victim's answer fails at first
        invoke("run", "groupmem", str(MINI), "--domain", "Demo", "--question-limit", "1", "--memory", "http",
               "--memory-url", remote.url, "--agent-model", "gpt-5", "--base-url", server.base_url,
               "--max-attempts", "1", "--out", "r.json", expect=3)
        report = json.loads(Path("r.json").read_text())
        assert report["recalled_not_verbatim"] == 1 and report["recalled_items"] > 1
        assert "do not occur in the document they name" in invoke("show", report["run_id"]).output
        server.faults.clear()
        remote.script = lambda *_: None  # the memory is honest now: a rebuilt context would not hold it
        server.requests.clear()
        invoke("resume", report["run_id"])
        answered = [r for r in server.requests if VICTIM.text in json.dumps(r)]
    # resume answered from the candidates as the memory returned them, not from a rebuilt context
    assert answered and invented in json.dumps(answered[0])
    with Ledger.open(tmp_path / "ledger.db", create=False) as ledger:
        state = fold_run(report["run_id"], ledger.reader.events(report["run_id"]))
        recalled = state.questions[VICTIM.question_id].recalled
        returned = json.loads(ledger.reader.get_blob(recalled.candidates_hash))
    assert returned[0]["document"]["text"] == invented
    assert [item.verbatim for item in recalled.items][0] is False and all(i.verbatim for i in recalled.items[1:])


class _RacingWriter:
    """A ledger's writer on which another writer records a different answer to one question just before ours."""

    def __init__(self, writer, question_id: str) -> None:
        self._writer, self._question_id, self.raced = writer, question_id, False

    def __getattr__(self, name: str):
        return getattr(self._writer, name)

    def append(self, run_id, events, **kwargs):
        if not self.raced and any(isinstance(e, QuestionAnswered) and e.question_id == self._question_id
                                  for e in events):
            self.raced = True
            raw = b"Final: the other writer's answer"
            other = QuestionAnswered(question_id=self._question_id, answer="the other writer's answer",
                                     abstained=False, model="other", raw_hash=hashlib.sha256(raw).hexdigest())
            self._writer.append(run_id, [other], blobs=[raw])
        return self._writer.append(run_id, events, **kwargs)


class _RacingLedger:
    """A ledger whose writer is a `_RacingWriter`; its reader and cache are the ledger's."""

    def __init__(self, ledger: Ledger, question_id: str) -> None:
        self.path, self.where, self.reader, self.cache = ledger.path, ledger.where, ledger.reader, ledger.cache
        self.writer = _RacingWriter(ledger.writer, question_id)

    @property
    def raced(self) -> bool:
        return self.writer.raced


def test_a_writer_that_loses_the_race_to_record_an_answer_judges_the_recorded_one(tmp_path):
    dataset = load_groupmem(MINI, "Demo", question_limit=1)
    memory = open_memory("sqlite", tmp_path / "m.sqlite")
    with Ledger.open(tmp_path / "ledger.db") as ledger:
        racing = _RacingLedger(ledger, VICTIM.question_id)
        try:
            run_id = run_with(racing, dataset, RunSettings(memory_store=tmp_path / "m.sqlite", concurrency=1), memory)
        finally:
            memory.close()
        assert racing.raced
        state = fold_run(run_id, ledger.reader.events(run_id))
    victim = state.questions[VICTIM.question_id]
    assert victim.answered.answer == "the other writer's answer"
    verdict = victim.judged["s1"]
    assert verdict.answer_hash == victim.answered.raw_hash  # about the recorded answer, never ours
    assert victim.discarded == []
    assert all(q.judged["s1"].answer_hash == q.answered.raw_hash for q in state.questions.values())
