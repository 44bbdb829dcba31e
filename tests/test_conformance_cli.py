"""`benchledger conformance DIR` over the official fixtures, a changed fixture, and bad input."""

from __future__ import annotations

import json
import shutil

from click.testing import CliRunner

from benchledger.cli.main import cli

LOCOMO_AND_GROUPMEM = {
    "groupmembench/bm25-top10.json": "groupmem.bm25",
    "groupmembench/prompt-example.json": "groupmem.prompt_example",
    "groupmembench/replies.json": "groupmem.replies",
    "locomo/cat5-choice-mapping.json": "locomo.cat5_choice",
    "locomo/dev-evidence-recall.json": "locomo.evidence_recall",
    "locomo/dev-expected.json": "locomo.qa_scores",
}


def _invoke(*args: str):
    return CliRunner().invoke(cli, ["conformance", *args], catch_exceptions=False)


def _rows(output: str) -> dict[str, list[str]]:
    lines = output.splitlines()
    body = lines[2:lines.index(next(line for line in lines if line.startswith("ok:")))] \
        if any(line.startswith("ok:") for line in lines) else lines[2:]
    return {line.split()[0]: line.split()[1:] for line in body if line.strip()}


def test_every_locomo_and_groupmembench_case_matches(shared_data):
    result = _invoke(str(shared_data / "conformance"),
                     "--locomo-release", str(shared_data / "locomo" / "locomo-dev.json"))
    assert result.exit_code == 0, result.output
    rows = _rows(result.stdout)
    for file, check in LOCOMO_AND_GROUPMEM.items():
        check_name, cases, exact = rows[file][:3]
        assert check_name == check and int(cases) > 0 and cases == exact, rows[file]
    # the other benchmarks' fixtures are listed, unclaimed or checked, but never hidden
    assert any(name.startswith("longmemeval/") for name in rows)
    assert any(name.startswith("memora/") for name in rows)
    assert "dev-predictions.jsonl" not in " ".join(rows)  # named by dev-expected.json, not a fixture of its own
    assert result.stdout.splitlines()[-1].startswith("ok: ")


def test_a_changed_official_output_is_a_mismatch_and_exit_1(shared_data, tmp_path):
    folder = tmp_path / "conformance"
    shutil.copytree(shared_data / "conformance" / "groupmembench", folder / "groupmembench")
    replies = json.loads((folder / "groupmembench" / "replies.json").read_text())
    replies["judge_replies"][4]["summarize_is_correct"] = not replies["judge_replies"][4]["summarize_is_correct"]
    (folder / "groupmembench" / "replies.json").write_text(json.dumps(replies))
    result = _invoke(str(folder), "--prompts-root", str(shared_data))
    assert result.exit_code == 1
    row = _rows(result.stdout)["groupmembench/replies.json"]
    assert row[:3] == ["groupmem.replies", "121", "120"]
    assert "judge reply 5: summarize_is_correct" in result.stdout
    assert "differ from the official outputs" in result.output


def test_without_the_locomo_release_its_files_are_not_checked_and_fail(shared_data):
    result = _invoke(str(shared_data / "conformance"))
    assert result.exit_code == 1
    assert "needs the LoCoMo release file (--locomo-release)" in result.stdout


def test_a_missing_folder_is_bad_input(tmp_path):
    result = _invoke(str(tmp_path / "nowhere"))
    assert result.exit_code == 2
    assert "nowhere" in result.output and "no such folder" in result.output
