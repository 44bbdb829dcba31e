"""Where Memora comes from: every file under `data/` of geniesinc/Memora at a commit, each pinned by
SHA-256 (`pins.json.gz`: hashes and sizes only, no data, derived from the published per-file manifest),
and the answer and judge templates read out of the official evaluators at the same commit (Apache-2.0).

The f-string templates keep named placeholders where the code interpolates (`{context}`,
`{model_response}`, ...). The system prompt with a date is the prompt with the `date_context`
literal spliced in, the one without is the prompt with it empty, as `build_question_prompt`
builds them; the agent track's judge names its answer `generated_answer` where the model track
says `model_response`, and both templates call it `{model_response}`.
"""

from __future__ import annotations

from benchledger.adapters.benchmarks.memora.prompts import TEMPLATE_SHA256
from benchledger.adapters.sources.spec import Literal, ReleaseSource, TemplateRecipe
from benchledger.pins import PinTable

__all__ = ["REPO", "COMMIT", "PINS", "SOURCE", "TEMPLATE_RECIPES"]

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


PINS = PinTable.packaged(__package__, "pins.json.gz", "Memora")
"""Every file under `data/` at COMMIT (laid out without `data/`, as `run memora ROOT` reads it) and the
two official evaluators."""
SOURCE = ReleaseSource(PINS, run_path=".", templates=TEMPLATE_RECIPES, template_pins=TEMPLATE_SHA256)
