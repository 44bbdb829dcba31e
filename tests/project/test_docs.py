"""The documentation cannot drift: the site builds with strict checking, every page is in its
navigation, and every command sample in the README and the docs is what the tool prints today
(`cog --check`: the samples are produced by running them, see docs/samples.py).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO

pytestmark = pytest.mark.slow


def _has(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


def _pages_with_samples() -> list[str]:
    pages = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
    return [str(p.relative_to(REPO)) for p in pages if "[[[cog" in p.read_text(encoding="utf-8")]


@pytest.fixture(autouse=True)
def _tools():
    if not (_has("mkdocs") and _has("cogapp")):
        pytest.skip("the docs tools are not installed: pip install -e '.[docs]' (the test extra includes them)")


def test_the_site_builds_strict_and_every_page_is_in_the_navigation(tmp_path):
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / "site")],
                          cwd=REPO, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert done.returncode == 0, done.stderr[-3000:]
    assert "not included in the \"nav\"" not in done.stderr, done.stderr
    assert (tmp_path / "site" / "cli" / "index.html").exists()
    cli_page = (tmp_path / "site" / "cli" / "index.html").read_text(encoding="utf-8")
    for command in ("verify", "rejudge", "fetch", "run"):  # generated from the click commands themselves
        assert f"benchledger {command}" in cli_page, command


def test_every_sample_is_what_the_tool_prints_today():
    pages = _pages_with_samples()
    assert "docs/getting-started.md" in pages
    done = subprocess.run([sys.executable, "-m", "cogapp", "--check", "--diff", "-I", "docs", *pages], cwd=REPO,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, ("a sample no longer matches the tool; run `cog -r -I docs "
                                  + " ".join(pages) + "`\n" + (done.stdout + done.stderr)[-4000:])


def test_the_sample_check_notices_a_stale_sample(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("<!-- [[[cog\nfrom samples import sample, fresh\nfresh()\nsample('benchledger benchmarks')\n"
                    "]]] -->\n```\n$ benchledger benchmarks\nnothing like this\n```\n<!-- [[[end]]] -->\n")
    stale = subprocess.run([sys.executable, "-m", "cogapp", "--check", "-I", str(REPO / "docs"), str(page)],
                           cwd=REPO, capture_output=True, text=True, timeout=300)
    assert stale.returncode != 0
    subprocess.run([sys.executable, "-m", "cogapp", "-r", "-I", str(REPO / "docs"), str(page)], cwd=REPO,
                   capture_output=True, text=True, timeout=300, check=True)
    assert re.search(r"groupmem", page.read_text())
    fresh = subprocess.run([sys.executable, "-m", "cogapp", "--check", "-I", str(REPO / "docs"), str(page)],
                           cwd=REPO, capture_output=True, text=True, timeout=300)
    assert fresh.returncode == 0, fresh.stdout + fresh.stderr
