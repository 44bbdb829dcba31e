"""`audit judge`: planted answers with known verdicts asked of the run's own judge, beside the score, never in it."""

from __future__ import annotations

import json
from pathlib import Path

from benchledger.adapters.benchmarks.locomo.scoring import score_item
from benchledger.adapters.benchmarks.locomo.loader import CATEGORY_NUMBERS
from benchledger.adapters.models.loopback import LoopbackOpenAI
from benchledger.adapters.models.offline import content_terms
from benchledger.orchestration.audit_plants import REFUSAL, derive_plants
from benchledger.values import Question
from ledger_cli import events_of, invoke

_POSITIONAL = ("ledger_head", "events", "last_seq", "judge_audits", "segments", "projection_versions")


def _question(qid: str, gold: str, *, kind: str = "single_hop", text: str = "When did Caroline go to the LGBTQ "
              "support group?", abstention: bool = False) -> Question:
    return Question(question_id=qid, kind=kind, text=text, gold=gold, abstention=abstention)


def test_plants_are_deterministic_and_each_rule_plants_what_it_says():
    questions = [_question("q1", "7 May 2023"), _question("q2", "Adoption agencies", text="What did Caroline research?"),
                 _question("q3", "Melanie", text="Who painted a sunset?"),
                 _question("q4", "No information available", abstention=True, kind="adversarial")]
    contexts = {q.question_id: "[1] [session_1 Caroline]\nI went to the support group with Melanie. It was great."
                for q in questions}
    first, again = derive_plants(questions, contexts), derive_plants(list(questions), dict(contexts))
    assert first == again
    by = {p.plant_id: p for p in first.plants}
    assert by["specific_wrong_altered:q1"].answer == "7 May 2022"  # the year changed, nothing else
    assert by["specific_wrong_altered:q3"].answer == "Caroline"  # a name from the recalled context, not the gold's
    other = by["specific_wrong_other:q1"].answer
    assert other in ("Adoption agencies", "Melanie") and not content_terms(other) & content_terms("7 May 2023")
    vague = by["vague_topical:q2"].answer
    assert "Caroline" in vague and not content_terms(vague) & content_terms("Adoption agencies")
    assert by["refusal:q2"].answer == REFUSAL and by["refusal:q2"].expected == "incorrect"
    assert by["gold_restated:q2"] == ("gold_restated:q2", "q2", "gold_restated", "The answer is Adoption agencies.",
                                      "correct")
    assert by["answer_on_abstention:q4"].answer == "I went to the support group with Melanie."
    assert not any(p.question_id == "q4" and p.kind != "answer_on_abstention" for p in first.plants)
    # a question that was never answered (no recalled context) is never planted
    assert not derive_plants(questions, {}).plants


def test_a_gold_with_nothing_to_change_is_skipped_and_counted_never_planted_weaker():
    plants = derive_plants([_question("q1", "a salad"), _question("q2", "a salad too", kind="temporal")],
                           {"q1": "[1] nothing capitalised here", "q2": "[1] x"})
    kinds = {p.plant_id for p in plants.plants}
    assert "specific_wrong_altered:q1" not in kinds and "specific_wrong_other:q1" not in kinds
    assert plants.skipped["specific_wrong_altered: no number, date or name to change"] == 2


def _locomo_run(dev: Path, *extra: str) -> dict:
    result = invoke("run", "locomo", str(dev), "--conversations", "conv-26", "--question-limit", "30", *extra,
                    "--out", "run.json")
    assert result.exit_code == 0, result.output
    return json.loads(Path("run.json").read_text())


def _without_audits(report: dict) -> dict:
    return {k: v for k, v in report.items() if k not in _POSITIONAL}


def test_the_token_f1_rule_is_audited_as_its_rule_scores_the_plants_and_the_score_never_moves(shared_data):
    dev = shared_data / "locomo" / "locomo-dev.json"
    run = _locomo_run(dev)
    before = json.loads(invoke("show", run["run_id"], "--json").stdout)
    result = invoke("audit", "judge", run["run_id"], "--json")
    assert result.exit_code == 0, result.output
    audit = json.loads(result.stdout)
    assert (audit["scorer_id"], audit["judge_model"], audit["endpoint"]) == ("s1", "locomo-token-f1", "no model (a rule)")
    events = events_of(run["run_id"])
    planned = {q.question_id: q for e in events if e.type == "QuestionsPlanned" for q in e.questions}
    plants = [e for e in events if e.type == "PlantJudged"]
    assert len(plants) == audit["planned"] == audit["judged"] > 100
    for plant in plants:  # each verdict is the official rule's, on the planted answer against the released gold
        question = planned[plant.question_id]
        score = float(score_item(plant.answer, question.gold, CATEGORY_NUMBERS[question.kind]))
        assert plant.score == score and plant.verdict == ("correct" if score == 1 else "incorrect")
    rows = {row["plant_kind"]: row for row in audit["kinds"]}
    restated = [p for p in plants if p.plant_kind == "gold_restated"]
    assert rows["gold_restated"]["error"] == "false reject"
    assert rows["gold_restated"]["overall"]["wrong"] == sum(p.verdict == "incorrect" for p in restated)
    wrong = [p for p in plants if p.plant_kind == "specific_wrong_altered"]
    assert rows["specific_wrong_altered"]["overall"]["wrong"] == sum(p.verdict == "correct" for p in wrong)
    # the score, tallies and conditions are what they were; the audit rides beside them
    after = json.loads(invoke("show", run["run_id"], "--json").stdout)
    assert _without_audits(after) == _without_audits(before)
    assert [a["audit_id"] for a in after["judge_audits"]] == ["a1"]
    assert "judge audit a1 (not in the score)" in invoke("show", run["run_id"]).stdout
    assert invoke("export", run["run_id"], "--out", "run-export.json").exit_code == 0
    exported = json.loads(Path("run-export.json").read_text())
    assert exported["report"]["judge_audits"][0]["kinds"] == audit["kinds"]
    assert invoke("export", run["run_id"], "--out", "run-export.html").exit_code == 0
    page = Path("run-export.html").read_text()
    assert "Judge audit a1 (not in the score)" in page and "gold_restated" in page
    assert invoke("verify").exit_code == 0


def test_the_loopback_judge_is_asked_exactly_as_its_scorer_asks_and_a_failed_call_is_finished_later(
        shared_data, monkeypatch):
    dev = shared_data / "locomo" / "locomo-dev.json"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-loopback-0000")
    with LoopbackOpenAI() as server:
        run = _locomo_run(dev, "--protocol", "typed", "--agent-model", "loopback-agent", "--judge-model",
                          "loopback-judge", "--base-url", server.base_url)
        scored = [b for b in server.requests if b["model"] == "loopback-judge"]
        server.requests.clear()
        server.faults.always("500", role="judge", contains="The answer is ")
        result = invoke("audit", "judge", run["run_id"], "--max-attempts", "1", "--json")
        assert result.exit_code == 3, result.output  # operational failures: finish it
        assert "--continue a1" in result.output
        planted = [b for b in server.requests if b["model"] == "loopback-judge"]
        server.faults.clear()
        assert invoke("audit", "judge", run["run_id"], "--continue", "a1").exit_code == 0
        base_url = server.base_url
    # same model, same system prompt, same call parameters as the run's scorer
    shape = {(b["messages"][0]["content"], b.get("temperature"), b.get("max_tokens"), json.dumps(b.get("response_format")))
             for b in scored}
    assert {(b["messages"][0]["content"], b.get("temperature"), b.get("max_tokens"),
             json.dumps(b.get("response_format"))) for b in planted} == shape
    events = events_of(run["run_id"])
    failed = {e.plant_id for e in events if e.type == "PlantFailed"}
    judged = [e for e in events if e.type == "PlantJudged"]
    assert failed and all(p.startswith("gold_restated:") for p in failed)
    assert failed <= {e.plant_id for e in judged}  # the continuation judged every failed plant
    audit = json.loads(invoke("show", run["run_id"], "--json").stdout)["judge_audits"][0]
    assert audit["failed"] == 0 and audit["endpoint"] == base_url
    assert not any(e.type == "Judged" and e.scorer_id != "s1" for e in events)  # never a scorer's verdict


def test_the_audits_planted_answers_are_mapped_onto_the_run_and_a_bad_file_is_refused_before_any_call(shared_data):
    dev = shared_data / "locomo" / "locomo-dev.json"
    run = _locomo_run(dev)
    v1 = shared_data / "locomo-audit" / "ap-baseline" / "v1" / "ap_eval_results.json"
    result = invoke("audit", "judge", run["run_id"], "--answers", str(v1), "--plant-kind", "specific_but_wrong",
                    "--json")
    assert result.exit_code == 0, result.output
    audit = json.loads(result.stdout)
    assert "not the audit's pinned file" in audit["source_label"]
    released = {r["question_id"]: r for g in json.loads(v1.read_text())["detailed_results"].values() for r in g}
    plants = [e for e in events_of(run["run_id"]) if e.type == "PlantJudged"]
    assert len(plants) == 30 and {p.plant_kind for p in plants} == {"specific_but_wrong"}
    for plant in plants:  # conv-26 is the audit's conversation 0; q<k> its qa<k>
        record = released[f"locomo_0_qa{plant.question_id.split(':q')[1]}"]
        assert plant.answer == record["generated_answer"] and plant.gold == record["golden_answer"]
    bad = Path("bad.json")
    bad.write_text('[{"question_id": "conv-26:q0", "answer": "x"},\n {"question_id": "conv-26:q1"}]\n')
    before = len(events_of(run["run_id"]))
    result = invoke("audit", "judge", run["run_id"], "--answers", str(bad))
    assert result.exit_code == 2 and "bad.json:2: field '[1].answer'" in result.output
    assert len(events_of(run["run_id"])) == before


def test_the_audits_own_judges_are_shown_beside_the_re_measured_rate(shared_data):
    """The shared data's README: on conversations 1-7 the audit's gpt-4o-mini accepted 11.34% of the
    v1 and 60.93% of the v2 planted answers (three runs each)."""
    dev = shared_data / "locomo" / "locomo-dev.json"
    result = invoke("run", "locomo", str(dev), "--categories", "single_hop,multi_hop,temporal,open_domain",
                    "--out", "run.json")
    assert result.exit_code == 0, result.output
    run_id = json.loads(Path("run.json").read_text())["run_id"]
    for version, published in (("v1", 0.1134), ("v2", 0.6093)):
        scored = shared_data / "locomo-audit" / "ap-baseline" / version / "ap_eval_results_scored.json"
        result = invoke("audit", "judge", run_id, "--answers", str(scored), "--json")
        assert result.exit_code == 0, result.output
        audit = json.loads(result.stdout)
        assert audit["planned"] == 1035 and audit["reference_judgments"] == 3 * 1035
        assert round(audit["reference_rate"], 4) == published
        wrong = audit["kinds"][0]["overall"]
        assert wrong["verdicts"] == 1035 and wrong["rate"] < audit["reference_rate"]  # full-credit F1 is strict
    unscored = shared_data / "locomo-audit" / "ap-baseline" / "v1" / "ap_eval_results.json"
    audit = json.loads(invoke("audit", "judge", run_id, "--answers", str(unscored), "--json").stdout)
    assert audit["reference_rate"] is None
    assert "the file's own recorded judges accepted 60.9% of these plants" in invoke("show", run_id).stdout


def test_a_reference_protocol_judge_is_asked_with_the_releases_own_judge_prompt(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-loopback-0000")
    assert invoke("synth", "groupmem", "rel", "--messages", "300", "--seed", "1").exit_code == 0
    with LoopbackOpenAI() as server:
        result = invoke("run", "groupmem", "rel", "--domain", "Synth", "--agent-model", "loopback-agent",
                        "--judge-model", "loopback-judge", "--base-url", server.base_url, "--out", "run.json")
        assert result.exit_code == 0, result.output
        run_id = json.loads(Path("run.json").read_text())["run_id"]
        scored = [b for b in server.requests if b["model"] == "loopback-judge"]
        server.requests.clear()
        audit = json.loads(invoke("audit", "judge", run_id, "--json").stdout)
        planted = [b for b in server.requests if b["model"] == "loopback-judge"]
    assert audit["planned"] == audit["judged"] == len(planted) > 0
    released = Path("rel/prompts/judge_system.txt").read_text().strip()  # as the scorer sent it
    sent = {b["messages"][0]["content"] for b in scored}
    assert len(sent) == 1 and {b["messages"][0]["content"] for b in planted} == sent
    assert released and released in next(iter(sent))
    assert {(b.get("temperature"), b.get("max_tokens")) for b in planted} == \
        {(b.get("temperature"), b.get("max_tokens")) for b in scored}
