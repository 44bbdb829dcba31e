"""The registry finds memory systems by entry point, built-in and third-party alike."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from benchledger.adapters.memory.bm25_reference import BM25ReferenceMemory
from benchledger.adapters.memory.registry import GROUP, available_memories, open_memory
from benchledger.adapters.memory.sqlite_fts import SqliteMemory
from benchledger.cli.main import cli
from benchledger.errors import BadInput
from benchledger.testing.memory_contract import SCOPE, contract_corpus

_PLUGIN = '''
from pathlib import Path
from benchledger.adapters.memory.sqlite_fts import SqliteMemory

class EchoMemory(SqliteMemory):
    name = "echo"
    version = "0.3.1"

    def __init__(self, store_path: Path, *, flavour: str = "plain") -> None:
        super().__init__(store_path)
        self.flavour = flavour
'''


@pytest.fixture
def third_party(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An installed third-party distribution on sys.path: a module and its dist-info."""
    site = tmp_path / "site"
    (site / "echo_memory_plugin.dist-info").mkdir(parents=True)
    (site / "echo_memory_plugin.py").write_text(_PLUGIN)
    (site / "echo_memory_plugin.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: echo-memory-plugin\nVersion: 0.3.1\n"
    )
    (site / "echo_memory_plugin.dist-info" / "entry_points.txt").write_text(textwrap.dedent(f"""
        [{GROUP}]
        echo = echo_memory_plugin:EchoMemory
        broken = echo_memory_plugin_missing:Nothing
    """))
    monkeypatch.syspath_prepend(str(site))
    return site


def test_built_ins_come_from_benchledger_entry_points() -> None:
    infos = available_memories()
    for name, cls in (("sqlite", SqliteMemory), ("bm25-reference", BM25ReferenceMemory)):
        info = infos[name]
        assert info.version == cls.version
        assert info.module == f"{cls.__module__}:{cls.__name__}"
        assert info.distribution.startswith("benchledger ")
        assert info.error is None


def test_open_memory_returns_a_working_system(tmp_path: Path) -> None:
    memory = open_memory("sqlite", tmp_path / "store.db")
    try:
        assert isinstance(memory, SqliteMemory)
        assert memory.ingest(SCOPE, contract_corpus()) == len(contract_corpus())
    finally:
        memory.close()


def test_an_unknown_name_lists_the_installed_ones(tmp_path: Path) -> None:
    with pytest.raises(BadInput) as err:
        open_memory("nope", tmp_path / "store.db")
    assert err.value.field == "memory"
    assert "unknown memory system 'nope'" in str(err.value)
    assert "bm25-reference" in str(err.value) and "sqlite" in str(err.value)
    assert not (tmp_path / "store.db").exists()


def test_options_a_system_does_not_take_are_bad_input(tmp_path: Path) -> None:
    with pytest.raises(BadInput, match="does not take options"):
        open_memory("sqlite", tmp_path / "store.db", colour="blue")


def test_a_third_party_plugin_registers_the_same_way(third_party: Path, tmp_path: Path) -> None:
    infos = available_memories()
    assert infos["echo"].version == "0.3.1"
    assert infos["echo"].distribution == "echo-memory-plugin 0.3.1"
    assert infos["broken"].version is None
    assert "ModuleNotFoundError" in infos["broken"].error
    memory = open_memory("echo", tmp_path / "echo.db", flavour="spicy")
    try:
        assert (memory.name, memory.flavour) == ("echo", "spicy")
    finally:
        memory.close()
    with pytest.raises(BadInput, match="'broken'.*cannot be loaded"):
        open_memory("broken", tmp_path / "broken.db")


def test_memories_command_lists_systems_with_versions_and_origin(third_party: Path) -> None:
    runner = CliRunner()
    as_json = runner.invoke(cli, ["memories", "--json"], catch_exceptions=False)
    assert as_json.exit_code == 0
    listed = {item["name"]: item for item in json.loads(as_json.output)}
    assert listed["sqlite"]["version"] == SqliteMemory.version
    assert listed["echo"]["distribution"] == "echo-memory-plugin 0.3.1"
    assert listed["broken"]["error"]
    text = runner.invoke(cli, ["memories"], catch_exceptions=False, env={"COLUMNS": "0"})  # whole rows
    assert text.exit_code == 0
    line = next(row for row in text.output.splitlines() if row.startswith("echo "))
    assert "0.3.1" in line and "echo_memory_plugin:EchoMemory" in line and "ok" in line
    assert "cannot load" in next(row for row in text.output.splitlines() if row.startswith("broken"))


def test_a_memory_declares_how_compare_draws_it(third_party: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Floors and ceilings are the memory classes' own declarations (`comparison_role`), read through the
    registry: no lower layer names them."""
    from benchledger.adapters.memory.registry import comparison_role, load_memory_class

    assert comparison_role("full-context") == "floor" and comparison_role("oracle") == "ceiling"
    assert comparison_role("sqlite") == "system" and comparison_role("echo") == "system"
    assert comparison_role("not-installed-here") == "system"
    monkeypatch.setattr(load_memory_class("echo"), "comparison_role", "floor", raising=False)
    assert comparison_role("echo") == "floor"  # a plug-in that declares itself a floor is drawn as one
    monkeypatch.setattr(load_memory_class("echo"), "comparison_role", "best", raising=False)
    assert comparison_role("echo") == "system"  # anything else is a system
