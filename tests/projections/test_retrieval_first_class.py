"""Retrieval runs are first class: diff (paired recall with a bootstrap CI), export in every format,
replay (recall metrics, no scorecard) and `runs` with their metric.

Hand-made retrieval runs on a real ledger file give recalls the test chooses; a real LoCoMo
retrieval run goes through every export format.
"""

from __future__ import annotations

import csv
import io
import json

import pytest

from benchledger.ledger.events import (
    ContextRecalled, CorpusFingerprinted, Provenance, QuestionsPlanned, RecalledItem, RunFinished, RunStarted,
)
from benchledger.ledger.store import Ledger
from benchledger.projections.retrieval_diff import diff_retrieval
from benchledger.projections.state import fold_run
from benchledger.values import Question
from events_factory import config as make_config
from ledger_cli import invoke


EVIDENCE = {"q1": ("single", ("D1", "D2")), "q2": ("single", ("D3",)), "q3": ("multi", ("D4", "D5")),
            "q4": ("multi", ("D6",)), "q5": ("multi", ())}


def append_retrieval_run(ledger: Ledger, run_id: str, recalled: dict[str, list[str]], *, k: int = 3,
                         memory: str = "sqlite") -> None:
    """A finished retrieval run: recalled maps question id -> ranked doc ids (absent: never recalled)."""
    cfg = make_config(benchmark="LoCoMo", subset="dev", mode="retrieval", k=k, agent_model="none",
                      judge_model="none", protocol=None, offline_models=True, evidence_level="document",
                      memory=memory, prompt_hashes={})
    context = ledger.writer.put_blob("[D1] hello")
    planned = tuple(Question(question_id=qid, kind=kind, text=f"where is {qid}?", gold="g", evidence=evidence)
                    for qid, (kind, evidence) in EVIDENCE.items())
    events = [RunStarted(config=cfg, provenance=Provenance(package_version="t", python="3.11")),
              QuestionsPlanned(questions=planned, available=len(planned)),
              CorpusFingerprinted(fingerprint="f" * 64, adapter_version="a", scopes={"default": "s"},
                                  expected_documents={"default": 6}, documents_available=6)]
    for qid, docs in recalled.items():
        items = tuple(RecalledItem(doc_id=doc, score=1.0 / rank, rank=rank) for rank, doc in enumerate(docs, start=1))
        events.append(ContextRecalled(question_id=qid, query="q", k=k, items=items, context_hash=context,
                                      context_tokens=3, latency_ms=1.0))
    events.append(RunFinished(status="completed"))
    ledger.writer.append(run_id, events)


RUN_A = {"q1": ["D1", "X", "Y"], "q2": ["X", "Y", "Z"], "q3": ["D4", "D5", "X"], "q4": ["D6", "X", "Y"],
         "q5": ["X"]}
RUN_B = {"q1": ["D1", "D2", "X"], "q2": ["X", "Y", "D3"], "q3": ["X", "Y", "Z"], "q4": ["D6", "X", "Y"],
         "q5": ["X"]}


@pytest.fixture
def two_runs(tmp_path):
    with Ledger.open(tmp_path / "ledger.db") as ledger:
        append_retrieval_run(ledger, "RETA", RUN_A)
        append_retrieval_run(ledger, "RETB", RUN_B, memory="structured")
        yield ledger


def test_paired_recall_diff_lists_what_moved_and_brackets_the_difference(two_runs):
    a, b = (fold_run(r, two_runs.reader.events(r)) for r in ("RETA", "RETB"))
    result = diff_retrieval(a, b)
    # recalls at k=3: A q1 .5, q2 0, q3 1, q4 1 -> mean .625; B q1 1, q2 1, q3 0, q4 1 -> .75
    assert result.overall.paired == 4
    assert result.overall.recall_a == pytest.approx(0.625) and result.overall.recall_b == pytest.approx(0.75)
    assert result.overall.difference == pytest.approx(0.125)
    assert result.overall.ci_low <= 0.125 <= result.overall.ci_high and result.overall.ci_low < 0 < result.overall.ci_high
    assert result.overall.improved == ["q1", "q2"] and result.overall.worsened == ["q3"]
    assert {e.question_id: e.reason for e in result.excluded} == {"q5": "no evidence"}
    assert result.by_kind["multi"].paired == 2 and result.by_kind["multi"].worsened == ["q3"]
    assert [(d.field, d.a, d.b) for d in result.config] == [("memory", "sqlite", "structured")]
    # the smaller k of the two: B recalled at k=3, A re-scored at k=1 only finds rank-1 evidence
    with Ledger.open(two_runs.path) as ledger:
        append_retrieval_run(ledger, "RETC", RUN_B, k=1)
        c = fold_run("RETC", ledger.reader.events("RETC"))
    at_one = diff_retrieval(a, c)
    assert at_one.k == 1 and at_one.overall.recall_a == pytest.approx((0.5 + 0 + 0.5 + 1) / 4)


def test_diff_command_renders_configuration_then_recall_table(two_runs):
    result = invoke("diff", "reta", "retb")  # run ids match in any case
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "configuration: 1 field(s) differ"
    assert lines[3].split() == ["memory", "sqlite", "structured"]
    overall = next(line for line in lines if line.split()[:1] == ["overall"])
    assert overall.split()[1:5] == ["4", "0.625", "0.750", "+0.125"]
    assert "recall worse in B (1): q3" in result.output and "recall better in B (2): q1, q2" in result.output
    data = json.loads(invoke("diff", "RETA", "RETB", "--json").output)
    assert data["mode"] == "retrieval" and data["overall"]["improved"] == ["q1", "q2"]
    refused = invoke("diff", "RETA", "RETB", "--scorer-a", "s1")
    assert refused.exit_code == 2 and "no scorers" in refused.output


def test_replay_prints_recall_metrics_and_no_scorecard(two_runs):
    result = invoke("replay", "RETB")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("RETRIEVAL") and "DIAGNOSTIC" not in result.stdout
    assert "agent none" not in result.stdout and "complete_run" not in result.stdout
    overall = next(line for line in result.stdout.splitlines() if line.split()[:1] == ["overall"])
    assert overall.split()[:3] == ["overall", "4", "0.750"]
    early = invoke("replay", "RETB", "--until", str(two_runs.reader.events("RETB")[4].seq), "--json")
    assert json.loads(early.stdout)["not_recalled"] == 3  # only q1 and q2 recalled by then


def test_runs_lists_retrieval_runs_with_their_metric(two_runs):
    rows = {row["run_id"]: row for row in json.loads(invoke("runs", "--json").output)}
    assert rows["RETA"]["metric"] == "recall@3" and rows["RETA"]["score"] == pytest.approx(0.625)
    assert rows["RETB"]["agent_model"] is None and rows["RETB"]["status"] == "completed"
    text = invoke("runs").output
    assert "recall@3 0.750" in text and "recall@3 0.625" in text


def test_a_real_retrieval_run_exports_in_every_format(shared_data, tmp_path):
    locomo = shared_data / "locomo" / "locomo-dev.json"
    made = json.loads(invoke("retrieval", "locomo", str(locomo), "--question-limit", "25", "--json").stdout)
    exported = json.loads((invoke("export", "latest", "--out", "r.json"), (tmp_path / "r.json").read_text())[1])
    assert exported["report"]["recall"] == made["recall"] and exported["report"]["mode"] == "retrieval"
    assert len(exported["questions"]) == 25
    scored = [q["recall"] for q in exported["questions"] if q["recall"] is not None]
    assert sum(scored) / len(scored) == pytest.approx(made["recall"])
    assert invoke("export", "latest", "--out", "r.csv").exit_code == 0
    rows = list(csv.DictReader(io.StringIO((tmp_path / "r.csv").read_text())))
    assert len(rows) == 25 and {"recall", "hit_ranks", "evidence"} <= set(rows[0])
    assert invoke("export", "latest", "--out", "r.html").exit_code == 0
    page = (tmp_path / "r.html").read_text()
    for category in made["by_category"]:
        assert f'<rect class="bar" data-kind="{category}"' in page
    assert f"{made['recall']:.3f}" in page and "<script" not in page.lower()
