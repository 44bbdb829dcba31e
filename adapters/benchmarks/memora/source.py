"""Where Memora comes from: every file under `data/` of geniesinc/Memora at a commit, each pinned by
SHA-256 (`release_pins.json.gz`: hashes and sizes only, no data), and the answer and judge templates
read out of the official evaluators at the same commit (Apache-2.0).

The f-string templates keep named placeholders where the code interpolates (`{context}`,
`{model_response}`, ...). The system prompt with a date is the prompt with the `date_context`
literal spliced in, the one without is the prompt with it empty, as `build_question_prompt`
builds them; the agent track's judge names its answer `generated_answer` where the model track
says `model_response`, and both templates call it `{model_response}`.
"""

from __future__ import annotations

import gzip
import json
from functools import cache
from importlib.resources import files

from benchledger.adapters.benchmarks.memora.prompts import TEMPLATE_SHA256
from benchledger.adapters.sources.spec import GitHubFiles, Literal, ReleaseSource, RemoteFile, TemplateRecipe

__all__ = ["REPO", "COMMIT", "release_pins", "release_source", "TEMPLATE_RECIPES"]

REPO = "geniesinc/Memora"
COMMIT = "a6493188efc836d6511ed5e4163fe3ba87da30ff"
_MODEL_EVAL = "evals/model_eval/model_based_evaluator.py"
_AGENT_EVAL = "evals/agent_eval/memory_to_answer.py"

_DATE_CONTEXT = Literal(517, slots={"current_date": "{current_date}"})
TEMPLATE_RECIPES: tuple[TemplateRecipe, ...] = (
    TemplateRecipe("answer_system.txt", _MODEL_EVAL, (Literal(519, slots={"date_context": ""}),)),
    TemplateRecipe("answer_system_with_date.txt", _MODEL_EVAL, (Literal(519, slots={"date_context": _DATE_CONTEXT}),)),
    TemplateRecipe("answer_user.txt", _MODEL_EVAL, (
        Literal(629, slots={"context": "{context}", "question": "{question}"}),)),
    TemplateRecipe("judge_system.txt", _MODEL_EVAL, (Literal(694),)),
    TemplateRecipe("judge.txt", _MODEL_EVAL, (Literal(713, slots={
        "model_response": "{model_response}", "evaluation_question": "{evaluation_question}",
        "context_info": "{context_info}"}),)),
    TemplateRecipe("judge_agent_track.txt", _AGENT_EVAL, (Literal(629, slots={
        "generated_answer": "{model_response}", "eval_question": "{evaluation_question}"}),)),
)


@cache
def release_pins() -> dict[str, tuple[str, int]]:
    """Repository path ("data/monthly/...") -> (SHA-256, bytes) of every released file."""
    raw = files("benchledger.adapters.benchmarks.memora").joinpath("release_pins.json.gz").read_bytes()
    pinned = json.loads(gzip.decompress(raw))
    assert pinned["commit"] == COMMIT
    return {path: (sha, size) for path, (sha, size) in pinned["files"].items()}


@cache
def release_source() -> ReleaseSource:
    """The whole release, file by file, laid out as `run memora ROOT` reads it (without `data/`)."""
    release = tuple(RemoteFile(path, path.removeprefix("data/"), sha, size)
                    for path, (sha, size) in sorted(release_pins().items()))
    return ReleaseSource(
        release=(GitHubFiles(REPO, COMMIT, release),), run_path=".",
        code=GitHubFiles(REPO, COMMIT, (
            RemoteFile(_MODEL_EVAL, _MODEL_EVAL, "b4e37dd39c2c72b91743c42180f6b07b460e519358f33c6fc1511f575dbb1bfc"),
            RemoteFile(_AGENT_EVAL, _AGENT_EVAL, "119adf7811c2fc92f4922b1a72c6989c0a5f83350e76366b88dff137e47b4c4f"),
        )),
        templates=TEMPLATE_RECIPES, template_pins=TEMPLATE_SHA256)
