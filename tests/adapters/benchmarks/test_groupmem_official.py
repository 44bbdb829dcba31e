"""GroupMemBench's official order, BM25, reply parsing, verdicts, table and prompts.

The conformance test recomputes the official outputs in `../shared/data/conformance/groupmembench`;
the table tests pin quirks 27-31 with hand-made inputs, each expected value worked out from the rule.
"""

from __future__ import annotations

import json
import math

import pytest

from benchledger.adapters.benchmarks.conformance import ConformanceOptions, run_conformance
from benchledger.adapters.benchmarks.groupmem.bm25 import BM25Index, build_query, tokenize
from benchledger.adapters.benchmarks.groupmem.conformance import CHECKS
from benchledger.adapters.benchmarks.groupmem.messages import format_passage, load_messages
from benchledger.adapters.benchmarks.groupmem.prompts import build_agent_user_prompt, is_official_prompt
from benchledger.adapters.benchmarks.groupmem.replies import (
    extract_final, parse_judgment, published_is_correct, run_time_verdict, split_reasoning_and_final,
)
from benchledger.adapters.benchmarks.groupmem.summary import format_tsv, printout, scan_results


def test_every_official_groupmembench_output_is_reproduced(shared_data):
    results = run_conformance(shared_data / "conformance", ConformanceOptions(), checks=list(CHECKS))
    assert sorted(r.check for r in results) == ["groupmem.bm25", "groupmem.prompt_example", "groupmem.replies"]
    for result in results:
        assert result.ok, (result.file, result.skipped, result.first_mismatch)


def test_the_prompt_example_needs_the_official_templates(shared_data, tmp_path):
    options = ConformanceOptions(prompts_root=tmp_path)
    [result] = [r for r in run_conformance(shared_data / "conformance", options, checks=list(CHECKS))
                if r.check == "groupmem.prompt_example"]
    assert not result.ok and "--prompts-root" in result.skipped


@pytest.mark.parametrize("text, final, reasoning", [
    ("why\nFinal: 10", "10", "why"),
    ("why\n**Final:** teal", "**Final:** teal", "why\n**Final:** teal"),  # not a final line: whole last line
    ("why\n- Final: teal", "- Final: teal", "why\n- Final: teal"),
    ("Final: 5\nFinal: 10\nmore", "10", "Final: 5"),                     # the last final line wins
    ("why\nFinal: 10\nFinal answer:", "", "why\nFinal: 10"),              # even an empty one
    ("Final:: x", ": x", ""),                                             # text after the first colon
    ("  FINAL ANSWER:teal  ", "teal", ""),
    ("just a line\n\nanother one\n", "another one", "just a line\n\nanother one"),
    ("", "", ""),
])
def test_final_lines(text, final, reasoning):
    assert split_reasoning_and_final(text) == (reasoning, final)
    assert extract_final(text) == final


@pytest.mark.parametrize("final, run_time, published", [
    ("Correct", True, True),
    ("Partially correct", True, False),          # "correct" as a substring at run time
    ("In-correct", True, False),                 # no "incorrect" substring
    ("Not incorrect", False, False),             # "incorrect" is looked for first
    ("C o r r e c t", None, True),               # only letters count in the published rule
    ("Correct<br>", True, False),                # "correctbr" is not "correct"
    ("**Correct**", True, True),
    ("Yes", None, False),
])
def test_two_verdict_rules(final, run_time, published):
    assert parse_judgment(final) is run_time
    assert run_time_verdict(final) == {True: "Correct", False: "Incorrect", None: "Unclear"}[run_time]
    assert published_is_correct(final) is published


def test_official_message_order_is_plain_string_order():
    corpus = {
        "alpha": [{"msg_node": "Msg_28", "timestamp": "2025-01-01T09:00:00"},
                  {"msg_node": "Msg_184", "timestamp": "2025-01-01T09:00:00"},
                  {"msg_node": "Msg_1", "timestamp": "2025-01-01 10:00:00"},
                  {"msg_node": "Msg_2", "timestamp": ""}, "not a message"],
        "_ops": [{"msg_node": "Msg_3", "timestamp": "2024-01-01T00:00:00"}],
        "Zeta": [{"msg_node": "Msg_4", "timestamp": "2026-01-01T00:00:00"}],
        "meta": {"not": "a channel"},
    }
    # channels: "Zeta" < "_ops" < "alpha" (upper case, then "_", then lower case); within alpha the
    # empty timestamp first, "2025-01-01 10" before "2025-01-01T09" (space < "T"), "Msg_184" < "Msg_28"
    assert [m.get("msg_node") for m in load_messages(corpus)] == \
        ["Msg_4", "Msg_3", "Msg_2", "Msg_1", "Msg_184", "Msg_28"]


def test_passages_keep_the_released_fields():
    passage = format_passage(author=None, role="PM", channel="ops", phase_name="", topic=None,
                             timestamp="2025-05-05 10:31", reply_to=None, msg_node="Msg_1",
                             body="  it's done  ")
    assert passage == "[user=? / speaker_role=PM / channel=ops / timestamp=2025-05-05 10:31 / msg_node=Msg_1]\nit's done"


def idf(n: int, df: int) -> float:
    return math.log(1 + (n - df + 0.5) / (df + 0.5))


def test_bm25_ties_padding_and_item_scores():
    docs = [["zz"], ["apple", "pie"], ["apple", "pie"], ["pear"], []]
    index = BM25Index.build(docs)
    top = index.top(["apple"], 4)
    # docs 1 and 2 tie; the lower load index first; then zero-score padding in load order: 0, 3
    assert [r.index for r in top] == [1, 2, 0, 3]
    avgdl = 6 / 5  # true lengths 1 + 2 + 2 + 1 + 0 over 5 documents
    expected = idf(5, 2) * (1 * 2.5 / (1 + 1.5 * (1 - 0.75 + 0.75 * 2 / avgdl)))
    assert top[0].bm25 == expected and top[2].bm25 == 0.0
    assert [r.score for r in top] == [1.0, 1.0 - 0.001, 0.0 - 0.002, 0.0 - 0.003]
    assert index.top([], 10) == [] and index.top(["apple"], 0) == []
    # a repeated query token adds its term again
    assert index.scores(["apple", "apple"])[1] == expected + expected
    # nothing matches: every score is 0, the best is taken as 1.0, order is load order
    assert [(r.index, r.score) for r in index.top(["kiwi"], 2)] == [(0, 0.0), (1, -0.001)]


def test_queries_are_tokenised_without_unescaping():
    assert tokenize("we&#39;re café_x 2025") == ["we", "39", "re", "caf", "_x", "2025"]
    assert build_query("Q?", "User_1") == "Q?"
    assert build_query("Q?", "User_1", query_fields="standard") == "Q? User_1"
    assert build_query("Q?", "User_1", query_fields="structured", asker_role="PM") == "Q? User_1 PM"
    assert build_query("Q?", "", query_fields="structured", asker_role="PM") == "Q?"


def test_agent_prompt_and_pins(shared_data):
    assert build_agent_user_prompt("Q?", None, []) == \
        "Question:\nQ?\n\nRetrieved passages:\n\n\nAnswer the question using the retrieved passages."
    folder = shared_data / "groupmembench" / "prompts"
    assert is_official_prompt("agent_system.txt", (folder / "agent_system.txt").read_text())
    assert is_official_prompt("judge_system.txt", (folder / "judge_system.txt").read_text())
    assert not is_official_prompt("agent_system.txt", (folder / "agent_system.txt").read_text().strip())


def test_summary_counts_misses_and_skips_what_the_script_skips():
    files = {
        "bm25__multi_hop.jsonl": "\n".join([json.dumps({"judge_answer": "Correct"}),
                                            json.dumps({"judge_answer": "Correct – paraphrase"}),
                                            "", "{broken", json.dumps({"judge_answer": None})]),
        "bm25__abstention.jsonl": json.dumps({"query": "q"}) + "\r\n" + json.dumps({"judge_answer": " correct "}),
        "bm25__abstention.jsonl.skipped": json.dumps({"judge_answer": "Correct"}),
        "notes.jsonl": json.dumps({"judge_answer": "Correct"}),
    }
    stats = scan_results(files)
    # multi_hop: 3 records (blank and broken lines skipped), 1 correct, 1 missing judge
    # abstention: 2 records, 1 correct (" correct " keeps only letters), 1 missing judge
    assert format_tsv(stats, ["bm25"], ["multi_hop", "abstention", "temporal"]).splitlines()[1] == \
        "bm25\t1/3\t1/2\t\t2\t5\t0.4000"
    assert printout(stats, ["bm25"], ["multi_hop"]).endswith(
        "\n\n# 2 records had empty judge_answer (counted as Incorrect).\n")
