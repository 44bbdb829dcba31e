"""Scopes prepared concurrently, with real mem0 and Graphiti stores behind benchledger's recording
proxy and the loopback endpoint as the memory's model.

Overlap is proved without timing: the endpoint holds the first extraction calls at a barrier that
opens only when two are in flight at once (and answers 503 when they never are). A failing scope
is its own Failed while the others keep their work; a run killed mid-preparation resumes.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from click.testing import CliRunner

from benchledger.adapters.benchmarks.base import Dataset, Document, ReleaseFacts
from benchledger.adapters.memory.registry import open_memory
from benchledger.adapters.models.loopback import LoopbackOpenAI
from benchledger.cli.main import cli
from benchledger.ledger.events import ChunkExtracted, Failed, MemoryModelCalled, MessagesIngested
from benchledger.ledger.store import Ledger
from benchledger.orchestration.prepare import ScopesFailed, prepare_scopes, scope_names, scope_workers
from benchledger.projections.state import fold_run

from conftest import requires_extra
from crash_harness import run_and_kill_at

needs_mem0 = requires_extra("mem0", "mem0")
needs_graphiti = requires_extra("graphiti_core", "graphiti")

KEY_ENV = "MEMORY_TEST_KEY"
_START = datetime(2024, 3, 1, 9, 0, tzinfo=timezone.utc)
_WORDS = ("harbour", "violet", "granite", "meadow", "copper", "lantern")


def _docs(scope: str, count: int, word: str) -> tuple[Document, ...]:
    """`count` messages of one scope; every text names the scope's own word, in two sessions."""
    return tuple(Document(doc_id=f"{scope}-{i}", text=f"{scope} note {i}: the {word} plan moves to step {i}.",
                          author=f"user{i % 2}", channel=f"{scope}-session-{i // 3}",
                          timestamp=_START + timedelta(minutes=i), position=i) for i in range(count))


def _dataset(scopes: int = 3, per_scope: int = 5) -> Dataset:
    docs = {f"s{n}": _docs(f"s{n}", per_scope, _WORDS[n]) for n in range(scopes)}
    return Dataset(benchmark="Concurrent", subset="t", adapter_version="1", source="test", scopes=docs,
                   questions=(), release=ReleaseFacts(documents_available=scopes * per_scope, questions_available=0))


def _events(ledger: Ledger, run_id: str) -> list:
    return [stored.event for stored in ledger.reader.events(run_id)]


@pytest.fixture
def memory_key(monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-concurrent-test-not-a-secret")


def _mem0(tmp_path: Path, upstream: LoopbackOpenAI, **options: str):
    return open_memory("mem0", tmp_path / "mem0.sqlite", infer="true", granularity="session",
                       base_url=upstream.base_url, key_env=KEY_ENV, **options)


def test_only_a_memory_that_says_so_gets_concurrent_scopes(tmp_path: Path) -> None:
    sqlite = open_memory("sqlite", tmp_path / "m.sqlite")
    try:
        assert scope_workers(sqlite, 4) == 1  # one store lock around extraction: nothing to overlap
    finally:
        sqlite.close()


@needs_mem0
@pytest.mark.parametrize("concurrency", [4, 1])
def test_two_scopes_extract_at_the_same_time_only_with_concurrency(tmp_path, memory_key, concurrency) -> None:
    dataset = _dataset()
    with LoopbackOpenAI(keep_bodies=False) as upstream:
        barrier = upstream.faults.push_barrier(2, role="other", timeout=30 if concurrency > 1 else 2)
        memory = _mem0(tmp_path, upstream)
        try:
            assert scope_workers(memory, concurrency) == concurrency
            with Ledger.open(tmp_path / "l.db") as ledger:
                try:
                    prepare_scopes(ledger.writer, "r", dataset, memory, preparation=1, batch_size=1000,
                                   concurrency=concurrency)
                except ScopesFailed:
                    assert concurrency == 1  # the lone call at the barrier was refused, its scope failed
                events = _events(ledger, "r")
        finally:
            memory.close()
    assert barrier.broken is (concurrency == 1)
    if concurrency == 1:
        return
    chats = sorted((e for e in events if isinstance(e, MemoryModelCalled) and e.endpoint == "chat"),
                   key=lambda e: e.call)
    assert chats[0].scope_key != chats[1].scope_key  # the two calls held together came from two scopes
    # every call is attributed to the scope whose client made it: one extraction call per session
    for key, docs in dataset.scopes.items():
        assert len([c for c in chats if c.scope_key == key]) == len({d.channel for d in docs})
    assert not [e for e in events if isinstance(e, Failed)]
    # each scope's own events keep its order, whatever the interleaving
    for key in dataset.scopes:
        batches = [e.batch for e in events if isinstance(e, ChunkExtracted) and e.scope_key == key]
        assert batches == list(range(len(batches)))


@needs_mem0
def test_a_failing_scope_is_its_failed_and_the_others_keep_their_work(tmp_path, memory_key) -> None:
    dataset = _dataset()
    with LoopbackOpenAI(keep_bodies=False) as upstream:
        upstream.faults.always("500", role="other", contains=_WORDS[1])  # scope s1's extraction always fails
        memory = _mem0(tmp_path, upstream)
        try:
            with Ledger.open(tmp_path / "l.db") as ledger:
                with pytest.raises(ScopesFailed, match="1 of 3 scope"):
                    prepare_scopes(ledger.writer, "r", dataset, memory, preparation=1, batch_size=1000, concurrency=4)
                events = _events(ledger, "r")
                names = scope_names(dataset)
                assert [memory.state(names[k]).pending_chunks for k in ("s0", "s1", "s2")] == [0, 5, 0]
                upstream.faults.clear()  # the endpoint recovers: preparing again finishes s1 only
                prepare_scopes(ledger.writer, "r", dataset, memory, preparation=2, batch_size=1000, concurrency=4)
                again = _events(ledger, "r")[len(events):]
                assert all(memory.state(names[k]).pending_chunks == 0 for k in dataset.scopes)
        finally:
            memory.close()
    (failed,) = [e for e in events if isinstance(e, Failed)]
    assert (failed.stage, failed.scope_key, failed.error_class) == ("prepare", "s1", "MemorySystemError")
    built = {k: sum(len(e.chunk_ids) for e in events if isinstance(e, ChunkExtracted) and e.scope_key == k)
             for k in dataset.scopes}
    assert built == {"s0": 5, "s1": 0, "s2": 5}
    assert {e.scope_key for e in again if isinstance(e, ChunkExtracted)} == {"s1"}  # nothing of s0, s2 redone
    assert sum(e.new for e in again if isinstance(e, MessagesIngested)) == 0  # ingest is idempotent


@needs_mem0
def test_a_mem0_batch_that_failed_half_way_is_built_again_without_duplicates(tmp_path, memory_key) -> None:
    docs = _docs("s0", 5, "harbour")
    with LoopbackOpenAI(keep_bodies=False) as upstream:
        upstream.faults.always("500", role="embed", contains="note 3:")  # the fourth message cannot be embedded
        memory = open_memory("mem0", tmp_path / "m.sqlite", base_url=upstream.base_url, key_env=KEY_ENV)
        try:
            memory.ingest("scope", docs)
            with pytest.raises(Exception, match="mem0 add failed"):
                list(memory.build("scope"))
            assert memory.state("scope").pending_chunks == 5  # nothing marked built: the batch is redone
            upstream.faults.clear()
            assert [len(ids) for ids in memory.build("scope")] == [5]
            held = memory._client("scope").get_all(filters={"user_id": "benchledger"}, top_k=100)["results"]
            found = memory.recall("scope", docs[0].text, asking_user=None, k=5, token_budget=None)
        finally:
            memory.close()
    assert sorted(h["memory"] for h in held) == sorted(d.text for d in docs)  # each once, the first three too
    assert sorted(c.sources[0] for c in found) == sorted(d.doc_id for d in docs)


@needs_graphiti
def test_graphiti_builds_two_scopes_at_the_same_time(tmp_path, memory_key) -> None:
    dataset = _dataset(scopes=2, per_scope=2)
    with LoopbackOpenAI(keep_bodies=False) as upstream:
        barrier = upstream.faults.push_barrier(2, role="other", timeout=60)
        memory = open_memory("graphiti", tmp_path / "g.sqlite", base_url=upstream.base_url, key_env=KEY_ENV)
        try:
            with Ledger.open(tmp_path / "l.db") as ledger:
                prepare_scopes(ledger.writer, "r", dataset, memory, preparation=1, batch_size=1000, concurrency=2)
                events = _events(ledger, "r")
                names = scope_names(dataset)
                hits = {k: memory.recall(names[k], f"the {_WORDS[n]} plan", asking_user=None, k=3, token_budget=None)
                        for n, k in enumerate(dataset.scopes)}
        finally:
            memory.close()
    assert not barrier.broken and not [e for e in events if isinstance(e, Failed)]
    chats = sorted((e for e in events if isinstance(e, MemoryModelCalled) and e.endpoint == "chat"),
                   key=lambda e: e.call)
    assert chats[0].scope_key != chats[1].scope_key
    for key, found in hits.items():  # each scope's graph holds its own documents only
        assert found and all(source.startswith(f"{key}-") for c in found for source in c.sources)


@needs_mem0
def test_progress_shows_documents_scopes_and_the_memorys_calls(tmp_path, memory_key) -> None:
    dataset = _dataset()
    seen: list[tuple[str, int, int, dict]] = []
    with LoopbackOpenAI(keep_bodies=False) as upstream:
        memory = _mem0(tmp_path, upstream)
        try:
            with Ledger.open(tmp_path / "l.db") as ledger:
                prepare_scopes(ledger.writer, "r", dataset, memory, preparation=1, batch_size=2, concurrency=2,
                               progress=lambda stage, done, total, **detail: seen.append((stage, done, total, detail)))
                calls = len([e for e in _events(ledger, "r") if isinstance(e, MemoryModelCalled)])
        finally:
            memory.close()
    ingest = [s for s in seen if s[0] == "ingest"]
    build = [s for s in seen if s[0] == "build"]
    assert ingest[-1][1:3] == (15, 15) and build[-1][1:3] == (15, 15)
    assert [s[1] for s in ingest] == sorted(s[1] for s in ingest)
    assert build[-1][3] == {"scopes_done": 3, "scopes": 3, "memory_calls": calls} and calls > 0
    assert build[0][3]["memory_calls"] < calls  # the count moves as the build goes


@needs_mem0
def test_the_json_log_carries_progress_with_the_memorys_calls(shared_data, tmp_path, memory_key) -> None:
    with LoopbackOpenAI(keep_bodies=False) as upstream:
        result = CliRunner().invoke(cli, [
            "--ledger", str(tmp_path / "l.db"), "--log-format", "json", "retrieval", "locomo",
            str(shared_data / "locomo/locomo-dev.json"), "--conversations", "conv-26", "--question-limit", "1",
            "--memory", "mem0", "--memory-base-url", upstream.base_url, "--memory-key-env", KEY_ENV],
            catch_exceptions=False)
    assert result.exit_code == 0, result.output
    import json

    lines = [json.loads(line) for line in result.output.splitlines() if line.startswith("{")]
    build = [line for line in lines if line.get("event") == "progress" and line.get("stage") == "build"]
    assert build and build[-1]["done"] == build[-1]["total"] and build[-1]["memory_calls"] >= build[-1]["total"]
    assert build[-1]["scopes"] == 1 == build[-1]["scopes_done"]


@needs_mem0
def test_a_run_killed_mid_preparation_resumes_to_the_same_recall(shared_data, tmp_path, memory_key) -> None:
    release = shared_data / "locomo/locomo-dev.json"
    common = ["run", "locomo", str(release), "--conversations", "conv-26,conv-30", "--question-limit", "6",
              "--memory", "mem0", "--concurrency", "4", "--keep"]
    whole, cut = tmp_path / "whole", tmp_path / "cut"
    whole.mkdir(), cut.mkdir()
    runner = CliRunner()
    assert runner.invoke(cli, ["--ledger", str(whole / "l.db"), *common, "--memory-store", str(whole / "m.sqlite")],
                         catch_exceptions=False).exit_code == 0
    assert run_and_kill_at(cut / "l.db", [*common, "--memory-store", str(cut / "m.sqlite")], 8)
    with Ledger.open(cut / "l.db") as ledger:
        (run_id,) = [r.run_id for r in ledger.reader.runs()]
        before = fold_run(run_id, ledger.reader.events(run_id))
    assert before.finished is None and sum(before.ingested.values()) > 0  # killed with preparation under way
    result = runner.invoke(cli, ["--ledger", str(cut / "l.db"), "resume", run_id], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert runner.invoke(cli, ["--ledger", str(cut / "l.db"), "verify", run_id]).exit_code == 0
    with Ledger.open(whole / "l.db") as a, Ledger.open(cut / "l.db") as b:
        (whole_id,) = [r.run_id for r in a.reader.runs()]
        first, resumed = fold_run(whole_id, a.reader.events(whole_id)), fold_run(run_id, b.reader.events(run_id))
    recalled = {qid: [i.doc_id for i in q.recalled.items] for qid, q in first.questions.items() if q.recalled}
    assert recalled and recalled == {qid: [i.doc_id for i in q.recalled.items]
                                     for qid, q in resumed.questions.items() if q.recalled}


def test_retrieval_takes_concurrency_and_records_it(shared_data, tmp_path) -> None:
    result = CliRunner().invoke(cli, [
        "--ledger", str(tmp_path / "l.db"), "retrieval", "locomo", str(shared_data / "locomo/locomo-dev.json"),
        "--conversations", "conv-26", "--question-limit", "2", "--concurrency", "2", "--json"],
        catch_exceptions=False)
    assert result.exit_code == 0, result.output
    with Ledger.open(tmp_path / "l.db") as ledger:
        (run_id,) = [r.run_id for r in ledger.reader.runs()]
        assert fold_run(run_id, ledger.reader.events(run_id)).started.config.settings.concurrency == 2
