"""A third-party memory system installed as a Python entry point, end to end.

The test writes a tiny distribution (a module and its `*.dist-info` with `entry_points.txt`)
registering `toy-memory` under `benchledger.memory`, puts it on `sys.path` (or PYTHONPATH for a
subprocess), and shows it is listed by `benchledger memories`, passes the shared contract, and
completes a run: no edit to benchledger, exactly what a plugin author ships.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from benchledger.adapters.memory.registry import GROUP, available_memories, open_memory
from benchledger.cli.main import cli
from conftest import MINI
from benchledger.ledger.store import Ledger
from benchledger.testing.memory_contract import MemoryContract
from plugin_dist import write_distribution


_TOY = '''
"""toy-memory: ranks by distinct words shared with the question and the asker, on benchledger's store helpers."""
import re
from pathlib import Path

from benchledger.adapters.benchmarks.base import Document
from benchledger.adapters.memory.documents import DocumentTable, pack_candidates
from benchledger.adapters.memory.evalstore import open_eval_store, purge_scope, transaction
from benchledger.adapters.memory.protocol import ScopeState

_WORD = re.compile(r"\\w+")


def words(text):
    return {w.lower() for w in _WORD.findall(text)}


class ToyMemory:
    name = "toy-memory"
    version = "0.2.0"

    def __init__(self, store_path: Path) -> None:
        self._conn = open_eval_store(store_path)
        self._docs = DocumentTable(self._conn, "toy_documents")

    def ingest(self, scope, documents):
        return self._docs.insert(scope, documents)

    def build(self, scope, batch_size=1000):
        while True:
            with transaction(self._conn):
                batch = self._docs.pending(scope, batch_size)
                if not batch:
                    return
                self._docs.mark_built(row_id for row_id, _, _ in batch)
            yield [doc_id for _, doc_id, _ in batch]

    def state(self, scope):
        documents, pending = self._docs.counts(scope)
        return ScopeState(documents=documents, pending_chunks=pending)

    def recall(self, scope, query, *, asking_user, k, token_budget, question_time=None):
        wanted = words(f"{query} {asking_user or ''}")
        rows = self._conn.execute(
            "SELECT body FROM toy_documents WHERE scope = ? AND pending = 0 ORDER BY position, id", (scope,))
        scored = []
        for (body,) in rows:
            doc = Document.model_validate_json(body)
            overlap = len(wanted & words(doc.text))
            if overlap:
                scored.append((float(overlap), doc))
        scored.sort(key=lambda pair: -pair[0])  # stable: ties keep position order
        return pack_candidates(scored[:k], k=k, token_budget=token_budget)

    def purge(self, scope):
        return purge_scope(self._conn, scope, tables=["toy_documents"])

    def close(self):
        self._conn.close()
'''


def write_toy_distribution(site: Path) -> Path:
    """What `pip install toy-memory` would leave in site-packages."""
    return write_distribution(site, name="toy-memory", version="0.2.0", module="toy_memory", source=_TOY,
                              group=GROUP, entry="toy-memory = toy_memory:ToyMemory")


@pytest.fixture
def toy_site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    site = write_toy_distribution(tmp_path / "site")
    monkeypatch.syspath_prepend(str(site))
    yield site
    sys.modules.pop("toy_memory", None)


@pytest.fixture
def memory_factory(toy_site: Path):
    return lambda store_path: open_memory("toy-memory", store_path)


class TestToyPluginContract(MemoryContract):
    """A plugin author runs the same contract as the built-ins."""


def test_memories_lists_the_plugin_with_its_distribution(toy_site: Path) -> None:
    listed = CliRunner().invoke(cli, ["memories", "--json"], catch_exceptions=False)
    assert listed.exit_code == 0
    toy = {item["name"]: item for item in json.loads(listed.output)}["toy-memory"]
    assert toy == {"name": "toy-memory", "version": "0.2.0", "module": "toy_memory:ToyMemory",
                   "distribution": "toy-memory 0.2.0", "error": None}


def test_the_plugin_completes_a_run_in_process(toy_site: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["run", "groupmem", str(MINI), "--domain", "Demo", "--memory", "toy-memory",
                                      "--out", "r.json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "memory toy-memory 0.2.0" in result.output
    report = json.loads(Path("r.json").read_text())
    assert report["failed"] == 0 and report["pending"] == 0 and report["total"] > 0
    with Ledger.open(tmp_path / "ledger.db") as ledger:
        events = ledger.reader.events(report["run_id"])
    config = events[0].event.config
    assert (config.memory, config.memory_version) == ("toy-memory", "0.2.0")
    recalled = [e.event for e in events if e.type == "ContextRecalled"]
    assert len(recalled) == report["total"] and any(r.items for r in recalled)
    assert [e.type for e in events][-2:] == ["ScopePurged", "RunFinished"]


def test_a_fresh_interpreter_finds_the_plugin_on_pythonpath(tmp_path: Path) -> None:
    site = write_toy_distribution(tmp_path / "installed")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}

    def benchledger(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "benchledger.cli.main", *args], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=300)

    listed = benchledger("memories")
    assert listed.returncode == 0, listed.stderr
    row = next(line for line in listed.stdout.splitlines() if line.startswith("toy-memory "))
    assert "0.2.0" in row and "toy-memory 0.2.0" in row and row.rstrip().endswith("ok")
    ran = benchledger("run", "groupmem", str(MINI), "--domain", "Demo", "--memory", "toy-memory",
                      "--question-limit", "2", "--out", "r.json")
    assert ran.returncode == 0, ran.stderr
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["failed"] == 0 and report["total"] == 12  # 2 questions of each of the 6 kinds
    assert "toy-memory" not in available_memories()  # this interpreter never saw that path
