"""A memory's identity includes where it is, and a recalled document's structure is checked like its text.

A resume pointed at another server that names itself with the same name and version is a memory
change: refused in one line (exit 2) unless `--allow-memory-change`, and then diagnostic, naming
both URLs. An HTTP memory that returns the ingested documents but puts each question's gold answer
into their topic and author is counted (`recalled_fields_changed`, beside `recalled_not_verbatim`),
named on the scorecard and makes the run diagnostic; the same memory left honest changes nothing.
"""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path

import httpx2
import pytest

from benchledger.adapters.benchmarks.base import Document
from benchledger.adapters.memory.http_server import MemoryServer
from benchledger.adapters.memory.registry import open_memory
from benchledger.adapters.models.loopback import LoopbackOpenAI
from benchledger.ledger.store import Ledger
from benchledger.orchestration.recalled_fields import changed_fields
from conftest import MINI
from ledger_cli import invoke_expecting
from scripted_remote import Remote

pytestmark = pytest.mark.slow

GOLD = "ANSWER: 2025-05-16"


invoke = partial(invoke_expecting, env={"OPENAI_API_KEY": "sk-identity-0000"})


def conditions(report: dict) -> dict[str, dict]:
    return {c["name"]: c for c in report["conditions"]}


def test_changed_fields_names_every_structural_field_that_differs_and_ignores_what_was_left_out() -> None:
    ingested = Document(doc_id="m1", text="hello", author="User_1", topic="snooze", phase="Kickoff",
                        extra={"blip": "a cat"})
    assert changed_fields(ingested, ingested) == ()
    assert changed_fields(Document(doc_id="m1", text="hel"), ingested) == (), "fields left out tell nothing"
    forged = Document(doc_id="m1", text="hello", author=GOLD, topic=GOLD, phase="Kickoff", is_decision=True,
                      extra={"blip": GOLD})
    assert changed_fields(forged, ingested) == ("author", "topic", "is_decision", "extra.blip")


def test_a_key_a_memory_adds_to_a_document_s_extras_is_a_change() -> None:
    """Gold could travel in a field the release never had: an added key is flagged like a changed one."""
    ingested = Document(doc_id="m1", text="hello", extra={"blip": "a cat"})
    added = Document(doc_id="m1", text="hello", extra={"blip": "a cat", "answer": GOLD})
    assert changed_fields(added, ingested) == ("extra.answer",)
    assert changed_fields(Document(doc_id="m1", text="hello", extra={"answer": GOLD}),
                          Document(doc_id="m1", text="hello")) == ("extra.answer",)
    assert changed_fields(Document(doc_id="m1", text="hello", extra={}), ingested) == (), "an extra left out"


def test_a_resume_at_another_server_of_the_same_name_is_a_memory_change(tmp_path: Path) -> None:
    with MemoryServer(open_memory("sqlite", tmp_path / "a.sqlite")) as served_a, \
            MemoryServer(open_memory("sqlite", tmp_path / "b.sqlite")) as served_b, LoopbackOpenAI() as server:
        victim = json.loads((MINI / "questions" / "Demo" / "temporal.jsonl").read_text().splitlines()[0])
        server.faults.always("500", role="agent", contains=victim["question"])
        invoke("run", "groupmem", str(MINI), "--domain", "Demo", "--question-limit", "1", "--memory", "http",
               "--memory-url", served_a.url, "--agent-model", "gpt-5", "--base-url", server.base_url,
               "--max-attempts", "1", "--out", "r.json", expect=3)
        run_id = json.loads(Path("r.json").read_text())["run_id"]
        server.faults.clear()
        refused = invoke("resume", run_id, "--memory-url", served_b.url, expect=2)
        assert len(refused.output.strip().splitlines()) == 1
        assert served_a.url in refused.output and served_b.url in refused.output
        with Ledger.open("ledger.db", create=False) as ledger:
            assert not ledger.reader.events(run_id, types=["RunResumed"])
        invoke("resume", run_id, "--memory-url", served_b.url, "--allow-memory-change")
    report = json.loads(invoke("show", run_id, "--json").output)
    provenance = conditions(report)["recorded_provenance"]
    assert not provenance["met"] and served_b.url in provenance["reason"] and not report["publishable"]


def gold_in_structure(upstream: str):
    """A memory remote that recalls honestly, then writes the gold answer into each document's topic and author."""
    client = httpx2.Client(timeout=10)

    def script(method: str, path: str, body: bytes):
        if not path.endswith("/recall"):
            return None
        reply = client.post(upstream + path, content=body).json()
        for candidate in reply["candidates"]:
            document = candidate.get("document")
            if document:
                document["topic"], document["author"] = GOLD, GOLD
        return 200, json.dumps(reply).encode()
    return script


@pytest.mark.parametrize("forged", [False, True], ids=["honest", "gold-in-topic-and-author"])
def test_a_memory_that_rewrites_document_structure_is_counted_shown_and_diagnostic(tmp_path: Path, forged) -> None:
    with MemoryServer(open_memory("sqlite", tmp_path / "m.sqlite")) as served, Remote(upstream=served.url) as remote:
        if forged:
            remote.script = gold_in_structure(served.url)
        result = invoke("run", "groupmem", str(MINI), "--domain", "Demo", "--question-limit", "1", "--memory", "http",
                        "--memory-url", remote.url, "--out", "r.json")
    report = json.loads(Path("r.json").read_text())
    assert report["recalled_items"] > 0 and report["recalled_not_verbatim"] == 0
    if not forged:
        assert report["recalled_fields_changed"] == 0 and "recalled_as_ingested" not in conditions(report)
        assert "structural field" not in result.output
        return
    assert report["recalled_fields_changed"] == report["recalled_items"]
    failed = conditions(report)["recalled_as_ingested"]
    assert not failed["met"] and "author" in failed["reason"] and "topic" in failed["reason"]
    assert not report["publishable"]
    assert f"{report['recalled_items']} of {report['recalled_items']} recalled documents came back with a " \
           "structural field" in result.output
    with Ledger.open("ledger.db", create=False) as ledger:
        (recalled, *_) = [e.event for e in ledger.reader.events(report["run_id"], types=["ContextRecalled"])]
    assert recalled.items[0].changed_fields == ("author", "topic") and recalled.items[0].author != GOLD
