"""The HTML export of a real run, rendered by Debian's headless Chromium: a real page, not blank.

The screenshot is decoded here (zlib plus the five PNG row filters) to count colours and find
the chart's bar colour; `--dump-dom` shows the SVG chart with one bar per kind. If Chromium is
missing the test installs it with apt-get, and fails (never skips) when it still cannot be had.
"""

from __future__ import annotations

import json
import re
import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest
from test_diff import invoke, real_run

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]
WIDTH, HEIGHT = 1280, 2000
BAR_RGB = (0x2F, 0x5F, 0xD0)  # --accent in projections/export_page.html
LEAD_COPY = Path("/tmp/benchledger-export.png")


def chromium() -> str:
    found = shutil.which("chromium") or (Path("/usr/bin/chromium").exists() and "/usr/bin/chromium")
    if not found:
        install = subprocess.run(["apt-get", "install", "-y", "-qq", "chromium"], capture_output=True, text=True)
        if install.returncode != 0:
            subprocess.run(["apt-get", "update", "-qq"], capture_output=True)
            subprocess.run(["apt-get", "install", "-y", "-qq", "chromium"], capture_output=True)
        found = shutil.which("chromium")
    if not found:
        pytest.fail("headless Chromium is required (apt-get install -y chromium) and could not be installed")
    return found


def png_chunks(data: bytes):
    pos = 8
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        yield kind, data[pos + 8:pos + 8 + length]
        pos += 12 + length


def png_pixels(data: bytes) -> tuple[int, int, list[bytes]]:
    """(width, height, unfiltered rows) of an 8-bit RGB or RGBA, non-interlaced PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    chunks = list(png_chunks(data))
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", chunks[0][1])
    assert chunks[0][0] == b"IHDR" and depth == 8 and colour in (2, 6) and interlace == 0
    bpp = 3 if colour == 2 else 4
    raw = zlib.decompress(b"".join(body for kind, body in chunks if kind == b"IDAT"))
    stride = width * bpp
    rows, previous = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            left = line[i - bpp] if i >= bpp else 0
            up = previous[i]
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                corner = previous[i - bpp] if i >= bpp else 0
                guess = left + up - corner
                pa, pb, pc = abs(guess - left), abs(guess - up), abs(guess - corner)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 0xFF
        rows.append(bytes(line))
        previous = line
    return width, height, [bytes(r[i:i + 3] for i in range(0, len(r), bpp)) if bpp == 4 else r for r in rows]


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
