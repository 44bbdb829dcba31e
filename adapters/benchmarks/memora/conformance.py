"""Memora conformance: each fixture recomputed with benchledger's official-rule code.

- `*fama-expected.json` with the `*fama-inputs.json` beside it: every judge request built from
  the official templates (the count of requests sent, retries included, must match), every
  judge's verdict, every criterion's vote, every question's result, each per-persona report, the
  one-run report, and Table 3 (rows, cells, printout) from the recomputed reports.
- `*judge-replies.json`: each tricky reply through the parser, the model-track pipeline and the
  agent-track pipeline, for both expected answers.
- `*context-example.json`: the fixture keeps only the output, so its sessions are read back from
  the expected history ("## Session" headings, "User:"/"Assistant:" lines) and rebuilt; this
  proves the layout and the token count, not the dropping of other speakers (the unit tests do).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from benchledger.adapters.benchmarks.conformance import (
    Comparison, ConformanceOptions, FixtureCheck, FixtureResult, field_pairs,
)
from benchledger.adapters.benchmarks.json_source import read_json
from benchledger.adapters.benchmarks.memora.context import HEADER, build_conversation_context
from benchledger.adapters.benchmarks.memora.judge_verdict import (
    JudgeVerdict, agent_track_verdict, model_track_verdict, needs_retry, outcome_from_fixture,
    parse_judge_response,
)
from benchledger.adapters.benchmarks.memora.prompts import (
    CALL_ATTEMPTS, judge_messages, load_templates,
)
from benchledger.adapters.benchmarks.memora.report import in_official_order, official_report
from benchledger.adapters.benchmarks.memora.scoring import (
    QuestionResult, answer_response, question_result,
)
from benchledger.adapters.benchmarks.memora.table3 import (
    aggregate_table3, print_table3, table3_row,
)
from benchledger.errors import BadInput

__all__ = ["CHECKS"]

Pairs = list[tuple[str, Any, Any]]


def _start(path: Path, name: str) -> tuple[Any, FixtureResult, Comparison]:
    data, _text = read_json(path)
    result = FixtureResult(file=str(path), check=name)
    return data, result, Comparison(result)


def _score(inputs: Mapping[str, Any], templates: Mapping[str, str]
           ) -> tuple[list[tuple[Mapping[str, Any], QuestionResult]], int]:
    """Every question scored as the official runner would, and the judge requests it sent."""
    judges = list(inputs["judges"])
    replies = inputs["judge_reply_by_judge_and_eval_id"]
    scored, requests = [], 0
    for question in inputs["questions"]:
        answers = inputs["answer_model_reply_by_question_id"]
        answer = outcome_from_fixture(answers[question["question_id"]])
        model_response, answer_error = answer_response(answer)
        verdicts: dict[str, dict[str, JudgeVerdict]] = {}
        for criterion in question["evaluation"]["evaluation_questions"]:
            criterion_id = criterion["evaluation_question_id"]
            judge_messages(templates, model_response, criterion)  # what each judge is sent
            verdicts[criterion_id] = {}
            for judge in judges:
                outcome = outcome_from_fixture(replies[f"{judge}|{criterion_id}"])
                requests += CALL_ATTEMPTS if needs_retry(outcome) else 1
                verdicts[criterion_id][judge] = model_track_verdict(outcome,
                                                                    criterion["expected_answer"])
        scored.append((question, question_result(question, model_response, verdicts, judges,
                                                 answer_error=answer_error)))
    return scored, requests


def _question_pairs(expected: Mapping[str, Any], got: QuestionResult) -> Pairs:
    official = got.as_official()
    pairs: Pairs = [pair for key, value in expected.items() if key != "criteria"
                    for pair in field_pairs(key, value, official.get(key))]
    pairs.append(("criteria count", len(expected["criteria"]), len(got.criteria)))
    for want, criterion in zip(expected["criteria"], got.criteria):
        vote = criterion.vote
        mine = {"evaluation_question_id": criterion.criterion_id, "is_correct": vote.is_correct,
                "llm_answer": vote.llm_answer, "correct_votes": vote.correct_votes,
                "num_valid_judges": vote.num_valid_judges, "agreement_rate": vote.agreement_rate,
                "per_judge": {j: v.as_official() for j, v in criterion.per_judge.items()}}
        pairs += [pair for key, value in want.items()
                  for pair in field_pairs(f"{criterion.criterion_id}.{key}", value, mine.get(key))]
    return pairs


def _fama_cases(expected: Mapping[str, Any], inputs: Mapping[str, Any],
                templates: Mapping[str, str]) -> Iterator[tuple[str, Pairs]]:
    scored, requests = _score(inputs, templates)
    judges = list(inputs["judges"])
    yield "judge requests sent (attempts included)", [
        ("requests", expected["judge_prompts_checked_against_template"], requests)]
    by_id = {result.question_id: result for _, result in scored}
    for want in expected["per_question"]:
        got = by_id.get(want["question_id"])
        yield f"question {want['question_id']}", (
            _question_pairs(want, got) if got else [("question", want["question_id"], None)])
    runs: dict[str, list[QuestionResult]] = {}
    for question, result in scored:
        runs.setdefault(f"{question['period']}/{question['persona']}", []).append(result)
    reports = {run: official_report(in_official_order(results), judges)
               for run, results in runs.items()}
    for run, want in expected["report_per_period_persona"].items():
        yield f"report {run}", list(field_pairs(run, want, reports.get(run, {})))
    everything = official_report(in_official_order(r for _, r in scored), judges)
    yield "report of all questions as one run", list(
        field_pairs("report", expected["report_all_questions_as_one_run"], everything))
    yield from _table3_cases(expected, reports)


def _table3_cases(expected: Mapping[str, Any], reports: Mapping[str, Mapping[str, Any]]
                  ) -> Iterator[tuple[str, Pairs]]:
    rows = []
    for want in expected["aggregate_results_rows"]:
        parts = Path(want["report"]).parts
        run = "/".join(parts[parts.index("eval_results") - 2: parts.index("eval_results")])
        model_name = re.sub(r" \((no )?reasoning\)$", "", want["subject"])
        row = table3_row(reports.get(run, {}), want["report"], {"model_name": model_name})
        rows.append(row)
        yield f"table 3 row {run}", list(field_pairs("row", want, row))
    table = aggregate_table3(rows)
    yield "table 3", list(field_pairs("table3", expected["aggregate_results_table3"], table))
    printed = expected["aggregate_results_printed"].splitlines(keepends=True)
    if printed and printed[-1].startswith("Wrote "):  # main() names its --output file last
        printed.pop()
    yield "table 3 printout", [("printed", "".join(printed), print_table3(table))]


def _fama_inputs(path: Path) -> Path:
    """The inputs file beside an expected-outputs file (same prefix)."""
    return path.with_name(path.name.removesuffix("fama-expected.json") + "fama-inputs.json")


def _check_fama(path: Path, options: ConformanceOptions) -> FixtureResult:
    expected, result, compare = _start(path, "memora.fama")
    inputs_path = _fama_inputs(path)
    if not inputs_path.is_file():
        result.skipped = f"{inputs_path.name} not found beside it"
        return result
    try:
        templates = load_templates((options.prompts_root or Path(".")) / "memora" / "prompts")
    except BadInput as err:
        result.skipped = f"official templates unavailable: {err}"
        return result
    inputs, _text = read_json(inputs_path)
    for case_id, pairs in _fama_cases(expected, inputs, templates):
        compare.case(case_id, pairs)
    return result


def _verdict_fields(verdict: JudgeVerdict | None) -> dict[str, Any] | None:
    if verdict is None:
        return None
    return {**verdict.as_official(), "parse_error": verdict.parse_error is not None,
            "error": verdict.error is not None}


def _check_judge_replies(path: Path, options: ConformanceOptions) -> FixtureResult:
    data, result, compare = _start(path, "memora.judge_replies")
    for record in data["records"]:
        outcome = outcome_from_fixture(record["reply"])
        for expected_answer, want in record["by_expected"].items():
            got = {
                "track1_parse": _verdict_fields(parse_judge_response(outcome, expected_answer))
                if isinstance(outcome, str) else None,
                "track1_pipeline": _verdict_fields(model_track_verdict(outcome, expected_answer)),
                "track2_pipeline": _verdict_fields(agent_track_verdict(outcome, expected_answer)),
            }
            compare.case(f"reply {record['id']} expecting {expected_answer}",
                         list(field_pairs("", want, got)))
    return result


_HEADING = re.compile(r"\n\n## Session (.+?) - (.*)\n\n")
_TURN_START = re.compile(r"\n(?=(?:User|Assistant): )")


def _sessions_in(context: str) -> list[dict[str, Any]]:
    """The sessions a history shows: each heading, then its turns up to the block's last "\n"."""
    body = context.removeprefix(HEADER)
    headings = list(_HEADING.finditer(body))
    sessions = []
    for heading, following in zip(headings, [*headings[1:], None]):
        text = body[heading.end():following.start() if following else len(body)]
        text = text.removesuffix("\n")
        turns = []
        for line in _TURN_START.split(text) if text else []:
            speaker, _, message = line.partition(": ")
            turns.append({"speaker": "ai_agent" if speaker == "Assistant" else "user",
                          "message": message})
        session_id = heading.group(1)
        sessions.append({"session_id": int(session_id) if session_id.isdigit() else session_id,
                         "date": heading.group(2), "conversation": turns})
    return sessions


def _check_context(path: Path, options: ConformanceOptions) -> FixtureResult:
    data, result, compare = _start(path, "memora.context")
    sessions = _sessions_in(data["context"])
    context, meta = build_conversation_context(sessions)
    compare.case("context", [
        ("sessions", data["conversations"], [s["session_id"] for s in sessions]),
        ("context", data["context"], context),
        *field_pairs("metadata", data["metadata"], vars(meta))])
    return result


CHECKS: tuple[FixtureCheck, ...] = (
    FixtureCheck("memora.fama", "*fama-expected.json", _check_fama, requires_key="per_question",
                 companion=_fama_inputs),
    FixtureCheck("memora.judge_replies", "*judge-replies.json", _check_judge_replies,
                 requires_key="records"),
    FixtureCheck("memora.context", "*context-example.json", _check_context,
                 requires_key="context"),
)
