"""The floor and the ceiling: `full-context` (the newest history within the budget) and `oracle`
(only the gold evidence, always diagnostic), through real runs on real ledgers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchledger.adapters.benchmarks.locomo.loader import load_locomo
from benchledger.adapters.memory.protocol import estimate_tokens
from benchledger.adapters.memory.oracle import EvidenceLabels, OracleMemory
from benchledger.adapters.memory.registry import open_memory
from benchledger.ledger.store import Ledger
from benchledger.projections.state import fold_run
from benchledger.testing.memory_contract import SCOPE, contract_corpus
from conftest import REPO
from ledger_cli import invoke_expecting as invoke

LME = REPO / "tests" / "fixtures" / "longmemeval" / "longmemeval_fixture.json"


def _recalls(ledger_path: Path, run_id: str):
    with Ledger.open(ledger_path, create=False) as ledger:
        return fold_run(run_id, ledger.reader.events(run_id))


def test_full_context_is_the_newest_history_within_the_budget(shared_data, tmp_path) -> None:
    from benchledger.orchestration.session import run_dataset
    from benchledger.settings import RunSettings

    dataset = load_locomo(shared_data / "locomo" / "locomo-dev.json", conversation_ids=["conv-26"], question_limit=5)
    budget = 2000
    settings = RunSettings(mode="retrieval", memory="full-context", k=100000, token_budget=budget,
                           memory_store=tmp_path / "fc.memory")
    with Ledger.open(tmp_path / "l.db") as ledger:
        state = fold_run(run_id := run_dataset(ledger, dataset, settings), ledger.reader.events(run_id))
    (documents,) = dataset.scopes.values()
    windows = {tuple(i.doc_id for i in sorted(q.recalled.items, key=lambda i: i.rank))
               for q in state.questions.values()}
    assert len(windows) == 1  # the question is not read
    (window,) = windows
    ids = [doc.doc_id for doc in documents]
    start = len(ids) - len(window)
    assert 0 < start and list(window) == ids[start:]  # a suffix of the history: newest last
    kept = sum(estimate_tokens(doc.text) for doc in documents[start:])
    assert kept <= budget < kept + estimate_tokens(documents[start - 1].text)


def test_the_oracle_recalls_only_the_labelled_evidence_and_says_it_is_diagnostic(shared_data, tmp_path) -> None:
    path = shared_data / "locomo" / "locomo-dev.json"
    ledger_path = tmp_path / "l.db"
    printed = invoke("--ledger", str(ledger_path), "retrieval", "locomo", str(path), "--memory", "oracle",
                     "--conversations", "conv-26", "--question-limit", "30").stdout
    assert "DIAGNOSTIC: the oracle reads the evidence labels" in printed
    data = json.loads(invoke("--ledger", str(ledger_path), "show", "latest", "--json").stdout)
    state = _recalls(ledger_path, data["run_id"])
    recalled_some = 0
    for question in state.questions.values():
        named = {i.doc_id for i in question.recalled.items}
        assert named <= set(question.planned.evidence)
        recalled_some += bool(named)
    assert recalled_some >= 25 and data["recall"] > 0.95  # LoCoMo cites a few evidence ids it never released
    shown = invoke("--ledger", str(ledger_path), "show", data["run_id"]).output
    assert "the oracle reads the evidence labels" in shown


def test_the_oracle_at_session_level_returns_the_evidence_sessions(tmp_path) -> None:
    ledger_path = tmp_path / "l.db"
    data = json.loads(invoke("--ledger", str(ledger_path), "retrieval", "longmemeval", str(LME), "--memory",
                             "oracle", "--k", "1000", "--json").stdout)
    state = _recalls(ledger_path, data["run_id"])
    for question in state.questions.values():
        channels = {i.channel for i in question.recalled.items}
        assert channels == set(question.planned.evidence)
    assert data["recall"] == 1.0 and data["evidence_level"] == "session"


def test_other_systems_are_never_handed_labels(tmp_path) -> None:
    from benchledger.adapters.benchmarks.longmemeval.loader import load_longmemeval
    from benchledger.orchestration.session import open_run_memory
    from benchledger.settings import RunSettings

    dataset = load_longmemeval(LME)
    oracle = open_run_memory(RunSettings(memory="oracle", memory_store=tmp_path / "o.memory"), dataset)
    plain = open_run_memory(RunSettings(memory="sqlite", memory_store=tmp_path / "s.memory"), dataset)
    try:
        assert isinstance(oracle, OracleMemory) and oracle.labels.by_scope
        assert not hasattr(plain, "labels")
    finally:
        oracle.close()
        plain.close()


def test_an_oracle_without_labels_recalls_nothing_and_packs_to_the_budget(tmp_path) -> None:
    corpus = contract_corpus()
    query = "What is the budget cap?"
    labels = EvidenceLabels.of("document", [(SCOPE, query, ["Msg_4", "Msg_1"])])
    memory = open_memory("oracle", tmp_path / "o.memory", labels=labels)
    try:
        memory.ingest(SCOPE, corpus)
        list(memory.build(SCOPE))
        got = memory.recall(SCOPE, query, asking_user=None, k=10, token_budget=None)
        assert [c.sources for c in got] == [("Msg_1",), ("Msg_4",)]  # canonical order
        tight = memory.recall(SCOPE, query, asking_user=None, k=10, token_budget=estimate_tokens(corpus[1].text))
        assert [c.sources for c in tight] == [("Msg_1",)]
        assert memory.recall(SCOPE, "another question", asking_user=None, k=10, token_budget=None) == []
        assert memory.recall("benchmark:other:x:0", query, asking_user=None, k=10, token_budget=None) == []
    finally:
        memory.close()


@pytest.mark.parametrize("memory", ["full-context", "oracle"])
def test_the_floors_are_listed_by_memories(memory: str) -> None:
    assert memory in invoke("memories").output


def test_the_oracle_refuses_a_benchmark_that_labels_no_evidence(tmp_path) -> None:
    from conftest import REPO

    result = invoke("--ledger", str(tmp_path / "l.db"), "run", "groupmem", str(REPO / "examples" / "groupmem-mini"),
                    "--domain", "Demo", "--memory", "oracle", expect=2)
    assert "labels no evidence" in result.output and len(result.output.strip().splitlines()) == 1


def test_retrieval_takes_a_token_budget_so_the_full_context_floor_is_measured_by_it(shared_data, tmp_path) -> None:
    path = str(shared_data / "locomo" / "locomo-dev.json")
    common = ("retrieval", "locomo", path, "--memory", "full-context", "--conversations", "conv-26",
              "--question-limit", "20", "--k", "100000", "--json")
    small = json.loads(invoke("--ledger", str(tmp_path / "a.db"), *common, "--token-budget", "500").stdout)
    large = json.loads(invoke("--ledger", str(tmp_path / "b.db"), *common, "--token-budget", "20000").stdout)
    assert small["recall"] < large["recall"]  # more history in the budget, more evidence in it
    with Ledger.open(tmp_path / "a.db", create=False) as ledger:
        state = fold_run(small["run_id"], ledger.reader.events(small["run_id"]))
    assert state.started.config.settings.token_budget == 500
    assert all(q.recalled.token_budget == 500 for q in state.questions.values())
