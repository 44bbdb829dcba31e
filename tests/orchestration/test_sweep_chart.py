"""`sweep show FILE --chart`: the sweep's table as a bar chart (matplotlib, the `chart` extra).

The demo sweep (three baselines x the GroupMemBench demo x two epochs, offline) is run, then drawn
as SVG and PNG. The SVG names the sweep and every system, carries each bar's mean as the table
says it, and is the same bytes when drawn again; headless Chromium renders it (a screenshot kept
in /tmp/benchledger-sweep-chart.png to look at) and the three systems' bar colours are on it. A
chart of another suffix is refused in one line, exit 2, nothing written.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from chromium import chromium, colours, png_pixels, screenshot
from ledger_cli import invoke, invoke_expecting

pytest.importorskip("matplotlib", reason="the chart needs the chart extra: pip install -e '.[chart]'")
DEMO = Path(__file__).resolve().parents[2] / "examples" / "sweeps" / "demo.toml"
BARS = (b"\x1f\x77\xb4", b"\xff\x7f\x0e", b"\x2c\xa0\x2c")  # matplotlib's first three colours


@pytest.mark.slow
def test_the_chart_shows_every_system_and_draws_the_same_bytes_twice(tmp_path):
    invoke_expecting("sweep", "run", str(DEMO))
    report = json.loads(invoke_expecting("sweep", "show", str(DEMO), "--json").output)
    invoke_expecting("sweep", "show", str(DEMO), "--chart", "a.svg")
    invoke_expecting("sweep", "show", str(DEMO), "--chart", "b.svg")
    invoke_expecting("sweep", "show", str(DEMO), "--chart", "c.png")
    svg = (tmp_path / "a.svg").read_text()
    assert (tmp_path / "a.svg").read_bytes() == (tmp_path / "b.svg").read_bytes()
    assert "sweep demo: 6 of 6 cells done" in svg and "0 of 6" in svg and "publishable" in svg  # the caption wraps
    for row in report["rows"]:
        assert row["system"] in svg
        assert f"{100 * row['cells']['groupmem-Demo']['mean']:.1f}" in svg
    assert (tmp_path / "c.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    shot = screenshot(chromium(), tmp_path / "profile", (tmp_path / "a.svg").as_uri(), tmp_path / "shot.png", 900, 500)
    shutil.copyfile(tmp_path / "shot.png", "/tmp/benchledger-sweep-chart.png")
    width, height, rows = png_pixels(shot)
    seen = colours(rows)
    assert (width, height) == (900, 500) and all(bar in seen for bar in BARS), "a system's bars are missing"


def test_a_chart_of_another_kind_is_refused_before_anything_is_written(tmp_path):
    invoke_expecting("sweep", "run", str(DEMO), "--cells", "1")
    refused = invoke("sweep", "show", str(DEMO), "--chart", "chart.pdf")
    assert refused.exit_code == 2 and "a chart is written as .svg or .png" in refused.output
    assert not (tmp_path / "chart.pdf").exists()
