"""LoCoMo conformance checks: the official scorer, statistics, evidence recall and cat-5 mapping.

- `locomo.qa_scores` claims `*-expected.json` holding `predictions_file`: every line of the named
  predictions file is scored against the release (`--locomo-release`) and compared with the
  official per-item score; each aggregate run (`variant_<v>`: one line per item; `all_lines`: every
  line, each conversation holding its variant 0, 1 and 2 lines in turn) is aggregated and compared (counts, sums, means, printed means, printout).
- `locomo.evidence_recall` claims `*-evidence-recall.json`: per record the recall of its context
  ids and the score of its prediction; per run (`variant_<v>_<kind>`) the RAG statistics.
- `locomo.cat5_choice` claims `*cat5-choice-mapping.json`: the forced-choice mapping of each
  reply and the category-5 score of the mapped prediction.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from benchledger.adapters.benchmarks.conformance import (
    Comparison, ConformanceOptions, FixtureCheck, FixtureResult,
)
from benchledger.adapters.benchmarks.json_source import read_json
from benchledger.adapters.benchmarks.locomo.prompts import cat5_choice
from benchledger.adapters.benchmarks.locomo.scoring import category5_score, evidence_recall, score_item
from benchledger.adapters.benchmarks.locomo.stats import PRINT_ORDER, Aggregate, ScoredItem, aggregate
from benchledger.json_input import load_lines, named_file

__all__ = ["CHECKS", "release_answers"]

QAKey = tuple[str, int]


def release_answers(path: Path) -> dict[QAKey, dict[str, Any]]:
    """(sample_id, qa index) -> the released QA item, with `answer` for category 5 taken from
    `adversarial_answer` as the conformance runs supplied it (quirk 7)."""
    conversations, _text = read_json(Path(path))
    items: dict[QAKey, dict[str, Any]] = {}
    for conversation in conversations:
        for index, qa in enumerate(conversation["qa"]):
            answer = qa["answer"] if "answer" in qa else qa.get("adversarial_answer")
            items[(conversation["sample_id"], index)] = {**qa, "answer": answer}
    return items


def _load(path: Path) -> dict[str, Any]:
    return read_json(path)[0]


def _total(total) -> dict[str, Any]:
    return {"count": total.count, "sum": total.sum, "mean": total.mean, "mean_printed": total.mean_printed}


def _qa_aggregate_pairs(expected: dict[str, Any], got: Aggregate) -> list[tuple[str, Any, Any]]:
    excluding = got.overall_excluding_cat5
    return [
        ("per_category", expected["per_category"],
         {str(k): _total(got.per_category[k]) for k in PRINT_ORDER}),
        ("overall", expected["overall"], _total(got.overall)),
        ("overall_excluding_cat5", expected["overall_excluding_cat5"],
         {"count": excluding.count, "sum": excluding.sum, "mean": excluding.mean}),
        ("printed", expected["printed"], got.printout()),
    ]


def _with_release(run: Callable[[Path, ConformanceOptions, FixtureResult], None], name: str):
    def check(path: Path, options: ConformanceOptions) -> FixtureResult:
        result = FixtureResult(file=str(path), check=name)
        if options.locomo_release is None:
            result.skipped = "needs the LoCoMo release file (--locomo-release)"
        elif not Path(options.locomo_release).is_file():
            result.skipped = f"no LoCoMo release file at {options.locomo_release}"
        else:
            run(path, options, result)
        return result
    return check


def _check_qa_scores(path: Path, options: ConformanceOptions, result: FixtureResult) -> None:
    expected = _load(path)
    assert options.locomo_release is not None  # _with_release runs this only with one
    answers = release_answers(options.locomo_release)
    named = named_file(path.parent / expected["predictions_file"], named_by=path, field="predictions_file")
    predictions = [value for _number, value in load_lines(named)]
    compare = Comparison(result)
    compare.case("n_lines", [("n_lines", expected["n_lines"], len(predictions))])
    scored: list[tuple[int, ScoredItem]] = []
    for number, (line, want) in enumerate(zip(predictions, expected["lines"], strict=True), start=1):
        qa = answers[(line["sample_id"], line["qa_index"])]
        score = score_item(line["prediction"], qa["answer"], qa["category"])
        scored.append((line["variant"], ScoredItem(line["sample_id"], qa["category"], score)))
        compare.case(f"line {number} ({line['sample_id']} qa {line['qa_index']} v{line['variant']})", [
            ("item", [want["sample_id"], want["qa_index"], want["variant"], want["category"]],
             [line["sample_id"], line["qa_index"], line["variant"], qa["category"]]),
            ("score", want["score"], score)])
    for run_name, want in expected["aggregates"].items():
        if run_name == "all_lines":  # each conversation's three variant runs one after another
            items: Iterable[ScoredItem] = (item for _, item in sorted(scored, key=lambda pair: pair[0]))
        else:
            variant = int(run_name.removeprefix("variant_"))
            items = (item for v, item in scored if v == variant)
        compare.case(f"aggregates.{run_name}", _qa_aggregate_pairs(want, aggregate(items)))


def _check_evidence_recall(path: Path, options: ConformanceOptions, result: FixtureResult) -> None:
    expected = _load(path)
    assert options.locomo_release is not None  # _with_release runs this only with one
    answers = release_answers(options.locomo_release)
    compare = Comparison(result)
    runs: dict[str, list[ScoredItem]] = {}
    for number, record in enumerate(expected["records"], start=1):
        qa = answers[(record["sample_id"], record["qa_index"])]
        recall = evidence_recall(record["evidence"], record["context_ids"])
        score = score_item(record["prediction"], qa["answer"], qa["category"])
        runs.setdefault(f"variant_{record['variant']}_{record['kind']}", []).append(
            ScoredItem(record["sample_id"], qa["category"], score, tuple(record["evidence"]), recall))
        compare.case(f"record {number} ({record['sample_id']} qa {record['qa_index']} {record['kind']})", [
            ("evidence", qa["evidence"], record["evidence"]),
            ("recall", record["recall"], recall), ("score", record["score"], score)])
    for run_name, want in expected["aggregates"].items():
        got = aggregate(runs.get(run_name, []), rag=True)
        compare.case(f"aggregates.{run_name}", [
            ("recall_by_category", want["recall_by_category"],
             {str(k): v for k, v in (got.recall_by_category or {}).items()}),
            ("recall_printed", want["recall_printed"],
             {"per_category": {str(k): got.recall_printed(k) for k in PRINT_ORDER},
              "overall": got.recall_overall}),
            ("f1_overall_mean", want["f1_overall_mean"], got.overall.mean),
            ("printed", want["printed"], got.printout()),
        ])


def _check_cat5_choice(path: Path, options: ConformanceOptions) -> FixtureResult:
    result = FixtureResult(file=str(path), check="locomo.cat5_choice")
    compare = Comparison(result)
    for number, record in enumerate(_load(path)["records"], start=1):
        try:
            prediction, failed = cat5_choice(record["model_output"], record["answer_key_map"]), False
        except (AttributeError, TypeError, KeyError):
            prediction, failed = None, True
        score = None if failed or not isinstance(prediction, str) else category5_score(prediction)
        compare.case(f"record {number} ({record['model_output']!r}, {record['answer_key']})", [
            ("prediction", record["prediction"], prediction),
            ("error", record["error"] is not None, failed),
            ("cat5_score", record["cat5_score"], score)])
    return result


CHECKS: tuple[FixtureCheck, ...] = (
    FixtureCheck("locomo.qa_scores", "*-expected.json", _with_release(_check_qa_scores, "locomo.qa_scores"),
                 requires_key="predictions_file"),
    FixtureCheck("locomo.evidence_recall", "*-evidence-recall.json",
                 _with_release(_check_evidence_recall, "locomo.evidence_recall")),
    FixtureCheck("locomo.cat5_choice", "*cat5-choice-mapping.json", _check_cat5_choice),
)
