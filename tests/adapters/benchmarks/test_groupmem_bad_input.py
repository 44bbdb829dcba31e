"""Every bad release raises BadInput naming file, line and field, and writes nothing."""

from __future__ import annotations

import os
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner
from structlog.testing import capture_logs

from benchledger.adapters.benchmarks.groupmem.loader import KINDS, corpus_path, load_groupmem
from benchledger.adapters.benchmarks.groupmem.schema import ABSTENTION_GOLD
from benchledger.adapters.benchmarks.groupmem.write import write_release
from benchledger.cli.main import cli
from benchledger.errors import BadInput

T0 = datetime(2025, 5, 1, 9, 0)


def message(n: int, **overrides) -> dict:
    return {"msg_node": f"Msg_{n}", "content": f"text {n}", "author": "User_1", "role": "SRE",
            "timestamp": (T0 + timedelta(minutes=n)).isoformat(), "reply_to": None,
            "phase_name": "Build", "topic": "ops", "is_noise": False, "is_decision_point": False,
            **overrides}


def release(root: Path, channels: dict | None = None) -> Path:
    channels = channels or {"ops": [message(i) for i in range(1, 4)],
                            "dev": [message(i) for i in range(4, 7)]}
    qs = {kind: [{"id": f"{kind}_1", "question": "q?", "answer": ABSTENTION_GOLD if
                  kind == "abstention" else "a", "asking_user_id": "User_1"}] for kind in KINDS}
    return write_release(root, "D", channels, qs)


def snapshot(root: Path) -> set[str]:
    return {str(p) for p in root.rglob("*")}


def bad(root: Path, domain: str = "D", **kwargs) -> BadInput:
    """Load expecting BadInput; the release folder must be left exactly as it was."""
    before = snapshot(root)
    with pytest.raises(BadInput) as err:
        load_groupmem(root, domain, **kwargs)
    assert snapshot(root) == before
    assert "\n" not in str(err.value)
    return err.value


def test_corpus_not_json_reports_the_json_error_line(tmp_path):
    root = release(tmp_path)
    corpus_path(root, "D").write_text('{\n  "ops": [\n    {"msg_node": "Msg_1",}\n  ]\n}\n')
    err = bad(root)
    assert err.file.endswith("rolevariants_D.json") and err.line == 3


@pytest.mark.parametrize("missing", ["content", "msg_node"])
def test_message_missing_a_required_field_names_its_line_and_path(tmp_path, missing):
    second = message(2)
    del second[missing]
    root = release(tmp_path, {"ops": [message(1), second, message(3)]})
    err = bad(root)
    assert err.field == f'channels["ops"][1].{missing}' and err.line == 15


@pytest.mark.parametrize("field,value", [
    ("msg_node", 7), ("content", ["a"]), ("is_noise", "yes"), ("timestamp", 1714550400),
    ("timestamp", "not a time"), ("reply_to", 3), ("author", None),
])
def test_wrong_types_are_rejected_not_coerced(tmp_path, field, value):
    root = release(tmp_path, {"ops": [message(1), message(2, **{field: value})]})
    err = bad(root)
    assert err.field == f'channels["ops"][1].{field}' and err.line == 15


def test_structure_errors(tmp_path):
    root = release(tmp_path)
    path = corpus_path(root, "D")
    for text, line in [('[1, 2]', 1), ('{"ops": {"a": 1}}', 1), ('{"ops": [1]}', 1),
                       ('{"ops": [], "ops": []}', 1), ('{"ops": []} x', 1), ('', 1)]:
        path.write_text(text)
        assert bad(root).line == line


def test_duplicate_msg_node_across_channels(tmp_path):
    root = release(tmp_path, {"ops": [message(1), message(2)], "dev": [message(2, content="x")]})
    err = bad(root)
    assert err.field == 'channels["dev"][0].msg_node' and "Msg_2" in str(err)


def test_dangling_reply_is_kept_counted_and_warned(tmp_path):
    root = release(tmp_path, {"ops": [message(1, reply_to="Msg_99"), message(2, reply_to="Msg_1")]})
    with capture_logs() as logs:
        dataset = load_groupmem(root, "D")
    assert dataset.release.dangling_replies == 1
    assert dataset.scopes["default"][0].reply_to == "Msg_99"
    warnings = [entry for entry in logs if entry["log_level"] == "warning"]
    assert warnings and warnings[0]["count"] == 1 and "Msg_1->Msg_99" in warnings[0]["first"]


def test_broken_question_line_names_file_and_line(tmp_path):
    root = release(tmp_path)
    path = root / "questions" / "D" / "temporal.jsonl"
    path.write_text('{"id": "t1", "question": "q", "answer": "a"}\n\n{"id": "t2", "question": \n')
    err = bad(root)
    assert err.file == str(path) and err.line == 3
    path.write_text('{"id": "t1", "question": "q", "answer": 5}\n')
    err = bad(root)
    assert (err.line, err.field) == (1, "answer")
    path.write_text('{"id": "t1", "question": "q", "answer": "a"}\n'
                    '{"id": "t1", "question": "q", "answer": "b"}\n')
    assert (bad(root).line, bad(root).field) == (2, "id")


def test_unknown_kind_file_and_unknown_kind_value(tmp_path):
    root = release(tmp_path)
    assert "spatial" in str(bad(root, kinds=["temporal", "spatial"]))
    assert bad(root, kinds=[]).field == "kinds"
    (root / "questions" / "D" / "gossip.jsonl").write_text("")
    err = bad(root)
    assert err.file.endswith("gossip.jsonl") and "gossip" in str(err)


def test_non_utf8_files_report_the_line(tmp_path):
    root = release(tmp_path)
    path = corpus_path(root, "D")
    data = path.read_bytes().replace(b"text 2", b"text \xff2")
    path.write_bytes(data)
    err = bad(root)
    assert "UTF-8" in str(err) and err.line == data[: data.index(b"\xff")].count(b"\n") + 1
    release(tmp_path)
    qpath = root / "questions" / "D" / "multi_hop.jsonl"
    qpath.write_bytes(b'{"id": "m1", "question": "q", "answer": "a"}\n{"id": "\xe9"}\n')
    assert (bad(root).file, bad(root).line) == (str(qpath), 2)


def test_a_10_mb_message_is_refused(tmp_path):
    root = release(tmp_path, {"ops": [message(1, content="x" * 10_000_000)]})
    err = bad(root)
    assert err.field == 'channels["ops"][0].content' and "1000000 bytes" in str(err)


@pytest.mark.parametrize("domain", ["../D", "a/b", "..", "D\\x", "", "D.json", "D\n"])
def test_unsafe_domain_names(tmp_path, domain):
    assert bad(release(tmp_path), domain=domain).field == "domain"


def test_symlink_outside_the_release_is_refused(tmp_path):
    outside = release(tmp_path / "elsewhere")
    root = release(tmp_path / "release")
    path = corpus_path(root, "D")
    path.unlink()
    os.symlink(corpus_path(outside, "D"), path)
    assert "outside the release" in str(bad(root))
    path.unlink()
    os.symlink(Path("..") / ".." / "elsewhere" / "questions" / "D", root / "questions" / "E")
    assert "outside the release" in str(bad(root, domain="E"))


def test_missing_corpus_and_bad_limits(tmp_path):
    root = release(tmp_path)
    corpus_path(root, "D").unlink()
    assert bad(root).file == str(corpus_path(root, "D"))
    root = release(tmp_path)
    for limit in (-1, 1.5, "3", True):
        assert bad(root, message_limit=limit).field == "message_limit"
        assert bad(root, question_limit=limit).field == "question_limit"


def test_cli_exits_2_with_one_line_naming_file_and_field(tmp_path):
    runner = CliRunner()
    root = release(tmp_path / "r", {"ops": [message(1), message(2, is_noise="no")]})
    result = runner.invoke(cli, ["run", "groupmem", str(root), "--domain", "D"],
                           catch_exceptions=False)
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "rolevariants_D.json:15" in lines[0] and "is_noise" in lines[0]
    assert not (tmp_path / "ledger.db").exists()
    result = runner.invoke(cli, ["check", "groupmem", str(root), "--domain", "../etc"],
                           catch_exceptions=False)
    assert result.exit_code == 2 and "domain" in result.stderr and len(result.stderr.splitlines()) == 1
    result = runner.invoke(cli, ["check", "groupmem", str(root)], catch_exceptions=False)
    assert result.exit_code == 2
    assert "invalid: " in result.stdout and "channels[\"ops\"][1].is_noise" in result.stdout


def test_every_written_message_line_is_exact(tmp_path):
    # guard for the line arithmetic above: "{", '"ops": [', then 12 lines per message
    root = release(tmp_path, {"ops": [message(1), message(2)]})
    lines = corpus_path(root, "D").read_text().splitlines()
    assert lines[15 - 1] == "    {" and lines[15] == '      "msg_node": "Msg_2",'



def test_lone_surrogate_escapes_are_bad_input(tmp_path):
    root = release(tmp_path)
    path = corpus_path(root, "D")
    path.write_text(path.read_text().replace('"text 5"', '"text \\ud800"'))
    err = bad(root)
    assert err.field == 'channels["dev"][1].content' and "surrogate" in str(err) and err.line == 53
    path.write_text(path.read_text().replace('"text \\ud800"', '"fine \\ud83d\\ude00"')
                    .replace('"dev": [', '"d\\udc00v": ['))
    assert "channel name" in str(bad(root))
    path.write_text(path.read_text().replace('"d\\udc00v": [', '"dev": ['))
    docs = load_groupmem(root, "D").scopes["default"]
    assert next(d.text for d in docs if d.doc_id == "Msg_5") == "fine \U0001f600"
    qpath = root / "questions" / "D" / "temporal.jsonl"
    qpath.write_text('{"id": "t1", "question": "q\\udfff", "answer": "a"}\n')
    assert (bad(root).line, bad(root).field) == (1, "question")
