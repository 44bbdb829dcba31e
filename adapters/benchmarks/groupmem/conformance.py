"""GroupMemBench conformance checks: message order, BM25, reply parsing, verdicts, tables, prompts.

- `groupmem.bm25` claims `*bm25-top10.json` and reads the corpus it names from the `release/`
  folder beside it: the official message order, the index statistics, and per query the query
  text, its tokens, the top k (rank, load index, msg_node, raw BM25, item score) and the first
  three passages; then the same under the script's argparse defaults (`alt_config_cli_defaults`).
- `groupmem.replies` claims `*replies.json` holding `agent_replies`: `extract_final` and
  `split_reasoning_and_final` of every agent reply; for every judge reply also `parse_judgment`
  (on the split final and on the full text), the run-time verdict and the published-table rule;
  then the summary table over result files laid out as the fixture's `layout` describes.
- `groupmem.prompt_example` claims `*prompt-example.json`: the agent prompt of the question over
  its official top-10 passages and the judge prompt, after proving the prompt builders reproduce
  the official template files of `<prompts root>/groupmembench/prompts/`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from benchledger.adapters.benchmarks.conformance import (
    Comparison, ConformanceOptions, FixtureCheck, FixtureResult,
)
from benchledger.adapters.benchmarks.json_source import read_json
from benchledger.adapters.benchmarks.groupmem.bm25 import (
    BM25Index, IndexFields, QueryFields, author_roles, build_query, tokenize,
)
from benchledger.adapters.benchmarks.groupmem.messages import (
    OfficialMessage, content_text, load_messages, passage_of, structured_text,
)
from benchledger.adapters.benchmarks.groupmem.prompts import build_agent_user_prompt, build_judge_user_prompt
from benchledger.adapters.benchmarks.groupmem.replies import (
    extract_final, parse_judgment, published_is_correct, run_time_verdict, split_reasoning_and_final,
)
from benchledger.adapters.benchmarks.groupmem.summary import (
    DEFAULT_QTYPES, format_markdown, format_tsv, printout, scan_results,
)

__all__ = ["CHECKS", "OfficialRetriever"]

SUMMARY_BASELINE = "bm25"


class OfficialRetriever:
    """`MinimalBM25Retriever` over loaded messages, for the conformance checks."""

    def __init__(self, messages: list[OfficialMessage], *, index_fields: IndexFields = "content",
                 query_fields: QueryFields = "question_only", k: int = 10) -> None:
        self.messages, self.query_fields, self.k = messages, query_fields, k
        text = (lambda m: content_text(m.get("content"))) if index_fields == "content" else structured_text
        self.index = BM25Index.build([tokenize(text(m)) for m in messages])
        self.roles = author_roles((str(m.get("author") or ""), str(m.get("role") or "")) for m in messages)

    def query(self, question: str, asker: str | None) -> str:
        return build_query(question, asker, query_fields=self.query_fields,
                           asker_role=self.roles.get(asker or ""))

    def retrieve(self, question: str, asker: str | None):
        return self.index.top(tokenize(self.query(question, asker)), self.k)


def _load(path: Path) -> dict[str, Any]:
    return read_json(path)[0]


def _corpus(fixture: Path, relative: str | None) -> list[OfficialMessage]:
    release = fixture.parent / "release"
    if relative is None:
        found = sorted((release / "data" / "final").glob("*/synthetic_domain_channels_rolevariants_*.json"))
        if len(found) != 1:
            raise FileNotFoundError(f"expected one corpus file under {release}/data/final, found {len(found)}")
        relative = str(found[0].relative_to(release))
    return load_messages(_load(release / relative))


def _check_bm25(path: Path, options: ConformanceOptions) -> FixtureResult:
    result = FixtureResult(file=str(path), check="groupmem.bm25")
    expected = _load(path)
    try:
        messages = _corpus(path, expected["conversation_file"])
    except OSError as error:
        result.skipped = f"release corpus not readable: {error}"
        return result
    compare = Comparison(result)
    compare.case("message_order", [("message_order", expected["message_order"], [
        {"idx": i, "channel": m.channel, "timestamp": m.get("timestamp"), "msg_node": m.get("msg_node")}
        for i, m in enumerate(messages)])])
    config = expected["config"]
    retriever = OfficialRetriever(messages, index_fields=config["index_fields"],
                                  query_fields=config["query_fields"], k=config["retrieve_top_k"])
    compare.case("config", [("n_docs", config["n_docs"], retriever.index.size),
                            ("avgdl", config["avgdl"], retriever.index.avgdl)])
    for query in expected["questions"]:
        top = retriever.retrieve(query["question"], query["asking_user_id"])
        nodes = [messages[item.index].get("msg_node") for item in top]
        compare.case(query["id"], [
            ("retrieval_query", query["retrieval_query"], retriever.query(query["question"], query["asking_user_id"])),
            ("query_tokens", query["query_tokens"], tokenize(retriever.query(query["question"], query["asking_user_id"]))),
            ("top", query["top"], [{"rank": rank, "msg_idx": item.index, "msg_node": node, "bm25": item.bm25,
                                    "score": item.score}
                                   for rank, (item, node) in enumerate(zip(top, nodes), start=1)]),
            ("msg_nodes", query["msg_nodes"], nodes),
            ("passages_top3", query["passages_top3"], [passage_of(messages[item.index]) for item in top[:3]]),
        ])
    alternative = expected.get("alt_config_cli_defaults")
    if alternative:
        alt = alternative["config"]
        other = OfficialRetriever(messages, index_fields=alt["index_fields"], query_fields=alt["query_fields"],
                                  k=alt["retrieve_top_k"])
        compare.case("alt_config", [("n_docs", alt["n_docs"], other.index.size), ("avgdl", alt["avgdl"], other.index.avgdl)])
        asked = {q["id"]: q for q in expected["questions"]}
        for query in alternative["questions"]:
            source = asked[query["id"]]
            top = other.retrieve(source["question"], source["asking_user_id"])
            compare.case(f"alt_config.{query['id']}", [
                ("retrieval_query", query["retrieval_query"], other.query(source["question"], source["asking_user_id"])),
                ("msg_nodes", query["msg_nodes"], [messages[item.index].get("msg_node") for item in top])])
    return result


def _summary_files(judge_answers: list[str]) -> dict[str, str]:
    """The result files of the fixture's layout: record i in `<baseline>__<qtypes[i % 6]>.jsonl`,
    plus a blank and an undecodable line, a record without `judge_answer`, one with it null, and a
    `.skipped` file that the summary must ignore."""
    lines: dict[str, list[str]] = {qtype: [] for qtype in DEFAULT_QTYPES}
    for index, answer in enumerate(judge_answers):
        lines[DEFAULT_QTYPES[index % len(DEFAULT_QTYPES)]].append(json.dumps({"judge_answer": answer}))
    lines["temporal"] += ["", "{not json"]
    lines["abstention"].append(json.dumps({"query": "no judge"}))
    lines["multi_hop"].append(json.dumps({"judge_answer": None}))
    files = {f"{SUMMARY_BASELINE}__{qtype}.jsonl": "\n".join(rows) + "\n" for qtype, rows in lines.items()}
    files[f"{SUMMARY_BASELINE}__temporal.jsonl.skipped"] = json.dumps({"judge_answer": "Correct"}) + "\n"
    return files


def _check_replies(path: Path, options: ConformanceOptions) -> FixtureResult:
    result = FixtureResult(file=str(path), check="groupmem.replies")
    expected = _load(path)
    compare = Comparison(result)
    for number, reply in enumerate(expected["agent_replies"], start=1):
        reasoning, final = split_reasoning_and_final(reply["text"])
        compare.case(f"agent reply {number}", [
            ("extract_final", reply["extract_final"], extract_final(reply["text"])),
            ("split_reasoning", reply["split_reasoning"], reasoning), ("split_final", reply["split_final"], final)])
    judge_answers = []
    for number, reply in enumerate(expected["judge_replies"], start=1):
        reasoning, final = split_reasoning_and_final(reply["text"])
        judge_answers.append(final)
        compare.case(f"judge reply {number}", [
            ("extract_final", reply["extract_final"], extract_final(reply["text"])),
            ("split_reasoning", reply["split_reasoning"], reasoning), ("judge_answer", reply["judge_answer"], final),
            ("parse_judgment", reply["parse_judgment"], parse_judgment(final)),
            ("run_time_verdict", reply["run_time_verdict"], run_time_verdict(final)),
            ("parse_judgment_on_full_text", reply["parse_judgment_on_full_text"], parse_judgment(reply["text"])),
            ("summarize_is_correct", reply["summarize_is_correct"], published_is_correct(final))])
    summary = expected.get("summarize_typed_eval")
    if summary:
        qtypes = summary.get("qtypes", list(DEFAULT_QTYPES))
        stats = scan_results(_summary_files(judge_answers))
        compare.case("summarize_typed_eval", [
            ("tsv", summary["tsv"], format_tsv(stats, [SUMMARY_BASELINE], qtypes) + "\n"),
            ("markdown", summary["markdown"], format_markdown(stats, [SUMMARY_BASELINE], qtypes) + "\n"),
            ("printed", summary["printed"],
             printout(stats, [SUMMARY_BASELINE], qtypes, out_markdown="out.md", out_tsv="out.tsv"))])
    return result


_TEMPLATE_EXAMPLES = {
    "agent_user_example_3_passages.txt": lambda: build_agent_user_prompt(
        "{question}", "{asking_user_id}", ["{passage_1}", "{passage_2}", "{passage_3}"]),
    "agent_user_example_no_asker.txt": lambda: build_agent_user_prompt("{question}", "", ["{passage_1}"]),
    "agent_user_example_no_passages.txt": lambda: build_agent_user_prompt("{question}", "{asking_user_id}", []),
    "judge_user.txt": lambda: build_judge_user_prompt("{question}", "{gold_answer}", "{agent_answer}"),
}


def _check_prompt_example(path: Path, options: ConformanceOptions) -> FixtureResult:
    result = FixtureResult(file=str(path), check="groupmem.prompt_example")
    folder = Path(options.prompts_root or path.parent.parent) / "groupmembench" / "prompts"
    missing = [name for name in _TEMPLATE_EXAMPLES if not (folder / name).is_file()]
    if missing:
        result.skipped = f"official templates missing under {folder} ({', '.join(missing)}); pass --prompts-root"
        return result
    try:
        messages = _corpus(path, None)
    except OSError as error:
        result.skipped = f"release corpus not readable: {error}"
        return result
    compare = Comparison(result)
    for name, build in _TEMPLATE_EXAMPLES.items():
        compare.case(f"template {name}", [(name, (folder / name).read_text(encoding="utf-8"), build())])
    expected = _load(path)
    question = expected["question"]
    retriever = OfficialRetriever(messages)
    passages = [passage_of(messages[item.index])
                for item in retriever.retrieve(question["question"], question["asking_user_id"])]
    compare.case(question["id"], [
        ("agent_user_prompt", expected["agent_user_prompt"],
         build_agent_user_prompt(question["question"], question["asking_user_id"], passages)),
        ("judge_user_prompt_with_agent_answer_X", expected["judge_user_prompt_with_agent_answer_X"],
         build_judge_user_prompt(question["question"], question["answer"], "X"))])
    return result


CHECKS: tuple[FixtureCheck, ...] = (
    FixtureCheck("groupmem.bm25", "*bm25-top10.json", _check_bm25),
    FixtureCheck("groupmem.replies", "*replies.json", _check_replies, requires_key="agent_replies"),
    FixtureCheck("groupmem.prompt_example", "*prompt-example.json", _check_prompt_example,
                 requires_key="agent_user_prompt"),
)
