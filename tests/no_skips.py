"""A pytest plugin that fails the session when anything skipped, where skips are not allowed.

A skip is only for a tool that is absent, and CI installs every tool (`.ci/run`), so on CI
(`CI=true`) or with `BENCHLEDGER_NO_SKIPS=1` a skipped test fails the run: the summary lists each
skip with its reason and the exit code is 1. Elsewhere skips pass as usual (a fresh clone without
the released data or Chromium). Loaded by tests/conftest.py.
"""

from __future__ import annotations

import os

import pytest

__all__ = ["skips_forbidden"]

_skipped: list[str] = []
"""`node id: reason` of every skip of this session (a test, or a module skipped as it was collected)."""


def skips_forbidden() -> bool:
    return os.environ.get("BENCHLEDGER_NO_SKIPS") == "1" or os.environ.get("CI", "").lower() == "true"


def _note(report: pytest.TestReport | pytest.CollectReport) -> None:
    if report.skipped and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        _skipped.append(f"{report.nodeid}: {reason}")


def pytest_configure(config: pytest.Config) -> None:
    _skipped.clear()


pytest_runtest_logreport = _note
pytest_collectreport = _note


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if skips_forbidden() and _skipped and exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    if skips_forbidden() and _skipped:
        terminalreporter.section("skips are not allowed here (CI=true or BENCHLEDGER_NO_SKIPS=1)", red=True)
        for line in _skipped:
            terminalreporter.line(f"SKIPPED {line}")
        terminalreporter.line(f"{len(_skipped)} skipped: a tool CI installs is missing or broken, so the run fails")
