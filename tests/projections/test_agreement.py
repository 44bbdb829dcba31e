"""Judge agreement: a real run gets a second scorer appended by hand through `Ledger.writer.append`."""

from __future__ import annotations

import json
from benchledger.ledger.events import Judged, ScorerStarted
from benchledger.ledger.store import Ledger
from benchledger.projections.agreement import judge_agreement
from test_diff import append_run, fold, invoke, real_run


def add_scorer(ledger: Ledger, run_id: str, scorer_id: str, verdicts: dict[str, str]) -> None:
    ledger.writer.append(run_id, [ScorerStarted(scorer_id=scorer_id, judge_model="second-judge", protocol="typed")] + [
        Judged(question_id=qid, scorer_id=scorer_id, verdict=verdict, reason=f"{scorer_id} says {verdict}",
               model="second-judge") for qid, verdict in verdicts.items()])


def kappa_2x2(pairs: list[tuple[str, str]]) -> float:
    """Cohen's kappa for correct/incorrect written out from the 2x2 table."""
    n = len(pairs)
    both = sum(a == b == "correct" for a, b in pairs)
    neither = sum(a == b == "incorrect" for a, b in pairs)
    a_yes = sum(a == "correct" for a, _ in pairs)
    b_yes = sum(b == "correct" for _, b in pairs)
    observed = (both + neither) / n
    expected = (a_yes * b_yes + (n - a_yes) * (n - b_yes)) / n**2
    return (observed - expected) / (1 - expected)


def test_agreement_of_two_scorers_on_a_real_run(tmp_path):
    assert invoke("synth", "groupmem", "rel", "--messages", "400", "--seed", "1").exit_code == 0
    run_id = real_run("rel", "bm25-reference")
    with Ledger.open(tmp_path / "ledger.db") as ledger:
        judged = {e.event.question_id: e.event.verdict for e in ledger.reader.events(run_id, types=["Judged"])}
        first = {qid: judged[qid] for qid in fold(ledger, run_id).questions}  # plan order
        correct = [q for q, v in first.items() if v == "correct"]
        wrong = [q for q, v in first.items() if v == "incorrect"]
        flipped = correct[:3] + wrong[:1]
        second = {q: ("incorrect" if v == "correct" else "correct") if q in flipped else v for q, v in first.items()}
        add_scorer(ledger, run_id, "s2", second)
    result = invoke("agreement", run_id, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert (data["scorer_a"], data["scorer_b"]) == ("s1", "s2")
    assert data["overall"]["both_judged"] == len(first)
    assert data["overall"]["agreed"] == len(first) - 4
    assert abs(data["overall"]["kappa"] - kappa_2x2([(first[q], second[q]) for q in first])) < 1e-12
    assert [d["question_id"] for d in data["disagreements"]] == [q for q in first if q in flipped]
    d0 = data["disagreements"][0]
    assert (d0["verdict_a"], d0["verdict_b"]) == (first[d0["question_id"]], second[d0["question_id"]])
    assert d0["reason_b"] == f"s2 says {second[d0['question_id']]}"
    assert sum(k["both_judged"] for k in data["by_kind"].values()) == len(first)
    text = invoke("agreement", run_id)
    assert f"disagreements ({len(flipped)})" in text.output and flipped[0] in text.output


def test_known_kappa_and_per_kind_on_a_constructed_run(tmp_path):
    # 12 questions: s1 says 6 correct; s2 flips 2 correct -> incorrect and 1 incorrect -> correct.
    outcomes = {f"q{i}": ("temporal" if i < 6 else "multi_hop", "correct" if i % 2 == 0 else "incorrect") for i in range(12)}
    second = {q: v for q, (_, v) in outcomes.items()} | {"q0": "incorrect", "q2": "incorrect", "q7": "correct"}
    with Ledger.open(tmp_path / "l.db") as ledger:
        append_run(ledger, "R", outcomes)
        add_scorer(ledger, "R", "s2", second)
        result = judge_agreement(fold(ledger, "R"))
    # observed 9/12; s1 6/12 correct, s2 5/12 correct: expected (6*5 + 6*7)/144 = 0.5; kappa = (0.75-0.5)/0.5
    assert result.overall.agreement_rate == 0.75 and abs(result.overall.kappa - 0.5) < 1e-12
    assert result.by_kind["temporal"].agreed == 4 and result.by_kind["multi_hop"].agreed == 5
    assert [d.question_id for d in result.disagreements] == ["q0", "q2", "q7"]


def test_questions_judged_by_one_scorer_are_left_out(tmp_path):
    outcomes = {f"q{i}": ("temporal", "correct") for i in range(4)}
    with Ledger.open(tmp_path / "l.db") as ledger:
        append_run(ledger, "R", outcomes)
        add_scorer(ledger, "R", "s2", {"q0": "correct", "q1": "unclear"})
        result = judge_agreement(fold(ledger, "R"))
    assert result.judged_by_one == ["q2", "q3"]
    assert result.overall.both_judged == 2 and result.overall.agreed == 1
    assert result.disagreements[0].verdict_b == "unclear"


def test_scorer_choice_and_clear_errors(tmp_path):
    outcomes = {f"q{i}": ("temporal", "correct" if i else "incorrect") for i in range(4)}
    with Ledger.open(tmp_path / "ledger.db") as ledger:
        append_run(ledger, "ONE", outcomes)
        append_run(ledger, "THREE", outcomes)
        add_scorer(ledger, "THREE", "s2", {q: "correct" for q in outcomes})
        add_scorer(ledger, "THREE", "s3", {q: "incorrect" for q in outcomes})
    single = invoke("agreement", "ONE")
    assert single.exit_code == 2 and "has 1 scorer(s)" in single.output and "rejudge" in single.output
    newest = json.loads(invoke("agreement", "THREE", "--json").output)
    assert (newest["scorer_a"], newest["scorer_b"]) == ("s2", "s3") and newest["overall"]["agreed"] == 0
    chosen = json.loads(invoke("agreement", "THREE", "--scorers", "s1", "s2", "--json").output)
    assert chosen["overall"]["agreed"] == 3 and chosen["disagreements"][0]["question_id"] == "q0"
    assert invoke("agreement", "THREE", "--scorers", "s1", "nope").exit_code == 2
    assert invoke("agreement", "THREE", "--scorers", "s1", "s1").exit_code == 2
