"""A benchmark's kind (recall, answer, action): declared by every benchmark, read by retrieval, report, compare."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

import pytest

from benchledger.adapters.benchmarks.registry import (
    Benchmark, _make, available_benchmarks, retrieval_refusal,
)
from benchledger.errors import BadInput
from benchledger.orchestration.session import resolved_settings
from benchledger.projections.compare import CompareInput, compare_runs
from benchledger.projections.report import Section, report_from_state
from benchledger.projections.scorecard import render_scorecard
from benchledger.projections.state import fold_run
from benchledger.settings import RunSettings
from benchledger.values import BENCHMARK_KINDS
from events_factory import config, stored, stream


class _Declared(Benchmark):
    name = "Declared"
    command = "declared"
    summary = "a benchmark for these tests"
    retrieval = True

    def load(self, source, selection):
        raise NotImplementedError


class _Action(_Declared):
    name = "ActBench"
    command = "actbench"
    kind = "action"


class _Answer(_Declared):
    kind = "answer"


def test_every_installed_benchmark_declares_one_of_the_three_kinds():
    loaded = [entry.loaded for entry in available_benchmarks() if entry.loaded is not None]
    assert loaded and {b.kind for b in loaded} <= set(BENCHMARK_KINDS)
    assert {b.command: b.kind for b in loaded if b.command != "mem2actbench"} == {
        "groupmem": "answer", "locomo": "answer", "longmemeval": "answer", "memora": "answer",
        "longmemeval-v2": "answer"}


def test_a_benchmark_that_declares_no_kind_or_another_is_not_loaded():
    with pytest.raises(TypeError, match="declares kind None"):
        _make(_Declared)

    class Odd(_Declared):
        kind: ClassVar = "tool"  # type: ignore[assignment]

    with pytest.raises(TypeError, match="declares kind 'tool'.*recall, answer, action"):
        _make(Odd)
    assert _make(_Action).kind == "action"


def test_an_action_benchmark_has_no_retrieval_run_even_when_it_labels_evidence(tmp_path: Path):
    assert retrieval_refusal(_Answer()) is None
    refusal = retrieval_refusal(_Action())
    assert refusal is not None and "ActBench is an action benchmark" in refusal and "\n" not in refusal
    settings = RunSettings(memory_store=str(tmp_path / "m.sqlite"), mode="retrieval")
    with pytest.raises(BadInput, match="action benchmark") as refused:
        resolved_settings(_Action(), settings)
    assert refused.value.field == "benchmark"
    assert resolved_settings(_Answer(), settings).mode == "retrieval"


def _headline(score: float):
    def fold(state, scorer):
        return Section(name="act.summary", title="action scores", scorer_id=scorer, values={}, lines=[],
                       headline=score, headline_metric="argument F1")
    return fold


def _input(memory: str, verdicts: dict[str, str], argument_f1: float, kind) -> CompareInput:
    events = stored(stream({q: ("L1", v) for q, v in verdicts.items()}, cfg=config(memory=memory)))
    state = fold_run("r-" + memory, events)
    report = report_from_state(state, conditions=(), sections=(_headline(argument_f1),), kind=kind)
    return CompareInput(state, report, "timestamps")


def test_the_report_carries_the_kind_and_an_action_scorecard_says_what_scores_it():
    action = _input("sqlite", {"q1": "correct"}, 0.5, "action").report
    answer = _input("sqlite", {"q1": "correct"}, 0.5, "answer").report
    assert (action.kind, answer.kind) == ("action", "answer")
    assert action.model_dump()["kind"] == "action"
    assert "an action benchmark: scored by the tool call" in render_scorecard(action)
    assert "an action benchmark" not in render_scorecard(answer)


@pytest.mark.parametrize("kind, best, ranked_by", [("action", "r-structured", "argument F1"),
                                                   ("answer", "r-sqlite", "accuracy")])
def test_compare_ranks_an_action_benchmark_by_its_own_number_and_others_by_accuracy(kind, best, ranked_by):
    more_exact = _input("sqlite", {"q1": "correct", "q2": "correct", "q3": "incorrect"}, 0.40, kind)
    better_arguments = _input("structured", {"q1": "correct", "q2": "incorrect", "q3": "incorrect"}, 0.70, kind)
    comparison = compare_runs([more_exact, better_arguments])
    assert (comparison.best, comparison.ranked_by, comparison.kind) == (best, ranked_by, kind)
