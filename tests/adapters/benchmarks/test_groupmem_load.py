"""The GroupMemBench adapter on the real released questions, the mini example and small releases."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from benchledger.adapters.benchmarks.groupmem.loader import (
    ADAPTER_VERSION, KINDS, SOLVABILITY_FILTERED_DOMAINS, load_groupmem, read_questions,
)
from benchledger.adapters.benchmarks.groupmem.schema import ABSTENTION_GOLD
from benchledger.adapters.benchmarks.groupmem.write import write_release
from benchledger.errors import BadInput
from conftest import MINI, REPO

REAL_COUNTS = {"Finance": 214, "Healthcare": 145, "Manufacturing": 173, "Technology": 213}
T0 = datetime(2025, 5, 1, 9, 0)


def message(n: int, minutes: int | None = None, **overrides) -> dict:
    base = {"msg_node": f"Msg_{n}", "content": f"message number {n}", "author": f"User_{n % 3 + 1}",
            "role": "Backend Engineer",
            "timestamp": (T0 + timedelta(minutes=n if minutes is None else minutes)).isoformat(),
            "reply_to": None, "phase_name": "Build", "topic": "api", "is_noise": False,
            "is_decision_point": False}
    return {**base, **overrides}


def questions(per_kind: int = 3) -> dict[str, list[dict]]:
    return {kind: [{"id": f"{kind}_{i}", "question": f"{kind} question {i}?",
                    "answer": ABSTENTION_GOLD if kind == "abstention" else f"answer {i}",
                    "asking_user_id": f"User_{i}"} for i in range(1, per_kind + 1)]
            for kind in KINDS}


def small_release(root: Path, channels: dict | None = None, qs: dict | None = None) -> Path:
    channels = channels or {"ops": [message(i) for i in range(1, 11)],
                            "design": [message(i) for i in range(11, 21)]}
    return write_release(root, "Small", channels, qs or questions())


def test_all_real_question_files_validate_with_their_counts(shared_data):
    root = shared_data / "groupmembench"
    totals = {}
    for domain in REAL_COUNTS:
        qset = read_questions(root, domain)
        assert qset.kinds == KINDS and not qset.missing_kinds
        assert len({q.question_id for q in qset.questions}) == len(qset.questions)
        totals[domain] = len(qset.questions)
    assert totals == REAL_COUNTS
    assert sum(totals.values()) == 745


def test_real_first_person_questions_keep_their_asking_user(shared_data):
    path = shared_data / "groupmembench" / "questions" / "Technology" / "user_implicit.jsonl"
    first_line = path.read_text(encoding="utf-8").splitlines()[0]
    qset = read_questions(shared_data / "groupmembench", "Technology", kinds=["user_implicit"])
    assert qset.questions[0].asking_user in first_line
    assert all(q.asking_user and q.asking_user.startswith("User_") for q in qset.questions)
    assert {q.kind for q in qset.questions} == {"user_implicit"}
    abst = read_questions(shared_data / "groupmembench", "Finance", kinds=["abstention"])
    assert all(q.abstention and q.gold == ABSTENTION_GOLD for q in abst.questions)


def test_real_release_without_corpus_names_the_expected_path(shared_data):
    with pytest.raises(BadInput) as err:
        load_groupmem(shared_data / "groupmembench", "Finance")
    assert err.value.file.endswith(
        "data/final/Finance/synthetic_domain_channels_rolevariants_Finance.json")


def test_mini_example_loads_with_structure_and_prompts():
    dataset = load_groupmem(MINI, "Demo")
    docs = dataset.scopes["default"]
    assert dataset.benchmark == "GroupMemBench" and dataset.subset == "Demo"
    assert dataset.adapter_version == ADAPTER_VERSION and "Demo" not in SOLVABILITY_FILTERED_DOMAINS
    assert len(docs) >= 200 and len({d.channel for d in docs}) >= 4
    per_kind = {kind: sum(q.kind == kind for q in dataset.questions) for kind in KINDS}
    assert min(per_kind.values()) >= 5, per_kind
    assert len({d.phase for d in docs}) >= 3 and len({d.topic for d in docs}) >= 3
    assert dataset.annotations["is_noise"] and any(d.is_decision for d in docs)
    ids = {d.doc_id for d in docs}
    assert any(d.reply_to in ids for d in docs)
    assert dataset.prompts is not None and "Final:" in dataset.prompts.agent_system
    assert "Final: Correct" in dataset.prompts.judge_system
    texts = " ".join(d.text for d in docs)
    for q in dataset.questions:
        if not q.abstention:
            assert q.gold in texts, q.question_id
        if q.kind == "user_implicit":
            assert any(d.author == q.asking_user and q.gold in d.text for d in docs)


def test_content_is_html_unescaped_and_fields_are_mapped(tmp_path):
    channels = {"ops": [message(1, content="R&amp;D said &lt;b&gt;it&#39;s done&lt;/b&gt;",
                                reply_to="Msg_2", is_decision_point=True, mood="calm"),
                        message(2, is_noise=True, timestamp="2025-05-01 09:02")]}
    dataset = load_groupmem(small_release(tmp_path, channels), "Small")
    second, first = dataset.scopes["default"]  # "2025-05-01 09:02" sorts before "2025-05-01T09:01:00"
    assert first.doc_id == "Msg_1" and first.text == "R&D said <b>it's done</b>"
    assert (first.author, first.role, first.channel, first.phase, first.topic) == \
        ("User_2", "Backend Engineer", "ops", "Build", "api")
    assert first.reply_to == "Msg_2" and first.is_decision
    assert first.timestamp == datetime(2025, 5, 1, 9, 1, tzinfo=timezone.utc)
    # the released timestamp string is kept verbatim for the passages
    assert first.extra == {"mood": "calm", "timestamp": "2025-05-01T09:01:00"}
    assert second.extra["timestamp"] == "2025-05-01 09:02" and second.position == 0
    # is_noise is a dataset annotation: not on what a memory system ingests
    assert "is_noise" not in first.model_dump() and dataset.annotations == {"is_noise": ("Msg_2",)}
    assert dataset.release.extra_fields["messages"] == ("mood",)


def test_canonical_order_is_the_official_string_order(tmp_path):
    channels = {
        "zeta": [message(10, minutes=5), message(9, minutes=5)],
        "alpha": [message(100, minutes=5), message(2, minutes=7), message(3, timestamp="2025-05-01 09:07:00")],
        "Mid": [message(50, minutes=0, timestamp="2025-05-01T11:00:00+03:00")],  # 08:00 UTC
    }
    docs = load_groupmem(small_release(tmp_path, channels), "Small").scopes["default"]
    # channel first ("Mid" < "alpha" < "zeta"), then the timestamp string (" " < "T"), then the
    # msg_node string ("Msg_10" < "Msg_9"), never the time in UTC
    assert [d.doc_id for d in docs] == ["Msg_50", "Msg_3", "Msg_100", "Msg_2", "Msg_10", "Msg_9"]
    assert [d.position for d in docs] == list(range(6))


def test_limits_and_kind_selection(tmp_path):
    root = small_release(tmp_path)
    full = load_groupmem(root, "Small")
    cut = load_groupmem(root, "Small", kinds=["temporal", "multi_hop"], message_limit=4,
                        question_limit=2)
    # the 4 earliest messages, in canonical order
    earliest = sorted(full.scopes["default"], key=lambda d: (d.timestamp, d.position))[:4]
    assert [d.doc_id for d in cut.scopes["default"]] == [d.doc_id for d in sorted(earliest, key=lambda d: d.position)]
    assert [q.question_id for q in cut.questions] == \
        ["multi_hop_1", "multi_hop_2", "temporal_1", "temporal_2"]
    assert cut.selection.message_limit == 4 and cut.selection.question_limit == 2
    assert cut.release.documents_available == 20 and cut.release.questions_available == 6
    assert cut.selection.kinds == ("temporal", "multi_hop") and cut.document_count < cut.release.documents_available
    assert full.document_count == full.release.documents_available and full.release.dangling_replies == 0
    with pytest.raises(BadInput, match="at least 1"):
        load_groupmem(root, "Small", message_limit=0)


def test_fingerprint_tracks_selected_messages_only(tmp_path):
    root = small_release(tmp_path / "a")
    base = load_groupmem(root, "Small").fingerprint
    assert load_groupmem(root, "Small").fingerprint == base
    assert load_groupmem(root, "Small", question_limit=1, kinds=["temporal"]).fingerprint == base
    assert load_groupmem(root, "Small", message_limit=5).fingerprint != base
    assert load_groupmem(root, "Small", message_limit=6).fingerprint != \
        load_groupmem(root, "Small", message_limit=5).fingerprint
    changed = {"ops": [message(i) for i in range(1, 11)],
               "design": [message(i, content="edited" if i == 20 else f"message number {i}")
                          for i in range(11, 21)]}
    other = small_release(tmp_path / "b", changed)
    assert load_groupmem(other, "Small").fingerprint != base
    # the edited message is outside a 5-message selection, so that slice is unchanged
    assert load_groupmem(other, "Small", message_limit=5).fingerprint == \
        load_groupmem(root, "Small", message_limit=5).fingerprint


def test_ids_shared_across_kinds_are_prefixed(tmp_path):
    qs = questions(1)
    qs["temporal"][0]["id"] = qs["multi_hop"][0]["id"] = "q1"
    dataset = load_groupmem(small_release(tmp_path, qs=qs), "Small")
    ids = [q.question_id for q in dataset.questions]
    assert "multi_hop:q1" in ids and "temporal:q1" in ids and "abstention_1" in ids
    assert len(set(ids)) == len(ids)
