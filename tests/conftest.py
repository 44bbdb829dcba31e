"""Shared fixtures: every test gets its own storage; the released data lives beside the checkout.

Tests that read the released data (`shared_data`) skip where it is absent, which is every fresh
clone of the repository alone, with a reason that says how to provide it. `.ci/run` checks the data
is there first, so CI never skips them, and on CI any skip fails the run (tests/no_skips.py).
"""

from __future__ import annotations

import importlib.util
import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from benchledger.adapters.models.loopback import LoopbackOpenAI
from pg_server import postgres_server  # noqa: F401  (the session's throwaway PostgreSQL server)

REPO = Path(__file__).resolve().parents[1]
MINI = REPO / "examples" / "groupmem-mini"
"""The bundled mini release (`examples/groupmem-mini`, domain Demo) most CLI tests run offline."""

pytest_plugins = ["no_skips"]


def wait_until(condition: Callable[[], bool], *, within: float, what: str) -> None:
    """Poll `condition` until it holds (a loaded machine takes longer, a fixed sleep guesses);
    fail naming `what` after `within` seconds."""
    deadline = time.monotonic() + within
    while not condition():
        assert time.monotonic() < deadline, f"waited {within} s for {what}"
        time.sleep(0.01)


def shared_data_dir() -> Path | None:
    """../shared/data beside the checkout (CI lays it there), or $BENCHLEDGER_SHARED_DATA; None if absent."""
    override = os.environ.get("BENCHLEDGER_SHARED_DATA")
    path = Path(override) if override else REPO.parent / "shared" / "data"
    return path if path.is_dir() else None


SHARED_DATA_SOURCES = {
    "locomo/": "`benchledger fetch locomo` (locomo-dev.json is conversations 1-7 of its locomo10.json, "
               "github.com/snap-research/LoCoMo; prompts/ the templates the fetch derives)",
    "longmemeval/": "`benchledger fetch longmemeval` (prompts/ the templates the fetch derives; the release from "
                    "huggingface.co/datasets/xiaowu0162/longmemeval-cleaned)",
    "memora/": "`benchledger fetch memora` (prompts/ the templates the fetch derives)",
    "groupmembench/": "`benchledger fetch groupmem` (questions/ and prompts/ of github.com/zhangyuhang1233/"
                      "CoalMem-Evidence-Coalition-Selection-for-Multi-Party-Conversational-Memory)",
    "sources/": "the official code files `benchledger fetch` downloads (under each release's source/)",
    "conformance/": "the outputs of each benchmark's official evaluation code on seeded inputs "
                    "(the project's shared data; how they were made: conformance/README.md there)",
}
"""Each part of ../shared/data the tests read, and the command or download that provides it."""


def missing_shared_data_reason() -> str:
    override = os.environ.get("BENCHLEDGER_SHARED_DATA")
    where = override or str(REPO.parent / "shared" / "data")
    parts = "; ".join(f"{part} from {source}" for part, source in SHARED_DATA_SOURCES.items())
    return (f"released benchmark data not found at {where}: lay it out there or set BENCHLEDGER_SHARED_DATA "
            f"to a folder holding {parts} (docs/fetch.md)")


def requires_extra(module: str, extra: str) -> pytest.MarkDecorator:
    """Skip where an optional extra is not installed (a fresh `.[test]` install), saying how to get
    it; `.ci/run` installs every extra and refuses any skip, so CI always runs these."""
    return pytest.mark.skipif(importlib.util.find_spec(module) is None,
                              reason=f"the {extra} extra is not installed: pip install -e '.[test,{extra}]' "
                                     "(.ci/run installs every extra)")


@pytest.fixture
def shared_data() -> Path:
    path = shared_data_dir()
    if path is None:
        pytest.skip(missing_shared_data_reason())
    return path


@pytest.fixture(autouse=True)
def _isolated_storage(tmp_path, monkeypatch):
    """Point the default ledger and memory store at this test's tmp_path; no key leaks in."""
    monkeypatch.setenv("BENCHLEDGER_LEDGER", str(tmp_path / "ledger.db"))
    monkeypatch.setenv("BENCHLEDGER_DATA_DIR", str(tmp_path / "benchledger-data"))  # never the user's releases
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.chdir(tmp_path)
    yield


@pytest.fixture
def loopback(monkeypatch):
    """The loopback OpenAI-compatible server (adapters/models/loopback.py) with OPENAI_API_KEY set to
    a test key, for tests that run against an endpoint and need no key of their own."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-loopback-0000")
    with LoopbackOpenAI() as server:
        yield server
