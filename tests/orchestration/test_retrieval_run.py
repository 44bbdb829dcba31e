"""A retrieval run on a real ledger and real memory systems; labels never reach the memory.

The leak test uses a recording memory system that keeps every argument it is given. Each adapter
reads a release whose labels (gold, evidence, has_answer, criteria, memory operations) were
replaced by sentinel strings and moved around: no sentinel may reach the memory, and what the
memory received must be identical to what it receives from the unaltered release.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator, Sequence
from datetime import datetime
from pathlib import Path

import pytest
from benchledger.adapters.benchmarks.base import Document
from benchledger.adapters.benchmarks.locomo.loader import load_locomo
from benchledger.adapters.benchmarks.longmemeval.loader import load_longmemeval
from benchledger.adapters.benchmarks.memora.loader import load_memora
from benchledger.adapters.memory.protocol import Candidate, MemorySystem, ScopeState
from benchledger.adapters.memory.registry import open_memory
from benchledger.errors import RunAborted
from benchledger.orchestration.session import run_with
from benchledger.ledger.store import Ledger
from benchledger.projections.retrieval import retrieval_metrics, score_question
from benchledger.settings import RunSettings
from conftest import REPO

FIXTURES = REPO / "tests" / "fixtures"
LME = FIXTURES / "longmemeval" / "longmemeval_fixture.json"


class RecordingMemory:
    """A MemorySystem that stores documents in a dict and records every call, argument by argument."""

    name = "recording"
    version = "1"

    def __init__(self, *, fail_recall_for: str | None = None, drop_documents: bool = False) -> None:
        self.calls: list[tuple[str, object]] = []
        self.scopes: dict[str, dict[str, Document]] = {}
        self.fail_recall_for = fail_recall_for
        self.drop_documents = drop_documents

    def ingest(self, scope: str, documents: Sequence[Document]) -> int:
        self.calls.append(("ingest", (scope, [d.model_dump(mode="json") for d in documents])))
        stored = self.scopes.setdefault(scope, {})
        new = [d for d in documents if d.doc_id not in stored]
        if not self.drop_documents:
            stored.update({d.doc_id: d for d in documents})
        return len(new)

    def build(self, scope: str, batch_size: int = 1000) -> Iterator[list[str]]:
        self.calls.append(("build", (scope, batch_size)))
        yield from ()

    def state(self, scope: str) -> ScopeState:
        self.calls.append(("state", scope))
        return ScopeState(documents=len(self.scopes.get(scope, {})), pending_chunks=0)

    def recall(self, scope: str, query: str, *, asking_user: str | None, k: int,
               token_budget: int | None, question_time: datetime | None = None) -> list[Candidate]:
        self.calls.append(("recall", (scope, query, asking_user, k, token_budget,
                                      question_time.isoformat() if question_time else None)))
        if self.fail_recall_for and self.fail_recall_for in query:
            raise ConnectionError("memory server went away")
        words = set(query.lower().split())
        docs = sorted(self.scopes[scope].values(),
                      key=lambda d: (-len(words & set(d.text.lower().split())), d.position))
        return [Candidate(rank=i, score=1.0 / i, document=d) for i, d in enumerate(docs[:k], 1)]

    def purge(self, scope: str) -> int:
        self.calls.append(("purge", scope))
        return len(self.scopes.pop(scope, {}))

    def close(self) -> None:
        self.calls.append(("close", None))


def test_recording_memory_implements_the_protocol() -> None:
    assert isinstance(RecordingMemory(), MemorySystem)


def run_retrieval(ledger: Ledger, dataset, memory, *, k: int) -> tuple[str, dict]:
    """A retrieval run (the run pipeline in retrieval mode) on a memory object this test holds."""
    settings = RunSettings(mode="retrieval", k=k, memory_store=ledger.path.with_suffix(".memory"))
    run_id = run_with(ledger, dataset, settings, memory)
    return run_id, retrieval_metrics(ledger.reader.events(run_id))


def _received(memory: RecordingMemory) -> str:
    return json.dumps(memory.calls, sort_keys=True)


def _run(tmp_path: Path, dataset, memory) -> tuple[str, dict]:
    with Ledger.open(tmp_path / f"ledger-{len(list(tmp_path.glob('ledger-*.db')))}.db") as ledger:
        return run_retrieval(ledger, dataset, memory, k=5)


# --- the three releases with their labels replaced by sentinels --------------------------------

def _sentinel_longmemeval(tmp_path: Path) -> tuple[Path, list[str]]:
    raw = json.loads(LME.read_text())
    sentinels = []
    for i, item in enumerate(raw):
        item["answer"] = f"GOLD-SENTINEL-{i}"
        sentinels.append(item["answer"])
        # move has_answer to other turns and point the evidence at other sessions
        for session in item["haystack_sessions"]:
            for turn in session:
                turn["has_answer"] = not turn.get("has_answer", False)
        item["answer_session_ids"] = [item["haystack_session_ids"][-1]]
    path = tmp_path / "sentinel" / LME.name  # same stem, so the same subset and scope names
    path.parent.mkdir()
    path.write_text(json.dumps(raw))
    release_ids = [sid for item in raw for sid in item["haystack_session_ids"]]
    return path, sentinels + release_ids + ["has_answer"]


def _sentinel_locomo(shared_data: Path, tmp_path: Path) -> tuple[Path, Path, list[str]]:
    raw = json.loads((shared_data / "locomo" / "locomo-dev.json").read_text())[:1]
    original = tmp_path / "original" / "locomo.json"
    original.parent.mkdir()
    original.write_text(json.dumps(raw))
    sentinels = []
    for i, qa in enumerate(raw[0]["qa"]):
        for field in ("answer", "adversarial_answer"):
            if field in qa:
                qa[field] = f"GOLD-SENTINEL-{i}-{field}"
                sentinels.append(qa[field])
        qa["evidence"] = ["D2:1"] if qa["evidence"] != ["D2:1"] else ["D3:1"]
    altered = tmp_path / "sentinel" / "locomo.json"
    altered.parent.mkdir()
    altered.write_text(json.dumps(raw))
    return original, altered, sentinels + ["adversarial_answer", "evidence"]


def _sentinel_memora(tmp_path: Path) -> tuple[Path, list[str]]:
    root = tmp_path / "memora-sentinel"
    shutil.copytree(FIXTURES / "memora", root)
    sentinels: list[str] = []
    for file in sorted(root.rglob("*.json")):
        raw = json.loads(file.read_text())
        if "conversation" in raw:
            raw["operation"] = "OPERATION-SENTINEL"
            raw["operation_details"] = {"item": f"DETAIL-SENTINEL-{raw['session_id']}"}
            raw["session_type"] = "TYPE-SENTINEL"
            for turn in raw["conversation"]:
                turn["share_memory"] = not turn["share_memory"]
            sentinels += ["OPERATION-SENTINEL", f"DETAIL-SENTINEL-{raw['session_id']}", "TYPE-SENTINEL"]
        else:
            groups = raw["questions"] if isinstance(raw["questions"], list) else [raw["questions"]]
            for group in groups:
                for items in group.values():
                    for item in items:
                        item["memory_evidence"] = {"x": [{"value": "EVIDENCE-SENTINEL", "session_id": 2}]}
                        item["forgetting_evidence"] = {"forgotten_items": [
                            {"value": "FORGOTTEN-SENTINEL", "session_id": 1}]}
                        for c in item["evaluation"]["evaluation_questions"]:
                            c["evaluation_question"] = f"CRITERION-SENTINEL {c['evaluation_question_id']}"
                            sentinels.append(c["evaluation_question"])
            sentinels += ["EVIDENCE-SENTINEL", "FORGOTTEN-SENTINEL", "share_memory"]
        file.write_text(json.dumps(raw))
    return root, sentinels


def _assert_no_leak(tmp_path: Path, original, altered, sentinels: list[str]) -> None:
    assert original.questions != altered.questions  # the labels really differ
    plain, labelled = RecordingMemory(), RecordingMemory()
    _run(tmp_path, original, plain)
    _run(tmp_path, altered, labelled)
    received = _received(labelled)
    assert any(call == "recall" for call, _ in labelled.calls)
    for sentinel in sentinels:
        assert sentinel not in received, sentinel
    for question in altered.questions:
        if question.gold:
            assert question.gold not in received
    assert received == _received(plain)


def test_longmemeval_labels_never_reach_the_memory(tmp_path) -> None:
    path, sentinels = _sentinel_longmemeval(tmp_path)
    _assert_no_leak(tmp_path, load_longmemeval(LME), load_longmemeval(path), sentinels)


def test_locomo_labels_never_reach_the_memory(shared_data, tmp_path) -> None:
    original, altered, sentinels = _sentinel_locomo(shared_data, tmp_path)
    _assert_no_leak(tmp_path, load_locomo(original), load_locomo(altered), sentinels)


def test_memora_labels_never_reach_the_memory(tmp_path) -> None:
    root, sentinels = _sentinel_memora(tmp_path)
    _assert_no_leak(tmp_path, load_memora(FIXTURES / "memora", split="weekly"),
                    load_memora(root, split="weekly"), sentinels)


# --- the run on the ledger ----------------------------------------------------------------------

def test_run_records_every_stage_and_metrics_fold_from_the_events(tmp_path) -> None:
    dataset = load_longmemeval(LME)
    memory = open_memory("sqlite", tmp_path / "memory.sqlite")
    with Ledger.open(tmp_path / "ledger.db") as ledger:
        try:
            run_id, metrics = run_retrieval(ledger, dataset, memory, k=2)
        finally:
            memory.close()
        stored = ledger.reader.events(run_id)
        types = [s.event.type for s in stored]
        assert types[:3] == ["RunStarted", "QuestionsPlanned", "CorpusFingerprinted"]
        assert types[-1] == "RunFinished" and stored[-1].event.status == "completed"
        for kind in ("MessagesIngested", "ChunkExtracted", "ScopeVerified", "ScopePurged"):
            assert kind in types
        assert types.count("ContextRecalled") == 3
        config = stored[0].event.config
        assert (config.agent_model, config.judge_model, config.settings.protocol) == ("none", "none", None)
        assert config.offline_models and config.settings.k == 2
        assert config.settings.mode == "retrieval" and config.evidence_level == "session"
        planned = {q.question_id: q for q in stored[1].event.questions}
        assert planned["lme-fx-02"].evidence == ("session_0", "session_2")
        assert ledger.reader.verify(run_id).ok
        recalls = [s.event for s in stored if s.event.type == "ContextRecalled"]
        assert all(ledger.reader.get_blob(r.context_hash) for r in recalls)
        # the metrics equal a fold of the stored events, and a hand recomputation from them
        assert metrics == retrieval_metrics(ledger.reader.events(run_id))
        by_question = {r.question_id: r for r in recalls}
        expected = [score_question(planned[qid].evidence, [i.channel for i in r.items], 2)
                    for qid, r in by_question.items()]
        assert metrics["recall"] == pytest.approx(sum(e.recall for e in expected) / 3)
        assert metrics["n"] == 3 and metrics["evidence_level"] == "session"
        # re-scoring at a smaller k needs no memory; a larger k is refused
        assert retrieval_metrics(stored, k=1)["k"] == 1
        with pytest.raises(ValueError, match="k=3"):
            retrieval_metrics(stored, k=3)


def test_a_failed_recall_is_recorded_and_not_scored(tmp_path) -> None:
    memory = RecordingMemory(fail_recall_for="half marathons")
    with Ledger.open(tmp_path / "ledger.db") as ledger:
        run_id, metrics = run_retrieval(ledger, load_longmemeval(LME), memory, k=5)
        failed = [s.event for s in ledger.reader.events(run_id) if s.event.type == "Failed"]
    assert [(f.stage, f.question_id, f.error_class) for f in failed] == [
        ("recall", "lme-fx-02", "ConnectionError")]
    assert metrics["not_recalled"] == 1 and metrics["n"] == 2


def test_a_memory_that_loses_documents_aborts_before_any_recall(tmp_path) -> None:
    memory = RecordingMemory(drop_documents=True)
    with Ledger.open(tmp_path / "ledger.db") as ledger:
        with pytest.raises(RunAborted) as err:
            run_retrieval(ledger, load_longmemeval(LME), memory, k=5)
        events = [s.event for s in ledger.reader.events(err.value.run_id)]
    assert not any(call == "recall" for call, _ in memory.calls)
    assert events[-1].type == "RunFinished" and events[-1].status == "aborted"
    assert any(e.type == "Failed" and e.stage == "verify" for e in events)


def test_bm25_reference_reproduces_the_locomo_baseline(shared_data, tmp_path) -> None:
    dataset = load_locomo(shared_data / "locomo" / "locomo-dev.json")
    memory = open_memory("bm25-reference", tmp_path / "bm25.sqlite")
    with Ledger.open(tmp_path / "ledger.db") as ledger:
        try:
            _, metrics = run_retrieval(ledger, dataset, memory, k=10)
        finally:
            memory.close()
    assert metrics["n"] == 1345 and metrics["excluded"] == 2
    assert 0.48 < metrics["recall"] < 0.54  # the expected BM25 recall@10 on LoCoMo is about 0.51
    assert metrics["by_category"]["multi_hop"]["recall"] < metrics["by_category"]["single_hop"]["recall"]


def test_a_locomo_selection_is_recorded_so_the_dataset_can_be_reloaded(shared_data, tmp_path) -> None:
    from benchledger.adapters.benchmarks.registry import benchmark_named

    path = shared_data / "locomo" / "locomo-dev.json"
    dataset = load_locomo(path, categories=["temporal"], question_limit=4, conversation_ids=["conv-30"])
    with Ledger.open(tmp_path / "ledger.db") as ledger:
        run_id, _ = run_retrieval(ledger, dataset, RecordingMemory(), k=3)
        config = ledger.reader.events(run_id)[0].event.config
    assert config.selection.kinds == ("temporal",)
    assert benchmark_named("locomo").selection_of(config.selection).conversation_ids == ("conv-30",)
    reloaded = benchmark_named(config.benchmark).load(Path(config.corpus_path), config.selection)
    assert reloaded.fingerprint == dataset.fingerprint
    assert reloaded.questions == dataset.questions
