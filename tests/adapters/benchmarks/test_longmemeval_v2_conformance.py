"""`benchledger conformance` over LongMemEval-V2's official outputs: every file checked, a changed
output or a stray file fails, and the scoring rules hold on both sides of their boundaries."""

from __future__ import annotations

import json
import shutil

import pytest

from benchledger.adapters.benchmarks.longmemeval_v2.answers import extract_boxed, is_unknown
from benchledger.adapters.benchmarks.longmemeval_v2.errors import OfficialError
from benchledger.adapters.benchmarks.longmemeval_v2.judging import parse_binary_judgement
from benchledger.adapters.benchmarks.longmemeval_v2.lafs import Point, lafs_summary
from benchledger.adapters.benchmarks.longmemeval_v2.matching import (
    mc_choice_match, mc_choice_set_match, norm_phrase_set_match, norm_phrase_set_match_ordered,
)
from benchledger.adapters.benchmarks.longmemeval_v2.reader import truncate
from benchledger.adapters.benchmarks.longmemeval_v2.spec import parse_spec
from ledger_cli import invoke

CHECKS = {"eval-cases.json": "longmemeval_v2.eval_cases", "judge-requests.json": "longmemeval_v2.judge_requests",
          "reader-prompts.json": "longmemeval_v2.reader_prompts", "aggregates/index.json": "longmemeval_v2.index",
          "aggregates/lafs-cases.json": "longmemeval_v2.lafs"}


def _rows(output: str) -> dict[str, list[str]]:
    return {line.split()[0]: line.split()[1:] for line in output.splitlines()[2:]
            if line.strip() and not line.startswith("ok:")}


def test_every_official_output_of_longmemeval_v2_matches(shared_data):
    result = invoke("conformance", str(shared_data / "longmemeval-v2" / "conformance"))
    assert result.exit_code == 0, result.output
    rows = _rows(result.stdout)
    for file, check in CHECKS.items():
        assert rows[file][0] == check and int(rows[file][1]) > 0 and rows[file][1] == rows[file][2], rows[file]
    runs = [file for file, row in rows.items() if row[0] == "longmemeval_v2.run"]
    assert len(runs) == 9  # six complete runs and three edge runs, two of which the official code aborted
    assert sum(row[0] == "longmemeval_v2.operating_point" for row in rows.values()) == 3
    assert sum(row[0] == "longmemeval_v2.submission" for row in rows.values()) == 2
    assert "no check" not in result.stdout
    assert int(rows["eval-cases.json"][1]) == 802


def test_both_fixture_folders_in_one_table(shared_data):
    result = invoke("conformance", str(shared_data / "conformance"),
                    str(shared_data / "longmemeval-v2" / "conformance"),
                    "--locomo-release", str(shared_data / "locomo" / "locomo-dev.json"))
    assert result.exit_code == 0, result.output
    rows = _rows(result.stdout)
    assert rows["conformance/memora/fama-expected.json"][0] == "memora.fama"
    assert rows["longmemeval-v2/conformance/eval-cases.json"][0] == "longmemeval_v2.eval_cases"


def _copy(shared_data, tmp_path):
    folder = tmp_path / "longmemeval-v2"
    shutil.copytree(shared_data / "longmemeval-v2" / "conformance", folder / "conformance")
    shutil.copytree(shared_data / "longmemeval-v2" / "prompts", folder / "prompts")
    shutil.copytree(shared_data / "longmemeval-v2" / "synthetic", folder / "synthetic")
    return folder / "conformance"


def test_a_changed_score_and_a_changed_aggregate_are_mismatches(shared_data, tmp_path):
    folder = _copy(shared_data, tmp_path)
    cases = json.loads((folder / "eval-cases.json").read_text())
    flipped = next(case for case in cases["cases"] if case["score"] == 1.0)
    flipped["score"], flipped["score_bool"] = 0.0, False
    (folder / "eval-cases.json").write_text(json.dumps(cases))
    metrics_path = folder / "aggregates" / "runs" / "synthetic_memory_fast_web_small" / "aggregated_metrics.json"
    metrics = json.loads(metrics_path.read_text())
    metrics["memory_query"]["p50_seconds"] += 0.001
    metrics_path.write_text(json.dumps(metrics))
    result = invoke("conformance", str(folder))
    assert result.exit_code == 1
    rows = _rows(result.stdout)
    assert rows["eval-cases.json"][1:3] == ["802", "801"]
    assert f"{flipped['case_id']}" in result.stdout and "score_bool" in result.stdout
    assert "aggregated.memory_query.p50_seconds" in result.stdout
    assert "2 of 19 checked files differ" in result.output


def test_a_file_no_check_reads_fails_and_is_named(shared_data, tmp_path):
    folder = _copy(shared_data, tmp_path)
    (folder / "aggregates" / "runs" / "synthetic_memory_fast_web_small" / "notes.txt").write_text("x")
    (folder / "extra-cases.json").write_text("{}")
    result = invoke("conformance", str(folder))
    assert result.exit_code == 1
    assert "extra-cases.json" in result.stdout and "no check" in result.stdout
    assert "2 file(s) no check reads" in result.output and "notes.txt" in result.output


def test_a_run_whose_official_code_aborted_must_have_aborted(shared_data, tmp_path):
    folder = _copy(shared_data, tmp_path)
    edge = folder / "aggregates" / "edge" / "edge_judge_unparseable_aborts" / "fixture_inputs.json"
    inputs = json.loads(edge.read_text())
    bad = next(qid for qid, reply in inputs["judge_plan"].items() if reply == "The model answer is correct.")
    inputs["judge_plan"][bad] = '{"label": 1}'  # now the run would go on: it no longer matches what was written
    edge.write_text(json.dumps(inputs))
    result = invoke("conformance", str(folder))
    assert result.exit_code == 1
    assert "edge_judge_unparseable_aborts/prompt_build_summary.json" in result.stdout
    assert "outcome: raised expected" in result.stdout


def test_a_screenshot_a_fixture_names_and_the_release_lacks_is_one_line_naming_both(shared_data, tmp_path):
    folder = _copy(shared_data, tmp_path)
    shot = folder.parent / "synthetic" / "question_screenshots" / "35cad802.png"
    shot.chmod(0o644)
    shot.unlink()
    result = invoke("conformance", str(folder))
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        f"Error: {folder / 'reader-prompts.json'}: names {shot}, which is missing"]


def test_a_fixture_nested_past_the_depth_limit_is_one_line_naming_it_and_the_limit(shared_data, tmp_path):
    folder = _copy(shared_data, tmp_path)
    fixture = folder / "eval-cases.json"
    fixture.chmod(0o644)
    fixture.write_text('{"counts_by_outcome": ' + "[" * 100_000 + "]" * 100_000 + "}")
    result = invoke("conformance", str(folder))
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [f"Error: {fixture}:1: JSON nested deeper than the limit of 201 levels"]
    fixture.write_text('{"counts_by_outcome": {}, "cases": [], "notes": ' + "[" * 200 + "]" * 200 + "}")
    result = invoke("conformance", str(folder))  # 201 levels: read and checked (no case, so it fails as such)
    assert result.exit_code == 1 and _rows(result.stdout)["eval-cases.json"][:3] == ["longmemeval_v2.eval_cases", "0", "0"]


@pytest.mark.parametrize(("reply", "parsed"), [
    ("\\boxed{A} then \\boxed{B}", "B"), ("\\boxed{\\text{Save}}", "\\text{Save}"), ("\\boxed{  }", "\\boxed{  }"),
    ("\\boxed{open", "open"), ("\\boxed {x}", "\\boxed {x}"), ("no box", "no box"), ("\\boxed{a\\}b}", "a\\"),
])
def test_the_last_box_is_the_answer(reply, parsed):
    assert extract_boxed(reply) == parsed


def test_unknown_is_exact_after_strip_and_lower():
    assert is_unknown(" Unknown\u00a0\n") and not is_unknown("UNKNOWN.") and not is_unknown("\\text{UNKNOWN}")


def test_phrase_matching_boundaries():
    spec = dict(lower=True, normalize_hyphen=True, strip_punct=True)
    assert norm_phrase_set_match("1 200", "1,200", **spec) and not norm_phrase_set_match("1200", "1,200", **spec)
    assert norm_phrase_set_match("Sales → Orders", "sales orders", **spec)
    assert not norm_phrase_set_match("Sales/Orders", "sales orders", **spec)
    assert not norm_phrase_set_match("Minicart", "Cart", **spec) and norm_phrase_set_match("mini-cart", "Cart", **spec)
    assert not norm_phrase_set_match_ordered("Save and Close", "Save; Save and Close", **spec)
    assert norm_phrase_set_match_ordered("Save then Save and Close", "Save; Save and Close", **spec)
    with pytest.raises(TypeError):
        norm_phrase_set_match("x", "x", case_sensitive=False)


def test_multiple_choice_boundaries():
    assert mc_choice_match("Option B.", "B") and not mc_choice_match("(B)", "B") and not mc_choice_match("B)", "B")
    assert mc_choice_set_match("Options A and C", "A, C") and not mc_choice_set_match("I pick A and C", "A, C")


def test_judge_labels_and_spec_errors():
    assert parse_binary_judgement('{"label": true}') == 1 and parse_binary_judgement("LABEL:0") == 0
    assert parse_binary_judgement('{"label": 1} {"label": 0}') == 1
    for reply in ('{"label": "yes"}', "The answer is correct.", "label 1", ""):
        with pytest.raises(OfficialError):
            parse_binary_judgement(reply)
    assert parse_spec("mc_choice_match|strip_chars=.") == ("mc_choice_match", {"strip_chars": "."})
    assert parse_spec("norm_phrase_set_match|separators=and")[1] == {"separators": ["a", "n", "d"]}
    with pytest.raises(OfficialError, match="Duplicate"):
        parse_spec("norm_phrase_set_match|lower=true|lower=false")
    assert parse_spec("norm_phrase_set_match|separators=, /")[1] == {"separators": [",", "/"]}


def test_truncation_keeps_the_longest_fitting_prefix():
    items = [{"type": "text", "value": "word " * 50} for _ in range(3)]
    whole = truncate(items, 10**6, "q").original_tokens
    assert truncate(items, whole, "q").kept == items and truncate(items, whole - 1, "q").kept == items[:2]
    assert truncate(items, 5, "q").kept == [] and truncate(items, 5, "q").printed.startswith("Truncated")


def test_lafs_gain_is_zero_when_dominated_and_positive_on_the_frontier():
    assert lafs_summary("medium", [Point("slow", 58.5, 153.4)])["lafs_gain"] == 0.0
    assert lafs_summary("small", [Point("fast", 62.0, 15.0)])["lafs_gain"] > 0
    with pytest.raises(OfficialError, match="Latency must be positive"):
        lafs_summary("small", [Point("zero", 50.0, 0.0)])
