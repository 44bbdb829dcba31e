"""The shared-data paths the docs show exist, and the docs' `benchledger conformance` commands run as written.

A reader copies `benchledger conformance ../shared/data/...` from a page: a folder renamed in the data or
a page not updated must fail here, not in their terminal (issue 36 item 6). `../shared/data` stands for
the tests' shared data (`BENCHLEDGER_SHARED_DATA` or the folder beside the checkout), as it does for a
reader of a fresh clone with the data laid beside it.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DOC_PATH = re.compile(r"\.\./shared/data/[A-Za-z0-9_./-]*[A-Za-z0-9_-]")
PAGES = sorted([REPO / "README.md", *(REPO / "docs").rglob("*.md")])


def doc_paths(text: str) -> set[str]:
    """Every `../shared/data/...` path a page names (without a trailing slash or full stop)."""
    return set(DOC_PATH.findall(text))


def doc_commands(text: str, command: str) -> list[str]:
    """The lines of a page's code blocks that run `benchledger COMMAND`, backslash continuations joined."""
    commands, inside, pending = [], False, ""
    for line in text.splitlines():
        if line.startswith("```"):
            inside, pending = not inside, ""
            continue
        if not inside:
            continue
        line = pending + line.strip()
        if line.endswith("\\"):
            pending = line[:-1].rstrip() + " "
            continue
        pending = ""
        if line.startswith(f"benchledger {command} "):
            commands.append(line)
    return commands


def missing_paths(text: str, shared: Path) -> list[str]:
    return sorted(p for p in doc_paths(text) if not (shared / p.removeprefix("../shared/data/")).exists())


def test_the_path_finder_tells_a_present_path_from_a_stale_one(shared_data):
    page = "run `benchledger conformance ../shared/data/conformance` or ../shared/data/no-such-folder/x.json."
    assert doc_paths(page) == {"../shared/data/conformance", "../shared/data/no-such-folder/x.json"}
    assert missing_paths(page, shared_data) == ["../shared/data/no-such-folder/x.json"]
    block = "```\nbenchledger conformance a \\\n    --locomo-release b\n```\nbenchledger conformance outside\n"
    assert doc_commands(block, "conformance") == ["benchledger conformance a --locomo-release b"]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_every_shared_data_path_a_page_names_exists(page, shared_data):
    assert missing_paths(page.read_text(encoding="utf-8"), shared_data) == [], f"{page.relative_to(REPO)} names them"


CONFORMANCE_COMMANDS = sorted({(str(page.relative_to(REPO)), command) for page in PAGES
                               for command in doc_commands(page.read_text(encoding="utf-8"), "conformance")})


def test_the_docs_show_conformance_commands():
    assert len(CONFORMANCE_COMMANDS) >= 2  # the finder found the pages' blocks, so the test below ran something


@pytest.mark.parametrize(("page", "command"), CONFORMANCE_COMMANDS)
def test_a_conformance_command_the_docs_show_runs_as_written(page, command, shared_data, tmp_path):
    args = [arg.replace("../shared/data", str(shared_data)) for arg in shlex.split(command)[1:]]
    done = subprocess.run([sys.executable, "-m", "benchledger.cli.main", "--ledger", str(tmp_path / "l.db"), *args],
                          capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert done.returncode == 0, f"{page}: `{command}` exited {done.returncode}: {done.stderr[-800:]}"
    assert "match the official outputs exactly" in done.stdout
