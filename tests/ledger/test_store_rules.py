"""The store's rules away from a database: the first recorded wins in the fold, the rules check
(`ledger.rules`) names a repeated key or a key the payload does not derive, and a finished run's
seal (`ledger.seal`) admits a purge's failure and a scorer segment's own verdicts, nothing else.

Through a real store on both backends these run in the contract suite (`tests/ledger_contract.py`);
here the fold and the check are fed rows a database would no longer accept, to show that neither
relies on the database's UNIQUE constraint.
"""

from __future__ import annotations

import pytest
from events_factory import config, stored, stream
from ledger_contract import forge

from benchledger.errors import VerificationFailed
from benchledger.ledger.store import Ledger
from benchledger.ledger.transfer import copy_run

from benchledger.ledger.events import (
    EVENT_TYPES, KEYS, Failed, Judged, Provenance, QuestionAnswered, QuestionsPlanned, RunFinished, RunStarted,
    ScorerStarted, derive_key,
)
from benchledger.ledger.mapper import stored_event
from benchledger.ledger.rules import rules_problem
from benchledger.projections.report import build_report
from benchledger.projections.state import fold_run
from benchledger.values import Question


def _rows(events):
    return [stored_event(seq, "run", seq, e.type, type(e).schema_version, "t", derive_key(e), f"h{seq}", "p", e)
            for seq, e in enumerate(events, start=1)]


def _accuracy(events) -> float:
    return build_report("run", stored(events), conditions=()).accuracy


def test_a_later_verdict_answer_or_start_never_replaces_the_first():
    events = stream({"q1": ("temporal", "incorrect"), "q2": ("temporal", "correct")})
    before = fold_run("run", stored(events))
    assert _accuracy(events) == 0.5
    forged = [
        Judged(question_id="q1", scorer_id="s1", verdict="correct", model="gpt-5"),
        QuestionAnswered(question_id="q1", answer="other", abstained=False, model="gpt-5", raw_hash="f" * 64),
        RunStarted(config=config(judge_model="gpt-4"), provenance=Provenance(package_version="x", python="3")),
        QuestionsPlanned(questions=(Question(question_id="q9", kind="temporal", text="?", gold="g"),), available=1),
    ]
    after = fold_run("run", stored([*events, *forged]))
    assert _accuracy([*events, *forged]) == 0.5
    assert after.questions["q1"].judged["s1"].verdict == "incorrect"
    assert after.questions["q1"].answered == before.questions["q1"].answered
    assert after.started == before.started and set(after.questions) == {"q1", "q2"}


def test_the_fold_counts_a_first_verdict_recorded_after_a_failure():
    events = stream({"q1": ("temporal", "failed:judge")})
    retried = [*events, Judged(question_id="q1", scorer_id="s1", verdict="correct", model="gpt-5")]
    assert fold_run("run", stored(retried)).questions["q1"].judged["s1"].verdict == "correct"


def test_rules_name_a_repeated_key_and_a_key_the_payload_does_not_derive():
    events = stream({"q1": ("temporal", "incorrect")})
    rows = _rows(events)
    assert rules_problem(rows) is None
    again = Judged(question_id="q1", scorer_id="s1", verdict="correct", model="gpt-5")
    key, version = derive_key(again), Judged.schema_version
    repeated = [*rows, stored_event(len(rows) + 1, "run", len(rows) + 1, "Judged", version, "t", key, "h", "p", again)]
    seq, problem = rules_problem(repeated)
    first = next(row.seq for row in rows if row.idempotency_key == key)
    assert seq == len(rows) + 1 and f"repeats key {key!r} of seq {first}" in problem
    renamed = [*rows, stored_event(len(rows) + 1, "run", len(rows) + 1, "Judged", version, "t", None, "h", "p", again)]
    seq, problem = rules_problem(renamed)
    assert seq == len(rows) + 1 and "stored under key None" in problem


def test_every_event_type_has_one_key_function_and_no_class_keys_itself():
    assert set(KEYS) == set(EVENT_TYPES)
    assert [cls.__name__ for cls in EVENT_TYPES.values() if "idempotency_key" in vars(cls)] == []


def test_a_run_holding_a_row_the_store_never_wrote_is_not_copied(tmp_path):
    # Finding 2 of issue 19 ended with the owner's own `pull` copying a forgery into her file.
    run_id = "01JSEA1ED000000000000000RV"
    with Ledger.open(tmp_path / "shared.db") as shared, Ledger.open(tmp_path / "mine.db") as mine:
        shared.writer.append(run_id, [Judged(question_id="q1", scorer_id="s1", verdict="incorrect", model="j"),
                                      RunFinished(status="completed")])
        late = Judged(question_id="q2", scorer_id="s1", verdict="correct", model="j")
        seq = forge(shared, run_id, late, derive_key(late))
        with pytest.raises(VerificationFailed, match=f"at seq {seq}.*after it finished.*it is not copied"):
            copy_run(shared, mine, run_id)
        assert mine.reader.runs() == []


# -- the seal's rules (`ledger/seal.py`), each on both sides, away from a database ----------------------

def _after_finish(*late) -> tuple[int, str] | None:
    """The rules' answer for a finished run (its answers judged by s1) followed by `late`."""
    return rules_problem(_rows([*stream({"q1": ("temporal", "correct"), "q2": ("temporal", "pending")}), *late]))


def test_after_the_finish_a_purges_failure_is_admitted_and_no_other_failure_is():
    assert _after_finish(Failed(stage="purge", scope_key="default", error_class="E", message="m")) is None
    for stage in ("answer", "recall", "run", "prepare"):
        late = Failed(stage=stage, question_id=None if stage in ("run", "prepare") else "q2", error_class="E",
                      message="m")
        refused = _after_finish(late)
        assert refused is not None and "Failed after it finished joins no segment" in refused[1], stage
    refused = _after_finish(Failed(stage="judge", question_id="q2", scorer_id="s1", error_class="E", message="m"))
    assert refused is not None and "after it finished" in refused[1]  # s1's segment closed with the finish


def test_a_scorer_segment_admits_its_own_scorers_verdicts_and_failures_only():
    opened = ScorerStarted(scorer_id="s2", judge_model="j2", protocol="typed")
    own = [Judged(question_id="q1", scorer_id="s2", verdict="correct", model="j2"),
           Failed(stage="judge", question_id="q2", scorer_id="s2", error_class="E", message="m")]
    assert _after_finish(opened, *own) is None
    for other in (Judged(question_id="q2", scorer_id="s1", verdict="correct", model="j"),
                  Failed(stage="judge", question_id="q2", scorer_id="s1", error_class="E", message="m"),
                  Judged(question_id="q2", scorer_id="s3", verdict="correct", model="j")):
        seq, problem = _after_finish(opened, *own, other)
        assert seq == len(_rows(stream({"q1": ("temporal", "correct"), "q2": ("temporal", "pending")}))) + 4
        assert "inside the segment of scorer s2 joins no segment" in problem, other
    # a scorer segment is opened by its own event: the same verdict with no opener is refused
    refused = _after_finish(*own)
    assert refused is not None and "after it finished" in refused[1]
