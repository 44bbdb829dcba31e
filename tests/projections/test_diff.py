"""`diff_runs` and `benchledger diff`: paired statistics on runs with known flips, exclusions, refusals.

Runs are appended to a real ledger file: hand-made ones (`append_run`, whose verdicts the test
chooses) and real offline runs of a synthetic release.
"""

from __future__ import annotations

import json
import math

from benchledger.ledger.events import (
    ContextRecalled, CorpusFingerprinted, Failed, Judged, Provenance, QuestionAnswered,
    QuestionsPlanned, RecalledItem, RunFinished, RunStarted, ScorerStarted,
)
from benchledger.ledger.store import Ledger
from benchledger.values import Question
from events_factory import config as make_config
from benchledger.projections.diff import diff_runs
from benchledger.projections.state import fold_run
from ledger_cli import invoke

__all__ = ["append_run", "invoke", "real_run", "fold"]


def append_run(ledger: Ledger, run_id: str, outcomes: dict[str, tuple[str, str]], *,
               fingerprint: str = "f" * 64, text: str = "What was decided?", gold: str = "the plan",
               answer: str = "an answer", context: str = "[Msg_1] User_1: hello", scorer: str = "s1") -> None:
    """Append a finished run: outcomes maps question id -> (kind, correct|incorrect|unclear|failed:<stage>|pending)."""
    config = make_config(subset="Synth", agent_model="offline-extractive/1",
                         judge_model="offline-lexical-judge/1", offline_models=True)
    planned = tuple(Question(question_id=qid, kind=kind, text=f"{text} ({qid})", gold=gold,
                                    asking_user="User_1") for qid, (kind, _) in outcomes.items())
    context_hash = ledger.writer.put_blob(context)
    raw_hash = ledger.writer.put_blob(f"Final: {answer}")  # every digest an event names is stored
    events = [
        RunStarted(config=config, provenance=Provenance(package_version="t", python="3.11")),
        QuestionsPlanned(questions=planned, available=len(planned)),
        CorpusFingerprinted(fingerprint=fingerprint, adapter_version="a", scopes={"default": "s"},
                            expected_documents={"default": 1}, documents_available=1),
        ScorerStarted(scorer_id=scorer, judge_model="offline-lexical-judge/1", protocol="reference", offline=True),
    ]
    for qid, (_, outcome) in outcomes.items():
        if outcome == "pending":
            continue
        events.append(ContextRecalled(question_id=qid, query="q", k=10, context_hash=context_hash,
                                      items=(RecalledItem(doc_id="Msg_1", score=1.0, rank=1),),
                                      context_tokens=7, latency_ms=1.0))
        stage = outcome.removeprefix("failed:") if outcome.startswith("failed:") else None
        if stage != "answer":
            events.append(QuestionAnswered(question_id=qid, answer=answer, abstained=False,
                                           model="offline-extractive/1", raw_hash=raw_hash))
        if stage is not None:
            events.append(Failed(stage=stage, question_id=qid, scorer_id=scorer if stage == "judge" else None,
                                 error_class="APITimeoutError", message=f"timed out on {qid}"))
        else:
            events.append(Judged(question_id=qid, scorer_id=scorer, verdict=outcome, reason=f"because {outcome}",
                                 model="offline-lexical-judge/1"))
    events.append(RunFinished(status="completed"))
    ledger.writer.append(run_id, events)


def fold(ledger: Ledger, run_id: str):
    return fold_run(run_id, ledger.reader.events(run_id))


def real_run(release: str, memory: str, *extra: str) -> str:
    result = invoke("run", "groupmem", release, "--domain", "Synth", "--memory", memory, "--out", "r.json", *extra)
    assert result.exit_code == 0, result.output
    return json.loads(open("r.json").read())["run_id"]


def six_flips() -> tuple[dict, dict]:
    """b=0, c=6: six questions wrong in A and correct in B, six that agree."""
    a, b = {}, {}
    for i in range(12):
        kind = "temporal" if i % 2 else "multi_hop"
        qid = f"{kind}_{i}"
        if i < 6:
            a[qid], b[qid] = (kind, "incorrect"), (kind, "correct")
        else:
            verdict = "correct" if i < 10 else "incorrect"
            a[qid] = b[qid] = (kind, verdict)
    return a, b


def test_exact_mcnemar_and_flips_on_six_one_way_flips(tmp_path):
    a, b = six_flips()
    with Ledger.open(tmp_path / "l.db") as ledger:
        append_run(ledger, "A", a)
        append_run(ledger, "B", b)
        result = diff_runs(fold(ledger, "A"), fold(ledger, "B"))
    overall = result.overall
    assert overall.mcnemar_p == 2 / 64
    assert overall.wrong_to_correct == [q for q in a if a[q][1] != b[q][1]]
    assert overall.correct_to_wrong == []
    assert (overall.paired, overall.correct_a, overall.correct_b) == (12, 4, 10)
    assert math.isclose(overall.difference, 0.5)
    assert 0 < overall.ci_low <= 0.5 <= overall.ci_high <= 1
    assert result.by_kind["multi_hop"].wrong_to_correct == ["multi_hop_0", "multi_hop_2", "multi_hop_4"]
    assert result.by_kind["multi_hop"].mcnemar_p == 2 / 8
    assert not result.different_corpora and not result.different_questions and result.excluded == []


def test_flips_both_ways_and_unclear_counts_as_not_correct(tmp_path):
    kinds = ["abstention"] * 9
    a = {f"q{i}": (k, "correct" if i == 0 else "unclear" if i < 8 else "incorrect") for i, k in enumerate(kinds)}
    b = {f"q{i}": (k, "incorrect" if i == 0 else "correct") for i, k in enumerate(kinds)}
    with Ledger.open(tmp_path / "l.db") as ledger:
        append_run(ledger, "A", a)
        append_run(ledger, "B", b)
        result = diff_runs(fold(ledger, "A"), fold(ledger, "B"))
    assert result.overall.correct_to_wrong == ["q0"]
    assert result.overall.wrong_to_correct == [f"q{i}" for i in range(1, 9)]
    # b=1, c=8: 2 * (C(9,0) + C(9,1)) / 2**9
    assert result.overall.mcnemar_p == 2 * (1 + 9) / 512


def test_bootstrap_interval_is_seeded_and_reproducible(tmp_path):
    a, b = six_flips()
    with Ledger.open(tmp_path / "l.db") as ledger:
        append_run(ledger, "A", a)
        append_run(ledger, "B", b)
        state_a, state_b = fold(ledger, "A"), fold(ledger, "B")
    first, second = diff_runs(state_a, state_b), diff_runs(state_a, state_b)
    other_seed = diff_runs(state_a, state_b, seed=7)
    assert first == second  # the same seed, the same bounds
    assert first.bootstrap_seed == 0 and other_seed.bootstrap_seed == 7
    assert first.overall.difference == other_seed.overall.difference  # the point estimate has no seed
    # six flips put the bounds on the support's ends whatever the seed; tests/projections/test_diff_bootstrap.py
    # shows other seeds giving other bounds, and the level, against references


def test_failed_and_pending_questions_are_excluded_never_scored(tmp_path):
    a = {"q1": ("temporal", "correct"), "q2": ("temporal", "failed:answer"), "q3": ("temporal", "correct"),
         "q4": ("temporal", "incorrect")}
    b = {"q1": ("temporal", "correct"), "q2": ("temporal", "correct"), "q3": ("temporal", "pending"),
         "q4": ("temporal", "failed:judge")}
    with Ledger.open(tmp_path / "l.db") as ledger:
        append_run(ledger, "A", a)
        append_run(ledger, "B", b)
        result = diff_runs(fold(ledger, "A"), fold(ledger, "B"))
    assert [(e.question_id, e.status_a, e.status_b) for e in result.excluded] == [
        ("q2", "failed", "judged"), ("q3", "judged", "pending"), ("q4", "judged", "failed")]
    assert result.overall.paired == 1 and result.overall.accuracy_a == result.overall.accuracy_b == 1.0
    assert result.overall.wrong_to_correct == [] and result.overall.correct_to_wrong == []


def test_different_corpora_are_refused_with_exit_2_unless_allowed(tmp_path):
    a, b = six_flips()
    with Ledger.open(tmp_path / "ledger.db") as ledger:
        append_run(ledger, "RUNA", a)
        append_run(ledger, "RUNB", b, fingerprint="e" * 64)
    refused = invoke("diff", "RUNA", "RUNB")
    assert refused.exit_code == 2
    assert "different corpora" in refused.output and "--allow-different" in refused.output
    allowed = invoke("diff", "RUNA", "RUNB", "--allow-different")
    assert allowed.exit_code == 0, allowed.output
    lines = allowed.output.splitlines()
    assert lines[0].startswith("configuration: the same")  # the configuration first, then the warning
    assert lines[2].startswith("WARNING: DIFFERENT CORPORA") and "eeeeeeee" in lines[2]
    data = json.loads(invoke("diff", "RUNA", "RUNB", "--allow-different", "--json").output)
    assert data["different_corpora"] is True and data["different_questions"] is False
    assert data["overall"]["mcnemar_p"] == 2 / 64


def test_different_question_sets_are_refused_unless_allowed_and_then_listed(tmp_path):
    a, b = six_flips()
    dropped = next(iter(b))
    del b[dropped]
    with Ledger.open(tmp_path / "ledger.db") as ledger:
        append_run(ledger, "RUNA", a)
        append_run(ledger, "RUNB", b)
    refused = invoke("diff", "RUNA", "RUNB")
    assert refused.exit_code == 2 and "different planned questions" in refused.output
    assert "--allow-different" in refused.output
    allowed = invoke("diff", "RUNA", "RUNB", "--allow-different")
    assert allowed.output.splitlines()[2].startswith("WARNING: DIFFERENT QUESTIONS")
    data = json.loads(invoke("diff", "RUNA", "RUNB", "--allow-different", "--json").output)
    assert data["different_questions"] is True and data["only_in_a"] == [dropped]
    assert {"question_id": dropped, "kind": a[dropped][0], "status_a": "judged", "status_b": "absent"} in data["excluded"]
    assert data["overall"]["paired"] == len(b)


def test_scorer_options_pick_the_verdicts_and_unknown_scorer_exits_2(tmp_path):
    a, b = six_flips()
    with Ledger.open(tmp_path / "ledger.db") as ledger:
        append_run(ledger, "RUNA", a)
        ledger.writer.append("RUNA", [ScorerStarted(scorer_id="s2", judge_model="other", protocol="typed")] + [
            Judged(question_id=qid, scorer_id="s2", verdict=verdict, model="other") for qid, (_, verdict) in b.items()])
    same = json.loads(invoke("diff", "RUNA", "RUNA", "--scorer-a", "s1", "--scorer-b", "s1", "--json").output)
    assert same["overall"]["wrong_to_correct"] == [] and same["overall"]["mcnemar_p"] == 1.0
    backwards = json.loads(invoke("diff", "RUNA", "RUNA", "--scorer-a", "s2", "--scorer-b", "s1", "--json").output)
    assert backwards["scorer_a"] == "s2" and len(backwards["overall"]["correct_to_wrong"]) == 6
    forwards = json.loads(invoke("diff", "RUNA", "RUNA", "--scorer-b", "s2", "--json").output)
    assert forwards["scorer_a"] == "s1" and len(forwards["overall"]["wrong_to_correct"]) == 6
    # unnamed, each side is the run's headline scorer, its own s1, never the newest one a rejudge added
    headline = json.loads(invoke("diff", "RUNA", "RUNA", "--json").output)
    assert headline["scorer_a"] == headline["scorer_b"] == "s1" and headline["overall"]["wrong_to_correct"] == []
    unknown = invoke("diff", "RUNA", "RUNA", "--scorer-a", "nope")
    assert unknown.exit_code == 2 and "no scorer 'nope'" in unknown.output


def test_real_runs_flips_match_the_recorded_verdicts_and_a_message_limit_is_refused(tmp_path):
    assert invoke("synth", "groupmem", "rel", "--messages", "400", "--seed", "1").exit_code == 0
    run_a = real_run("rel", "bm25-reference")
    run_b = real_run("rel", "structured")
    limited = real_run("rel", "sqlite", "--message-limit", "300")
    result = invoke("diff", run_a, run_b, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    with Ledger.open(tmp_path / "ledger.db") as ledger:
        verdicts = {run: {e.event.question_id: e.event.verdict for e in ledger.reader.events(run, types=["Judged"])}
                    for run in (run_a, run_b)}
        plan_order = list(fold(ledger, run_a).questions)
    expected_up = [q for q in plan_order if verdicts[run_a][q] != "correct" and verdicts[run_b][q] == "correct"]
    expected_down = [q for q in plan_order if verdicts[run_a][q] == "correct" and verdicts[run_b][q] != "correct"]
    assert data["overall"]["wrong_to_correct"] == expected_up
    assert data["overall"]["correct_to_wrong"] == expected_down
    assert expected_up or expected_down, "the two memory systems should disagree somewhere"
    assert data["overall"]["paired"] == len(verdicts[run_a])
    assert json.loads(invoke("diff", run_a, run_b, "--json").output) == data
    refused = invoke("diff", run_a, limited)
    assert refused.exit_code == 2 and "--allow-different" in refused.output
