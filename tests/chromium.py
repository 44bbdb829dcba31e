"""Headless Chromium for tests that look at pages as a person would: find it (or skip, saying how to
get it), take screenshots and DOM dumps, decode a screenshot's pixels (zlib plus the five PNG row
filters) to tell a rendered page from a blank one.

The test suite installs nothing: where Debian's `chromium` is missing these tests skip with the
reason printed (`pytest -rs`); `.ci/run` installs it so CI always runs them. A Chromium that is
installed but does not run fails them, saying what it printed (a broken tool is not an absent one).
"""

from __future__ import annotations

import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

__all__ = ["CHROMIUM_FLAGS", "chromium", "png_pixels", "colours", "screenshot", "dump_dom"]

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def chromium() -> str:
    """The Chromium binary: skip the test saying how to get it where it is absent, fail it where it
    is installed but does not run."""
    found = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
    if not found:
        pytest.skip("headless Chromium not found (no `chromium` on PATH, no /usr/bin/chromium): install Debian's "
                    "chromium (apt-get install -y chromium; .ci/run does) to run this test")
    if found not in _RUNS:
        try:
            done = subprocess.run([found, "--version"], capture_output=True, text=True, timeout=60)
            _RUNS[found] = (done.returncode == 0, (done.stdout + done.stderr).strip()[-500:])
        except (OSError, subprocess.TimeoutExpired) as err:
            _RUNS[found] = (False, f"{type(err).__name__}: {err}")
    works, said = _RUNS[found]
    if not works:
        pytest.fail(f"Chromium is installed ({found}) but does not run: {said}", pytrace=False)
    return found


_RUNS: dict[str, tuple[bool, str]] = {}
"""Binary -> (whether `--version` ran, what it printed), asked once a session."""


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




def colours(rows: list[bytes]) -> set[bytes]:
    return {row[i:i + 3] for row in rows for i in range(0, len(row), 3)}


def screenshot(browser: str, profile: Path, url: str, out: Path, width: int, height: int) -> bytes:
    subprocess.run([browser, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", f"--screenshot={out}",
                    f"--window-size={width},{height}", url], capture_output=True, timeout=180, check=True)
    return out.read_bytes()


def dump_dom(browser: str, profile: Path, url: str) -> str:
    return subprocess.run([browser, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--dump-dom", url],
                          capture_output=True, text=True, timeout=180, check=True).stdout
