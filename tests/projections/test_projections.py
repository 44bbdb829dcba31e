"""Projections: tallies, intervals, publishable conditions and the report, from events alone."""

from __future__ import annotations

import pytest
from events_factory import GROUPMEM_CONDITIONS, PROVIDER, groupmem_release, config, stored, stream
from benchledger.adapters.benchmarks.groupmem.loader import read_questions
from benchledger.errors import UnknownScorer
from benchledger.ledger.events import Judged, QuestionAnswered, RunResumed, ScorerStarted
from benchledger.values import Question as PlannedQuestion
from benchledger.projections import build_report
from benchledger.projections.stats import cohen_kappa, mcnemar_exact, paired_bootstrap_diff, wilson_interval


def _report(events, **kw):
    return build_report("run-1", stored(events), conditions=GROUPMEM_CONDITIONS, **kw)


def test_failures_and_pending_never_count_as_wrong():
    events = stream({"a": ("temporal", "correct"), "b": ("temporal", "incorrect"),
                     "c": ("temporal", "failed:answer"), "d": ("temporal", "failed:judge"),
                     "e": ("multi_hop", "pending")})
    report = _report(events)
    assert (report.judged, report.correct, report.failed, report.pending) == (2, 1, 2, 1)
    assert report.accuracy == pytest.approx(0.5)
    assert report.strict_accuracy == pytest.approx(1 / 5)
    assert report.by_kind["temporal"].failed == 2
    assert report.status == "diagnostic"
    failed = {c.name: c for c in report.conditions if not c.met}
    assert "zero_operational_failures" in failed and "2 question(s) failed" in failed["zero_operational_failures"].reason
    assert "complete_run" in failed
    assert report.failures_by_error == {"APIError": 2}


def test_wilson_interval_matches_known_values():
    low, high = wilson_interval(8, 10)
    assert (round(low, 4), round(high, 4)) == (0.4902, 0.9433)
    assert wilson_interval(0, 0) == (0.0, 0.0)
    low, high = wilson_interval(0, 5)
    assert low == 0.0 and 0.43 < high < 0.44


@pytest.fixture
def released_finance(shared_data):
    """The released Finance questions as a run plans them."""
    questions = read_questions(shared_data / "groupmembench", "Finance").questions
    planned = tuple(PlannedQuestion(question_id=q.question_id, kind=q.kind, text=q.text, gold=q.gold,
                                    asking_user=q.asking_user, abstention=q.abstention) for q in questions)
    return planned, {q.question_id: (q.kind, "correct") for q in planned}


def test_reference_finance_run_is_publishable_and_each_condition_can_fail(released_finance):
    planned, outcomes = released_finance
    assert _report(stream(outcomes, planned=planned)).publishable
    first = next(iter(outcomes))
    cases = {
        "reference_protocol": stream(outcomes, planned=planned, cfg=config(k=8)),
        "solvability_filtered_domain": stream(outcomes, planned=planned, cfg=config(subset="Healthcare")),
        "complete_corpus": stream(outcomes, planned=planned, cfg=config(message_limit=50), documents=50,
                                  available=100),
        "unsampled_questions": stream(outcomes, planned=planned, cfg=config(question_limit=4)),
        # a corpus of other bytes than its pin, fetched from a hub that published exactly those bytes
        "official_release": stream(outcomes, planned=planned, cfg=config(release_files=tuple(
            f.model_copy(update={"sha256": "9" * 64, "published": f"hub sha256 {'9' * 64}"})
            if f.path.startswith("data/") else f for f in groupmem_release("Finance")))),
        "zero_operational_failures": stream({**outcomes, first: (outcomes[first][0], "failed:recall")},
                                            planned=planned),
    }
    for name, events in cases.items():
        report = _report(events)
        failed = [c.name for c in report.conditions if not c.met]
        also = {"solvability_filtered_domain": {"unsampled_questions"},  # Healthcare is another released set
                # a failed question is never judged, so the run is not complete either
                "zero_operational_failures": {"complete_run"}}.get(name, set())
        assert set(failed) == {name} | also, (name, failed)
        assert report.status == "diagnostic"


def test_a_made_up_question_set_under_a_released_domain_is_not_unsampled(released_finance):
    planned, outcomes = released_finance
    edited = (planned[0].model_copy(update={"gold": "something else"}),) + planned[1:]
    cond = {c.name: c for c in _report(stream(outcomes, planned=edited)).conditions}["unsampled_questions"]
    assert not cond.met and "released Finance set" in cond.reason
    made_up = _report(stream({"q1": ("temporal", "correct")}))
    assert not {c.name: c for c in made_up.conditions}["unsampled_questions"].met


def test_a_rejudge_with_another_protocol_or_an_unexpected_model_is_not_the_reference(released_finance):
    planned, outcomes = released_finance
    events = stream(outcomes, planned=planned)
    typed = [e.model_copy(update={"protocol": "typed"}) if isinstance(e, ScorerStarted) else e for e in events]
    cond = {c.name: c for c in _report(typed).conditions}["reference_protocol"]
    assert not cond.met and "typed protocol" in cond.reason
    swapped = [e.model_copy(update={"model": "llama-3-8b"}) if isinstance(e, QuestionAnswered) else e for e in events]
    cond = {c.name: c for c in _report(swapped).conditions}["reference_protocol"]
    assert not cond.met and "llama-3-8b" in cond.reason
    dated = [e.model_copy(update={"model": "gpt-5-2025-08-07"}) if isinstance(e, QuestionAnswered) else e for e in events]
    assert _report(dated).publishable


def test_offline_models_and_other_prompts_break_reference_protocol():
    outcomes = {"q": ("temporal", "correct")}
    for cfg in (config(offline_models=True), config(agent_model="gpt-4o"), config(prompt_hashes={}),
                config(memory_model="gpt-5"), config(protocol="typed")):
        cond = {c.name: c for c in _report(stream(outcomes, cfg=cfg)).conditions}["reference_protocol"]
        assert not cond.met and cond.reason


def test_unclear_counts_against_under_released_rule_and_is_excluded_under_rule_2():
    events = stream({"a": ("temporal", "correct"), "b": ("temporal", "unclear")})
    assert _report(events).accuracy == pytest.approx(0.5)
    rule2 = _report(events, scoring_rule=2)
    assert rule2.accuracy == pytest.approx(1.0) and rule2.projection_versions["scoring_rule"] == 2


def test_report_leads_with_the_protocols_scorer_not_the_newest():
    events = stream({"a": ("temporal", "correct")})
    events.insert(-1, ScorerStarted(scorer_id="s2", judge_model="gpt-4o", protocol="reference", endpoint=PROVIDER,
                                    prompt_hash=config().prompt_hashes["judge_system"]))
    events.insert(-1, Judged(question_id="a", scorer_id="s2", verdict="incorrect", model="gpt-4o"))
    report = _report(events)
    assert report.scorer_id == "s1" and report.correct == 1  # gpt-5 is the protocol's judge; gpt-4o is not
    [other] = [line for line in report.scorer_lines if not line.headline]
    assert other.scorer_id == "s2" and other.not_met == ["reference_protocol"] and other.score == 0.0
    assert _report(events, scorer_id="s2").correct == 0
    with pytest.raises(UnknownScorer, match="has no scorer 'nope'"):
        _report(events, scorer_id="nope")


def test_resumed_run_is_unfinished_until_it_finishes_again():
    events = stream({"a": ("temporal", "correct")})
    events.append(RunResumed(attempt=2, fingerprint_on_disk="f", reprepared=False, pending_questions=0))
    assert _report(events).run_status == "unfinished"


def test_projection_depends_only_on_events():
    events = stream({"a": ("temporal", "correct"), "b": ("abstention", "incorrect")})
    first = _report(events).model_dump_json()
    assert _report(list(events)).model_dump_json() == first
    assert build_report("run-1", iter(stored(events)), conditions=GROUPMEM_CONDITIONS).model_dump_json() == first


def test_exact_mcnemar_and_kappa_and_bootstrap():
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(0, 6) == pytest.approx(2 / 64)
    assert mcnemar_exact(3, 3) == 1.0
    assert cohen_kappa(["c", "i", "c", "i"], ["c", "i", "c", "i"]) == 1.0
    assert cohen_kappa(["c", "c", "i", "i"], ["c", "i", "c", "i"]) == pytest.approx(0.0)
    diff, low, high = paired_bootstrap_diff([0, 0, 1, 1] * 10, [1, 1, 1, 1] * 10, seed=1)
    assert diff == pytest.approx(0.5) and low <= diff <= high and low > 0


def test_a_purge_failure_stands_until_its_scope_is_purged():
    from benchledger.ledger.events import Failed, ScopePurged

    events = stream({"a": ("temporal", "correct")})
    failed = events + [Failed(stage="purge", scope_key="default", error_class="OSError", message="disk")]
    cond = {c.name: c for c in _report(failed).conditions}["zero_operational_failures"]
    assert not cond.met and "run-level" in cond.reason
    purged = failed + [ScopePurged(scope_key="default", scope="s", documents_removed=100)]
    assert {c.name: c for c in _report(purged).conditions}["zero_operational_failures"].met
