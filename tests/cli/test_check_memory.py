"""`benchledger check-memory URL`: the memory contract against live servers, as a plug-in author runs it.

The command runs as a real subprocess against servers on loopback: `serve-memory` (the reference,
which passes), and two scripted remotes in front of a real `MemoryServer` that break the protocol
in one way each: one drops the token budget from every recall (over budget), one keeps every scope
in one (state shared between scopes, and so between tests). Each must fail exactly the contract
tests its fault breaks, named in the table and under it, with exit 1; the rest still pass.
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx2
import pytest

from benchledger.adapters.memory.http_server import MemoryServer
from benchledger.adapters.memory.registry import open_memory
from scripted_remote import Remote

CONTRACT = [name for name in re.findall(r"^    def (test_\w+)\(", (Path(__file__).parents[2] / "testing" /
                                                                   "memory_contract.py").read_text(), re.M)]


def check_memory(cwd: Path, url: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "benchledger.cli.main", "check-memory", url], cwd=cwd,
                          capture_output=True, text=True, timeout=300)


def outcomes(stdout: str) -> dict[str, str]:
    """The table's rows: test -> passed | failed | not run."""
    return dict(re.findall(r"^(test_\w+) +(passed|failed|not run)$", stdout, re.M))


def assert_fits(result: subprocess.CompletedProcess) -> None:
    assert all(len(line) <= 80 for line in result.stdout.splitlines()), result.stdout


@contextmanager
def serve_memory(cwd: Path) -> Iterator[str]:
    proc = subprocess.Popen([sys.executable, "-m", "benchledger.cli.main", "serve-memory", "--memory", "sqlite",
                             "--port", "0", "--store", str(cwd / "served.sqlite")], cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        found = re.search(r"at (http://127\.0\.0\.1:\d+)$", proc.stdout.readline().strip())
        assert found, proc.stderr.read() if proc.poll() is not None else "no URL"
        yield found.group(1)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=20)


@pytest.fixture
def upstream(tmp_path: Path) -> Iterator[MemoryServer]:
    with MemoryServer(open_memory("sqlite", tmp_path / "upstream.db")) as server:
        yield server


def test_the_reference_server_passes_the_contract(tmp_path: Path) -> None:
    with serve_memory(tmp_path) as url:
        result = check_memory(tmp_path, url)
        again = check_memory(tmp_path, url)  # the same server, still up: fresh scopes, so nothing carries over
    assert result.returncode == 0, result.stdout + result.stderr
    got = outcomes(result.stdout)
    assert list(got) and set(got) == set(CONTRACT)
    assert got.pop("test_purge_refuses_a_store_not_marked_for_evaluation") == "not run"
    assert set(got.values()) == {"passed"}
    assert re.search(rf"^memory contract against sqlite \S+ at {re.escape(url)}$", result.stdout, re.M)
    assert f"{len(CONTRACT) - 1} passed, 0 failed, 1 not run" in result.stdout
    assert "needs the server's store file" in result.stdout
    assert again.returncode == 0 and outcomes(again.stdout) == outcomes(result.stdout)
    assert_fits(result)


def test_a_server_over_budget_fails_the_budget_tests_by_name(tmp_path: Path, upstream: MemoryServer) -> None:
    forward = httpx2.Client(timeout=10)

    def without_budget(method: str, path: str, body: bytes):
        if not path.endswith("/recall"):
            return None
        reply = forward.post(upstream.url + path, json={**json.loads(body), "token_budget": None})
        return reply.status_code, reply.content

    with Remote(upstream=upstream.url) as remote:
        remote.script = without_budget
        result = check_memory(tmp_path, remote.url)
    forward.close()
    assert result.returncode == 1, result.stdout + result.stderr
    got = outcomes(result.stdout)
    failing = {name for name, outcome in got.items() if outcome == "failed"}
    assert failing == {"test_recall_never_exceeds_the_token_budget", "test_recall_packs_a_prefix_within_the_token_budget"}
    assert got["test_scopes_are_isolated"] == got["test_recall_respects_k_and_ranks_in_order"] == "passed"
    assert "test_recall_never_exceeds_the_token_budget (failed):" in result.stdout
    detail = result.stdout.split("test_recall_never_exceeds_the_token_budget (failed):")[1]
    assert "token_budget=1" in detail and "memory_contract.py:" in detail  # the assertion with its values
    assert "2 of 18 contract tests failed" in result.stderr and "test_recall_never_exceeds_the_token_budget" in result.stderr
    assert_fits(result)


def test_a_server_sharing_state_between_scopes_fails_the_isolation_tests(tmp_path: Path,
                                                                        upstream: MemoryServer) -> None:
    def one_scope(method: str, path: str, body: bytes):  # every scope is the same one on the upstream
        shared = re.sub(r"^/v1/scopes/[^/]+", "/v1/scopes/everything", path)
        if shared == path:
            return None
        reply = httpx2.request(method, upstream.url + shared, content=body or None, timeout=10)
        return reply.status_code, reply.content

    with Remote(upstream=upstream.url) as remote:
        remote.script = one_scope
        result = check_memory(tmp_path, remote.url)
    assert result.returncode == 1, result.stdout + result.stderr
    got = outcomes(result.stdout)
    assert set(got) == set(CONTRACT)
    failing = {name for name, outcome in got.items() if outcome == "failed"}
    assert failing == {"test_scopes_are_isolated", "test_empty_scope_recalls_nothing",
                       "test_purge_removes_the_scope_and_counts"}, result.stdout
    assert got["test_identifies_itself"] == got["test_recall_sees_only_query_user_and_time"] == "passed"
    assert "test_scopes_are_isolated (failed):" in result.stdout
    assert_fits(result)
