"""Answers that are actions: the strict reading of a call, the tools interface through the real client and
the loopback endpoint, the fall-back to the JSON call, and the offline agent's rules."""

from __future__ import annotations

import json

import pytest

from benchledger.adapters.benchmarks.base import Document, Question
from benchledger.adapters.benchmarks.mem2actbench.answer import ActionAnswerModel, ActionScorer, OfflineActionAnswerer
from benchledger.adapters.memory.protocol import Candidate
from benchledger.adapters.models.offline_actions import offline_call, statements
from benchledger.adapters.models.openai_chat import ChatClient
from benchledger.adapters.models.tool_calls import (
    MAX_CALL_BYTES, Action, CallRefused, action_record, parse_json_call, parse_tool_reply, read_action, tool_reply_text,
)
from benchledger.settings import ModelCalls

WEATHER = {"name": "get weather", "description": "Get the current weather in a city.", "parameters": {
    "type": "dict", "required": ["city"], "properties": {
        "city": {"type": "string", "description": "City to look up, usually where the user lives"},
        "units": {"type": "string", "enum": ["celsius", "fahrenheit"], "default": "celsius"}}}}
FLIGHT = {"name": "book_flight", "description": "Book a flight for the user.", "parameters": {
    "type": "dict", "properties": {"origin": {"type": "string", "description": "Home city the trip starts from"}}}}


@pytest.mark.parametrize("reply, call", [
    ('{"name": "a", "arguments": {"x": 1}}', {"name": "a", "arguments": {"x": 1}}),
    ('  \n{"arguments": {}, "name": "a"}\n', {"name": "a", "arguments": {}}),
    ('```json\n{"name": "a", "arguments": {}}\n```', {"name": "a", "arguments": {}}),
])
def test_a_json_call_is_one_object_with_exactly_name_and_arguments(reply, call):
    assert parse_json_call(reply) == call


@pytest.mark.parametrize("reply, missing", [
    ("", True), ("   ", True),
    ("Sure! I'll call get_weather for Lisbon.", False),
    ('Here: {"name": "a", "arguments": {}}', False),  # no prose is searched for a call
    ('{"name": "a", "arguments": {},}', False),  # no trailing comma forgiven
    ('{"name": "a", "arguments": {}, "id": 1}', False),
    ('{"name": "", "arguments": {}}', False), ('{"name": "a", "arguments": []}', False),
    ('[{"name": "a", "arguments": {}}]', False), ("[" * 400, False),
    ('```json\n{"name": "a", "arguments": {}}\n```\nand another', False),
])
def test_anything_else_is_no_call_and_says_whether_one_was_made_at_all(reply, missing):
    with pytest.raises(CallRefused) as refused:
        parse_json_call(reply)
    assert refused.value.missing is missing and str(refused.value)


def test_a_tools_reply_holds_exactly_one_call_whose_arguments_are_an_object():
    names = {"get_weather": "get weather"}
    one = tool_reply_text(None, [("get_weather", '{"city": "Porto"}')])
    assert parse_tool_reply(one, names) == {"name": "get weather", "arguments": {"city": "Porto"}}
    assert parse_tool_reply(tool_reply_text(None, [("other", "{}")]), names)["name"] == "other"
    for text, missing in ((tool_reply_text("I would rather chat.", []), True),
                          (tool_reply_text(None, [("a", "{}"), ("b", "{}")]), False),
                          (tool_reply_text(None, [("a", '["x"]')]), False),
                          (tool_reply_text(None, [("a", '{"x": ')]), False)):
        with pytest.raises(CallRefused) as refused:
            parse_tool_reply(text, names)
        assert refused.value.missing is missing


def test_a_call_past_the_size_limit_is_no_call_so_the_recorded_answer_stays_small():
    huge = json.dumps({"name": "a", "arguments": {"x": "y" * MAX_CALL_BYTES}})
    with pytest.raises(CallRefused, match="over the limit of 65,536 bytes"):
        parse_json_call(huge)
    with pytest.raises(CallRefused):
        parse_tool_reply(tool_reply_text(None, [("a", json.dumps({"x": "y" * MAX_CALL_BYTES}))]))
    assert parse_json_call(json.dumps({"name": "a", "arguments": {"x": "y" * 1000}}))["name"] == "a"


def test_the_action_record_reads_back_as_written_and_a_foreign_answer_is_no_call():
    action = Action({"name": "a", "arguments": {"b": [1]}}, "", "tools")
    assert read_action(action_record(action)) == action
    refused = Action(None, "the reply makes no tool call", "json", missing=True)
    assert read_action(action_record(refused)) == refused
    assert read_action("Final: Lisbon").call is None
    assert read_action('{"call": {"name": 4, "arguments": {}}}').error == "the recorded call is malformed"


def _question(*tools: dict, query: str = "What's the weather like where I live?") -> Question:
    gold = {"name": "get weather", "arguments": {"city": "Porto", "units": "fahrenheit"}}
    return Question(question_id="q1", kind="L2", text=query, gold=json.dumps(gold),
                    extra={"candidate_tools": json.dumps(list(tools)), "gold_call": json.dumps(gold),
                           "tool_schema": json.dumps(WEATHER)})


def _memory(*texts: str) -> list[Candidate]:
    return [Candidate.of_document(rank, 1.0, Document(doc_id=f"d{n}", text=text, author="user", position=n))
            for rank, (n, text) in enumerate(reversed(list(enumerate(texts))), start=1)]


MEMORY = _memory("My current city is Lisbon.", "I moved; these days my current city is Porto.",
                 "I grew up in Texas and say fahrenheit for temperatures.")


def test_through_the_real_client_the_loopback_answers_a_forced_tool_call(loopback):
    client = ChatClient(ModelCalls(base_url=loopback.base_url))
    answer = ActionAnswerModel(client, "loopback-agent").answer(_question(WEATHER, FLIGHT), MEMORY, None)
    action = read_action(answer.answer)
    assert action == Action({"name": "get weather", "arguments": {"city": "Porto", "units": "fahrenheit"}}, "", "tools")
    body = loopback.requests[-1]
    assert body["tool_choice"] == "required" and [t["function"]["name"] for t in body["tools"]] == ["get_weather",
                                                                                                    "book_flight"]
    assert body["tools"][0]["function"]["parameters"]["type"] == "object" and body["temperature"] == 0
    single = ActionAnswerModel(client, "loopback-agent").answer(_question(WEATHER), MEMORY, None)
    assert loopback.requests[-1]["tool_choice"] == {"type": "function", "function": {"name": "get_weather"}}
    assert ActionScorer().judge(_question(WEATHER), single, None).verdict == "correct"


def test_an_endpoint_without_tools_is_asked_the_json_call_and_each_answer_says_how_it_was_asked(loopback):
    loopback.faults.always("no_tools")
    model = ActionAnswerModel(ChatClient(ModelCalls(base_url=loopback.base_url)), "loopback-agent")
    first = read_action(model.answer(_question(WEATHER), MEMORY, None).answer)
    second = read_action(model.answer(_question(WEATHER), MEMORY, None).answer)
    assert first.interface == second.interface == "json" and first.call == second.call and first.call is not None
    assert [bool(body.get("tools")) for body in loopback.requests] == [True, False, False]
    assert "Available tools:\n" in loopback.requests[-1]["messages"][1]["content"]


@pytest.mark.parametrize("reply, missing", [("I'd rather not.", False), ('{"name": "get weather"}', False)])
def test_an_unparseable_json_call_is_a_recorded_wrong_action(loopback, reply, missing):
    loopback.faults.always("reply", text=reply, role="agent")
    answer = ActionAnswerModel(ChatClient(ModelCalls(base_url=loopback.base_url)), "loopback-agent", "json").answer(
        _question(WEATHER), MEMORY, None)
    action = read_action(answer.answer)
    assert action.call is None and action.missing is missing and answer.raw == reply
    verdict = ActionScorer().judge(_question(WEATHER), answer, None)
    assert (verdict.verdict, verdict.score, verdict.criteria["called"]) == ("incorrect", 0.0, "no")


def test_the_offline_agent_copies_what_was_said_takes_the_latest_and_cannot_infer():
    assert statements(["Hello. My home city is Ghent; later my home city is Bergen!"]) == [
        ("home city", "Ghent"), ("home city", "Bergen")]
    call = offline_call("What's the weather like where I live?",
                        ["My current city is Lisbon.", "These days my current city is Porto."], [FLIGHT, WEATHER])
    assert call == {"name": "get weather", "arguments": {"city": "Porto", "units": "celsius"}}
    inferred = offline_call("weather", ["I grew up in Texas and think the American way."], [WEATHER])
    assert inferred == {"name": "get weather", "arguments": {"units": "celsius"}}  # the default: it cannot infer
    assert offline_call("anything", [], []) is None
    answer = OfflineActionAnswerer().answer(_question(WEATHER), MEMORY, None)
    assert read_action(answer.answer).interface == "offline" and OfflineActionAnswerer.name.startswith("offline-")
