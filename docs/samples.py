"""Command samples for the README and the docs, produced by running the commands (cog).

Every sample in a page sits in a cog block that calls `sample(...)`; `cog -r -I docs README.md
docs/*.md` rewrites them from what the tool prints today, and `tests/project/test_docs.py` runs
`cog --check`, so a sample that no longer matches the tool fails the suite. Commands run
in-process (click's runner) in one scratch folder per page, so later samples see earlier runs.
What differs from one machine or moment to the next is normalised: run ids, hashes, times and
durations become stable stand-ins, numbered in order of appearance, so a sample changes only when
what the tool says changes.
"""

from __future__ import annotations

import os
import re
import shlex
import tempfile
from pathlib import Path

import cog  # type: ignore[import-not-found]  # provided by cogapp while it runs a page
from click.testing import CliRunner

from benchledger.cli.main import cli

__all__ = ["sample", "fresh", "run_ids"]

REPO = Path(__file__).resolve().parents[1]
_SCRATCH: dict[str, Path] = {}
_STAND_INS: dict[str, dict[str, str]] = {}
"""Per page: each run id or hash seen so far and its stand-in, so one run is one name on a page."""
_ULID = re.compile(r"\b[0-9A-HJKMNP-TV-Z]{26}\b")
_SHA256 = re.compile(r"\b[0-9a-f]{64}\b")
_STAMP = re.compile(r"\b\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?")
_SECONDS = re.compile(r"\b\d+\.\d+ ?s\b")


def fresh() -> None:
    """Start this page's samples on an empty scratch folder (call once at the page's first block)."""
    _SCRATCH.pop(cog.inFile, None)
    _STAND_INS.pop(cog.inFile, None)


def _scratch() -> Path:
    if cog.inFile not in _SCRATCH:
        _SCRATCH[cog.inFile] = Path(tempfile.mkdtemp(prefix="benchledger-docs-"))
    return _SCRATCH[cog.inFile]


def run_ids() -> list[str]:
    """The runs on this page's scratch ledger, newest first (to name them in a later sample)."""
    from benchledger.ledger.store import Ledger

    with Ledger.open(_scratch() / "benchledger.db", create=False) as ledger:
        return [run.run_id for run in ledger.reader.runs()]


def _normalised(text: str) -> str:
    seen = _STAND_INS.setdefault(cog.inFile, {})

    def stand_in(kind: str, value: str, make) -> str:
        key = f"{kind}:{value}"
        if key not in seen:
            seen[key] = make(sum(1 for k in seen if k.startswith(kind + ":")) + 1)
        return seen[key]

    text = _ULID.sub(lambda m: stand_in("run", m.group(), lambda n: f"01KB0RUN{n:018d}"), text)
    text = _SHA256.sub(lambda m: stand_in("sha", m.group(), lambda n: f"{n:x}" * 64)[:64], text)
    text = _STAMP.sub("2026-12-01 09:00", text)
    text = _SECONDS.sub("0.1 s", text)
    return text


def sample(command: str, *, show: bool = True, lines: int | None = None, stderr: bool = False,
           matching: str | None = None) -> None:
    """Run `benchledger ...` (as typed in the page) and write `$ command` and what it printed on
    stdout into the page (`stderr=True`: both streams, as a terminal shows them).

    `show=False` runs it without writing anything (a step the next sample needs); `lines` keeps only
    the first N lines of the output; `matching` (a regular expression) only the lines it finds.
    """
    words = shlex.split(command)
    assert words[0] == "benchledger", command
    env = {"COLUMNS": "100", "BENCHLEDGER_LEDGER": "", "OPENAI_API_KEY": ""}
    cwd = os.getcwd()
    os.chdir(_scratch())
    try:
        (Path("examples")).mkdir(exist_ok=True)
        mini = Path("examples") / "groupmem-mini"
        if not mini.exists():
            mini.symlink_to(REPO / "examples" / "groupmem-mini", target_is_directory=True)
        result = CliRunner().invoke(cli, words[1:], env=env, catch_exceptions=False)
    finally:
        os.chdir(cwd)
    if not show:
        return
    output = _normalised((result.output if stderr else result.stdout).rstrip("\n"))
    if matching is not None:
        output = "\n".join(line for line in output.splitlines() if re.search(matching, line))
    if lines is not None:
        output = "\n".join(output.splitlines()[:lines])
    cog.outl("```")
    cog.outl(f"$ {_normalised(command)}")
    cog.outl(output)
    cog.outl("```")
