"""`benchledger synth longmemeval-v2`: a release in the official layout the loader reads with every rule, the
same bytes for the same seed, every type and scoring function, and a medium tier built per question."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from benchledger.adapters.benchmarks.longmemeval_v2.loader import SHARED_SCOPE, load_longmemeval_v2
from benchledger.adapters.benchmarks.longmemeval_v2.selection import LongMemEvalV2Selection
from benchledger.adapters.benchmarks.longmemeval_v2.spec import CATEGORY_MAP, eval_name
from ledger_cli import invoke


def _digest(folder: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(folder)).encode() + path.read_bytes())
    return digest.hexdigest()


def test_the_synthetic_release_loads_in_both_tiers_and_is_byte_stable(tmp_path):
    result = invoke("synth", "longmemeval-v2", str(tmp_path / "a"), "--trajectories", "12", "--json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["trajectories"] == {"web": 12, "enterprise": 12} and summary["states"] == 240
    assert invoke("synth", "longmemeval-v2", str(tmp_path / "b"), "--trajectories", "12").exit_code == 0
    assert _digest(tmp_path / "a") == _digest(tmp_path / "b")
    assert invoke("synth", "longmemeval-v2", str(tmp_path / "c"), "--trajectories", "12", "--seed", "1").exit_code == 0
    assert _digest(tmp_path / "a") != _digest(tmp_path / "c")
    for domain in ("web", "enterprise"):
        small = load_longmemeval_v2(tmp_path / "a", LongMemEvalV2Selection(domain=domain, tier="small"))
        medium = load_longmemeval_v2(tmp_path / "a", LongMemEvalV2Selection(domain=domain, tier="medium"))
        assert list(small.scopes) == [SHARED_SCOPE] and len(medium.scopes) == len(medium.questions) == 14
        assert all(len({d.channel for d in docs}) == 12 for docs in medium.scopes.values())
        assert {q.kind for q in small.questions} == set(CATEGORY_MAP)
        assert {eval_name(q.extra["eval_function"]) for q in small.questions} == {
            "norm_phrase_set_match", "norm_phrase_set_match_ordered", "mc_choice_match", "mc_choice_set_match",
            "llm_abstention_checker", "llm_gotchas_checker"}


def test_a_synthetic_medium_haystack_runs_end_to_end(tmp_path, shared_data):
    assert invoke("synth", "longmemeval-v2", str(tmp_path / "r"), "--trajectories", "20", "--questions", "3",
                  "--states", "4", "--tree-lines", "8").exit_code == 0
    result = invoke("run", "longmemeval-v2", str(tmp_path / "r"), "--domain", "enterprise", "--tier", "medium",
                    "--prompts-dir", str(shared_data / "longmemeval-v2" / "prompts"), "--out", "r.json")
    assert result.exit_code == 0, result.output
    report = json.loads(Path("r.json").read_text())
    section = next(s for s in report["sections"] if s["name"] == "longmemeval_v2.official")
    assert section["values"]["aggregated_metrics"]["overall"]["count_all_questions"] == 3
    assert "240/240 documents" in result.output  # three questions, each its own scope of 20 x 4 states
