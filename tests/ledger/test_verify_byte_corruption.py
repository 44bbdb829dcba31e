"""`verify` names the first bad seq for byte corruption it can reach: bytes flipped inside an
event's payload, even into text that is no longer UTF-8, are named by seq (exit 1), never reported
as an unreadable column; corruption of SQLite's own pages says the file is damaged (exit 1); and
`runs` still lists what it can read.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

from conftest import MINI
from ledger_cli import invoke


@pytest.fixture(scope="module")
def clean(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("clean")
    ledger = folder / "clean.db"
    assert invoke("--ledger", str(ledger), "run", "groupmem", str(MINI), "--domain", "Demo").exit_code == 0
    assert invoke("--ledger", str(ledger), "verify").exit_code == 0
    return ledger


def _flip(source: Path, target: Path, offsets: range, mask: int) -> None:
    shutil.copyfile(source, target)
    data = bytearray(target.read_bytes())
    for offset in offsets:
        data[offset] ^= mask
    target.write_bytes(bytes(data))


@pytest.mark.parametrize("needle", [b'"question_id":"temporal_3"', b'"type":"Judged"', b'"answer":'])
def test_bytes_flipped_into_invalid_utf8_inside_a_payload_are_named_by_seq(clean, tmp_path, needle):
    data = clean.read_bytes()
    at = data.find(needle)
    assert at > 0
    broken = tmp_path / "broken.db"
    _flip(clean, broken, range(at, at + 20), 0x80)  # every byte now >= 0x80: not UTF-8
    result = invoke("--ledger", str(broken), "verify")
    assert result.exit_code == 1
    line = result.output.strip().splitlines()[-1]
    assert line.startswith("Error: verify failed at seq "), line
    assert "decode" not in line.lower()
    listed = invoke("--ledger", str(broken), "runs")
    assert listed.exit_code == 0 and "GroupMemBench" in listed.output


@pytest.mark.parametrize("seed", range(8))
def test_400_bytes_flipped_anywhere_give_one_line_naming_what_changed(clean, tmp_path, seed):
    """Flips in a page's free space change nothing that was written (verify is right to pass, and
    every report reads as before); anything else fails with one line naming a seq, a blob or the
    damaged file, never a traceback."""
    size = clean.stat().st_size
    start = random.Random(seed).randrange(4096, size - 400)
    broken = tmp_path / "broken.db"
    _flip(clean, broken, range(start, start + 400), 0x5A)
    result = invoke("--ledger", str(broken), "verify")
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    if result.exit_code == 0:
        assert invoke("--ledger", str(broken), "show", "latest", "--json").output == \
            invoke("--ledger", str(clean), "show", "latest", "--json").output
        return
    assert result.exit_code == 1, result.output
    line = lines[0]
    assert "decode" not in line.lower(), line
    assert " seq " in line or "blob " in line or "damaged" in line or "schema" in line, line
