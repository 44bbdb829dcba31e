"""`sweep`: the demo sweep runs every cell as an ordinary tagged run; stopped after some cells and run
again, it runs only the cells left and asks nothing twice; the report's mean and sd over epochs are
the runs' own headlines'."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest

from benchledger.errors import BadInput
from benchledger.ledger.store import Ledger
from benchledger.orchestration.sweep import cell_runs
from benchledger.orchestration.sweep_file import read_sweep
from benchledger.orchestration.sweep_show import sweep_inputs
from benchledger.projections.stats import mean_spread, t95
from benchledger.projections.sweep_report import sweep_report
from ledger_cli import invoke, invoke_expecting

DEMO = Path(__file__).resolve().parents[2] / "examples" / "sweeps" / "demo.toml"


def _answered(ledger: Path) -> dict[str, list[str]]:
    """run id -> the question ids of its QuestionAnswered events, every attempt."""
    with Ledger.open(ledger, create=False) as opened:
        return {run.run_id: [e.event.question_id for e in opened.reader.events(run.run_id, types=["QuestionAnswered"])]
                for run in opened.reader.runs()}


def test_the_demo_file_is_three_baselines_by_two_epochs():
    sweep = read_sweep(DEMO)
    assert [cell.id for cell in sweep.cells] == [
        f"groupmem-Demo/{memory}/offline/e{epoch}" for epoch in (1, 2)
        for memory in ("sqlite", "bm25-reference", "structured")]
    assert sweep.cells[0].command() == "benchledger run groupmem --demo --domain Demo --memory sqlite"


def test_a_seed_taking_benchmark_gets_a_recorded_seed_per_epoch(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text('name = "m"\nepochs = 3\nseed = 7\n[[benchmarks]]\nname = "mem2actbench"\nrelease = "rel"\n'
                    '[[memories]]\nname = "sqlite"\n')
    seeds = [cell.args[cell.args.index("--candidate-seed") + 1] for cell in read_sweep(path).cells]
    assert seeds == ["7", "8", "9"]
    assert read_sweep(path).cells[0].args[1] == str(tmp_path / "rel")  # relative to the sweep file


@pytest.mark.parametrize("text, where", [
    ('name = "x"\nepochs = 0\n[[benchmarks]]\nname = "groupmem"\n[[memories]]\nname = "sqlite"\n',
     ":2: field 'epochs'"),
    ('name = "x"\n[[benchmarks]]\nname = "groupmem"\n[[memories]]\nname = "sqlite"\noptons = {}\n',
     ":6: field 'memories[0].optons'"),
    ('name = "x"\n[[benchmarks]]\nname = "nosuch"\n[[memories]]\nname = "sqlite"\n',
     ":3: field 'benchmarks[0].name'"),
    ('name = "x"\n[[benchmarks]\n', ":2"),
])
def test_a_bad_sweep_file_names_its_file_line_and_field(tmp_path, text, where):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(BadInput) as err:
        read_sweep(path)
    assert str(err.value).startswith(f"{path}{where}"), str(err.value)
    assert "\n" not in str(err.value)


def test_a_stopped_demo_sweep_runs_only_the_cells_left_and_asks_nothing_twice(tmp_path):
    ledger = tmp_path / "ledger.db"
    first = invoke_expecting("sweep", "run", str(DEMO), "--cells", "2")
    assert "4 cell(s) left to run" in first.output
    before = _answered(ledger)
    assert len(before) == 2 and all(len(ids) == 40 for ids in before.values())

    again = invoke_expecting("sweep", "run", str(DEMO))
    assert "2 of 6 cells already done on the ledger: skipped" in again.output
    after = _answered(ledger)
    assert len(after) == 6
    assert {run: after[run] for run in before} == before  # the first two runs were not touched
    assert all(sorted(ids) == sorted(set(ids)) and len(ids) == 40 for ids in after.values())  # none asked twice
    with Ledger.open(ledger, create=False) as opened:
        runs = cell_runs(opened.reader, "demo")
    assert sorted(runs) == sorted(cell.id for cell in read_sweep(DEMO).cells)
    assert all(len(found) == 1 for found in runs.values())
    nothing = invoke_expecting("sweep", "run", str(DEMO))
    assert "6 of 6 cells already done" in nothing.output and _answered(ledger) == after

    # each cell is the run `run` makes, plus its tag
    shown = json.loads(invoke_expecting("show", runs["groupmem-Demo/sqlite/offline/e1"][0], "--json").output)
    invoke_expecting("run", "groupmem", "--demo", "--memory", "sqlite", "--out", str(tmp_path / "r.json"))
    alone = json.loads((tmp_path / "r.json").read_text())
    assert (shown["score"], shown["judged"], shown["memory"]) == (alone["score"], alone["judged"], alone["memory"])

    report = json.loads(invoke_expecting("sweep", "show", str(DEMO), "--json").output)
    for row in report["rows"]:
        cell = row["cells"]["groupmem-Demo"]
        headlines = [json.loads(invoke_expecting("show", runs[f"groupmem-Demo/{row['system']}/offline/e{e}"][0],
                                                 "--json").output)["score"] for e in (1, 2)]
        assert cell["scores"] == headlines and cell["mean"] == pytest.approx(statistics.mean(headlines))
        assert cell["sd"] == pytest.approx(statistics.stdev(headlines)) and cell["status"] == "diagnostic"
    csv_lines = invoke_expecting("sweep", "show", str(DEMO), "--csv").output.splitlines()
    assert csv_lines[0].startswith("system,benchmark,metric") and len(csv_lines) == 4

    # the spread over epochs of unlike headlines, from real runs: two systems' runs as one cell's epochs
    with Ledger.open(ledger, create=False) as opened:
        inputs = sweep_inputs(opened.reader, read_sweep(DEMO))
    mixed = [cell._replace(system="mixed") for cell in inputs if cell.epoch == 1 and "structured" not in cell.cell]
    aggregate = sweep_report("demo", mixed).rows[0].cells["groupmem-Demo"]
    scores = [cell.run.report.score for cell in mixed]
    assert scores[0] != scores[1] and aggregate.mean == pytest.approx(statistics.mean(scores))
    assert aggregate.sd == pytest.approx(statistics.stdev(scores))
    half = 12.706 * statistics.stdev(scores) / 2 ** 0.5
    assert (aggregate.ci_low, aggregate.ci_high) == pytest.approx((statistics.mean(scores) - half,
                                                                   statistics.mean(scores) + half))


def test_unlike_epochs_are_refused_by_the_compare_rules(tmp_path):
    invoke_expecting("sweep", "run", str(DEMO), "--cells", "3")
    with Ledger.open(tmp_path / "ledger.db", create=False) as opened:
        inputs = sweep_inputs(opened.reader, read_sweep(DEMO))
    done = [cell for cell in inputs if cell.run is not None]
    limited = invoke_expecting("run", "groupmem", "--demo", "--memory", "sqlite", "--k", "5")
    assert limited.exit_code == 0
    with Ledger.open(tmp_path / "ledger.db", create=False) as opened:
        from benchledger.orchestration.compare import context_format
        from benchledger.orchestration.recorded import recorded_run
        from benchledger.orchestration.reports import report_of
        from benchledger.projections.compare import CompareInput

        other = recorded_run(opened.reader, "latest").state
        run = CompareInput(other, report_of(other), context_format(opened.reader, other))
    unlike = done[0]._replace(cell="x/e2", epoch=2, run_id=other.run_id, run=run)
    with pytest.raises(BadInput, match="not like for like.*k: 10 .* vs 5"):
        sweep_report("demo", [done[0], unlike])


def test_the_t_interval_over_epochs():
    assert t95(1) == 12.706 and t95(30) == 2.042 and abs(t95(1000) - 1.962) < 0.001
    assert mean_spread([]) == (None, None, None, None) and mean_spread([0.5]) == (0.5, None, None, None)
    mean, sd, low, high = mean_spread([0.4, 0.5, 0.6])
    assert (mean, sd) == pytest.approx((0.5, 0.1)) and (low, high) == pytest.approx((0.5 - 0.2484, 0.5 + 0.2484), abs=1e-4)


def test_parallel_cells_run_at_once_never_two_of_one_memory_and_give_the_sequential_numbers(tmp_path):
    """`--parallel 3`: the runs' recorded start and finish overlap across memory systems (they ran at once)
    and never within one (its evaluation store is shared); the report is the one-at-a-time sweep's."""
    invoke_expecting("--ledger", "parallel.db", "sweep", "run", str(DEMO), "--parallel", "3")
    invoke_expecting("--ledger", "sequential.db", "sweep", "run", str(DEMO), "--parallel", "1")
    with Ledger.open(tmp_path / "parallel.db", create=False) as opened:
        windows = []
        for run in opened.reader.runs():
            events = list(opened.reader.events(run.run_id, types=["RunStarted", "RunFinished"]))
            memory = events[0].event.config.settings.memory
            windows.append((memory, events[0].recorded_at, events[-1].recorded_at))
    assert len(windows) == 6

    def overlap(a, b) -> bool:
        return a[1] < b[2] and b[1] < a[2]

    pairs = [(a, b) for i, a in enumerate(windows) for b in windows[i + 1:]]
    assert any(overlap(a, b) for a, b in pairs if a[0] != b[0]), windows
    assert not any(overlap(a, b) for a, b in pairs if a[0] == b[0]), windows

    def numbers(ledger: str) -> list:
        shown = json.loads(invoke_expecting("--ledger", ledger, "sweep", "show", str(DEMO), "--json").output)
        return sorted((row["system"], cell["scores"], cell["sd"]) for row in shown["rows"]
                      for cell in row["cells"].values())

    assert numbers("parallel.db") == numbers("sequential.db")


def test_the_two_benchmark_example_runs_offline_with_a_spread_where_seeds_differ(tmp_path):
    """examples/sweeps/two-benchmarks.toml: 3 baselines x 2 benchmarks x 2 epochs, from a fresh clone."""
    example = tmp_path / "two-benchmarks.toml"
    example.write_text((DEMO.parent / "two-benchmarks.toml").read_text())
    invoke_expecting("synth", "mem2actbench", str(tmp_path / "m2a"))
    invoke_expecting("sweep", "run", str(example))
    report = json.loads(invoke_expecting("sweep", "show", str(example), "--json").output)
    assert (report["done"], report["planned"]) == (12, 12)
    assert sorted(report["benchmarks"]) == ["groupmem-Demo", "mem2actbench"]
    for row in report["rows"]:
        assert row["cells"]["groupmem-Demo"]["sd"] == 0  # the offline models repeat the run exactly
        assert row["cells"]["mem2actbench"]["sd"] > 0  # each epoch draws its candidate tools with its own seed
