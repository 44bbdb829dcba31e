"""One loader, one rule for plugins: loaded once, and a name two distributions register is refused.

Two distributions are written as `pip install` leaves them (tests/plugin_dist.py), both registering
the same memory name and the same benchmark command. Both are listed with their distributions; the
bare name is refused with one line (exit 2) naming both; the qualified `NAME@DISTRIBUTION` chooses one.
A name registered once is still asked for plainly, and an installed benchmark is made once.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from benchledger.adapters.benchmarks.registry import ENTRY_POINT_GROUP, available_benchmarks, benchmark_named
from benchledger.adapters.memory.registry import GROUP, available_memories, open_memory
from benchledger.cli.main import cli
from benchledger.errors import BadInput
from conftest import MINI, REPO
from ledger_cli import invoke
from plugin_dist import write_distribution

LME = REPO / "tests" / "fixtures" / "longmemeval" / "longmemeval_fixture.json"

_ECHO = '''
from benchledger.adapters.memory.sqlite_fts import SqliteMemory

class EchoMemory(SqliteMemory):
    name = "echo"
    version = "{version}"
'''

_BENCH = '''
from benchledger.adapters.benchmarks.registry import Benchmark

class Twin(Benchmark):
    name = "Twin{suffix}"
    command = "twin"
    summary = "the same command from {suffix}"
    kind = "answer"

    def load(self, source, selection):
        raise NotImplementedError
'''


def _two_distributions(site: Path) -> Path:
    for suffix, version in (("a", "1.0"), ("b", "2.0")):
        write_distribution(site / suffix, name=f"echo-{suffix}", version=version, module=f"echo_{suffix}",
                           source=_ECHO.format(version=version), group=GROUP, entry=f"echo = echo_{suffix}:EchoMemory")
        write_distribution(site / f"bench_{suffix}", name=f"twin-{suffix}", version=version, module=f"twin_{suffix}",
                           source=_BENCH.format(suffix=suffix), group=ENTRY_POINT_GROUP,
                           entry=f"twin = twin_{suffix}:Twin")
    return site


@pytest.fixture
def twins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    site = _two_distributions(tmp_path / "site")
    for folder in sorted(site.iterdir()):
        monkeypatch.syspath_prepend(str(folder))
    yield site
    for module in ("echo_a", "echo_b", "twin_a", "twin_b"):
        sys.modules.pop(module, None)


def test_an_installed_benchmark_is_made_once_not_per_lookup() -> None:
    assert benchmark_named("groupmem") is benchmark_named("GroupMemBench")
    assert benchmark_named("groupmem") is next(e.loaded for e in available_benchmarks() if e.name == "groupmem")


def test_a_shared_memory_name_is_listed_with_both_distributions(twins: Path) -> None:
    listed = CliRunner().invoke(cli, ["memories", "--json"], catch_exceptions=False)
    assert listed.exit_code == 0
    rows = {item["name"]: item for item in json.loads(listed.output)}
    assert "echo" not in rows
    assert (rows["echo@echo-a"]["distribution"], rows["echo@echo-b"]["distribution"]) == ("echo-a 1.0", "echo-b 2.0")
    assert rows["sqlite"]["distribution"].startswith("benchledger ")  # a name registered once stays plain


def test_the_bare_shared_name_is_refused_until_one_is_chosen(twins: Path, tmp_path: Path) -> None:
    with pytest.raises(BadInput) as err:
        open_memory("echo", tmp_path / "m.db")
    assert err.value.field == "memory"
    assert "echo-a 1.0" in str(err.value) and "echo-b 2.0" in str(err.value)
    assert "echo@echo-a or echo@echo-b" in str(err.value)
    assert not (tmp_path / "m.db").exists()
    chosen = open_memory("echo@echo-b", tmp_path / "m.db")
    try:
        assert type(chosen).__module__ == "echo_b" and chosen.version == "2.0"
    finally:
        chosen.close()
    assert available_memories()["echo@echo-a"].version == "1.0"


@pytest.mark.parametrize("name", ["echo", "nope"])
def test_a_run_naming_a_shared_or_unknown_memory_writes_nothing(twins: Path, tmp_path: Path, name: str) -> None:
    result = invoke("run", "groupmem", str(MINI), "--domain", "Demo", "--memory", name)
    assert result.exit_code == 2 and "--memory" in result.output
    assert ("echo@echo-a or echo@echo-b" in result.output) == (name == "echo")
    assert not Path("ledger.db").exists() and not Path("ledger.memory").exists()
    recall = invoke("retrieval", "longmemeval", str(LME), "--memory", name)
    assert recall.exit_code == 2 and "--memory" in recall.output
    assert not Path("ledger.db").exists() and not Path("ledger.memory").exists()
    chosen = invoke("run", "groupmem", str(MINI), "--domain", "Demo", "--memory", "echo@echo-a",
                    "--question-limit", "1")
    assert chosen.exit_code == 0, chosen.output
    assert Path("ledger.db").exists()


def test_a_shared_benchmark_command_is_refused_by_the_library(twins: Path) -> None:
    with pytest.raises(BadInput, match="'twin' is registered 2 times.*twin@twin-a or twin@twin-b"):
        benchmark_named("twin")
    assert benchmark_named("twin@twin-b").name == "Twinb"
    assert benchmark_named("Twina").name == "Twina"  # its own name is not shared


def test_a_fresh_interpreter_lists_both_and_refuses_the_bare_command(tmp_path: Path) -> None:
    site = _two_distributions(tmp_path / "installed")
    path = [str(folder) for folder in sorted(site.iterdir())]
    env = {**os.environ, "COLUMNS": "0", "PYTHONPATH": os.pathsep.join([*path, os.environ.get("PYTHONPATH", "")])}

    def benchledger(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "benchledger.cli.main", "--ledger", str(tmp_path / "l.db"), *args],
                              cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)

    listed = benchledger("benchmarks")
    assert listed.returncode == 0, listed.stderr
    rows = [line for line in listed.stdout.splitlines() if line.startswith("twin")]
    assert [row.split()[0] for row in rows] == ["twin@twin-a", "twin@twin-b"]
    assert "twin-a 1.0" in rows[0] and "twin-b 2.0" in rows[1]
    refused = benchledger("run", "twin", "notes.json", "--question-limit", "2")
    assert refused.returncode == 2
    assert len(refused.stderr.strip().splitlines()) == 1 and "twin@twin-a or twin@twin-b" in refused.stderr
    assert not (tmp_path / "l.db").exists()
    chosen = benchledger("run", "twin@twin-b", "--help")
    assert chosen.returncode == 0 and "the same command from b" in chosen.stdout
