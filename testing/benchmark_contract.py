"""The one contract every benchmark must pass, built-in or plug-in.

Subclass `BenchmarkContract` in a test module and provide two fixtures: `benchmark` (the
registered `Benchmark`, e.g. `benchmark_named("toy")`) and `contract_release`: a
`(path, selection)` pair naming a small release in the benchmark's own layout and the selection to
run it with (a dict of the benchmark's selection fields). Optionally `docs_root`, the folder the
benchmark's `docs_page` is relative to (its repository), for the page to be checked to exist, and
`contract_settings`, run settings for the offline run (a protocol, a `prompts_dir` of official
templates); by default the benchmark's default protocol.

What it checks, from the benchmark's declaration and one offline run:
- it declares what it scores (`kind`), its name, command, summary, protocols (the official one among
  them when it has one), its publishable conditions and its docs page;
- its release loads into a frozen `Dataset` named after it, twice to the same fingerprint, with
  questions of its declared kinds and no gold or evidence on any document;
- the files a load read exist, and its report digest is stable;
- its conformance checks (found beside its class) are `FixtureCheck`s that claim files;
- an offline run of the release (the deterministic baseline, the embedded `sqlite` memory) finishes
  with every question planned, no operational failure, its declared conditions on the report, and
  one headline: a number and what it measures.

benchledger's own `tests/adapters/benchmarks/test_benchmark_contract.py` runs it over every
benchmark the registry lists, and a throwaway benchmark registered through an entry point.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, get_args

import pytest
from benchledger.adapters.benchmarks.base import Dataset
from benchledger.adapters.benchmarks.conformance import FixtureCheck
from benchledger.adapters.benchmarks.registry import Benchmark
from benchledger.values import BenchmarkKind

__all__ = ["BenchmarkContract"]


def _load(benchmark: Benchmark, contract_release: tuple[Path, dict[str, Any]]) -> Dataset:
    source, selection = contract_release
    return benchmark.load(Path(source), benchmark.selection_of(selection))


class BenchmarkContract:
    """Pytest cases every benchmark passes; fixtures `benchmark` and `contract_release` come from the subclass."""

    @pytest.fixture
    def docs_root(self) -> Path | None:
        """The folder `docs_page` is relative to; None: the page is checked to be declared only."""
        return None

    @pytest.fixture
    def contract_settings(self) -> dict[str, Any]:
        """Run settings of the offline run beyond the defaults (`RunSettings` fields)."""
        return {}

    def test_it_declares_what_it_scores_and_how(self, benchmark: Benchmark) -> None:
        assert benchmark.kind in get_args(BenchmarkKind), f"{type(benchmark).__name__} declares no kind"
        for attribute in ("name", "command", "summary"):
            value = getattr(benchmark, attribute, "")
            assert isinstance(value, str) and value.strip(), f"{benchmark!r} declares no {attribute}"
        assert benchmark.protocols and benchmark.default_protocol in benchmark.protocols
        if benchmark.official is not None:
            assert benchmark.official_protocol in benchmark.protocols, "its official protocol is not offered"
        assert benchmark.conditions and all(callable(check) for check in benchmark.conditions)
        if benchmark.kind == "action":
            assert not benchmark.retrieval, "an action benchmark is never scored by retrieval"

    def test_its_docs_page_is_declared_and_exists(self, benchmark: Benchmark, docs_root: Path | None) -> None:
        page = benchmark.docs_page
        assert page, f"{benchmark.name} declares no docs_page"
        if docs_root is not None and not page.startswith(("http://", "https://")):
            assert (docs_root / page).is_file(), f"{benchmark.name}'s docs page {page} is missing"

    def test_its_release_loads_the_same_frozen_dataset_twice(self, benchmark: Benchmark,
                                                             contract_release: tuple[Path, dict[str, Any]]) -> None:
        first, second = _load(benchmark, contract_release), _load(benchmark, contract_release)
        assert isinstance(first, Dataset) and first.benchmark == benchmark.name
        assert first.fingerprint == second.fingerprint
        assert first.questions and first.document_count > 0
        if benchmark.kinds:
            stray = {q.kind for q in first.questions} - set(benchmark.kinds)
            assert not stray, f"questions of kinds {benchmark.name} does not declare: {sorted(stray)}"
        with pytest.raises(Exception):
            first.questions[0].question_id = "changed"  # type: ignore[misc]  # frozen
        for path in benchmark.files_read(Path(contract_release[0]), first):
            assert Path(path).is_file(), path

    def test_no_document_carries_a_gold_answer_or_evidence_label(self, benchmark: Benchmark,
                                                                 contract_release: tuple[Path, dict[str, Any]]) -> None:
        dataset = _load(benchmark, contract_release)
        fields = {name for docs in dataset.scopes.values() for doc in docs for name in doc.extra}
        assert not fields & {"answer", "gold", "evidence", "expected_answer", "gold_answer"}, sorted(fields)

    def test_its_report_digest_is_stable(self, benchmark: Benchmark) -> None:
        digest = benchmark.report_digest()
        assert digest == benchmark.report_digest() and len(digest) >= 16

    def test_its_conformance_checks_claim_files(self, benchmark: Benchmark) -> None:
        for check in benchmark.conformance_checks():
            assert isinstance(check, FixtureCheck), check
            assert check.name and check.pattern, f"{check!r} claims no files"

    def test_an_offline_run_is_complete_with_one_headline(self, benchmark: Benchmark,
                                                          contract_release: tuple[Path, dict[str, Any]],
                                                          contract_settings: dict[str, Any], tmp_path: Path) -> None:
        from benchledger.ledger.store import Ledger
        from benchledger.orchestration.reports import report_of
        from benchledger.orchestration.session import run_dataset
        from benchledger.projections.state import fold_run
        from benchledger.settings import RunSettings

        dataset = _load(benchmark, contract_release)
        with Ledger.open(tmp_path / "contract.db") as ledger:
            run_id = run_dataset(ledger, dataset, RunSettings(memory_store=tmp_path / "memory.sqlite",
                                                                **contract_settings))
            state = fold_run(run_id, ledger.reader.events(run_id))
        report = report_of(state)
        assert report.total == len(dataset.questions) and report.failed == 0, (report.total, report.failed)
        names = [condition.name for condition in report.conditions]
        assert "complete_run" in names and len(names) == len(set(names))
        assert report.score is not None and report.metric, "the report has no headline"
        assert sum(1 for section in report.sections or () if section.headline is not None) <= 1, \
            "more than one section claims the headline"
