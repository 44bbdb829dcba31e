"""`compare RUN...`: like-for-like checks first, then one table with intervals and Holm-corrected paired tests."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest

from benchledger.projections.compare import CompareInput, compare_runs, holm
from benchledger.projections.report import report_from_state
from benchledger.projections.state import fold_run
from benchledger.projections.stats import mcnemar_exact, wilson_interval
from chromium import chromium, colours, dump_dom, png_pixels, screenshot
from events_factory import stored, stream
from ledger_cli import events_of, invoke


def test_holm_steps_down_and_stays_monotone():
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.5, 0.001]) == pytest.approx([0.5, 0.002])
    assert holm([0.9, 0.8]) == pytest.approx([1.0, 1.0])  # 2 x 0.8 capped at 1, and never below an earlier step
    assert holm([]) == []


def _made_up(run_id: str, wrong: set[int], questions: int = 20) -> CompareInput:
    """A run of `questions` made-up questions, wrong on the numbers in `wrong`."""
    outcomes = {f"q{n:02d}": ("temporal", "incorrect" if n in wrong else "correct") for n in range(1, questions + 1)}
    events = stored(stream(outcomes))
    state = fold_run(run_id, events)
    return CompareInput(state, report_from_state(state, conditions=()), "timestamps")


def test_significance_is_read_from_the_holm_corrected_p_not_the_raw_one():
    """Against the best run (wrong on q20 only), b loses 6 discordant pairs to none (raw p 0.031) and
    c 8 to 1 (raw p 0.039): each raw p is under 5%, Holm's over the two tests is 0.0625 for both. Alone
    against the best, b's one test needs no correction and is significant."""
    best, b, c = _made_up("best", {20}), _made_up("b", {1, 2, 3, 4, 5, 6, 20}), _made_up("c", set(range(7, 15)))
    three = {t.run_id: t for t in compare_runs([best, b, c]).tests}
    assert three["b"].mcnemar_p == pytest.approx(2 * 0.5 ** 6) and three["c"].mcnemar_p == pytest.approx(20 / 512)
    assert all(t.mcnemar_p < 0.05 and t.holm_p == pytest.approx(0.0625) for t in three.values())
    assert not any(t.significant for t in three.values())
    (alone,) = compare_runs([best, b]).tests
    assert alone.holm_p == pytest.approx(alone.mcnemar_p) and alone.significant


def _run(dev: Path, memory: str, *extra: str) -> str:
    result = invoke("run", "locomo", str(dev), "--conversations", "conv-30", "--memory", memory, *extra,
                    "--out", f"{memory}.json")
    assert result.exit_code == 0, result.output
    return json.loads(Path(f"{memory}.json").read_text())["run_id"]


def _verdicts(run_id: str, scorer: str) -> dict[str, bool]:
    return {e.question_id: e.verdict == "correct" for e in events_of(run_id) if e.type == "Judged"
            and e.scorer_id == scorer}


def test_runs_that_differ_in_k_are_refused_naming_it_then_labelled_when_allowed(shared_data):
    dev = shared_data / "locomo" / "locomo-dev.json"
    sqlite, bm25 = _run(dev, "sqlite"), _run(dev, "bm25-reference")
    result = invoke("run", "locomo", str(dev), "--conversations", "conv-30", "--memory", "sqlite", "--k", "3",
                    "--out", "k3.json")
    assert result.exit_code == 0, result.output
    k3 = json.loads(Path("k3.json").read_text())["run_id"]
    refused = invoke("compare", sqlite, bm25, k3)
    assert refused.exit_code == 2
    assert f"k: 10 ({sqlite}) vs 10 ({bm25}) vs 3 ({k3})" in refused.output and "--allow-differences" in refused.output
    fair = invoke("compare", sqlite, bm25, "--format", "csv")
    assert fair.exit_code == 0, fair.output
    rows = list(csv.DictReader(io.StringIO(fair.stdout)))
    assert {r["label"] for r in rows} == {"like for like"}
    for run_id in (sqlite, bm25):  # every number is the run's own verdicts, refolded here
        verdicts = _verdicts(run_id, "s1")
        overall = next(r for r in rows if r["run_id"] == run_id and r["kind"] == "overall")
        correct = sum(verdicts.values())
        assert (int(overall["judged"]), int(overall["correct"])) == (len(verdicts), correct)
        assert float(overall["ci_low"]) == pytest.approx(wilson_interval(correct, len(verdicts))[0])
    allowed = invoke("compare", sqlite, bm25, k3, "--allow-differences", "--format", "markdown")
    assert allowed.exit_code == 0, allowed.output
    assert allowed.stdout.startswith("**LoCoMo: NOT LIKE FOR LIKE: differs in k**")
    # the paired tests: exact McNemar on the discordant pairs against the best, Holm over the two tests
    best = re.search(r"against the best system \((\w+)\)", allowed.stdout).group(1)
    others = [r for r in (sqlite, bm25, k3) if r != best]
    raw = []
    for other in others:
        b, o = _verdicts(best, "s1"), _verdicts(other, "s1")
        raw.append(mcnemar_exact(sum(b[q] and not o[q] for q in b), sum(o[q] and not b[q] for q in b)))
    for other, p, h in zip(others, raw, holm(raw)):
        line = next(line for line in allowed.stdout.splitlines() if line.startswith(f"| {other} "))
        assert f"{p:.3g} ({h:.3g})" in line


def test_a_different_judge_or_scorer_rule_is_named(shared_data):
    dev = shared_data / "locomo" / "locomo-dev.json"
    a, b = _run(dev, "sqlite"), _run(dev, "bm25-reference")
    refused = invoke("compare", a, b, "--scorers", "s1,s2")
    assert refused.exit_code == 2
    assert "judge: locomo-token-f1" in refused.output and "scorer rule: locomo-f1" in refused.output
    judged = invoke("compare", a, b, "--scorers", "s2,s2", "--format", "csv")
    assert judged.exit_code == 0, judged.output
    for run_id in (a, b):  # the official number is the official scorer's (the token F1), whatever is compared
        shown = json.loads(invoke("show", run_id, "--json").stdout)
        row = next(r for r in csv.DictReader(io.StringIO(judged.stdout)) if r["run_id"] == run_id)
        assert (float(row["official"]), row["official_metric"]) == (shown["score"], shown["metric"])
        assert shown["metric"] == "LoCoMo token F1" and row["official_metric"] == "LoCoMo token F1"


def test_the_html_comparison_draws_systems_as_bars_and_full_context_and_oracle_as_floor_and_ceiling(
        shared_data, tmp_path):
    browser = chromium()
    dev = shared_data / "locomo" / "locomo-dev.json"
    runs = [_run(dev, memory) for memory in ("sqlite", "bm25-reference", "full-context", "oracle")]
    result = invoke("compare", *runs, "--scorers", "s2,s2,s2,s2", "--format", "html", "--out", "compare.html")
    assert result.exit_code == 0, result.output
    markdown = invoke("compare", *runs, "--scorers", "s2,s2,s2,s2", "--format", "markdown").stdout
    assert "full-context (floor)" in markdown and "oracle (ceiling)" in markdown
    url = (tmp_path / "compare.html").as_uri()
    dom = dump_dom(browser, tmp_path / "profile", url)
    bars = {(m.group(1), m.group(2)) for m in re.finditer(r'<rect class="cbar" data-run="(\w+)" data-kind="([^"]+)"', dom)}
    planned = {q.kind for e in events_of(runs[0]) if e.type == "QuestionsPlanned" for q in e.questions}
    assert {kind for _, kind in bars} == planned | {"overall"} and len(planned) >= 4
    assert {run for run, _ in bars} == set(runs[:2])  # the systems are bars; floor and ceiling are lines
    assert len(re.findall(r'<line class="floor"', dom)) == len(re.findall(r'<line class="ceiling"', dom)) \
        == len(planned) + 1
    assert "<script" not in dom.lower()
    width, height, rows = png_pixels(screenshot(browser, tmp_path / "profile", url, tmp_path / "c.png", 1280, 1400))
    assert (width, height) == (1280, 1400) and len(colours(rows)) > 50
    first_bar = bytes((0x2F, 0x5F, 0xD0))
    assert sum(row[i:i + 3] == first_bar for row in rows for i in range(0, len(row), 3)) > 500


def test_under_a_graded_rule_the_paired_difference_is_over_its_scores(shared_data):
    dev = shared_data / "locomo" / "locomo-dev.json"
    a, b = _run(dev, "sqlite"), _run(dev, "bm25-reference")
    result = invoke("compare", a, b, "--format", "csv")  # both default to the official token F1 (s1)
    assert result.exit_code == 0, result.output
    rows = [r for r in csv.DictReader(io.StringIO(result.stdout)) if r["kind"] == "overall" and r["paired_on"]]
    assert len(rows) == 1 and rows[0]["paired_on"] == "scores"
    other, best = rows[0]["run_id"], rows[0]["best"]
    scores = {run: {e.question_id: e.score for e in events_of(run) if e.type == "Judged" and e.scorer_id == "s1"}
              for run in (a, b)}
    expected = sum(scores[other][q] - scores[best][q] for q in scores[best]) / len(scores[best])
    assert float(rows[0]["difference_vs_best"]) == pytest.approx(expected)
    assert float(rows[0]["diff_ci_low"]) <= float(rows[0]["difference_vs_best"]) <= float(rows[0]["diff_ci_high"])


def test_other_questions_and_another_context_format_are_named(shared_data):
    from benchledger.errors import BadInput
    from benchledger.ledger.store import Ledger
    from benchledger.orchestration.compare import context_format
    from benchledger.orchestration.reports import report_of
    from benchledger.projections.compare import CompareInput, compare_runs
    from benchledger.projections.state import fold_run

    dev = shared_data / "locomo" / "locomo-dev.json"
    full = _run(dev, "sqlite")
    result = invoke("run", "locomo", str(dev), "--conversations", "conv-30", "--question-limit", "20",
                    "--out", "limited.json")
    assert result.exit_code == 0, result.output
    limited = json.loads(Path("limited.json").read_text())["run_id"]
    refused = invoke("compare", full, limited)
    assert refused.exit_code == 2 and "questions: " in refused.output and "questions, digest" in refused.output
    with Ledger.open(Path("ledger.db")) as ledger:
        states = [fold_run(run_id, ledger.reader.events(run_id)) for run_id in (full, _run(dev, "bm25-reference"))]
        measured = [context_format(ledger.reader, state) for state in states]
    assert measured == ["timestamps", "timestamps"]  # LoCoMo turns carry their session's date-time
    inputs = [CompareInput(states[0], report_of(states[0]), measured[0]),
              CompareInput(states[1], report_of(states[1]), "no timestamps")]
    with pytest.raises(BadInput, match=r"context format: timestamps \(\w+\) vs no timestamps \(\w+\)"):
        compare_runs(inputs)
    assert compare_runs(inputs, allow_differences=True).label == "NOT LIKE FOR LIKE: differs in context format"
