"""Run the benchmark contract over every benchmark the registry lists, and over a throwaway one.

The list comes from the `benchledger.benchmarks` entry points: a benchmark added there (in the box
or by a plug-in) is covered without touching the contract, and `test_every_registered_benchmark_has_a
_contract_release` fails until this file says which small release its offline run reads (the
shipped demo, a synthetic release its own generator writes, a fixture in `tests/fixtures`, or the
shared data). The toy benchmark of `test_benchmark_plugin.py`, installed only as a distribution
with an entry point, passes the same contract with no file of benchledger touched.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from benchledger.adapters.benchmarks.longmemeval_v2.synth import synthesize_longmemeval_v2
from benchledger.adapters.benchmarks.mem2actbench.synth import synthesize_mem2actbench
from benchledger.adapters.benchmarks.registry import available_benchmarks, benchmark_named
from benchledger.testing.benchmark_contract import BenchmarkContract
from conftest import MINI, REPO, missing_shared_data_reason, shared_data_dir
from test_benchmark_plugin import _NOTES, toy_site  # noqa: F401  (the toy installed: a fixture)

Release = tuple[Path, dict[str, Any]]


def _locomo(tmp: Path) -> Release:
    data = shared_data_dir()
    if data is None:
        pytest.skip(missing_shared_data_reason())
    return data / "locomo" / "locomo-dev.json", {"question_limit": 12}


def _longmemeval_v2(tmp: Path) -> Release:
    synthesize_longmemeval_v2(tmp / "lme2", trajectories=2, questions=6, states=4)
    return tmp / "lme2", {"domain": "web"}


def _mem2actbench(tmp: Path) -> Release:
    synthesize_mem2actbench(tmp / "m2a", tasks=8)
    return tmp / "m2a", {}


RELEASES: dict[str, Callable[[Path], Release]] = {
    "groupmem": lambda tmp: (MINI, {"domain": "Demo"}),
    "locomo": _locomo,
    "longmemeval": lambda tmp: (REPO / "tests" / "fixtures" / "longmemeval" / "longmemeval_fixture.json", {}),
    "memora": lambda tmp: (REPO / "tests" / "fixtures" / "memora", {"split": "weekly"}),
    "longmemeval-v2": _longmemeval_v2,
    "mem2actbench": _mem2actbench,
}
NEEDS_TEMPLATES = {"longmemeval": "longmemeval", "memora": "memora", "longmemeval-v2": "longmemeval-v2"}
"""Benchmarks whose default (official) protocol reads templates, and their shared-data folder."""
REGISTERED = sorted(entry.loaded.command for entry in available_benchmarks() if entry.loaded is not None)


@pytest.mark.parametrize("command", REGISTERED)
def test_every_registered_benchmark_has_a_contract_release(command: str) -> None:
    assert command in RELEASES, f"say in RELEASES which small release the contract runs {command} on"


class TestEveryRegisteredBenchmark(BenchmarkContract):
    """The whole contract, once per registered benchmark."""

    @pytest.fixture(params=REGISTERED)
    def benchmark(self, request):
        return benchmark_named(request.param)

    @pytest.fixture
    def contract_release(self, benchmark, tmp_path: Path) -> Release:
        return RELEASES[benchmark.command](tmp_path)

    @pytest.fixture
    def docs_root(self) -> Path:
        return REPO

    @pytest.fixture
    def contract_settings(self, benchmark) -> dict[str, Any]:
        """The official templates from the shared data where the default protocol needs them (the
        typed protocol, which needs none, on a fresh clone)."""
        if benchmark.command not in NEEDS_TEMPLATES:
            return {}
        data = shared_data_dir()
        if data is None:
            return {"protocol": "typed"}
        return {"prompts_dir": data / NEEDS_TEMPLATES[benchmark.command] / "prompts"}


class TestAThrowawayBenchmarkFromAnEntryPoint(BenchmarkContract):
    """A benchmark no file of benchledger names, installed as a distribution: the same contract."""

    @pytest.fixture
    def benchmark(self, toy_site):
        toy = benchmark_named("toy")
        assert type(toy).__module__ == "toy_bench"
        return toy

    @pytest.fixture
    def contract_release(self, tmp_path: Path) -> Release:
        notes = tmp_path / "notes.json"
        notes.write_text(json.dumps(_NOTES))
        return notes, {"team": "all"}


def test_the_contract_fails_a_benchmark_that_leaves_a_part_out(toy_site, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    toy, contract = benchmark_named("toy"), BenchmarkContract()
    notes = tmp_path / "notes.json"
    notes.write_text(json.dumps(_NOTES))
    contract.test_its_docs_page_is_declared_and_exists(toy, None)
    monkeypatch.setattr(type(toy), "docs_page", "docs/toy.md")
    with pytest.raises(AssertionError, match="docs page docs/toy.md is missing"):
        contract.test_its_docs_page_is_declared_and_exists(toy, tmp_path)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "toy.md").write_text("# ToyBench\n")
    contract.test_its_docs_page_is_declared_and_exists(toy, tmp_path)
    monkeypatch.setattr(type(toy), "docs_page", None)
    with pytest.raises(AssertionError, match="declares no docs_page"):
        contract.test_its_docs_page_is_declared_and_exists(toy, None)
    monkeypatch.setattr(type(toy), "kinds", ("recall",))  # the release also asks "abstain" questions
    with pytest.raises(AssertionError, match="abstain"):
        contract.test_its_release_loads_the_same_frozen_dataset_twice(toy, (notes, {"team": "all"}))
    monkeypatch.setattr(type(toy), "kind", "action")  # an action benchmark that says it has retrieval
    with pytest.raises(AssertionError, match="never scored by retrieval"):
        contract.test_it_declares_what_it_scores_and_how(toy)
