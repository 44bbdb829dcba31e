"""`benchledger conformance DIR` over the official fixtures, a changed fixture, and bad input."""

from __future__ import annotations

import json
import shutil

from ledger_cli import invoke

EVERY_FIXTURE = {
    "groupmembench/bm25-top10.json": "groupmem.bm25",
    "groupmembench/prompt-example.json": "groupmem.prompt_example",
    "groupmembench/replies.json": "groupmem.replies",
    "locomo/cat5-choice-mapping.json": "locomo.cat5_choice",
    "locomo/dev-evidence-recall.json": "locomo.evidence_recall",
    "locomo/dev-expected.json": "locomo.qa_scores",
    "longmemeval/answer-prompt-examples.json": "longmemeval.answer_prompts",
    "longmemeval/dev-qa-metrics.json": "longmemeval.qa_metrics",
    "longmemeval/dev-retrieval.json": "longmemeval.retrieval",
    "longmemeval/retrieval-quirk-cases.json": "longmemeval.retrieval_quirks",
    "memora/context-example.json": "memora.context",
    "memora/fama-expected.json": "memora.fama",
    "memora/judge-replies.json": "memora.judge_replies",
}


def _rows(output: str) -> dict[str, list[str]]:
    lines = output.splitlines()
    body = lines[2:lines.index(next(line for line in lines if line.startswith("ok:")))] \
        if any(line.startswith("ok:") for line in lines) else lines[2:]
    return {line.split()[0]: line.split()[1:] for line in body if line.strip()}


def test_every_case_of_every_official_fixture_matches(shared_data):
    result = invoke("conformance", str(shared_data / "conformance"),
                    "--locomo-release", str(shared_data / "locomo" / "locomo-dev.json"))
    assert result.exit_code == 0, result.output
    rows = _rows(result.stdout)
    assert set(rows) == set(EVERY_FIXTURE)  # nothing unchecked: companions (predictions, fama inputs) are read
    for file, check in EVERY_FIXTURE.items():
        check_name, cases, exact = rows[file][:3]
        assert check_name == check and int(cases) > 0 and cases == exact, rows[file]
    assert result.stdout.splitlines()[-1].startswith("ok: ")


def test_a_changed_official_output_is_a_mismatch_and_exit_1(shared_data, tmp_path):
    folder = tmp_path / "conformance"
    shutil.copytree(shared_data / "conformance" / "groupmembench", folder / "groupmembench")
    replies = json.loads((folder / "groupmembench" / "replies.json").read_text())
    replies["judge_replies"][4]["summarize_is_correct"] = not replies["judge_replies"][4]["summarize_is_correct"]
    (folder / "groupmembench" / "replies.json").write_text(json.dumps(replies))
    result = invoke("conformance", str(folder), "--prompts-root", str(shared_data))
    assert result.exit_code == 1
    row = _rows(result.stdout)["groupmembench/replies.json"]
    assert row[:3] == ["groupmem.replies", "121", "120"]
    assert "judge reply 5: summarize_is_correct" in result.stdout
    assert "differ from the official outputs" in result.output


def test_without_the_locomo_release_its_files_are_not_checked_and_fail(shared_data):
    result = invoke("conformance", str(shared_data / "conformance"))
    assert result.exit_code == 1
    assert "needs the LoCoMo release file (--locomo-release)" in result.stdout


def test_a_missing_folder_is_bad_input(tmp_path):
    result = invoke("conformance", str(tmp_path / "nowhere"))
    assert result.exit_code == 2
    assert "nowhere" in result.output and "no such folder" in result.output


def test_the_missing_folder_hint_names_a_path_only_where_one_exists(tmp_path, monkeypatch):
    checkout = tmp_path / "work" / "checkout"
    checkout.mkdir(parents=True)
    monkeypatch.chdir(checkout)  # nothing at ../shared/data/conformance from here
    bare = invoke("conformance", "nowhere")
    assert bare.exit_code == 2 and "e.g." not in bare.output and "official code produced" in bare.output
    (tmp_path / "work" / "shared" / "data" / "conformance").mkdir(parents=True)
    beside = invoke("conformance", "nowhere")
    assert beside.exit_code == 2 and "e.g. ../shared/data/conformance" in beside.output
