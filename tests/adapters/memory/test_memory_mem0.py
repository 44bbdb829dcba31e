"""mem0 (the `benchledger[mem0]` extra) passes the whole memory contract offline, with and without
inference, through the loopback endpoint benchledger starts for it; its stores live per scope
under the evaluation store and go with a purge."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchledger.adapters.memory.registry import available_memories, open_memory
from benchledger.errors import BadInput
from benchledger.testing.memory_contract import SCOPE, MemoryContract, contract_corpus

from conftest import requires_extra

pytestmark = requires_extra("mem0", "mem0")


def test_mem0_is_registered_and_loads() -> None:
    info = available_memories()["mem0"]
    assert info.error is None and info.version == "2.2.1"


class TestMem0WithoutInference(MemoryContract):
    @pytest.fixture
    def memory_factory(self):
        return lambda store_path: open_memory("mem0", store_path, infer="false")


class TestMem0WithInference(MemoryContract):
    @pytest.fixture
    def memory_factory(self):
        return lambda store_path: open_memory("mem0", store_path, infer="true", granularity="2")


def test_inferred_facts_name_the_documents_of_their_extraction_call(tmp_path: Path) -> None:
    memory = open_memory("mem0", tmp_path / "m.sqlite", infer="true", granularity="session")
    try:
        corpus = contract_corpus()
        memory.ingest(SCOPE, corpus)
        list(memory.build(SCOPE))
        got = memory.recall(SCOPE, corpus[4].text, asking_user=None, k=3, token_budget=None)
        assert got[0].kind == "fact" and got[0].text == corpus[4].text
        assert got[0].sources == (corpus[4].doc_id,)  # each channel change starts a new call
        assert memory.model == "loopback:gpt-4.1-nano"
    finally:
        memory.close()


def test_a_purge_removes_the_scopes_own_store(tmp_path: Path) -> None:
    memory = open_memory("mem0", tmp_path / "m.sqlite")
    try:
        memory.ingest(SCOPE, contract_corpus())
        list(memory.build(SCOPE))
        folders = list((tmp_path / "m.mem0").iterdir())
        assert [f for f in folders if not f.name.startswith(".")]
        memory.purge(SCOPE)
        assert not [f for f in (tmp_path / "m.mem0").iterdir() if not f.name.startswith(".")]
    finally:
        memory.close()


@pytest.mark.parametrize("options, field", [({"infer": "maybe"}, "infer"), ({"granularity": "0"}, "granularity"),
                                            ({"embedding_dims": "x"}, "embedding_dims")])
def test_bad_options_are_refused_naming_the_field(tmp_path: Path, options: dict, field: str) -> None:
    with pytest.raises(BadInput) as caught:
        open_memory("mem0", tmp_path / "m.sqlite", **options)
    assert caught.value.field == field


def test_a_run_records_mem0s_options_and_model_and_the_scorecard_shows_them(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from benchledger.cli.main import cli
    from conftest import REPO

    ledger = tmp_path / "l.db"
    result = CliRunner().invoke(cli, [
        "--ledger", str(ledger), "run", "groupmem", str(REPO / "examples" / "groupmem-mini"), "--domain", "Demo",
        "--question-limit", "2", "--memory", "mem0", "--memory-option", "infer=true",
        "--memory-option", "granularity=session"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "memory options granularity=session  infer=true  memory model loopback:gpt-4.1-nano" in result.output
    bad = CliRunner().invoke(cli, ["--ledger", str(tmp_path / "b.db"), "run", "groupmem",
                                   str(REPO / "examples" / "groupmem-mini"), "--domain", "Demo", "--memory", "mem0",
                                   "--memory-option", "infer"], catch_exceptions=False)
    assert bad.exit_code == 2 and "--memory-option takes KEY=VALUE" in bad.output
