"""The synthetic generator and the release check, through the library and the CLI."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from benchledger.adapters.benchmarks.groupmem.loader import KINDS, corpus_path, load_groupmem
from benchledger.adapters.benchmarks.groupmem.check import check_groupmem
from benchledger.adapters.benchmarks.groupmem.schema import ABSTENTION_GOLD
from benchledger.adapters.benchmarks.groupmem.synth import synthesize_groupmem
from benchledger.cli.main import cli
from benchledger.errors import BadInput

REAL_COUNTS = {"Finance": 214, "Healthcare": 145, "Manufacturing": 173, "Technology": 213}


def tree_bytes(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_same_seed_same_bytes_other_seed_other_bytes(tmp_path):
    synthesize_groupmem(tmp_path / "a", messages=600, domains=("Alpha", "Beta"), seed=5)
    synthesize_groupmem(tmp_path / "b", messages=600, domains=("Alpha", "Beta"), seed=5)
    synthesize_groupmem(tmp_path / "c", messages=600, domains=("Alpha", "Beta"), seed=6)
    a, b, c = (tree_bytes(tmp_path / name) for name in "abc")
    assert a == b and len(a) == 2 * (1 + len(KINDS)) + 2
    assert a.keys() == c.keys() and a != c


def test_synthetic_release_loads_and_its_answers_are_in_the_messages(tmp_path):
    summary = synthesize_groupmem(tmp_path, messages=1000, seed=1)
    assert summary.domains[0].questions == {kind: 10 for kind in KINDS}
    dataset = load_groupmem(tmp_path, "Synth")
    docs = dataset.scopes["default"]
    assert len(docs) == 1000 and {d.doc_id for d in docs} == {f"Msg_{i}" for i in range(1, 1001)}
    keys = [(d.channel, d.extra["timestamp"], d.doc_id) for d in docs]
    assert keys == sorted(keys)  # the official load order
    assert dataset.release.dangling_replies == 0 and dataset.prompts is not None
    assert len({d.channel for d in docs}) == 6 and len({d.phase for d in docs}) == 5
    assert dataset.annotations["is_noise"] and any(d.is_decision for d in docs)
    assert sum(d.reply_to is not None for d in docs) > 100
    text = "\n".join(d.text for d in docs)
    for q in dataset.questions:
        if q.abstention:
            entity = re.search(r"[A-Z][a-z]+-\d+", q.text).group(0)
            assert q.gold == ABSTENTION_GOLD and entity not in text
        else:
            assert q.gold in text, q
    by_node = {d.doc_id: d for d in docs}
    for q in (q for q in dataset.questions if q.kind == "user_implicit"):
        assert any(d.author == q.asking_user and q.gold in d.text for d in docs)
    for q in (q for q in dataset.questions if q.kind == "knowledge_update"):
        update = next(d for d in docs if q.gold in d.text and d.reply_to)
        assert by_node[update.reply_to].timestamp < update.timestamp and update.is_decision


def test_synth_refuses_bad_arguments(tmp_path):
    for kwargs in ({"messages": 5}, {"messages": 100, "domains": ("../x",)},
                   {"messages": 100, "domains": ()}):
        with pytest.raises(BadInput):
            synthesize_groupmem(tmp_path, **kwargs)


def test_check_on_the_real_release_counts_745_and_names_missing_corpora(shared_data):
    report = check_groupmem(shared_data / "groupmembench")
    assert report.total_questions == 745 and not report.ok
    assert {d.domain: d.total_questions for d in report.domains} == REAL_COUNTS
    assert len(report.missing_corpora) == 4 and all(d.problems == () for d in report.domains)
    assert report.missing_corpora[0].endswith(
        "data/final/Finance/synthetic_domain_channels_rolevariants_Finance.json")
    assert check_groupmem(shared_data / "groupmembench", "Healthcare").total_questions == 145


def test_check_cli_on_the_real_release(shared_data):
    result = CliRunner().invoke(cli, ["check", "groupmem", str(shared_data / "groupmembench")],
                                catch_exceptions=False)
    assert result.exit_code == 2
    assert "745" in result.stdout and result.stdout.count("missing corpus: ") == 4
    result = CliRunner().invoke(cli, ["check", "groupmem", str(shared_data / "groupmembench"),
                                      "--json"], catch_exceptions=False)
    payload = json.loads(result.stdout)
    assert payload["total_questions"] == 745 and payload["ok"] is False


def test_check_reports_every_problem_not_only_the_first(tmp_path):
    synthesize_groupmem(tmp_path, messages=100, domains=("A", "B", "C"))
    (tmp_path / "questions" / "A" / "temporal.jsonl").write_text("{not json\n")
    corpus_path(tmp_path, "B").unlink()
    (tmp_path / "questions" / "C" / "abstention.jsonl").unlink()
    report = check_groupmem(tmp_path)
    a, b, c = report.domains
    assert a.corpus_present and a.messages == 100 and a.questions["temporal"] == 0
    assert a.questions["multi_hop"] == 1 and "temporal.jsonl:1" in a.problems[0]
    assert not b.corpus_present and b.messages is None and b.problems == () and b.total_questions == 6
    assert c.ok is False and "abstention" in c.problems[0]
    assert report.missing_corpora == (str(corpus_path(tmp_path, "B")),) and not report.ok
    with pytest.raises(BadInput):
        check_groupmem(tmp_path / "nowhere")


def test_synth_then_check_then_load_through_the_cli(tmp_path):
    runner = CliRunner()
    out = tmp_path / "release"
    result = runner.invoke(cli, ["synth", "groupmem", str(out), "--messages", "300",
                                 "--domains", "Red,Blue", "--seed", "9"], catch_exceptions=False)
    assert result.exit_code == 0 and "Red: 300 messages" in result.stdout
    result = runner.invoke(cli, ["check", "groupmem", str(out)], catch_exceptions=False)
    assert result.exit_code == 0 and result.stdout.rstrip().endswith("ok")
    assert load_groupmem(out, "Blue").document_count == 300
    result = runner.invoke(cli, ["synth", "groupmem", str(out), "--messages", "3"])
    assert result.exit_code == 2
