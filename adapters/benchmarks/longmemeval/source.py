"""Where LongMemEval comes from: the cleaned release on the Hugging Face hub at a pinned revision (each
file's SHA-256 as public sources state it, `pins.json`), and the reader and judge templates read out of
the official code (xiaowu0162/LongMemEval @ 9e0b455, MIT).

Each template is a string literal the official code passes to `str.format` (so its `{}` slots are
the code's own); the no-retrieval reader is `'{}'`, plus `'Answer step by step.'` with chain of
thought, as `prepare_prompt` builds it with `+=`.
"""

from __future__ import annotations

from benchledger.adapters.benchmarks.longmemeval.prompts import TEMPLATE_SHA256
from benchledger.adapters.sources.spec import Literal, ReleaseSource, TemplateRecipe
from benchledger.pins import PinTable

__all__ = ["PINS", "SOURCE", "RELEASE_FILES", "HUB_DATASET"]

HUB_DATASET = "xiaowu0162/longmemeval-cleaned"
RELEASE_FILES = ("longmemeval_s_cleaned.json", "longmemeval_m_cleaned.json", "longmemeval_oracle.json")
PINS = PinTable.packaged(__package__, "pins.json", "LongMemEval")
_JUDGE = "src/evaluation/evaluate_qa.py"
_READER = "src/generation/run_generation.py"

TEMPLATE_RECIPES: tuple[TemplateRecipe, ...] = (
    TemplateRecipe("judge_single-session-user.txt", _JUDGE, (Literal(27),)),
    TemplateRecipe("judge_single-session-assistant.txt", _JUDGE, (Literal(27),)),
    TemplateRecipe("judge_multi-session.txt", _JUDGE, (Literal(27),)),
    TemplateRecipe("judge_temporal-reasoning.txt", _JUDGE, (Literal(30),)),
    TemplateRecipe("judge_knowledge-update.txt", _JUDGE, (Literal(33),)),
    TemplateRecipe("judge_single-session-preference.txt", _JUDGE, (Literal(36),)),
    TemplateRecipe("judge_abstention.txt", _JUDGE, (Literal(41),)),
    TemplateRecipe("answer_noretrieval_direct.txt", _READER, (Literal(48),)),
    TemplateRecipe("answer_noretrieval_cot.txt", _READER, (Literal(48), Literal(50))),
    TemplateRecipe("answer_cot.txt", _READER, (Literal(55),)),
    TemplateRecipe("answer_direct.txt", _READER, (Literal(57),)),
    TemplateRecipe("answer_merge_cot.txt", _READER, (Literal(60),)),
    TemplateRecipe("answer_merge_direct.txt", _READER, (Literal(62),)),
    TemplateRecipe("answer_replace_cot.txt", _READER, (Literal(65),)),
    TemplateRecipe("answer_replace_direct.txt", _READER, (Literal(67),)),
    TemplateRecipe("answer_con_note.txt", _READER, (Literal(195),)),
)

SOURCE = ReleaseSource(PINS, run_path="longmemeval_s_cleaned.json", templates=TEMPLATE_RECIPES,
                       template_pins=TEMPLATE_SHA256)
