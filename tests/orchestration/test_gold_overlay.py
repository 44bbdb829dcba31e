"""`rejudge --gold-overlay`: the recorded answers scored against corrected gold, beside the official score."""

from __future__ import annotations

import json
import re
from pathlib import Path

from benchledger.adapters.benchmarks.locomo.audit_files import read_error_records, run_question_id, strip_dialog_ids
from ledger_cli import events_of, invoke

_BESIDE = ("ledger_head", "events", "last_seq", "corrected_gold", "segments", "projection_versions")


def test_the_audits_records_map_onto_the_dev_questions_with_the_forms_read_record_by_record(shared_data):
    audit = shared_data / "locomo-audit"
    records = read_error_records(audit / "errors.json")
    index = {row["question_id"]: row for row in json.loads((audit / "derived" / "error_index.json").read_text())}
    corrupting = {qid: row for qid, row in index.items() if row["kind"] == "score_corrupting"}
    assert len(records.rows) == len(corrupting) == 66 and not records.pinned
    for row in records.rows:
        audit_id = next(q for q in corrupting if run_question_id(q) == row.question_id)
        assert row.form == corrupting[audit_id]["correct_answer_form"]
        assert (row.gold != "") == (row.form == "replacement")
        assert not re.search(r"\bD\d+:\d+", row.gold)
    dev = json.loads((shared_data / "locomo" / "locomo-dev.json").read_text())
    for qid in corrupting:  # the run's id names the same released question
        sample, k = run_question_id(qid).split(":q")
        conversation = next(c for c in dev if c["sample_id"] == sample)
        assert conversation["qa"][int(k)]["question"] == next(r.question for r in records.rows
                                                               if run_question_id(qid) == r.question_id)


def test_dialog_ids_are_stripped_and_what_a_parenthesis_says_besides_is_kept():
    assert strip_dialog_ids("Two paintings: (1) a sunset (D17:12), and (2) an abstract one (D17:14).") == \
        "Two paintings: (1) a sunset, and (2) an abstract one."
    assert strip_dialog_ids("French (Tim took French in high school, per D27:7)") == \
        "French (Tim took French in high school)"
    assert strip_dialog_ids("PC (D27:15-17), Nintendo console (D27:23 - Xenoblade Chronicles)") == \
        "PC, Nintendo console (Xenoblade Chronicles)"
    assert strip_dialog_ids("Three (as stated by Joanna in D25:4: 'third time')") == "Three (as stated by Joanna: 'third time')"


def _run(dev: Path) -> dict:
    result = invoke("run", "locomo", str(dev), "--conversations", "conv-26", "--out", "run.json")
    assert result.exit_code == 0, result.output
    return json.loads(Path("run.json").read_text())


def test_the_audits_errors_json_gives_corrected_scores_and_ceilings_beside_the_untouched_official(shared_data):
    dev = shared_data / "locomo" / "locomo-dev.json"
    run = _run(dev)
    before = json.loads(invoke("show", run["run_id"], "--json").stdout)
    result = invoke("rejudge", run["run_id"], "--gold-overlay", str(shared_data / "locomo-audit" / "errors.json"),
                    "--json")
    assert result.exit_code == 0, result.output
    corrected = json.loads(result.stdout)
    assert corrected["label"] == "corrected gold (diagnostic; never the official score)" and not corrected["pinned"]
    index = [r for r in json.loads((shared_data / "locomo-audit" / "derived" / "error_index.json").read_text())
             if r["kind"] == "score_corrupting" and r["conv_index"] == 0]
    planned = {q.question_id: q for e in events_of(run["run_id"]) if e.type == "QuestionsPlanned" for q in e.questions}
    affected: dict[str, int] = {}
    for row in index:
        kind = planned[f"conv-26:q{row['qa_index']}"].kind
        affected[kind] = affected.get(kind, 0) + 1
    for kind, k in corrected["by_kind"].items():  # the ceiling is (planned - affected) / planned, per kind
        assert k["corrected"] + k["left_out"] == affected.get(kind, 0)
        assert k["ceiling"] == (k["planned"] - affected.get(kind, 0)) / k["planned"]
    assert corrected["left_out_by_reason"] == {
        form: n for form in ("contested", "not_determinable", "premise_error")
        if (n := sum(1 for r in index if r["correct_answer_form"] == form))}
    judged = [e for e in events_of(run["run_id"]) if e.type == "PlantJudged"]
    assert len(judged) == sum(1 for r in index if r["correct_answer_form"] == "replacement")
    assert all(j.gold != planned[j.question_id].gold for j in judged)  # against the replacement, not the release
    after = json.loads(invoke("show", run["run_id"], "--json").stdout)
    assert {k: v for k, v in after.items() if k not in _BESIDE} == {k: v for k, v in before.items() if k not in _BESIDE}
    assert "CORRECTED GOLD (DIAGNOSTIC; NEVER THE OFFICIAL SCORE)" in invoke("show", run["run_id"]).stdout
    # the released gold on the ledger is untouched
    assert {q.question_id: q.gold for e in events_of(run["run_id"]) if e.type == "QuestionsPlanned"
            for q in e.questions} == {qid: q.gold for qid, q in planned.items()}


def test_an_overlay_file_flips_verdicts_and_a_kind_over_its_ceiling_is_flagged(shared_data):
    dev = shared_data / "locomo" / "locomo-dev.json"
    result = invoke("run", "locomo", str(dev), "--conversations", "conv-26", "--question-limit", "40",
                    "--out", "run.json")
    run = json.loads(Path("run.json").read_text())
    events = events_of(run["run_id"])
    answers = {e.question_id: e.answer for e in events if e.type == "QuestionAnswered"}
    kinds = {q.question_id: q.kind for e in events if e.type == "QuestionsPlanned" for q in e.questions}
    llm = {e.question_id: e.verdict for e in events if e.type == "Judged" and e.scorer_id == "s2"}
    temporal = [qid for qid, kind in kinds.items() if kind == "temporal"]
    assert any(llm[qid] == "correct" for qid in temporal)  # the flag below has something to catch
    wrong = [qid for qid, kind in kinds.items() if kind == "multi_hop" and llm[qid] == "incorrect"][:2]
    overlay = {"format": "benchledger-gold-overlay/1", "source": "a test",
               "entries": [*({"question_id": qid, "exclude": "premise_error"} for qid in temporal),
                           *({"question_id": qid, "gold": answers[qid]} for qid in wrong),
                           {"question_id": "conv-99:q1", "gold": "nobody"}]}
    Path("overlay.json").write_text(json.dumps(overlay, indent=1))
    result = invoke("rejudge", run["run_id"], "--gold-overlay", "overlay.json", "--scorer", "s2", "--json")
    assert result.exit_code == 0, result.output
    corrected = json.loads(result.stdout)
    by = corrected["by_kind"]
    assert by["temporal"]["ceiling"] == 0.0 and by["temporal"]["exceeds_ceiling"]
    assert by["temporal"]["corrected_judged"] == 0 and corrected["left_out_by_reason"] == {"premise_error": len(temporal)}
    assert not by["open_domain"]["exceeds_ceiling"]
    # the gold replaced by the recorded answer itself: the judge now accepts both answers
    assert by["multi_hop"]["flips"] == {"correct->incorrect": 0, "incorrect->correct": 2}
    assert by["multi_hop"]["corrected_correct"] == by["multi_hop"]["official_correct"] + 2
    assert "OVER CEILING" in invoke("show", run["run_id"]).stdout
    started = next(e for e in events_of(run["run_id"]) if e.type == "AuditStarted")
    assert started.skipped == {"not a question of this run": 1} and set(started.replaced) == set(wrong)


def test_a_bad_overlay_is_refused_naming_its_line_and_field_before_anything_is_written(shared_data):
    run = _run(shared_data / "locomo" / "locomo-dev.json")
    Path("bad.json").write_text('{"format": "benchledger-gold-overlay/1",\n "entries": [\n'
                                '  {"question_id": "conv-26:q0", "gold": "x"},\n'
                                '  {"question_id": "conv-26:q1", "gold": "y", "exclude": "premise_error"}]}\n')
    before = len(events_of(run["run_id"]))
    result = invoke("rejudge", run["run_id"], "--gold-overlay", "bad.json")
    assert result.exit_code == 2 and "bad.json:4: field 'entries[1]': give exactly one" in result.output
    assert invoke("rejudge", run["run_id"], "--gold-overlay", "bad.json", "--judge-model", "x").exit_code == 2
    assert len(events_of(run["run_id"])) == before


def test_on_the_whole_dev_split_the_ceilings_are_the_audits_own_arithmetic(shared_data):
    """The shared data's README computes the dev ceilings from errors.json apart from this code:
    95.91 / 91.15 / 91.12 / 89.39% for single-hop / multi-hop / temporal / open-domain."""
    dev = shared_data / "locomo" / "locomo-dev.json"
    result = invoke("run", "locomo", str(dev), "--categories", "single_hop,multi_hop,temporal,open_domain",
                    "--out", "run.json")
    assert result.exit_code == 0, result.output
    run = json.loads(Path("run.json").read_text())
    corrected = json.loads(invoke("rejudge", run["run_id"], "--gold-overlay",
                                  str(shared_data / "locomo-audit" / "errors.json"), "--json").stdout)
    ceilings = {kind: round(100 * k["ceiling"], 2) for kind, k in corrected["by_kind"].items()}
    assert ceilings == {"single_hop": 95.91, "multi_hop": 91.15, "temporal": 91.12, "open_domain": 89.39}
    assert round(100 * corrected["overall"]["ceiling"], 2) == 93.62 and corrected["overall"]["planned"] == 1035


def test_the_loopback_judge_rescores_replacements_and_a_failed_call_is_finished_by_running_it_again(
        shared_data, monkeypatch):
    from benchledger.adapters.models.loopback import LoopbackOpenAI

    dev = shared_data / "locomo" / "locomo-dev.json"
    errors = shared_data / "locomo-audit" / "errors.json"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-loopback-0000")
    with LoopbackOpenAI() as server:
        result = invoke("run", "locomo", str(dev), "--conversations", "conv-26", "--protocol", "typed",
                        "--agent-model", "loopback-agent", "--judge-model", "loopback-judge",
                        "--base-url", server.base_url, "--out", "run.json")
        assert result.exit_code == 0, result.output
        run_id = json.loads(Path("run.json").read_text())["run_id"]
        before = server.count(role="judge")
        server.faults.push("500", times=3, role="judge")
        failed = invoke("rejudge", run_id, "--gold-overlay", str(errors), "--max-attempts", "1", "--json")
        assert failed.exit_code == 3 and "again to finish it" in failed.output
        assert json.loads(failed.stdout)["overall"]["missing"] == 3
        finished = invoke("rejudge", run_id, "--gold-overlay", str(errors), "--json")
        assert finished.exit_code == 0, finished.output
        asked = server.count(role="judge") - before
    corrected = json.loads(finished.stdout)
    assert corrected["audit_id"] == "a1" and corrected["overall"]["missing"] == 0
    events = events_of(run_id)
    started = next(e for e in events if e.type == "AuditStarted")
    judged = [e for e in events if e.type == "PlantJudged"]
    assert sorted(e.question_id for e in judged) == sorted(started.replaced)  # one verdict per replaced question
    assert asked == len(started.replaced) + 3  # the three failed calls, then only what they lacked
    assert [e.attempt for e in events if e.type == "AuditContinued"] == [2]
    assert invoke("verify").exit_code == 0
