"""Mem2ActBench's release: the synthetic one in exactly the published layout, read into frozen models,
its known defects found and reported (never a crash), bad lines refused in one line naming file, line
and field. Every property is checked on the seed the docs use and on a held-out seed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from benchledger.adapters.benchmarks.mem2actbench.check import check_mem2actbench
from benchledger.adapters.benchmarks.mem2actbench.loader import NO_SESSION, load_mem2actbench
from benchledger.adapters.benchmarks.mem2actbench.release import SESSIONS_FILE, TASKS_FILE, read_release
from benchledger.adapters.benchmarks.mem2actbench.selection import Mem2ActSelection
from benchledger.adapters.benchmarks.mem2actbench.synth import synthesize_mem2actbench
from benchledger.errors import BadInput

SEEDS = (0, 7)


@pytest.fixture(params=SEEDS, ids=lambda seed: f"seed{seed}")
def release_dir(request, tmp_path: Path) -> Path:
    synthesize_mem2actbench(tmp_path / "m2a", tasks=20, seed=request.param)
    return tmp_path / "m2a"


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_the_synthetic_release_has_exactly_the_published_layout(release_dir: Path):
    files = sorted(str(p.relative_to(release_dir)) for p in release_dir.rglob("*") if p.is_file())
    assert files == [f"{split}/{name}" for split in ("Mem2ActBench", "toolmembench_small")
                     for name in ("benchmark_statistics.json", "qa_dataset.jsonl", "toolmem_conversation.jsonl")]
    for split in ("toolmembench_small", "Mem2ActBench"):
        stats = json.loads((release_dir / split / "benchmark_statistics.json").read_text())
        assert stats == {"total_sessions": len(_lines(release_dir / split / SESSIONS_FILE)),
                         "total_qa": len(_lines(release_dir / split / TASKS_FILE))}
    task = _lines(release_dir / "toolmembench_small" / TASKS_FILE)[0]
    assert set(task) == {"qa_id", "query", "source_conversation_ids", "evolution_chain", "tool_call",
                         "target_tool_schema", "complexity_metadata"}
    assert task["target_tool_schema"]["parameters"]["type"] == "dict"
    session = _lines(release_dir / "toolmembench_small" / SESSIONS_FILE)[0]
    assert set(session) == {"session_id", "original_conversation_ids", "turn_count", "token_count", "has_tool_calls",
                            "turns"}
    assert {key for turn in session["turns"] for key in turn} == {"role", "content", "source_id", "tool_calls", "name"}


def test_every_schema_feature_is_present(release_dir: Path):
    release = read_release(release_dir, "toolmembench_small")
    meta = [t.complexity_metadata for t in release.tasks]
    assert {m.level for m in meta} == {"L1", "L2", "L3", "L4"}
    assert any(m.has_temporal_conflict for m in meta) and not all(m.has_temporal_conflict for m in meta)
    assert {g.type for t in release.tasks for g in t.tool_call.grounding_info.values()} == {"explicit", "inferred",
                                                                                            "default"}
    calls = [turn for s in release.sessions for turn in s.turns if turn.tool_calls]
    assert calls and all(turn.content is None and turn.role == "assistant" for turn in calls)
    assert any(turn.role == "tool" and turn.name for s in release.sessions for turn in s.turns)
    assert any(len(s.original_conversation_ids) > 1 for s in release.sessions)
    dataset = load_mem2actbench(release_dir, Mem2ActSelection())
    assert dataset.scopes[NO_SESSION] == () and any(q.scope_key == NO_SESSION for q in dataset.questions)


def test_the_known_defects_are_found_and_reported_never_raised(release_dir: Path):
    small = read_release(release_dir, "toolmembench_small")
    kinds = sorted(d.kind for d in small.defects)
    assert kinds == ["missing_source", "missing_source", "tool_name_not_a_string"]
    named = next(d for d in small.defects if d.kind == "tool_name_not_a_string")
    assert "tool_call.name is 4" in named.detail and "'4D Dream Dictionary'" in named.detail and named.line == 4
    full = read_release(release_dir, "Mem2ActBench")  # the whole split holds every session
    assert [d.kind for d in full.defects] == ["tool_name_not_a_string"]
    dataset = load_mem2actbench(release_dir, Mem2ActSelection())
    by_id = {q.question_id: q for q in dataset.questions}
    assert json.loads(by_id[named.qa_id].gold)["name"] == "4D Dream Dictionary"
    assert any("missing_source" in d for q in dataset.questions for d in json.loads(q.extra["defects"]))
    dropped = [r for r in dataset.release.evidence_repairs if r.dropped]
    assert dropped and all("no session" in r.reason for r in dropped)
    report = check_mem2actbench(release_dir)
    assert report.ok and [len(s.defects) for s in report.splits] == [3, 1]


def test_the_same_seed_writes_the_same_bytes_and_another_seed_other_ones(tmp_path: Path):
    def written(seed: int, name: str) -> dict[str, bytes]:
        synthesize_mem2actbench(tmp_path / name, tasks=12, seed=seed)
        return {str(p.relative_to(tmp_path / name)): p.read_bytes() for p in (tmp_path / name).rglob("*") if p.is_file()}
    assert written(3, "a") == written(3, "b")
    assert written(3, "a") != written(4, "c")


def test_evidence_and_grounding_name_the_turns_that_say_them(release_dir: Path):
    dataset = load_mem2actbench(release_dir, Mem2ActSelection())
    missing = {"qa_006", "qa_008"}  # their (second) conversation is in no session of the small split
    for question in dataset.questions:
        docs = {d.doc_id: d for d in dataset.scopes[question.scope_key]}
        for grounded in json.loads(question.extra["grounding"]).values():
            if grounded["type"] == "default":
                assert grounded["evidence"] == []
                continue
            if not grounded["evidence"]:
                assert question.question_id in missing  # memory_missing: nothing in the split says it
                continue
            assert set(grounded["evidence"]) <= set(question.evidence)
            assert all(grounded["source_text"].casefold() in docs[d].text.casefold() for d in grounded["evidence"])


def _rewrite(path: Path, line: int, change) -> None:
    rows = path.read_text(encoding="utf-8").splitlines()
    rows[line - 1] = change(rows[line - 1])
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")


@pytest.mark.parametrize("change, field, message", [
    (lambda line: line[:-5], None, "not valid JSON"),
    (lambda line: json.dumps([json.loads(line)]), None, "JSON object"),
    (lambda line: json.dumps({**json.loads(line), "complexity_metadata": {"level": "L9"}}),
     "complexity_metadata.level", "L1"),
    (lambda line: json.dumps({k: v for k, v in json.loads(line).items() if k != "query"}), "query", "required"),
])
def test_a_bad_task_line_is_one_line_naming_file_line_and_field(release_dir: Path, change, field, message):
    path = release_dir / "toolmembench_small" / TASKS_FILE
    _rewrite(path, 3, change)
    with pytest.raises(BadInput) as refused:
        load_mem2actbench(release_dir, Mem2ActSelection())
    assert (refused.value.file, refused.value.line) == (str(path), 3)
    assert field is None or refused.value.field == field
    assert message in str(refused.value) and "\n" not in str(refused.value)
    assert not check_mem2actbench(release_dir).ok


def test_a_repeated_task_id_is_refused(release_dir: Path):
    path = release_dir / "toolmembench_small" / TASKS_FILE
    _rewrite(path, 2, lambda line: json.dumps({**json.loads(line), "qa_id": "qa_001"}))
    with pytest.raises(BadInput, match="qa_id 'qa_001' repeats line 1"):
        read_release(release_dir, "toolmembench_small")


def test_fields_the_models_do_not_name_are_kept_and_listed(release_dir: Path):
    path = release_dir / "toolmembench_small" / TASKS_FILE
    _rewrite(path, 1, lambda line: json.dumps({**json.loads(line), "annotator": "x"}))
    dataset = load_mem2actbench(release_dir, Mem2ActSelection())
    assert dataset.release.extra_fields == {"task": ("annotator",)}


def test_the_models_are_frozen(release_dir: Path):
    task = read_release(release_dir, "toolmembench_small").tasks[0]
    with pytest.raises(ValidationError):
        task.query = "changed"  # type: ignore[misc]


def test_levels_and_a_limit_select_tasks_and_an_unknown_level_is_refused(release_dir: Path):
    dataset = load_mem2actbench(release_dir, Mem2ActSelection(kinds=("L4",), question_limit=1))
    assert [q.kind for q in dataset.questions] == ["L4"] and dataset.release.questions_available == 4
    with pytest.raises(BadInput, match="no level L9"):
        load_mem2actbench(release_dir, Mem2ActSelection(kinds=("L9",)))
