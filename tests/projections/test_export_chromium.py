"""The HTML export of a real run, rendered by Debian's headless Chromium: a real page, not blank.

The screenshot is decoded here (zlib plus the five PNG row filters): the page is not blank, and
each bar of the chart is as tall, in pixels, as its kind's accuracy says on one common scale;
`--dump-dom` shows one bar per judged kind, each labelled with that kind's accuracy. Where Chromium is
missing the test skips, saying how to get it (`.ci/run` installs it, so CI always runs it).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

from chromium import CHROMIUM_FLAGS, chromium, png_pixels
from test_diff import invoke, real_run

WIDTH, HEIGHT = 1280, 2000
BAR_RGB = (0x2F, 0x5F, 0xD0)  # --accent in projections/export_page.html
LEAD_COPY = Path("/tmp/benchledger-export.png")


def test_chromium_renders_the_html_export_of_a_real_run(tmp_path):
    browser = chromium()
    assert invoke("synth", "groupmem", "rel", "--messages", "400", "--seed", "1").exit_code == 0
    run_id = real_run("rel", "bm25-reference")
    assert invoke("export", run_id, "--format", "html", "--out", "report.html").exit_code == 0
    url = (tmp_path / "report.html").as_uri()
    shot = tmp_path / "report.png"
    common = CHROMIUM_FLAGS + [f"--user-data-dir={tmp_path / 'profile'}"]
    subprocess.run([browser, *common, f"--screenshot={shot}", f"--window-size={WIDTH},{HEIGHT}", url],
                   capture_output=True, timeout=180, check=True)
    data = shot.read_bytes()
    shutil.copyfile(shot, LEAD_COPY)

    width, height, rows = png_pixels(data)
    assert (width, height) == (WIDTH, HEIGHT)
    colours = {row[i:i + 3] for row in rows for i in range(0, len(row), 3)}
    assert len(colours) > 50, f"the page looks blank ({len(colours)} colours)"
    dom = subprocess.run([browser, *common, "--dump-dom", url], capture_output=True, text=True, timeout=180,
                         check=True).stdout
    report = json.loads((tmp_path / "r.json").read_text())
    bars = re.findall(r'<rect class="bar" data-kind="([^"]+)" x="([0-9.]+)"[^>]*><title>([^<]+)</title>', dom)
    judged = {kind: tally for kind, tally in report["by_kind"].items() if tally["judged"]}
    assert sorted(kind for kind, _, _ in bars) == sorted(judged) and len(bars) == 6
    for kind, _, title in bars:  # the label each bar carries is its kind's accuracy and interval
        tally = judged[kind]
        assert title.startswith(f"{kind}: {100 * tally['correct'] / tally['judged']:.1f}% (95% CI "), title
    # what the bars say, in pixels, left to right: each as tall as its kind's accuracy on one scale
    accuracies = [judged[kind]["correct"] / judged[kind]["judged"]
                  for kind, _, _ in sorted(bars, key=lambda bar: float(bar[1]))]
    shown = [accuracy for accuracy in accuracies if accuracy > 0]  # a kind at 0% has a bar of no height
    heights = _bar_heights(rows, bytes(BAR_RGB))
    assert len(heights) == len(shown) >= 3, (heights, accuracies)
    scale = max(heights) / max(shown)
    for drawn, accuracy in zip(heights, shown):
        assert abs(drawn - accuracy * scale) <= 3, (heights, accuracies)
    assert "<script" not in dom.lower()


def _bar_heights(rows: list[bytes], colour: bytes) -> list[int]:
    """The height in pixels of each bar of the chart, left to right: runs of columns that hold a tall
    stretch of the bar colour, each measured a quarter of its width in from its left edge (away from
    the whisker down its middle) from its lowest bar-coloured pixel up to the highest one joined to it
    (the overall line that crosses a bar leaves a gap of a few pixels)."""
    width = len(rows[0]) // 3

    def height(x: int) -> int:
        ys = [y for y, row in enumerate(rows) if row[3 * x:3 * x + 3] == colour]
        if not ys:
            return 0
        top = ys[-1]
        for y in reversed(ys[:-1]):
            if top - y > 6:
                break
            top = y
        return ys[-1] - top + 1

    columns = [x for x in range(width) if height(x) > 8]
    groups: list[list[int]] = []
    for x in columns:
        if groups and x == groups[-1][-1] + 1:
            groups[-1].append(x)
        else:
            groups.append([x])
    return [height(group[len(group) // 4]) for group in groups if len(group) > 10]
