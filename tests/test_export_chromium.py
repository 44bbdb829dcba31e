"""The HTML export of a real run, rendered by Debian's headless Chromium: a real page, not blank.

The screenshot is decoded here (zlib plus the five PNG row filters) to count colours and find
the chart's bar colour; `--dump-dom` shows the SVG chart with one bar per kind. Where Chromium is
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
    bar = bytes(BAR_RGB)
    bar_pixels = sum(row[i:i + 3] == bar for row in rows for i in range(0, len(row), 3))
    assert bar_pixels > 2000, "the accuracy bars did not render"

    dom = subprocess.run([browser, *common, "--dump-dom", url], capture_output=True, text=True, timeout=180,
                         check=True).stdout
    kinds = {m.group(1) for m in re.finditer(r'<rect class="bar" data-kind="([^"]+)"', dom)}
    by_kind = json.loads((tmp_path / "r.json").read_text())["by_kind"]
    expected = {kind for kind, tally in by_kind.items() if tally["judged"]}
    assert kinds == expected and len(kinds) == 6
    assert "<script" not in dom.lower()
