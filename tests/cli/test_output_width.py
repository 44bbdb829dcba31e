"""Every table and scorecard fits the terminal (issue 36 item 4): each command a reader runs on a
finished run, rendered at 80 and at 120 columns, has no line over the width; a number is never cut
to make it fit; a pipe or a file gets 100 columns, and whole lines with COLUMNS=0.

Real offline runs through the CLI on real ledger files: the bundled GroupMemBench mini release, a
synthetic Mem2ActBench release (`synth`), and LongMemEval-V2's synthetic release from the shared data
(that test alone skips, saying how to get it, where the shared data is not laid out).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from benchledger.tables import SEPARATOR, fitted_to, render_table, wrap_prose
from conftest import MINI, missing_shared_data_reason, shared_data_dir
import ledger_cli

WIDTHS = (80, 120)


LEDGER: list[Path] = []  # the module's one ledger file, made by the `runs` fixture


def invoke(*args: str, columns: int | None = None):
    result = ledger_cli.invoke(*args, env={"COLUMNS": str(columns) if columns else "0"}, ledger=LEDGER[-1])
    assert result.exit_code == 0, result.output
    return result.stdout


def run_id(home: Path, *args: str) -> str:
    out = home / f"run-{len(list(home.glob('run-*.json')))}.json"
    invoke("run", *args, "--out", str(out))
    return json.loads(out.read_text())["run_id"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Finished runs on one ledger file, of what the package itself holds (made once: each takes seconds)."""
    home = tmp_path_factory.mktemp("widths")
    LEDGER.append(home / "ledger.db")
    invoke("synth", "mem2actbench", str(home / "m2a"))
    made = {
        "groupmem": run_id(home, "groupmem", str(MINI), "--domain", "Demo"),
        "groupmem-2": run_id(home, "groupmem", str(MINI), "--domain", "Demo", "--memory", "bm25-reference"),
        "mem2actbench": run_id(home, "mem2actbench", str(home / "m2a")),
    }
    return home, made


def commands(made: dict[str, str]) -> list[tuple[str, ...]]:
    a, b = made["groupmem"], made["groupmem-2"]
    return [("show", a), ("show", a, "--brief"), ("show", made["mem2actbench"]),
            ("compare", a, b), ("diff", a, b), ("memories",), ("benchmarks",), ("questions", a),
            ("question", a, "multi_hop_1"), ("runs",), ("failures", a), ("events", a)]


def too_wide(commands: list[tuple[str, ...]], width: int) -> dict[str, tuple[int, int]]:
    """Each command with lines over `width`: how many, and the widest."""
    found = {}
    for command in commands:
        over = [line for line in invoke(*command, columns=width).splitlines() if len(line) > width]
        if over:
            found[" ".join(command)] = (len(over), max(map(len, over)))
    return found


@pytest.mark.parametrize("width", WIDTHS)
def test_every_command_fits_the_terminal(runs, width, monkeypatch):
    home, made = runs
    monkeypatch.chdir(home)
    assert too_wide(commands(made), width) == {}


@pytest.mark.parametrize("width", WIDTHS)
def test_the_longmemeval_v2_scorecard_fits_the_terminal(runs, width, monkeypatch):
    data = shared_data_dir()  # its synthetic release and official prompts are in the shared data only
    if data is None:
        pytest.skip(missing_shared_data_reason())
    home, _ = runs
    monkeypatch.chdir(home)
    v2 = run_id(home, "longmemeval-v2", str(data / "longmemeval-v2" / "synthetic"), "--domain", "web", "--tier",
                "small", "--prompts-dir", str(data / "longmemeval-v2" / "prompts"))
    assert too_wide([("show", v2)], width) == {}


def test_a_pipe_gets_100_columns_unless_columns_says_otherwise(runs, monkeypatch):
    home, made = runs
    monkeypatch.chdir(home)
    a, b = made["groupmem"], made["groupmem-2"]
    for command in (("show", made["mem2actbench"]), ("compare", a, b), ("events", a)):
        piped = ledger_cli.invoke(*command, env={"COLUMNS": None}, ledger=LEDGER[-1])  # unset, not a terminal
        assert piped.exit_code == 0, piped.output
        assert max(map(len, piped.stdout.splitlines())) <= 100, command
        whole = invoke(*command)  # COLUMNS=0: every line whole, for grep and diff
        assert max(map(len, whole.splitlines())) > 100, command


def test_whole_lines_keep_the_same_numbers_as_fitted_ones(runs, monkeypatch):
    home, made = runs
    monkeypatch.chdir(home)
    whole = invoke("show", made["mem2actbench"])
    assert max(map(len, whole.splitlines())) > 80  # nothing was fitted: this card is wider than a terminal
    fitted = invoke("show", made["mem2actbench"], columns=80)
    numbers = re.compile(r"\d+(?:[.,]\d+)*%?")

    def section(card: str) -> str:  # the actions section's tables (no column of theirs is dropped)
        return card[card.index("    tasks "):card.index("no valid call")]

    # every number of its tables is still there, whole, once fitted (wrapping never cuts one)
    assert len(numbers.findall(section(whole))) > 50
    assert sorted(numbers.findall(section(whole))) == sorted(numbers.findall(section(fitted)))
    assert max(map(len, section(fitted).splitlines())) <= 80 < max(map(len, section(whole).splitlines()))


def test_compare_prints_a_column_per_run_by_default_and_markdown_on_request(runs, monkeypatch):
    home, made = runs
    monkeypatch.chdir(home)
    a, b = made["groupmem"], made["groupmem-2"]
    terminal = invoke("compare", a, b, columns=80).splitlines()
    assert any(line.startswith("A  ") and a in line for line in terminal)
    assert any(line.startswith("B  ") and b in line for line in terminal)
    overall = next(line for line in terminal if line.startswith("overall "))
    assert len(re.findall(r"\d+\.\d% \[", overall)) == 2  # one cell per run
    markdown = invoke("compare", a, b, "--format", "markdown", columns=80)
    assert any(line.startswith(f"| {a} ") for line in markdown.splitlines())


def test_show_brief_is_five_lines_that_agree_with_the_card(runs, monkeypatch):
    home, made = runs
    monkeypatch.chdir(home)
    a = made["groupmem"]
    brief = invoke("show", a, "--brief").splitlines()
    report = json.loads(invoke("show", a, "--json"))
    assert len(brief) == 5
    assert f"{100 * report['accuracy']:.1f}% [{100 * report['ci_low']:.1f}, {100 * report['ci_high']:.1f}]" in brief[0]
    failing = [c["name"] for c in report["conditions"] if not c["met"]]
    assert failing and brief[1] == f"DIAGNOSTIC: {', '.join(failing)} not met"
    assert brief[2].startswith("release ") and report["ledger_head"] in brief[4]
    assert report["agent_model"] in brief[3] and report["judge_model"] in brief[3]


def test_a_table_too_wide_loses_padding_then_named_columns_then_wraps_at_spaces():
    rows = [("overall", "47.5%", "[32.9, 62.5]", "a long free text note about the row"), SEPARATOR,
            ("x", "1.0%", "[0.1, 2.0]", "short")]
    headers = ("kind", "accuracy", "95% CI", "note")
    whole = render_table(rows, headers)
    assert max(map(len, whole.splitlines())) > 40
    with fitted_to(max(map(len, whole.splitlines()))):
        assert render_table(rows, headers) == whole  # a table that fits is laid out as it always was
    with fitted_to(40):
        dropped = render_table(rows, headers, drop=("note",))
        wrapped = render_table(rows, headers)
    assert dropped.splitlines()[0].split() == ["kind", "accuracy", "95%", "CI"]
    assert max(map(len, dropped.splitlines())) <= 40
    assert max(map(len, wrapped.splitlines())) <= 40 and "note" in wrapped.splitlines()[0]
    assert "[32.9, 62.5]" in wrapped  # the text column wrapped first, the interval kept on one line
    with fitted_to(12):  # cannot fit: printed with every number whole rather than cut
        narrow = render_table(rows, headers)
    assert {"47.5%", "[32.9,", "62.5]"} <= set(narrow.split())


def test_a_table_rendered_earlier_is_fitted_again_and_a_markdown_table_laid_out():
    table = render_table([("L1", "20", "76.8 [67.5, 85.2]", "64.4 [50.6, 77.9]", "a b c d e f g h")],
                         ("tasks", "n", "argument F1", "BLEU-1", "note"), indent="    ")
    text = "  title\n" + table + "\n  after the table, a sentence that is long enough to wrap at forty columns"
    fitted = wrap_prose(text, 40).splitlines()
    assert max(map(len, fitted)) <= 40 and fitted[0] == "  title"
    assert "[67.5," in " ".join(fitted) and "85.2]" in " ".join(fitted)
    assert fitted[-2].startswith("  after the table")  # the sentence is not read as a row of the table
    markdown = "| baseline | multi_hop | overall |\n|---|---:|---:|\n| sqlite | 42.9% (3/7) | **47.5% (19/40)** |"
    laid_out = wrap_prose(markdown, 30).splitlines()
    assert max(map(len, laid_out)) <= 30 and not any(line.startswith("|") for line in laid_out)
    assert wrap_prose(markdown, 200) == markdown  # one that fits stays markdown, to paste
