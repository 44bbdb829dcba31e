"""A third-party benchmark registered through the `benchledger.benchmarks` entry point, end to end.

The test writes a tiny distribution (a module and its `*.dist-info/entry_points.txt`) declaring a
toy benchmark: its loader, its own selection field, its kinds, its protocols and its own
publishable condition; nothing in benchledger is edited. It is then listed by `benchledger
benchmarks`, gets `run` and `retrieval` subcommands with its selection options, and its runs are
reported under its conditions; without the plugin installed, a run of it is never publishable.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchledger.adapters.benchmarks.registry import ENTRY_POINT_GROUP, benchmark_named
from benchledger.ledger.store import Ledger
from benchledger.orchestration.reports import report_of
from benchledger.orchestration.session import run_dataset
from benchledger.projections.state import fold_run
from benchledger.settings import RunSettings
from plugin_dist import write_distribution

_TOY = '''
"""toy-bench: notes of one team, questions about them; a benchmark in one file."""
import json
from pathlib import Path
from typing import ClassVar

from benchledger.adapters.benchmarks.base import Dataset, Document, ReleaseFacts
from benchledger.adapters.benchmarks.registry import Benchmark
from benchledger.projections.publishable import Condition, zero_failures
from benchledger.settings import Selection
from benchledger.values import Question


class ToySelection(Selection):
    team: str = "all"
    """Which team's notes to read ("all" for every team)."""
    message_limit: None = None


def enough_questions(state, overall, scorer):
    met = overall.planned >= 3
    return Condition(name="enough_questions", met=met, reason=f"{overall.planned} question(s), toy needs 3")


class ToyBenchmark(Benchmark):
    name = "ToyBench"
    command = "toy"
    summary = "notes of one team"
    docs_page = "https://example.org/toy-bench"
    kind = "answer"
    source_metavar = "NOTES"
    selection_model = ToySelection
    kinds = ("recall", "abstain")
    protocols: ClassVar = ("typed",)
    retrieval = True
    conditions: ClassVar = (enough_questions, zero_failures)

    def load(self, source, selection):
        chosen = self.selection_of(selection)
        data = json.loads(Path(source).read_text())
        notes = [n for n in data["notes"] if chosen.team in ("all", n["team"])]
        docs = tuple(Document(doc_id=n["id"], text=n["text"], author=n["team"], position=i)
                     for i, n in enumerate(notes))
        questions = [Question(question_id=q["id"], kind=q["kind"], text=q["q"], gold=q["a"],
                              evidence=tuple(q["evidence"]), abstention=q["kind"] == "abstain")
                     for q in data["questions"] if not chosen.kinds or q["kind"] in chosen.kinds]
        available = len(questions)
        questions = questions[:chosen.question_limit] if chosen.question_limit else questions
        return Dataset(benchmark=self.name, subset=chosen.team, adapter_version="toy/1", source=str(source),
                       scopes={"default": docs}, questions=tuple(questions), selection=chosen,
                       release=ReleaseFacts(documents_available=len(data["notes"]), questions_available=available,
                                            kinds_available=self.kinds, evidence_level="document"))
'''

_NOTES = {
    "notes": [
        {"id": "n1", "team": "red", "text": "The red team moved the launch to Friday."},
        {"id": "n2", "team": "red", "text": "Budget for the launch party is 400 euros."},
        {"id": "n3", "team": "blue", "text": "Blue team renamed the project to Heron."},
    ],
    "questions": [
        {"id": "q1", "kind": "recall", "q": "When is the launch?", "a": "Friday", "evidence": ["n1"]},
        {"id": "q2", "kind": "recall", "q": "What is the launch party budget?", "a": "400 euros",
         "evidence": ["n2"]},
        {"id": "q3", "kind": "abstain", "q": "Who catered the launch?",
         "a": "There is no information available", "evidence": []},
    ],
}


def write_toy_distribution(site: Path) -> Path:
    """What `pip install toy-bench` would leave in site-packages."""
    return write_distribution(site, name="toy-bench", version="0.1.0", module="toy_bench", source=_TOY,
                              group=ENTRY_POINT_GROUP, entry="toy = toy_bench:ToyBenchmark")


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    path = tmp_path / "notes.json"
    path.write_text(json.dumps(_NOTES))
    return path


@pytest.fixture
def toy_site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    site = write_toy_distribution(tmp_path / "site")
    monkeypatch.syspath_prepend(str(site))
    yield site
    sys.modules.pop("toy_bench", None)


def test_the_library_runs_and_reports_the_toy_under_its_own_conditions(toy_site: Path, notes: Path,
                                                                      tmp_path: Path) -> None:
    toy = benchmark_named("toy")
    dataset = toy.load(notes, toy.selection_of({"team": "red", "question_limit": 2}))
    with Ledger.open(tmp_path / "ledger.db") as ledger:
        run_id = run_dataset(ledger, dataset, RunSettings(memory_store=tmp_path / "m.sqlite"))
        state = fold_run(run_id, ledger.reader.events(run_id))
    config = state.started.config
    assert config.settings.protocol == "typed"  # the toy's only (so default) protocol
    assert config.selection.model_dump()["team"] == "red" and config.selection.question_limit == 2
    report = report_of(state)
    conditions = {c.name: c for c in report.conditions}
    assert list(conditions) == ["enough_questions", "zero_operational_failures", "recorded_provenance",
                                "provider_endpoint", "complete_run"]
    assert not conditions["enough_questions"].met and "2 question(s)" in conditions["enough_questions"].reason
    assert report.total == 2 and report.judged == 2 and report.status == "diagnostic"


def test_a_fresh_interpreter_lists_runs_and_scores_retrieval_for_the_toy(tmp_path: Path, notes: Path) -> None:
    site = write_toy_distribution(tmp_path / "installed")
    with_plugin = {**os.environ, "COLUMNS": "0",  # whole rows to read
                   "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}

    def benchledger(*args: str, env: dict[str, str] = with_plugin) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "benchledger.cli.main", "--ledger", str(tmp_path / "l.db"),
                               *args], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)

    listed = benchledger("benchmarks")
    assert listed.returncode == 0, listed.stderr
    row = next(line for line in listed.stdout.splitlines() if line.startswith("toy "))
    assert "ToyBench" in row and "NOTES" in row and "toy-bench" in row
    helped = benchledger("run", "toy", "--help")
    assert "--team" in helped.stdout and "--kinds" in helped.stdout and "--message-limit" not in helped.stdout
    ran = benchledger("run", "toy", str(notes), "--team", "red", "--kinds", "recall", "--out", "r.json")
    assert ran.returncode == 0, ran.stderr
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["benchmark"] == "ToyBench" and report["total"] == 2
    assert [c["name"] for c in report["conditions"]][0] == "enough_questions"
    recall = benchledger("retrieval", "toy", str(notes), "--k", "2", "--json")
    assert recall.returncode == 0, recall.stderr
    metrics = json.loads(recall.stdout)
    assert metrics["n"] == 2 and metrics["excluded"] == 1  # q3 labels no evidence
    bad = benchledger("run", "toy", str(notes), "--question-limit", "0")
    assert bad.returncode == 2 and "question-limit" in bad.stderr
    # Without the plugin, the run still shows, and can never be publishable: its conditions are unknown.
    shown = benchledger("show", report["run_id"], "--json", env=dict(os.environ))
    assert shown.returncode == 0, shown.stderr
    conditions = {c["name"]: c for c in json.loads(shown.stdout)["conditions"]}
    assert not conditions["known_benchmark"]["met"] and "ToyBench" in conditions["known_benchmark"]["reason"]
