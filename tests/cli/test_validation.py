"""Bad usage is refused the same way everywhere: zero limits, unknown stages, a zero-byte ledger, a
mistyped domain, and the loopback demo server's --help.

Each refusal is exit 2 with one line saying what to do, and nothing is written.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from benchledger.cli.main import cli
from conftest import MINI

DEMO_SWEEP = Path(__file__).resolve().parents[2] / "examples" / "sweeps" / "demo.toml"
from test_cli_help import walk
from ledger_cli import invoke

ANY_INTEGER = {"seed", "candidate_seed"}  # any integer is a seed
ZERO_MEANS_PICK = {"port"}          # 0: a free port, printed on start
CHECKED_BY_NAME = {"scoring_rule"}  # checked against the known rules (below)
READS_THE_LEDGER = {"runs", "show", "events", "failures", "questions", "question", "verify", "replay", "resume",
                    "rejudge", "diff", "export", "agreement", "purge", "blob", "view", "combine", "push", "audit", "compare", "sweep"}
# `pull` writes into --ledger (creating it, as `run` does); `ledger init` names its ledger itself; `worker`
# takes a ledger on PostgreSQL only and refuses a file of any kind (tests/orchestration/test_sweep_queue.py)
NEEDS_NO_LEDGER = {"run", "retrieval", "benchmarks", "memories", "check", "conformance", "synth", "serve-memory",
                   "pull", "ledger", "fetch", "check-memory", "worker"}
ARGS = {"show": ["latest"], "events": ["latest"], "failures": ["latest"], "questions": ["latest"],
        "question": ["latest", "q1"], "replay": ["latest"], "resume": ["latest"], "rejudge": ["latest"],
        "diff": ["latest", "latest"], "export": ["latest", "--out", "x.json"], "agreement": ["latest"],
        "purge": ["latest"], "blob": ["0" * 64], "view": ["--port", "0"], "combine": ["latest"],
        "push": ["latest", "--to", "elsewhere.db"], "audit": ["judge", "latest"], "compare": ["latest", "latest"],
        "sweep": ["show", str(DEMO_SWEEP)]}


def test_every_numeric_option_refuses_zero_and_below():
    for path, command in walk(cli):
        for param in command.params:
            if not isinstance(param.type, (click.types.IntParamType, click.types.FloatParamType)):
                continue
            name = param.name or ""
            if name in ANY_INTEGER | CHECKED_BY_NAME:
                continue
            low = getattr(param.type, "min", None)
            assert low is not None, f"{' '.join(path)} --{name} accepts any number"
            assert low >= 1 or (low > 0 and isinstance(param.type, click.FloatRange)) or \
                (name in ZERO_MEANS_PICK and low == 0), f"{' '.join(path)} --{name} accepts {low}"


@pytest.mark.parametrize("args", [
    ["run", "groupmem", str(MINI), "--domain", "Demo", "--question-limit", "0"],
    ["run", "groupmem", str(MINI), "--domain", "Demo", "--message-limit", "0"],
    ["run", "groupmem", str(MINI), "--domain", "Demo", "--k", "0"],
    ["run", "groupmem", str(MINI), "--domain", "Demo", "--token-budget", "0"],
    ["show", "latest", "--scoring-rule", "0"],
    ["replay", "latest", "--until", "0"],
    ["failures", "latest", "--stage", "bogus"],
])
def test_zero_limits_and_unknown_values_are_refused_before_anything_is_written(tmp_path, args):
    if args[0] in ("show", "failures"):
        assert invoke("run", "groupmem", str(MINI), "--domain", "Demo", "--question-limit", "1").exit_code == 0
    before = sorted(p.name for p in tmp_path.iterdir())
    result = invoke(*args)
    assert result.exit_code == 2, result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_every_command_treats_a_zero_byte_ledger_the_same_way(tmp_path):
    assert set(cli.commands) == READS_THE_LEDGER | NEEDS_NO_LEDGER, "classify the new command here"
    pytest.importorskip("datasette", reason="benchledger view needs the view extra: pip install -e '.[view]'")
    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    for name in sorted(READS_THE_LEDGER):
        result = invoke("--ledger", str(empty), name, *ARGS.get(name, []))
        assert result.exit_code == 2, (name, result.output)
        assert result.output.strip() == f"Error: no ledger at {empty}; run a benchmark first or pass --ledger PATH", name
        assert empty.read_bytes() == b"" and sorted(p.name for p in tmp_path.iterdir()) == ["empty.db"], name
    # a command that writes treats it as it treats a missing path: it creates the ledger there
    made = invoke("--ledger", str(empty), "run", "groupmem", str(MINI), "--domain", "Demo", "--question-limit", "1")
    assert made.exit_code == 0, made.output
    assert invoke("--ledger", str(empty), "runs").exit_code == 0
    pulled_into = tmp_path / "pulled.db"
    pulled_into.write_bytes(b"")
    pulled = invoke("--ledger", str(pulled_into), "pull", "latest", "--from", str(empty))
    assert pulled.exit_code == 0 and "verified in both" in pulled.output, pulled.output


def test_a_mistyped_domain_lists_the_domains_in_run_and_check():
    run = invoke("run", "groupmem", str(MINI), "--domain", "Dmeo")
    assert run.exit_code == 2 and "domains in this release: Demo" in run.output
    check = invoke("check", "groupmem", str(MINI), "--domain", "Dmeo")
    assert check.exit_code == 2 and check.output.strip().endswith("no domain 'Dmeo' in this release; its domains: Demo")
    assert "multi_hop" not in check.output  # no table of zeros


def test_the_loopback_demo_server_prints_help_and_exits():
    result = subprocess.run([sys.executable, "-m", "benchledger.adapters.models.loopback", "--help"],
                            capture_output=True, text=True, timeout=30)
    assert result.returncode == 0 and result.stdout.startswith("usage: python -m benchledger.adapters.models.loopback")
    assert "--port" in result.stdout and "--latency" in result.stdout
    bad = subprocess.run([sys.executable, "-m", "benchledger.adapters.models.loopback", "--port", "70000"],
                         capture_output=True, text=True, timeout=30)
    assert bad.returncode == 2 and "--port must be 0..65535" in bad.stderr


def test_blob_prints_a_stored_body_exactly(tmp_path):
    import json

    assert invoke("run", "groupmem", str(MINI), "--domain", "Demo", "--question-limit", "1").exit_code == 0
    detail = json.loads(invoke("question", "latest", "temporal_1", "--json").output)
    digest = detail["recalled"]["context_hash"]
    body = CliRunner().invoke(cli, ["blob", digest.upper()], catch_exceptions=False)
    assert body.exit_code == 0 and body.stdout_bytes.decode() == detail["context"]
    import hashlib
    assert hashlib.sha256(body.stdout_bytes).hexdigest() == digest
    missing = invoke("blob", "f" * 64)
    assert missing.exit_code == 2 and "no blob" in missing.output
    assert invoke("blob", "xyz").exit_code == 2
