"""The loopback endpoint answers what memory systems ask their model, through the openai SDK.

Extraction replies come from the input (each fact is a sentence the request handed over), match
the JSON the request asked for (mem0's json_object shape, an instance of a json_schema, a tool
call's parameters), and embeddings come from a real model shipped in a wheel with `dimensions`
honoured and refused where the model cannot give it.
"""

from __future__ import annotations

import json
import logging
import math
from typing import Optional

import openai
import pytest
from pydantic import BaseModel, Field

from benchledger.adapters.models.loopback import LoopbackOpenAI

NEW = ("Caroline went to the LGBTQ support group on 7 May. It was powerful.\n"
       "Melanie painted a sunrise over the lake last year.")
MEM0_PROMPT = (f"## Summary\n\n\n## Last k Messages\n[]\n\n## Existing Memories\n[]\n\n## New Messages\n"
               f"user: {NEW}\n\n## Observation Date\n2023-05-08\n\n# Output:")
SENTENCES = ["Caroline went to the LGBTQ support group on 7 May.", "It was powerful.",
             "Melanie painted a sunrise over the lake last year."]


class Entity(BaseModel):
    name: str = Field(description="name of the entity")
    entity_type_id: int


class Edge(BaseModel):
    relation_type: str
    source_entity_id: int
    target_entity_id: int
    fact: str
    valid_at: Optional[str] = None


class Extracted(BaseModel):
    extracted_entities: list[Entity]
    edges: list[Edge]
    duplicate_facts: list[int]


@pytest.fixture
def server():
    with LoopbackOpenAI() as srv:
        yield srv


@pytest.fixture
def client(server: LoopbackOpenAI) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.base_url, api_key="sk-loopback-test", max_retries=0)


def test_json_object_extraction_is_mem0s_shape_with_facts_from_the_input(client, server) -> None:
    reply = client.chat.completions.create(
        model="memory-llm", response_format={"type": "json_object"},
        messages=[{"role": "system", "content": "Extract memories."}, {"role": "user", "content": MEM0_PROMPT}])
    memories = json.loads(reply.choices[0].message.content)["memory"]
    assert [m["text"] for m in memories] == SENTENCES
    assert reply.usage.prompt_tokens > 0 and server.count(role="other") == 1


def test_json_schema_gets_an_instance_of_the_requested_schema_built_from_the_input(client) -> None:
    prompt = f"<PREVIOUS_MESSAGES>\n[]\n</PREVIOUS_MESSAGES>\n<CURRENT_MESSAGE>\n{NEW}\n</CURRENT_MESSAGE>\nExtract."
    reply = client.chat.completions.create(
        model="memory-llm", messages=[{"role": "user", "content": prompt}],
        response_format={"type": "json_schema", "json_schema": {"name": "Extracted",
                                                                "schema": Extracted.model_json_schema()}})
    got = Extracted.model_validate_json(reply.choices[0].message.content)
    assert [e.name for e in got.extracted_entities] == SENTENCES
    assert [e.fact for e in got.edges] != [] and all(e.fact in SENTENCES for e in got.edges)
    assert got.duplicate_facts == []  # an index list: "none", which invents no duplicate
    again = client.chat.completions.create(
        model="memory-llm", messages=[{"role": "user", "content": prompt}],
        response_format={"type": "json_schema", "json_schema": {"name": "Extracted",
                                                                "schema": Extracted.model_json_schema()}})
    assert again.choices[0].message.content == reply.choices[0].message.content


def test_tools_get_a_tool_call_whose_arguments_fit_the_tool(client) -> None:
    tools = [{"type": "function", "function": {"name": "noop", "parameters": {"type": "object", "properties": {}}}},
             {"type": "function", "function": {"name": "save_memory", "parameters": {
                 "type": "object", "properties": {"content": {"type": "string"}, "importance": {"type": "integer"}},
                 "required": ["content", "importance"]}}}]
    reply = client.chat.completions.create(
        model="agent-llm", messages=[{"role": "user", "content": NEW}], tools=tools,
        tool_choice={"type": "function", "function": {"name": "save_memory"}})
    choice = reply.choices[0]
    assert choice.finish_reason == "tool_calls" and choice.message.content is None
    (call,) = choice.message.tool_calls
    assert call.function.name == "save_memory"
    assert json.loads(call.function.arguments) == {"content": SENTENCES[0], "importance": 0}
    first = client.chat.completions.create(model="agent-llm", messages=[{"role": "user", "content": NEW}], tools=tools)
    assert first.choices[0].message.tool_calls[0].function.name == "noop"
    plain = client.chat.completions.create(model="agent-llm", messages=[{"role": "user", "content": NEW}],
                                           tools=tools, tool_choice="none")
    assert plain.choices[0].message.tool_calls is None and plain.choices[0].finish_reason == "stop"


def _cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b))


def test_embeddings_come_from_the_shipped_model_and_honour_dimensions(client, server) -> None:
    texts = ["The observability budget is capped at 40k euros.", "How much money is there for observability?",
             "lol did anyone see the cat video"]
    full = client.embeddings.create(model="text-embedding-3-small", input=texts)
    vectors = [d.embedding for d in full.data]
    assert [len(v) for v in vectors] == [256] * 3
    assert all(math.isclose(math.sqrt(sum(x * x for x in v)), 1.0, rel_tol=1e-5) for v in vectors)
    assert _cosine(vectors[0], vectors[1]) > _cosine(vectors[2], vectors[1])  # a real model, not a hash
    small = client.embeddings.create(model="text-embedding-3-small", input=texts[0], dimensions=64)
    assert len(small.data[0].embedding) == 64
    assert client.embeddings.create(model="m", input=texts).data[0].embedding == vectors[0]  # deterministic
    assert full.usage.prompt_tokens > 0 and server.count(role="embed") == 3
    with pytest.raises(openai.BadRequestError, match="dimensions must be one of 64, 128, 256"):
        client.embeddings.create(model="text-embedding-3-small", input="x", dimensions=1536)


def test_loading_the_embedding_model_leaves_the_root_logger_as_it_was() -> None:
    """wordllama calls logging.basicConfig(level=INFO) on import: a fresh interpreter shows whether the
    loopback put the root logger back (else every library's INFO lines reach a run's terminal)."""
    import subprocess
    import sys

    probe = ("import logging; from benchledger.adapters.models.loopback_embeddings import embed, embedder_name; "
             "embed(['a text']); embedder_name(); root = logging.getLogger(); "
             "print(root.level, len(root.handlers))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.split() == [str(logging.WARNING), "0"], done.stdout + done.stderr
