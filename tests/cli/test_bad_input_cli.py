"""Bad input through `benchledger run groupmem`: exit 2, ONE line naming file, line and field, and
nothing on the ledger (no ledger file, no memory store). A reply to a missing message is the one
documented exception: a warning in the JSON log, and the run proceeds.

The adapter's own tests (`test_groupmem_bad_input.py`) cover the library; these go through the CLI
the way a user meets them.
"""

from __future__ import annotations

import json
import os
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner

from benchledger.adapters.benchmarks.groupmem.loader import KINDS, corpus_path
from benchledger.adapters.benchmarks.groupmem.schema import ABSTENTION_GOLD
from benchledger.adapters.benchmarks.groupmem.write import write_release
from benchledger.cli.main import cli
from benchledger.ledger.store import Ledger

T0 = datetime(2025, 3, 3, 8, 0)


def message(n: int, **overrides) -> dict:
    return {"msg_node": f"Msg_{n}", "content": f"the build for service {n} is green",
            "author": f"User_{n % 3}", "role": "SRE", "timestamp": (T0 + timedelta(minutes=n)).isoformat(),
            "reply_to": None, "phase_name": "Build", "topic": "ops", "is_noise": False,
            "is_decision_point": False, **overrides}


def release(root: Path, channels: dict | None = None) -> Path:
    channels = channels or {"ops": [message(i) for i in range(1, 4)], "dev": [message(i) for i in range(4, 7)]}
    questions = {kind: [{"id": f"{kind}_1", "question": "Which service is green?",
                         "answer": ABSTENTION_GOLD if kind == "abstention" else "service 1",
                         "asking_user_id": "User_1"}] for kind in KINDS}
    return write_release(root, "D", channels, questions)


def line_of(path: Path, needle: str) -> int:
    """1-based line of the first occurrence of needle in the file."""
    text = path.read_text(encoding="utf-8", errors="replace")
    return text[: text.index(needle)].count("\n") + 1


def message_line(path: Path, n: int) -> int:
    """Line of the `{` that opens message Msg_n (the writer puts msg_node on the next line)."""
    return line_of(path, f'"msg_node": "Msg_{n}"') - 1


def run_bad(tmp_path: Path, root: Path, *extra: str, domain: str = "D") -> str:
    """Run expecting bad input: exit 2, one line on stderr, nothing on stdout, nothing written."""
    result = CliRunner().invoke(cli, ["run", "groupmem", str(root), "--domain", domain, *extra],
                                catch_exceptions=False)
    assert result.exit_code == 2, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert result.stdout == ""
    assert not (tmp_path / "ledger.db").exists(), "bad input must not create a ledger"
    assert not (tmp_path / "ledger.memory").exists(), "bad input must not touch a memory store"
    return lines[0]


def test_a_corpus_that_is_not_json(tmp_path):
    root = release(tmp_path / "rel")
    path = corpus_path(root, "D")
    path.write_text('{\n  "ops": [\n    {"msg_node": "Msg_1", }\n  ]\n}\n')
    line = run_bad(tmp_path, root)
    assert f"{path}:3:" in line and "not valid JSON" in line


@pytest.mark.parametrize("missing", ["content", "msg_node"])
def test_a_message_missing_a_required_field(tmp_path, missing):
    second = message(2)
    del second[missing]
    root = release(tmp_path / "rel", {"ops": [message(1), second, message(3)]})
    path = corpus_path(root, "D")
    # the message's opening `{` sits just above its first remaining field
    first_field = '"msg_node": "Msg_2"' if missing == "content" else "the build for service 2"
    expected_line = line_of(path, first_field) - 1
    line = run_bad(tmp_path, root)
    assert f"{path}:{expected_line}:" in line and f"""field 'channels["ops"][1].{missing}'""" in line


@pytest.mark.parametrize("field, value", [("is_noise", "yes"), ("timestamp", 1714550400), ("reply_to", 3)])
def test_a_wrong_type(tmp_path, field, value):
    root = release(tmp_path / "rel", {"ops": [message(1), message(2, **{field: value})]})
    path = corpus_path(root, "D")
    line = run_bad(tmp_path, root)
    assert f"{path}:{message_line(path, 2)}:" in line
    assert f"""field 'channels["ops"][1].{field}'""" in line


def test_a_duplicate_msg_node(tmp_path):
    root = release(tmp_path / "rel", {"ops": [message(1), message(2)], "dev": [message(2, content="again")]})
    path = corpus_path(root, "D")
    line = run_bad(tmp_path, root)
    assert f"{path}:{line_of(path, 'again') - 2}:" in line
    assert """field 'channels["dev"][0].msg_node'""" in line and "Msg_2" in line


def test_a_broken_question_line(tmp_path):
    root = release(tmp_path / "rel")
    path = root / "questions" / "D" / "temporal.jsonl"
    path.write_text('{"id": "t1", "question": "q?", "answer": "a"}\n{"id": "t2", "question": \n')
    assert f"{path}:2:" in run_bad(tmp_path, root)
    path.write_text('{"id": "t1", "question": "q?", "answer": 5}\n')
    assert f"{path}:1: field 'answer'" in run_bad(tmp_path, root)


def test_an_unknown_kind(tmp_path):
    line = run_bad(tmp_path, release(tmp_path / "rel"), "--kinds", "nope")
    assert "option --kinds" in line and "'nope'" in line


def test_a_non_utf8_file(tmp_path):
    root = release(tmp_path / "rel")
    path = corpus_path(root, "D")
    data = path.read_bytes().replace(b"service 4", b"service \xff4")
    path.write_bytes(data)
    line = run_bad(tmp_path, root)
    bad_line = data[: data.index(b"\xff")].count(b"\n") + 1
    assert f"{path}:{bad_line}:" in line and "UTF-8" in line


def test_a_10_mb_message(tmp_path):
    root = release(tmp_path / "rel", {"ops": [message(1), message(2, content="x" * 10_000_000)]})
    path = corpus_path(root, "D")
    line = run_bad(tmp_path, root)
    assert f"{path}:{message_line(path, 2)}:" in line
    assert """field 'channels["ops"][1].content'""" in line
    assert len(line) < 1000, "the one line must not echo the message"


@pytest.mark.parametrize("domain", ["../D", "D/../D", "..", "a/b"])
def test_a_domain_name_with_a_separator_or_dotdot(tmp_path, domain):
    root = release(tmp_path / "rel")
    assert "option --domain" in run_bad(tmp_path, root, domain=domain)


def test_a_symlink_that_leaves_the_corpus_folder(tmp_path):
    outside = release(tmp_path / "elsewhere")
    root = release(tmp_path / "rel")
    path = corpus_path(root, "D")
    path.unlink()
    os.symlink(corpus_path(outside, "D"), path)
    line = run_bad(tmp_path, root)
    assert f"{path}:" in line and "outside the release folder" in line
    path.unlink()
    path.write_text(corpus_path(outside, "D").read_text())
    questions = root / "questions" / "D" / "multi_hop.jsonl"
    questions.unlink()
    os.symlink(Path("..") / ".." / ".." / "elsewhere" / "questions" / "D" / "multi_hop.jsonl", questions)
    assert questions.read_text()  # the link itself works; only its target is outside
    line = run_bad(tmp_path, root)
    assert f"{questions}:" in line and "outside the release folder" in line


def test_a_reply_to_a_missing_message_is_a_logged_warning_and_the_run_proceeds(tmp_path):
    root = release(tmp_path / "rel", {"ops": [message(1, reply_to="Msg_404"), message(2, reply_to="Msg_1")]})
    result = CliRunner().invoke(cli, ["--log-format", "json", "run", "groupmem", str(root), "--domain", "D",
                                      "--out", "r.json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in result.stderr.splitlines() if line.startswith("{")]
    warnings = [r for r in records if r.get("event") == "groupmem.dangling_replies"]
    assert len(warnings) == 1
    assert warnings[0]["level"] == "warning" and warnings[0]["count"] == 1
    assert warnings[0]["first"] == ["Msg_1->Msg_404"] and warnings[0]["file"] == str(corpus_path(root, "D"))
    report = json.loads(Path("r.json").read_text())
    assert report["failed"] == 0 and report["judged"] == report["total"] == len(KINDS)
    with Ledger.open(tmp_path / "ledger.db") as ledger:
        [run] = ledger.reader.runs()
        assert run.finished == "completed"
