"""The one atomic file writer (`benchledger.files.write_atomic`) and the CLI files that go through it.

Whatever the umask, a report, a `show --out` and an export (JSON, CSV, HTML) get mode 0644; a
failed write leaves the old file whole and no temporary file behind, and says so in one line.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner

from benchledger.cli.main import cli
from benchledger.errors import BadInput
from benchledger.files import write_atomic
from conftest import MINI


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def strict_umask():
    previous = os.umask(0o077)
    yield
    os.umask(previous)


def test_text_and_bytes_are_written_whole_with_0644_or_the_mode_asked(tmp_path: Path, strict_umask) -> None:
    target = tmp_path / "deep" / "report.json"
    write_atomic(target, "first\r\nline\n")
    assert target.read_bytes() == b"first\r\nline\n" and mode(target) == 0o644
    write_atomic(target, b"\x00second", mode=0o600)
    assert target.read_bytes() == b"\x00second" and mode(target) == 0o600
    assert [p.name for p in target.parent.iterdir()] == ["report.json"], "no temporary file is left"


def test_a_failed_write_keeps_the_old_file_and_leaves_nothing_behind(tmp_path: Path) -> None:
    target = tmp_path / "report.json"
    target.write_text("old")
    with pytest.raises(UnicodeEncodeError):
        write_atomic(target, "\ud800")  # not encodable: fails before the temporary file exists
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    with pytest.raises(BadInput, match=r"a-file/out.json: cannot write the file: .*a-file is a file, not a folder"):
        write_atomic(blocker / "out.json", "new")
    with pytest.raises(BadInput, match=r"a-file/sub/out.json: cannot write the file: Not a directory"):
        write_atomic(blocker / "sub" / "out.json", "new")
    (tmp_path / "folder").mkdir()
    with pytest.raises(BadInput, match=r"cannot write the file: Is a directory"):
        write_atomic(tmp_path / "folder", "new")  # the rename fails after the temporary file was written
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file", "folder", "report.json"]


def test_every_report_and_export_the_cli_writes_is_0644(tmp_path: Path, strict_umask) -> None:
    runner = CliRunner()
    ran = runner.invoke(cli, ["run", "groupmem", str(MINI), "--domain", "Demo", "--question-limit", "2",
                              "--out", str(tmp_path / "run.json")], catch_exceptions=False)
    assert ran.exit_code == 0, ran.output
    run_id = json.loads((tmp_path / "run.json").read_text())["run_id"]
    shown = runner.invoke(cli, ["show", run_id, "--out", str(tmp_path / "show.json")], catch_exceptions=False)
    assert shown.exit_code == 0, shown.output
    for fmt in ("json", "csv", "html"):
        exported = runner.invoke(cli, ["export", run_id, "--out", str(tmp_path / f"export.{fmt}")],
                                 catch_exceptions=False)
        assert exported.exit_code == 0, exported.output
    written = ["run.json", "show.json", "export.json", "export.csv", "export.html"]
    assert {name: mode(tmp_path / name) for name in written} == dict.fromkeys(written, 0o644)
    assert json.loads((tmp_path / "show.json").read_text())["run_id"] == run_id


def test_an_export_that_cannot_be_written_is_one_line_and_exit_2(tmp_path: Path) -> None:
    runner = CliRunner()
    ran = runner.invoke(cli, ["run", "groupmem", str(MINI), "--domain", "Demo", "--question-limit", "1"],
                        catch_exceptions=False)
    assert ran.exit_code == 0, ran.output
    (tmp_path / "a-file").write_text("")
    result = runner.invoke(cli, ["export", "latest", "--format", "json", "--out", str(tmp_path / "a-file" / "x.json")])
    assert result.exit_code == 2
    assert result.output.strip().splitlines()[-1].endswith("a-file is a file, not a folder")
