"""`run --dry-run` forecasts the memory's own calls where the system can say them (mem0), and each
count is held against the calls a real build and recall then made through the recording proxy."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from benchledger.adapters.memory.registry import open_memory
from benchledger.testing.memory_contract import SCOPE, contract_corpus
from conftest import MINI, requires_extra
from ledger_cli import events_of, invoke_expecting

pytestmark = requires_extra("mem0", "mem0")


def _mem0_memory():
    """The adapter class, imported by the test (the module needs the mem0 extra, so a `.[test]`
    install must still collect this file and skip it)."""
    from benchledger.adapters.memory.mem0_memory import Mem0Memory
    return Mem0Memory


def _recorded(calls) -> Counter:
    return Counter((c.stage, c.endpoint, c.model_asked) for c in calls)


@pytest.mark.parametrize(("options", "batch_size", "chat"), [
    ({"infer": "true", "granularity": "session"}, 1000, 2),  # one call per channel's run of messages
    ({"infer": "true", "granularity": "session"}, 3, 4),  # a build batch's boundary splits a run: more calls
    ({"infer": "true", "granularity": "3"}, 1000, 4),
    ({"infer": "false"}, 4, 0),
])
def test_the_planned_calls_are_the_calls_a_build_and_recall_make(tmp_path: Path, options, batch_size, chat) -> None:
    by_channel = sorted(contract_corpus(), key=lambda doc: doc.channel)  # 4 finance messages, then 4 general
    corpus = [doc.model_copy(update={"position": i}) for i, doc in enumerate(by_channel)]
    shuffled = corpus[1::2] + corpus[::2]  # the order given is not the build's: positions are
    planned = _mem0_memory().planned_calls(options, [shuffled], questions=2, batch_size=batch_size)
    assert [p.calls for p in planned if p.endpoint == "chat"] == ([chat] if chat else [])
    memory = open_memory("mem0", tmp_path / "m.sqlite", **options)
    try:
        memory.ingest(SCOPE, shuffled)
        with memory.model_calls.stage("build", scope_key=SCOPE):
            list(memory.build(SCOPE, batch_size))
        for query in (corpus[0].text, corpus[3].text):
            with memory.model_calls.stage("recall", question_id=query[:8]):
                memory.recall(SCOPE, query, asking_user=None, k=3, token_budget=None)
        made = _recorded(memory.model_calls.drain())
    finally:
        memory.close()
    assert made[("build", "chat", "gpt-4.1-nano")] == chat  # the chat count is exact
    for plan in planned:
        seen = made.pop((plan.stage, plan.endpoint, plan.model), 0)
        assert plan.calls <= seen and (plan.at_most is None or seen <= plan.at_most), (plan, seen)
        assert plan.at_most == (None if (plan.stage, plan.endpoint) == ("build", "embeddings") and chat
                                else plan.calls)  # exact but for the extracted memories' embeddings
    assert not made, f"calls made that were not planned: {made}"


def test_a_dry_run_prints_the_memory_s_calls_and_the_run_makes_them(tmp_path: Path) -> None:
    common = ("run", "groupmem", str(MINI), "--domain", "Demo", "--question-limit", "1", "--memory", "mem0",
              "--memory-option", "infer=true", "--memory-option", "granularity=session")
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"offline-extractive/1": {"input": 0, "output": 0},
                                  "gpt-4.1-nano": {"input": 0.1, "output": 0.4}}))
    dry = invoke_expecting(*common, "--dry-run", "--prices", str(prices)).stdout
    assert not (tmp_path / "ledger.db").exists() and not list(tmp_path.glob("*.mem0"))
    rows = {}
    for line in dry.splitlines():
        cells = line.split()
        if cells[:1] == ["memory"] and len(cells) >= 5:
            rows[(cells[1], cells[3])] = [int(n.replace(",", "")) for n in cells[4:] if n not in ("or", "more")]
    assert "tokens not forecast, so not priced" in dry and "the memory's own calls are left out" in dry
    invoke_expecting(*common, "--out", "r.json")
    run_id = json.loads(Path("r.json").read_text())["run_id"]
    made = Counter((c.stage, c.endpoint) for c in events_of(run_id) if c.type == "MemoryModelCalled")
    assert rows[("build", "chat")] == [made[("build", "chat")]] and made[("build", "chat")] > 0
    (low,) = rows[("build", "embeddings")]
    assert low <= made[("build", "embeddings")]
    assert rows[("recall", "embeddings")] == [made[("recall", "embeddings")]]
    assert set(made) == {("build", "chat"), ("build", "embeddings"), ("recall", "embeddings")}


def test_a_system_that_cannot_say_its_calls_is_not_forecast() -> None:
    dry = invoke_expecting("run", "groupmem", str(MINI), "--domain", "Demo", "--dry-run").stdout
    assert "memory: the memory system's own model calls are not forecast" in dry


def test_an_add_that_extracts_more_than_a_hundred_memories_makes_more_embedding_calls(tmp_path: Path) -> None:
    """Why the build's embeddings have no upper bound: mem0 embeds extracted memories 100 to a call."""
    many = contract_corpus()[0].model_copy(update={"text": " ".join(f"Fact {n} is recorded here." for n in range(150))})
    (chat, embeddings) = _mem0_memory().planned_calls({"infer": "true"}, [[many]], questions=0, batch_size=10)
    assert (chat.calls, chat.at_most, embeddings.calls, embeddings.at_most) == (1, 1, 1, None)
    memory = open_memory("mem0", tmp_path / "m.sqlite", infer="true")
    try:
        memory.ingest(SCOPE, [many])
        with memory.model_calls.stage("build", scope_key=SCOPE):
            list(memory.build(SCOPE, 10))
        made = _recorded(memory.model_calls.drain())
    finally:
        memory.close()
    assert made[("build", "chat", "gpt-4.1-nano")] == 1
    assert made[("build", "embeddings", "text-embedding-3-small")] == 3  # the messages, then 100 + 50 memories
