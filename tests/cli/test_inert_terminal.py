"""Terminal output is inert: no control sequence from a corpus, a model, a memory or a ledger is printed raw.

A released corpus whose messages (the memory's text) and question carry a clear screen, a window
title (OSC 0), a clipboard write (OSC 52), BEL and a C1 CSI, answered by a loopback model whose
reply carries the same, is run and then read back with `question`, `show`, `runs`, `failures` and
`events` (text and JSON), and a run reference carrying them is refused. Nothing printed holds a raw
control byte; the sequences are there, escaped (`\\u001b...`), and JSON output still parses.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from benchledger.adapters.models.loopback import LoopbackOpenAI
from benchledger.cli.main import cli
from benchledger.cli.render import inert
from conftest import MINI

pytestmark = pytest.mark.slow

EVIL = "\x1b[2J\x1b]0;owned\x07\x1b]52;c;ZXZpbA==\x07\u009b31m\u202e"
RAW = ("\x1b", "\x07", "\u009b", "\u202e", "\r")


def evil_release(root: Path) -> Path:
    shutil.copytree(MINI, root)
    corpus = next((root / "data" / "final" / "Demo").glob("*.json"))
    channels = json.loads(corpus.read_text())
    for messages in channels.values():
        for message in messages:
            message["content"] = f"{message['content']} {EVIL}"
    corpus.write_text(json.dumps(channels))
    questions = root / "questions" / "Demo" / "temporal.jsonl"
    items = [json.loads(line) for line in questions.read_text().splitlines()]
    items[0]["question"] = f"{items[0]['question']} {EVIL}"
    questions.write_text("".join(json.dumps(item) + "\n" for item in items))
    return root


def test_inert_escapes_every_control_but_newline_and_tab() -> None:
    assert inert("a\tb\nc") == "a\tb\nc"
    assert inert(EVIL) == "\\u001b[2J\\u001b]0;owned\\u0007\\u001b]52;c;ZXZpbA==\\u0007\\u009b31m\\u202e"
    assert json.loads(inert(json.dumps("x\u009by", ensure_ascii=False))) == "x\u009by"


def test_no_command_prints_a_control_sequence_raw(tmp_path: Path) -> None:
    release = evil_release(tmp_path / "release")
    ledger = tmp_path / "ledger.db"
    runner = CliRunner()

    def invoke(*args: str):
        return runner.invoke(cli, ["--ledger", str(ledger), *args], catch_exceptions=False,
                             env={"OPENAI_API_KEY": "sk-inert-test-key", "COLUMNS": "0"})

    with LoopbackOpenAI() as server:
        server.faults.always("reply", role="agent", text=f"thinking {EVIL}\nFinal: 2025-05-16 {EVIL}")
        server.faults.always("500", role="judge", contains="multi_hop")  # never matches: judges answer
        ran = invoke("run", "groupmem", str(release), "--domain", "Demo", "--agent-model", "gpt-5",
                     "--base-url", server.base_url, "--question-limit", "3", "--max-attempts", "1")
    assert ran.exit_code in (0, 3), ran.output
    run_id = json.loads(invoke("runs", "--json").stdout)[0]["run_id"]
    printed = {}
    for args in (("question", run_id, "temporal_1"), ("question", run_id, "temporal_1", "--json"),
                 ("show", run_id), ("show", run_id, "--json"), ("runs",), ("failures", run_id),
                 ("events", run_id), ("events", run_id, "--json")):
        result = invoke(*args)
        assert result.exit_code == 0, (args, result.output)
        printed[" ".join(args[:1] + args[2:])] = result.stdout + result.stderr
        if "--json" in args:
            json.loads(result.stdout)
    refused = invoke("show", f"{run_id[:4]}{EVIL}")
    assert refused.exit_code == 2
    printed["show <evil ref>"] = refused.output
    raw = {name: [c for c in RAW if c in text] for name, text in printed.items()}
    assert not any(raw.values()), raw
    assert "\\u001b]52;c;ZXZpbA==" in printed["question temporal_1"], "the memory's text and reply are shown, escaped"
    for name in ("question temporal_1 --json", "events", "show <evil ref>"):
        assert "2J" in printed[name] and "owned" in printed[name], (name, printed[name][-400:])
