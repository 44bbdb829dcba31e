"""Property tests: generated valid releases load; mutated ones raise BadInput and nothing else."""

from __future__ import annotations

import html
import json
import tempfile
from datetime import datetime, timedelta, timezone
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchledger.adapters.benchmarks.groupmem.loader import KINDS, corpus_path, load_groupmem
from benchledger.adapters.benchmarks.groupmem.write import MESSAGE_FIELDS, write_release
from benchledger.errors import BadInput

FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
json_values = st.recursive(json_scalars, lambda inner: st.lists(inner, max_size=3)
                           | st.dictionaries(st.text(max_size=5), inner, max_size=3), max_leaves=6)
zones = st.none() | st.just(timezone.utc) | st.integers(-14 * 60, 14 * 60).map(
    lambda minutes: timezone(timedelta(minutes=minutes)))
timestamps = st.datetimes(datetime(1970, 1, 1), datetime(2100, 1, 1), timezones=zones).map(
    lambda moment: moment.isoformat())
optional_text = st.none() | st.text(max_size=20)
extra_fields = st.dictionaries(st.text(max_size=8).filter(lambda key: key not in MESSAGE_FIELDS),
                               json_values, max_size=2)


@st.composite
def messages(draw, n: int) -> dict:
    return {
        "msg_node": f"Msg_{n}",
        "content": draw(st.text(max_size=40) | st.sampled_from(["a &amp; b", "&lt;x&gt;", "it&#39;s"])),
        "author": draw(st.text(max_size=10)),
        "role": draw(optional_text),
        "timestamp": draw(timestamps),
        "reply_to": draw(st.none() | st.integers(1, 30).map(lambda i: f"Msg_{i}")),
        "phase_name": draw(optional_text),
        "topic": draw(optional_text),
        "is_noise": draw(st.booleans()),
        "is_decision_point": draw(st.booleans()),
        **draw(extra_fields),
    }


@st.composite
def releases(draw) -> tuple[dict, dict]:
    names = draw(st.lists(st.text(max_size=8), min_size=1, max_size=4, unique=True))
    sizes = draw(st.lists(st.integers(0, 6), min_size=len(names), max_size=len(names)))
    counter, channels = 0, {}
    for name, size in zip(names, sizes):
        channels[name] = []
        for _ in range(size):
            counter += 1
            channels[name].append(draw(messages(counter)))
    questions = {
        kind: [{"id": f"{kind}_{i}", "question": draw(st.text(min_size=1, max_size=20)),
                "answer": draw(st.text(max_size=20)),
                "asking_user_id": draw(st.none() | st.text(max_size=8)),
                **draw(st.dictionaries(st.sampled_from(["evidence", "note"]), json_values, max_size=1))}
               for i in range(draw(st.integers(0, 3)))]
        for kind in KINDS
    }
    return channels, questions


WRONG = {"msg_node": [5, None, [], ""], "content": [1, None, {"a": 1}], "author": [None, 3],
         "timestamp": [0, None, "yesterday", "2025-02-30T00:00:00"], "role": [1, []],
         "reply_to": [7, {}], "phase_name": [2], "topic": [False], "is_noise": ["yes", 1, None],
         "is_decision_point": [0, "false"]}
REQUIRED = ("msg_node", "content", "author", "timestamp")


def _load(channels: dict, questions: dict, mutate=None):
    with tempfile.TemporaryDirectory() as folder:
        root = write_release(Path(folder), "Fuzz", channels, questions)
        if mutate:
            mutate(root)
        return load_groupmem(root, "Fuzz")


@FUZZ
@given(releases())
def test_valid_releases_load_with_every_message_and_question(release):
    channels, questions = release
    dataset = _load(channels, questions)
    raw = [m for ms in channels.values() for m in ms]
    docs = dataset.scopes["default"]
    assert len(docs) == len(raw) and [d.position for d in docs] == list(range(len(raw)))
    by_id = {m["msg_node"]: m for m in raw}
    for doc in docs:
        assert doc.text == html.unescape(by_id[doc.doc_id]["content"])
        assert doc.timestamp.utcoffset() == timedelta(0)
    # the official order: plain string order on (channel, released timestamp, msg_node)
    keys = [(d.channel, d.extra["timestamp"], d.doc_id) for d in docs]
    assert keys == sorted(keys) and all(d.extra["timestamp"] == by_id[d.doc_id]["timestamp"] for d in docs)
    assert len(dataset.questions) == sum(len(items) for items in questions.values())
    ids = set(by_id)
    assert dataset.release.dangling_replies == sum(
        1 for m in raw if m["reply_to"] is not None and m["reply_to"] not in ids)


@FUZZ
@given(releases(), st.data())
def test_mutated_fields_raise_bad_input(release, data):
    channels, questions = release
    nonempty = [name for name, ms in channels.items() if ms]
    kind = data.draw(st.sampled_from(["wrong_type", "drop_field", "duplicate", "not_object",
                                      "question_type", "question_drop"]))
    if kind.startswith("question"):
        target_kind = data.draw(st.sampled_from(KINDS))
        item = {"id": "q", "question": "q?", "answer": "a"}
        if kind == "question_type":
            item[data.draw(st.sampled_from(["id", "question", "answer", "asking_user_id"]))] = \
                data.draw(st.sampled_from([1, [], {"x": 1}, True]))
        else:
            del item[data.draw(st.sampled_from(["id", "question", "answer"]))]
        questions = {**questions, target_kind: [*questions[target_kind], item]}
    else:
        if not nonempty:
            channels = {**channels, "extra": [data.draw(messages(999))]}
            nonempty = ["extra"]
        name = data.draw(st.sampled_from(nonempty))
        index = data.draw(st.integers(0, len(channels[name]) - 1))
        victim = dict(channels[name][index])
        if kind == "wrong_type":
            field = data.draw(st.sampled_from(sorted(WRONG)))
            victim[field] = data.draw(st.sampled_from(WRONG[field]))
        elif kind == "drop_field":
            del victim[data.draw(st.sampled_from(REQUIRED))]
        elif kind == "duplicate":
            victim["msg_node"] = data.draw(st.sampled_from(
                [m["msg_node"] for ms in channels.values() for m in ms if m is not channels[name][index]]
                or ["__none__"]))
        else:
            victim = data.draw(st.sampled_from([1, "text", [victim], None]))
        if kind == "duplicate" and victim["msg_node"] == "__none__":
            channels = {**channels, name: [*channels[name], dict(channels[name][index])]}
        else:
            channels = {**channels, name: [*channels[name][:index], victim, *channels[name][index + 1:]]}
    try:
        _load(channels, questions)
    except BadInput as err:
        assert err.file and "\n" not in str(err)
    else:
        raise AssertionError(f"mutation {kind} was accepted")


@FUZZ
@given(releases(), st.data())
def test_damaged_bytes_raise_only_bad_input(release, data):
    channels, questions = release

    def damage(root: Path) -> None:
        path = data.draw(st.sampled_from([corpus_path(root, "Fuzz"),
                                          *sorted((root / "questions" / "Fuzz").glob("*.jsonl"))]))
        raw = path.read_bytes()
        position = data.draw(st.integers(0, len(raw)))
        insert = data.draw(st.binary(min_size=1, max_size=4) | st.sampled_from(
            [b"{", b"]", b'"', b",", b"\xff", b"\\u", b"null", b"\n{\n"]))
        path.write_bytes(raw[:position] + insert + raw[position:])

    try:
        _load(channels, questions, damage)
    except BadInput as err:
        assert err.file and "\n" not in str(err)


def test_fuzz_helpers_write_what_they_generate(tmp_path):
    channels = {"c": [{"msg_node": "Msg_1", "content": "x", "author": "a",
                       "timestamp": "2025-01-01T00:00:00", "odd": [1]}]}
    root = write_release(tmp_path, "Fuzz", channels, {kind: [] for kind in KINDS})
    assert json.loads(corpus_path(root, "Fuzz").read_text()) == channels
    assert load_groupmem(root, "Fuzz").scopes["default"][0].extra == {"odd": "[1]", "timestamp": "2025-01-01T00:00:00"}
