"""The memory contract against a live HTTP memory server: what `benchledger check-memory URL` runs.

The contract (`memory_contract.MemoryContract`) is pytest test cases; here they run in-process
under pytest, unchanged, against an `HttpMemory` client of the server at the URL. A server is shared
by every test, and one that stays up keeps what earlier tests wrote, so each test gets scopes of its
own (`benchmark:contract:<name>:<random>`, fresh per test) and purges them when it ends. The server
must then keep each scope apart (docs/memory-http-protocol.md, "What a server must isolate"):
documents, chunks, indexes and anything a ranking learns from them, so that a test never sees what
another wrote.

One test needs the server's store file itself (unmarking it, to see purge refused), which a client
cannot reach: it is reported as not run, with the reason, and never as passed. The contract
with those changes is `live_contract.LiveMemoryContract`.

`check_memory(url)` runs the suite in a temporary folder of its own (an empty `pytest.ini`, so no
configuration or conftest of the caller's folder applies, and no terminal output) and returns one
`CheckResult` per test in the contract's order.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import pytest

__all__ = ["LiveTarget", "CheckResult", "check_memory", "NOT_REACHABLE"]

NOT_REACHABLE = "needs the server's store file (a client cannot unmark it); check it with the contract in-process"


@dataclass(frozen=True)
class LiveTarget:
    """The server under test."""

    url: str
    token_env: str | None = None


@dataclass(frozen=True)
class CheckResult:
    """One contract test's outcome against the server."""

    test: str
    """The contract's test name (`testing/memory_contract.py`)."""
    outcome: Literal["passed", "failed", "not run"]
    message: str = ""
    """Why it failed or was not run: the assertion or error, first line."""
    detail: str = ""
    """The failure's full report (assertion with values, the line of the contract), for a bug report."""


_MODULE = """from benchledger.testing.live_contract import LiveMemoryContract


class TestMemoryContract(LiveMemoryContract):
    pass
"""


class _Collector:
    """A pytest plugin: the target as a fixture, and each test's outcome as it is reported."""

    def __init__(self, target: LiveTarget) -> None:
        self.target = target
        self.results: dict[str, CheckResult] = {}
        self.errors: list[str] = []

    @pytest.fixture
    def live_target(self) -> LiveTarget:
        return self.target

    def pytest_collectreport(self, report: Any) -> None:
        if report.failed:
            self.errors.append(str(report.longrepr))

    def pytest_runtest_logreport(self, report: Any) -> None:
        name = report.nodeid.rsplit("::", 1)[-1]
        if report.skipped:
            reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
            self.results[name] = CheckResult(name, "not run", reason.removeprefix("Skipped: "))
        elif report.failed and (name not in self.results or self.results[name].outcome == "passed"):
            crash = getattr(report.longrepr, "reprcrash", None)
            message = crash.message if crash is not None else str(report.longrepr)
            when = "" if report.when == "call" else f"in {report.when}: "
            self.results[name] = CheckResult(name, "failed", when + message.strip().splitlines()[0],
                                             report.longreprtext)
        elif report.when == "call" and report.passed:
            self.results[name] = CheckResult(name, "passed")


def check_memory(url: str, *, token_env: str | None = None) -> list[CheckResult]:
    """Every contract test against the server at `url`, in the contract's order."""
    collector = _Collector(LiveTarget(url=url, token_env=token_env))
    with tempfile.TemporaryDirectory(prefix="benchledger-check-memory-") as folder:
        root = Path(folder)
        # The contract's own module matches python_files, so its asserts are rewritten to show their
        # values, as in the plug-in author's own test run (it must not be imported before this).
        (root / "pytest.ini").write_text("[pytest]\npython_files = test_*.py memory_contract.py\n",
                                         encoding="utf-8")
        module = root / "test_live_memory.py"
        module.write_text(_MODULE, encoding="utf-8")
        code = pytest.main([str(module), "-c", str(root / "pytest.ini"), "--rootdir", str(root),
                            "-p", "no:cacheprovider", "-p", "no:terminal", "-p", "no:randomly",
                            "--import-mode=importlib",
                            "--basetemp", str(root / "tmp")], plugins=[collector])
    if collector.errors or (code not in (0, 1) and not collector.results):
        raise RuntimeError("the contract could not be collected: " + "; ".join(collector.errors or [f"pytest {code}"]))
    return list(collector.results.values())
