"""A skip is for an absent tool only: a tool that is installed but broken fails its tests, and
where skips are not allowed (CI) a skip fails the run.

Each case runs a planted test file in a pytest session of its own (a subprocess, in tmp_path),
using the suite's real fixtures (tests/pg_server.py, tests/chromium.py) and plugin
(tests/no_skips.py), against real stand-in tools: an `initdb` or `chromium` that exits 1.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from conftest import REPO

TESTS = REPO / "tests"


def _session(tmp_path: Path, body: str, **env: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "conftest.py").write_text('pytest_plugins = ["no_skips"]\nfrom pg_server import postgres_server  # noqa\n')
    (tmp_path / "test_planted.py").write_text(body)
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    clean = {k: v for k, v in os.environ.items() if k not in ("CI", "BENCHLEDGER_NO_SKIPS", "BENCHLEDGER_PG_BINDIR")}
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", "test_planted.py"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          env={**clean, "PYTHONPATH": str(TESTS), **env})


def _broken_tool(folder: Path, name: str) -> Path:
    folder.mkdir(exist_ok=True)
    tool = folder / name
    tool.write_text(f"#!/bin/sh\necho '{name}: planted failure' >&2\nexit 1\n")
    tool.chmod(0o755)
    return folder


PLANTED_SKIP = "import pytest\n\ndef test_skipped():\n    pytest.skip('planted skip')\n\ndef test_ok():\n    pass\n"
ALL_PASS = "def test_ok():\n    pass\n"


@pytest.mark.parametrize("env", [{"BENCHLEDGER_NO_SKIPS": "1"}, {"CI": "true"}])
def test_a_skip_fails_the_run_where_skips_are_not_allowed(tmp_path, env):
    done = _session(tmp_path, PLANTED_SKIP, **env)
    assert done.returncode == 1, done.stdout
    assert "skips are not allowed here" in done.stdout
    assert "test_planted.py::test_skipped: Skipped: planted skip" in done.stdout


def test_a_skip_passes_elsewhere_and_a_run_with_no_skip_passes_in_ci(tmp_path):
    done = _session(tmp_path, PLANTED_SKIP)
    assert done.returncode == 0 and "1 passed, 1 skipped" in done.stdout, done.stdout
    clean = _session(tmp_path, ALL_PASS, CI="true")
    assert clean.returncode == 0 and "skips are not allowed" not in clean.stdout, clean.stdout


USES_POSTGRES = "def test_needs_postgres(postgres_server):\n    assert postgres_server.sql('SELECT 1') == [(1,)]\n"


@pytest.fixture
def world_readable(tmp_path_factory):
    """A folder every user may enter (initdb runs as `nobody` when the tests run as root)."""
    folder = Path(tempfile.mkdtemp(prefix="benchledger-planted-", dir="/tmp"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_an_installed_postgresql_that_cannot_start_fails_its_tests(tmp_path, world_readable):
    bindir = _broken_tool(world_readable / "pgbin", "initdb")
    bindir.chmod(0o755)
    done = _session(tmp_path, USES_POSTGRES, BENCHLEDGER_PG_BINDIR=str(bindir))
    assert done.returncode == 1, done.stdout
    assert "1 error" in done.stdout and "skipped" not in done.stdout, done.stdout
    assert "PostgreSQL is installed" in done.stdout and "initdb: planted failure" in done.stdout


def test_an_absent_postgresql_skips_saying_how_to_get_it(tmp_path):
    done = _session(tmp_path, USES_POSTGRES, BENCHLEDGER_PG_BINDIR=str(tmp_path / "no-such-folder"))
    assert done.returncode == 0 and "1 skipped" in done.stdout, done.stdout
    assert "apt-get install -y postgresql" in done.stdout


USES_CHROMIUM = "from chromium import chromium\n\ndef test_needs_chromium():\n    assert chromium()\n"


def test_an_installed_chromium_that_does_not_run_fails_its_tests(tmp_path):
    fake = _broken_tool(tmp_path / "bin", "chromium")
    done = _session(tmp_path, USES_CHROMIUM, PATH=f"{fake}{os.pathsep}{os.environ['PATH']}")
    assert done.returncode == 1, done.stdout
    assert "1 failed" in done.stdout and "skipped" not in done.stdout, done.stdout
    assert "Chromium is installed" in done.stdout and "chromium: planted failure" in done.stdout
