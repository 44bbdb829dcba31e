"""LongMemEval-V2 conformance: each official output recomputed with benchledger's own rules.

The fixtures live beside the benchmark (`../shared/data/longmemeval-v2/conformance/`); the official
prompt texts are read from `<prompts_root>/prompts` (the conformance folder's parent) or
`<prompts_root>/longmemeval-v2/prompts`, checked by SHA-256.

- `eval-cases.json`: every case scored by `spec.score` with the judge reply as the transport's
  answer: boxed answer, UNKNOWN, first argument, whether the judge was called, its label, the
  function's return, the harness bool and score, or the official exception type.
- `judge-requests.json`: the exact create() arguments and HTTP body of every judge request.
- `reader-prompts.json`: the two system prompts byte for byte, every example's memory context cut
  to its run's budget and its messages (logged and wire forms) from that, the request variants and
  the truncation examples.
- `aggregates/runs/*`, `aggregates/edge/*`: each run replayed from its inputs (`runs.py`):
  per-question records, `aggregated_metrics.json`, the prompt summary, or where the official run
  raised; `fixture_inputs.json`, `run_args.json` and `runtime_inputs/` are its declared inputs.
- `aggregates/operating_points/*`: `combine_metrics` of the two domain runs and the metric overview
  (`operating_point_metadata.json` is recomputed too: counts, types, models).
- `aggregates/submissions/*` and `lafs-cases.json`: LAFS and its gain over the reference frontier.
- `aggregates/index.json`: every operating point's overview, every submission's gain, and how each
  edge run ended (the official exception, type and message, and the records written before it).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from benchledger.adapters.benchmarks.conformance import (
    Comparison, ConformanceOptions, FixtureCheck, FixtureResult, field_pairs,
)
from benchledger.adapters.benchmarks.json_source import read_json
from benchledger.adapters.benchmarks.longmemeval_v2.aggregate import combine_metrics, metric_overview
from benchledger.adapters.benchmarks.longmemeval_v2.answers import extract_boxed, is_unknown
from benchledger.adapters.benchmarks.longmemeval_v2.errors import OfficialError
from benchledger.adapters.benchmarks.longmemeval_v2.harness import aggregate_replay, replay, shared_haystack
from benchledger.adapters.benchmarks.longmemeval_v2.judging import (
    EvaluatorConfig, JudgeCall, parse_binary_judgement, reply_text,
)
from benchledger.adapters.benchmarks.longmemeval_v2.lafs import (
    FLOOR_ACC, REFERENCE_POINTS, T_MAX, T_MIN, Point, lafs_summary, reference_printout,
)
from benchledger.adapters.benchmarks.longmemeval_v2.reader import (
    TEMPLATE_STAND_IN, ReaderArgs, reader_messages, truncate, validate_items,
)
from benchledger.adapters.benchmarks.longmemeval_v2.prompts import load_templates
from benchledger.adapters.benchmarks.longmemeval_v2.spec import LLM_CHECKERS, eval_name, score
from benchledger.errors import BadInput
from benchledger.json_input import load_lines, named_file

__all__ = ["CHECKS", "fixture_transport"]


def _start(path: Path, name: str) -> tuple[Any, FixtureResult, Comparison]:
    data, _text = read_json(path)
    result = FixtureResult(file=str(path), check=name)
    return data, result, Comparison(result)


def _templates(options: ConformanceOptions, path: Path, result: FixtureResult) -> dict[str, str] | None:
    root = options.prompts_root or path.parent.parent
    for folder in (root / "prompts", root / "longmemeval-v2" / "prompts"):
        if folder.is_dir():
            try:
                return load_templates(folder)
            except BadInput as err:
                result.skipped = f"official prompts unavailable: {err}"
                return None
    result.skipped = f"official prompts not found under {root} (prompts/ or longmemeval-v2/prompts/)"
    return None


def fixture_transport(reply: Any, sent: list[JudgeCall] | None = None):
    """A judge transport answering with a fixture's prepared reply (content, or an HTTP status)."""
    def transport(call: JudgeCall) -> Any:
        if sent is not None:
            sent.append(call)
        if isinstance(reply, Mapping):
            if reply.get("http_status") == 400:
                raise OfficialError("BadRequestError", f"Error code: 400 - {reply.get('message')}")
            return reply.get("content")
        return reply
    return transport


def _label(reply: Any) -> int | None:
    if not isinstance(reply, str):
        return None
    try:
        return parse_binary_judgement(reply_text(reply))
    except OfficialError:
        return None


def _case_outcome(case: Mapping[str, Any], templates: Mapping[str, str]) -> dict[str, Any]:
    sent: list[JudgeCall] = []
    question_item = {"question": case["question"]}
    parsed = extract_boxed(case["model_output"])
    got: dict[str, Any] = {"response_parsed_boxed": parsed, "is_unknown": is_unknown(parsed),
                           "prediction_for_eval": case["model_output"] if eval_name(case["eval_function"])
                           in LLM_CHECKERS else parsed}
    try:
        scored = score(case["eval_function"], case["model_output"], case["answer"], question_item,
                       templates=templates, transport=fixture_transport(case["judge_reply"], sent))
    except OfficialError as err:
        returned = None if err.eval_return is None else repr(err.eval_return)
        got.update(eval_return=returned, score_bool=None, score=None, error_type=err.official_type)
    else:
        ret = scored.eval_return
        got.update(eval_return=ret if isinstance(ret, bool) else repr(ret),  # the fixture keeps a repr
                   score_bool=scored.score_bool, score=1.0 if scored.score_bool else 0.0, error_type=None)
    got["judge_called"] = bool(sent)
    got["judge_label"] = _label(case["judge_reply"]) if sent else None
    return got


def _check_eval_cases(path: Path, options: ConformanceOptions) -> FixtureResult:
    data, result, compare = _start(path, "longmemeval_v2.eval_cases")
    templates = _templates(options, path, result)
    if templates is None:
        return result
    for case in data["cases"]:
        got = _case_outcome(case, templates)
        error = case["error"]["type"] if case["error"] else None
        compare.case(f"{case['case_id']} ({case['kind']})", [
            ("response_parsed_boxed", case["response_parsed_boxed"], got["response_parsed_boxed"]),
            ("is_unknown", case["is_unknown"], got["is_unknown"]),
            ("prediction_for_eval", case["prediction_for_eval"], got["prediction_for_eval"]),
            ("error", error, got["error_type"]),
            ("judge_called", case["judge_called"], got["judge_called"]),
            ("judge_label", case["judge_label"], got["judge_label"]),
            ("eval_return", case["eval_return"], got["eval_return"]),
            ("score_bool", case["score_bool"], got["score_bool"]),
            ("score", case["score"], got["score"]),
        ])
    return result


def _check_judge_requests(path: Path, options: ConformanceOptions) -> FixtureResult:
    data, result, compare = _start(path, "longmemeval_v2.judge_requests")
    templates = _templates(options, path, result)
    if templates is None:
        return result
    for request in data["requests"]:
        sent: list[JudgeCall] = []
        error = None
        try:
            scored = score(request["eval_function"], request["model_output"], request["question_item"]["answer"],
                           request["question_item"], templates=templates,
                           transport=fixture_transport(request["judge_reply"], sent))
            score_bool: bool | None = scored.score_bool
        except OfficialError as err:
            score_bool, error = None, err.official_type
        call = sent[0] if sent else None
        kwargs = call.create_kwargs if call else {}
        body = {key: value for key, value in kwargs.items() if key != "timeout"}
        compare.case(f"{request['case_id']} ({request['eval_function']})", [
            *field_pairs("create_kwargs", request["create_kwargs"], kwargs),
            *field_pairs("http_body", request["http_body"], body),
            ("response_parsed_boxed", request["response_parsed_boxed"], extract_boxed(request["model_output"])),
            ("score_bool", request["score_bool"], score_bool),
            ("error", request["error"]["type"] if request.get("error") else None, error),
        ])
    return result


_WORK_DATA = "<WORK>/data/"
_VOLATILE = ("timestamp_utc", "memory_query_duration_seconds", "memory_post_query_duration_seconds",
             "memory_post_query_metadata")
"""Record fields the harness's clock and the fixture memory wrote; aggregates read them as recorded."""


def _release_reader(fixture: Path):
    """Reads an image the fixture names under `<WORK>/data/` from the synthetic release beside it; one
    it names outside that folder, or that is missing, is one line naming the fixture and the image."""
    release = fixture.parent.parent / "synthetic"

    def read(path: str) -> bytes:
        if not path.startswith(_WORK_DATA):
            raise BadInput(f"names image {path}, which is not under {_WORK_DATA}", file=str(fixture))
        return named_file(release / path.removeprefix(_WORK_DATA), named_by=fixture).read_bytes()
    return read


def _check_reader_prompts(path: Path, options: ConformanceOptions) -> FixtureResult:
    data, result, compare = _start(path, "longmemeval_v2.reader_prompts")
    templates = _templates(options, path, result)
    if templates is None:
        return result
    read = _release_reader(path)
    for domain, text in data["system_prompts"].items():
        compare.case(f"system prompt {domain}", [("text", text, templates[f"reader_system_{domain}.txt"])])
    for example in data["examples"]:
        run = example["run"] if "/" in example["run"] else f"runs/{example['run']}"
        budget = _json(path.parent / "aggregates" / run / "run_args.json")["memory_context_max_tokens"]
        cut = truncate(validate_items(example["memory_context_returned"]), budget, example["question_id"])
        args = (templates, example["domain"], cut.kept, example["question_text"], example["question_image"])
        pairs = [("memory_context_original_token_count", example["memory_context_original_token_count"],
                  cut.original_tokens),
                 ("memory_context", example["memory_context"], cut.kept),
                 ("memory_context_token_count", example["memory_context_token_count"], cut.final_tokens),
                 ("prompt_messages", example["prompt_messages"], reader_messages(*args, logged=True)),
                 ("messages", example["messages"], reader_messages(*args, read=read))]
        if "http_body_without_messages" in example:
            pairs.append(("http_body_without_messages", example["http_body_without_messages"],
                          ReaderArgs().http_body()))
        if "reader_request_kwargs_without_messages" in example:
            pairs.append(("reader_request_kwargs", example["reader_request_kwargs_without_messages"],
                          ReaderArgs().request()))
        compare.case(f"example {example['run']}/{example['question_id']} ({example['memory_mode']})", pairs)
    for variant in data["request_variants"]:
        compare.case(f"request {variant['name']}", field_pairs(
            "request", variant["request_without_messages"], ReaderArgs.from_mapping(variant["args"]).request()))
    for example in data["truncation_examples"]:
        counts = example["stub_prefix_token_counts"]
        cut = truncate(example["memory_context"], example["max_tokens"], f"trunc-{example['name']}")
        compare.case(f"truncation {example['name']}", [
            ("prefix counts", counts, [_count(example["memory_context"][:k]) for k in range(len(counts))]),
            ("kept_items", example["kept_items"], len(cut.kept)),
            ("original_token_count", example["original_token_count"], cut.original_tokens),
            ("truncated_token_count", example["truncated_token_count"], cut.final_tokens),
            ("printed", example["printed"], cut.printed)])
    return result


def _count(items: list[dict[str, str]]) -> int:
    return TEMPLATE_STAND_IN.count(items)


def _json(path: Path) -> Any:
    return read_json(path)[0]


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [value for _number, value in load_lines(path)]


def _run_inputs(run_dir: Path) -> list[Path]:
    return [run_dir / "fixture_inputs.json", run_dir / "run_args.json",
            *sorted((run_dir / "runtime_inputs").glob("*.json"))]


def _run_outputs(run_dir: Path) -> list[Path]:
    return [p for p in (run_dir / "per_question.jsonl", run_dir / "aggregated_metrics.json") if p.is_file()]


def _replay_dir(run_dir: Path, templates: Mapping[str, str]):
    inputs, args = _json(run_dir / "fixture_inputs.json"), _json(run_dir / "run_args.json")
    questions = _json(run_dir / "runtime_inputs" / "questions.json")
    haystack = _json(run_dir / "runtime_inputs" / "haystack.json")
    evaluator = EvaluatorConfig(evaluator_model=args["evaluator_model"], evaluator_base_url=args["evaluator_base_url"],
                                evaluator_reasoning_effort=args["evaluator_reasoning_effort"],
                                evaluator_max_completion_tokens=args["evaluator_max_completion_tokens"],
                                evaluator_timeout_seconds=args["evaluator_timeout_seconds"])
    judge_plan = inputs["judge_plan"]
    out = replay(questions, haystack, domain=args["domain"], max_tokens=args["memory_context_max_tokens"],
                 seed=args["shuffle_questions_seed"], templates=templates,
                 memory=lambda qid: inputs["memory_plan"][qid]["context"],
                 reply=lambda qid: inputs["reader_plan"][qid],
                 judge=lambda qid: fixture_transport(judge_plan.get(qid)), evaluator=evaluator)
    return out, inputs, args, questions, haystack


def _check_run(path: Path, options: ConformanceOptions) -> FixtureResult:
    """One whole run directory, claimed by its prompt_build_summary.json."""
    run_dir = path.parent
    result = FixtureResult(file=str(path), check="longmemeval_v2.run")
    compare = Comparison(result)
    templates = _templates(options, run_dir.parent.parent, result)
    if templates is None:
        return result
    out, inputs, args, questions, haystack = _replay_dir(run_dir, templates)
    summary = _json(path)
    compare.case("prompt_build_summary", [
        ("prompt_row_count", summary["prompt_row_count"], len(questions)),
        ("question_ids", summary["question_ids"], out.stream_ids),
        ("original_question_ids", summary["original_question_ids"], [q["id"] for q in questions]),
        ("shuffle_questions_seed", summary["shuffle_questions_seed"], args["shuffle_questions_seed"])])
    raised = (inputs.get("outcome") or {}).get("raised")
    compare.case("outcome", [("raised", raised["type"] if raised else None,
                              out.raised.official_type if out.raised else None)])
    per_question = run_dir / "per_question.jsonl"
    recorded = _jsonl(per_question) if per_question.is_file() else []
    compare.case("records written", [("per_question.jsonl lines", len(recorded), len(out.records))])
    for expected, got in zip(recorded, out.records):
        pairs = [("fields", sorted(expected), sorted([*got, *_VOLATILE]))]
        pairs += [(f"{expected['question_id']}.{key}", value, got.get(key))
                  for key, value in expected.items() if key not in _VOLATILE]
        compare.case(f"record {expected['stream_index']} {expected['question_id']}", pairs)
    metrics = run_dir / "aggregated_metrics.json"
    if metrics.is_file():
        expected = {k: v for k, v in _json(metrics).items() if k != "completed_at_utc"}
        shared = shared_haystack(haystack, out.stream_ids)
        compare.case("aggregated_metrics", field_pairs("aggregated", expected, aggregate_replay(out, recorded, shared)))
    elif out.raised is None:
        compare.case("aggregated_metrics", [("written", False, True)])
    return result


def _run_dir_of(point_dir: Path, source_run_dir: str) -> Path:
    return point_dir.parents[2] / "runs" / Path(source_run_dir).name


def _operating_point_inputs(path: Path) -> list[Path]:
    meta = _json(path.parent / "operating_point_metadata.json")
    return [_run_dir_of(path.parent, run["source_run_dir"]) / "aggregated_metrics.json"
            for run in meta["runs"].values()]


def _combined_of(point_dir: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    meta = _json(point_dir / "operating_point_metadata.json")
    web, enterprise = (_json(_run_dir_of(point_dir, meta["runs"][d]["source_run_dir"]) / "aggregated_metrics.json")
                       for d in ("web", "enterprise"))
    return combine_metrics(web, enterprise), meta


def _check_operating_point(path: Path, options: ConformanceOptions) -> FixtureResult:
    """An operating point, claimed by its combined_metrics.json (overview and metadata beside it)."""
    data, result, compare = _start(path, "longmemeval_v2.operating_point")
    combined, meta = _combined_of(path.parent)
    expected = {k: v for k, v in data.items() if k not in ("combined_from", "combined_at_utc")}
    compare.case("combined_metrics", field_pairs("combined", expected, combined))
    compare.case("metric_overview", field_pairs("overview", _json(path.parent / "metric_overview.json"),
                                                metric_overview(combined)))
    for domain, run in meta["runs"].items():
        run_dir = _run_dir_of(path.parent, run["source_run_dir"])
        records, args = _jsonl(run_dir / "per_question.jsonl"), _json(run_dir / "run_args.json")
        types: dict[str, int] = {}
        for record in records:
            types[record["question_type"]] = types.get(record["question_type"], 0) + 1
        compare.case(f"metadata {domain}", [
            ("domain", run["domain"], args["domain"]), ("question_count", run["question_count"], len(records)),
            ("question_type_counts", run["question_type_counts"], dict(sorted(types.items()))),
            ("model", run["model"], args["model"]),
            ("evaluator_model", run["evaluator_model"], args["evaluator_model"])])
    return result


def _submission_points(path: Path, data: Mapping[str, Any]) -> list[tuple[Mapping[str, Any], dict[str, Any]]]:
    base = path.parents[2] / "operating_points" / data["submission_name"]
    return [(point, metric_overview(_combined_of(base / point["name"])[0])) for point in data["operating_points"]]


def _check_submission(path: Path, options: ConformanceOptions) -> FixtureResult:
    data, result, compare = _start(path, "longmemeval_v2.submission")
    points = []
    for point, overview in _submission_points(path, data):
        acc, latency = overview["overall_full_set"] * 100, overview["memory_query_avg_seconds"]
        points.append(Point(point["name"], acc, latency))
        compare.case(f"operating point {point['name']}", [
            ("overall_full_set", point["overall_full_set"], overview["overall_full_set"]),
            ("memory_query_avg_seconds", point["memory_query_avg_seconds"], latency),
            ("lafs_accuracy_percentage_points", point["lafs_accuracy_percentage_points"], acc),
            ("lafs_latency_seconds", point["lafs_latency_seconds"], latency)])
    compare.case("lafs", field_pairs("lafs", data["lafs"], lafs_summary(data["tier"], points)))
    return result


def _submission_inputs(path: Path) -> list[Path]:
    data = _json(path)
    base = path.parents[2] / "operating_points" / data["submission_name"]
    return [base / point["name"] / "metric_overview.json" for point in data["operating_points"]]


def _check_lafs_cases(path: Path, options: ConformanceOptions) -> FixtureResult:
    data, result, compare = _start(path, "longmemeval_v2.lafs")
    constants = {"T_MIN": T_MIN, "T_MAX": T_MAX, "FLOOR_ACC": FLOOR_ACC}
    compare.case("constants", [("constants", data["constants"], constants)])
    for tier, points in data["fixed_frontier_points"].items():
        compare.case(f"reference points {tier}", [("points", points, [
            {"name": p.name, "acc": p.acc, "latency": p.latency} for p in REFERENCE_POINTS[tier]])])
    for case in data["cases"]:
        points = [Point(p["name"], p["acc"], p["latency"]) for p in case["points"]]
        compare.case(f"{case['tier']} {case['name']}", field_pairs("summary", case["summary"],
                                                                  lafs_summary(case["tier"], points)))
    for case in data["error_cases"]:
        try:
            lafs_summary("small", [Point(p["name"], p["acc"], p["latency"]) for p in case["points"]])
            got = None
        except OfficialError as err:
            got = {"type": err.official_type, "message": err.message}
        compare.case(f"error {case['name']}", field_pairs("error", case["error"], got))
    compare.case("printed", [("printed", data["printed"], _printout(data["printed"]))])
    return result


def _printout(printed: str) -> str:
    """compute_lafs.py's printout, recomputed: the small tier's header, then each example row's gain
    from the points the row names."""
    header, _sep, table = printed.partition("\n\n")
    lines = [reference_printout("small", header.splitlines()[0].removeprefix("Reference frontier: "))]
    rows = table.splitlines()
    lines += rows[:2]
    reference = lafs_summary("small", [])["reference_lafs"]
    for row in rows[2:]:
        name, points_text, _gain = (cell.strip() for cell in row.strip("|").split("|"))
        points = []
        for part in points_text.split(","):
            acc, latency = part.strip().removesuffix("s").split(" @ ")
            points.append(Point(name, float(acc), float(latency)))
        gain = lafs_summary("small", points)["submission_lafs"] - reference
        shown = ", ".join(f"{p.acc:g} @ {p.latency:g}s" for p in points)
        lines.append(f"| {name} | {shown} | {gain:+.2f} |")
    return "\n".join(lines) + "\n"


def _check_index(path: Path, options: ConformanceOptions) -> FixtureResult:
    data, result, compare = _start(path, "longmemeval_v2.index")
    root = path.parent
    for point in data["operating_points"]:
        combined, meta = _combined_of(root / point["dir"])
        compare.case(f"overview {point['dir']}", [
            ("tier", point["tier"], meta["tier"]),
            *field_pairs("overview", point["overview"], metric_overview(combined))])
    for submission in data["submissions"]:
        overview = root / submission["dir"] / "submission_overview.json"
        sub = _json(overview)
        points = [Point(p["name"], o["overall_full_set"] * 100, o["memory_query_avg_seconds"])
                  for p, o in _submission_points(overview, sub)]
        compare.case(f"submission {submission['dir']}", [
            ("operating_points", submission["operating_points"], [p.name for p in points]),
            ("lafs", submission["lafs"], lafs_summary(sub["tier"], points)["lafs_gain"])])
    for run in data["runs"]:
        records = _jsonl(root / run["dir"] / "per_question.jsonl")
        compare.case(f"run {run['dir']}", [("questions", run["questions"], len(records))])
    templates = _templates(options, root, result)
    for edge in data.get("edge_runs", []):
        if templates is None:
            break
        out = _replay_dir(root / edge["dir"], templates)[0]
        raised = {"type": out.raised.official_type, "message": out.raised.message} if out.raised else None
        lines = len(out.records) if not (out.raised and out.raised.official_type == "RuntimeError") else None
        compare.case(f"edge run {edge['dir']}", [*field_pairs("raised", edge["raised"], raised),
                                                  ("per_question_lines", edge["per_question_lines"], lines)])
    return result


CHECKS: tuple[FixtureCheck, ...] = (
    FixtureCheck("longmemeval_v2.eval_cases", "eval-cases.json", _check_eval_cases, requires_key="counts_by_outcome"),
    FixtureCheck("longmemeval_v2.judge_requests", "judge-requests.json", _check_judge_requests,
                 requires_key="n_requests"),
    FixtureCheck("longmemeval_v2.reader_prompts", "reader-prompts.json", _check_reader_prompts,
                 requires_key="truncation_examples"),
    FixtureCheck("longmemeval_v2.run", "prompt_build_summary.json", _check_run, requires_key="original_question_ids",
                 reads=lambda p: [*_run_inputs(p.parent), *_run_outputs(p.parent)]),
    FixtureCheck("longmemeval_v2.operating_point", "combined_metrics.json", _check_operating_point,
                 requires_key="combined_abstention_by_category",
                 reads=lambda p: [p.parent / "metric_overview.json", p.parent / "operating_point_metadata.json",
                                  *_operating_point_inputs(p)]),
    FixtureCheck("longmemeval_v2.submission", "submission_overview.json", _check_submission, requires_key="lafs",
                 reads=_submission_inputs),
    FixtureCheck("longmemeval_v2.lafs", "lafs-cases.json", _check_lafs_cases, requires_key="fixed_frontier_points"),
    FixtureCheck("longmemeval_v2.index", "index.json", _check_index, requires_key="operating_points"),
)
