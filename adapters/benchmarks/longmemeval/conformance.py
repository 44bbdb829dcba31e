"""LongMemEval conformance: each fixture recomputed with benchledger's official-rule code.

- `*-retrieval.json`: every case's metrics (session and turn, every k) from its corpus ids,
  rankings and gold; the official gold rule where the case uses it; each `print_retrieval_metrics`
  subset (all cases, or one granularity's) printed from the recomputed metrics.
- `*retrieval-quirk-cases.json`: the hand-made cases, k by k, turn-to-session included.
- `*-qa-metrics.json`: per scenario, the exact judge request and label of every question, the
  skipped ids, the `evaluate_qa.py` summary and the `print_qa_metrics.py` printout. The
  missing-type scenario drops the type its description names.
- `*answer-prompt-examples.json`: every filled reader prompt.

The prompt fixtures need the official templates, read from `options.prompts_root /
"longmemeval" / "prompts"` and checked against their SHA-256 pins.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from benchledger.adapters.benchmarks.conformance import (
    Comparison, ConformanceOptions, FixtureCheck, FixtureResult, field_pairs,
)
from benchledger.adapters.benchmarks.json_source import read_json
from benchledger.adapters.benchmarks.longmemeval.corpus_ids import official_correct_docs
from benchledger.adapters.benchmarks.longmemeval.prompts import QUESTION_TYPES, load_templates
from benchledger.adapters.benchmarks.longmemeval.qa_metrics import (
    evaluate_qa_summary, judge_requests, label_replies, print_qa_metrics, qa_metrics,
)
from benchledger.adapters.benchmarks.longmemeval.reader import ReaderSettings, prepare_prompt
from benchledger.adapters.benchmarks.longmemeval.retrieval_metrics import (
    evaluate_retrieval, evaluate_retrieval_turn2session, metrics_for_question,
)
from benchledger.adapters.benchmarks.longmemeval.retrieval_printout import (
    is_abstention, print_retrieval_metrics,
)
from benchledger.errors import BadInput

__all__ = ["CHECKS"]

_SCORES = ("recall_any", "recall_all", "ndcg_any")


def _start(path: Path, name: str) -> tuple[Any, FixtureResult, Comparison]:
    data, _text = read_json(path)
    result = FixtureResult(file=str(path), check=name)
    return data, result, Comparison(result)


def _templates(options: ConformanceOptions, result: FixtureResult) -> dict[str, str] | None:
    folder = (options.prompts_root or Path(".")) / "longmemeval" / "prompts"
    try:
        return load_templates(folder)
    except BadInput as err:
        result.skipped = f"official templates unavailable: {err}"
        return None


def _check_retrieval(path: Path, options: ConformanceOptions) -> FixtureResult:
    data, result, compare = _start(path, "longmemeval.retrieval")
    computed: list[tuple[str, str, dict[str, dict[str, float]]]] = []
    for case in data["cases"]:
        got = metrics_for_question(case["rankings"], case["correct_docs"], case["corpus_ids"],
                                   case["granularity"], data["ks"])
        pairs = list(field_pairs("metrics", case["metrics"], got))
        if case.get("gold_rule") == "official_gold":
            pairs.append(("correct_docs (ids containing 'answer')", sorted(case["correct_docs"]),
                          official_correct_docs(case["corpus_ids"])))
        compare.case(f"case {case['case_id']}", pairs)
        computed.append((case["question_id"], case["granularity"], got))
    for subset, expected in data.get("print_retrieval_metrics", {}).items():
        granularity = subset.removesuffix("_granularity_cases")
        chosen = [(qid, metrics) for qid, level, metrics in computed
                  if subset == "all_cases" or level == granularity]
        compare.case(f"print_retrieval_metrics {subset}", [
            ("n_cases_in", expected["n_cases_in"], len(chosen)),
            ("n_non_abs", expected["n_non_abs"],
             sum(not is_abstention(qid) for qid, _ in chosen)),
            ("printed", expected["printed"], print_retrieval_metrics(chosen)),
        ])
    return result


def _check_retrieval_quirks(path: Path, options: ConformanceOptions) -> FixtureResult:
    cases, result, compare = _start(path, "longmemeval.retrieval_quirks")
    for index, case in enumerate(cases):
        args = (case["rankings"], case["correct_docs"], case["corpus_ids"])
        pairs: list[tuple[str, Any, Any]] = []
        for at, expected in case["metrics"].items():
            k = int(at.lstrip("@"))
            score = evaluate_retrieval(*args, k)
            pairs += [(f"{at} {name}", expected[name], getattr(score, name)) for name in _SCORES]
            if "turn2session" in expected:
                session = evaluate_retrieval_turn2session(*args, k)
                pairs += [(f"{at} turn2session {name}", expected["turn2session"][name],
                           getattr(session, name)) for name in _SCORES]
        compare.case(f"[{index}] {case.get('description', '')[:60]}", pairs)
    return result


def _printed_number(value: float) -> float | None:
    return None if math.isnan(value) else value


def _scenario_filter(data: Mapping[str, Any], name: str) -> Callable[[Mapping[str, Any]], bool]:
    if name == "main":
        return lambda _row: True
    description = str(data["inputs"].get(f"scenario_{name}", ""))
    dropped = [t for t in QUESTION_TYPES if t in description]
    if len(dropped) != 1:
        raise BadInput(f"scenario {name!r}: cannot tell which question type it removes",
                       field=f"inputs.scenario_{name}")
    return lambda row: row.get("question_type") != dropped[0]


def _qa_cases(data: Mapping[str, Any], name: str, expected: Mapping[str, Any],
              templates: Mapping[str, str]) -> Iterator[tuple[str, list[tuple[str, Any, Any]]]]:
    keep = _scenario_filter(data, name)
    references = [r for r in data["inputs"]["reference"] if keep(r)]
    hypotheses = data["inputs"]["hypotheses"]
    if name != "main":  # the reduced scenario was built from the reduced reference's ids
        kept = {r["question_id"] for r in references}
        hypotheses = [h for h in hypotheses if h["question_id"] in kept]
    plan = judge_requests(templates, references, hypotheses)
    labels = label_replies(plan, data["inputs"]["judge_reply_by_question_id"])
    for want, got in zip(expected["labels"], labels, strict=False):
        yield f"{name} label {want['question_id']}", [
            ("question_id", want["question_id"], got.question_id),
            ("label", want["label"], got.label),
            ("judge_model", want["judge_model"], got.judge_model)]
    yield f"{name} label count", [("labels", len(expected["labels"]), len(labels))]
    requests = {r.question_id: r for r in plan.requests}
    calls = expected.get("judge_calls")
    for call in calls if isinstance(calls, list) else []:  # a scenario may omit them (a note)
        request = requests.get(call["question_id"])
        kwargs = request.create_kwargs() if request else {}
        yield f"{name} judge call {call['question_id']}", [
            *field_pairs("kwargs", call["kwargs"],
                         {k: v for k, v in kwargs.items() if k != "messages"}),
            ("role", call["role"], request.role if request else None),
            ("prompt", call["prompt"], request.prompt if request else None)]
    warnings = [line.removeprefix("Warning: skipping ").split(" ")[0]
                for line in expected["evaluate_qa_summary_printed"].splitlines()
                if line.startswith("Warning: skipping ")]
    yield f"{name} skipped ids", [("skipped", warnings, list(plan.skipped))]
    summary = evaluate_qa_summary(labels, [r["question_type"] for r in references])
    parsed = {"by_type": {t: {"accuracy": _printed_number(a), "n": n}
                          for t, (a, n) in summary.by_type.items()},
              "accuracy": _printed_number(summary.accuracy)}
    yield f"{name} evaluate_qa summary", list(
        field_pairs("evaluate_qa", expected["evaluate_qa_parsed"], parsed))
    metrics = qa_metrics(labels)
    yield f"{name} print_qa_metrics", [
        ("printed", expected["print_qa_metrics_printed"], print_qa_metrics(metrics))]


def _check_qa(path: Path, options: ConformanceOptions) -> FixtureResult:
    data, result, compare = _start(path, "longmemeval.qa_metrics")
    templates = _templates(options, result)
    if templates is None:
        return result
    for name, expected in data["scenarios"].items():
        for case_id, pairs in _qa_cases(data, name, expected, templates):
            compare.case(case_id, pairs)
    return result


def _check_answer_prompts(path: Path, options: ConformanceOptions) -> FixtureResult:
    data, result, compare = _start(path, "longmemeval.answer_prompts")
    templates = _templates(options, result)
    if templates is None:
        return result
    for index, example in enumerate(data["examples"]):
        settings = ReaderSettings(
            retriever_type=example["retriever_type"], topk_context=example["topk_context"],
            useronly=example["useronly"], history_format=example["history_format"],
            cot=example["cot"],
            merge_key_expansion_into_value=example.get("merge_key_expansion_into_value", "none"))
        compare.case(f"example {index} ({settings.retriever_type})", [
            ("prompt", example["prompt"], prepare_prompt(example["entry"], settings, templates))])
    return result


CHECKS: tuple[FixtureCheck, ...] = (
    FixtureCheck("longmemeval.retrieval", "*-retrieval.json", _check_retrieval, requires_key="ks"),
    FixtureCheck("longmemeval.retrieval_quirks", "*retrieval-quirk-cases.json",
                 _check_retrieval_quirks),
    FixtureCheck("longmemeval.qa_metrics", "*-qa-metrics.json", _check_qa,
                 requires_key="scenarios"),
    FixtureCheck("longmemeval.answer_prompts", "*answer-prompt-examples.json",
                 _check_answer_prompts, requires_key="examples"),
)
