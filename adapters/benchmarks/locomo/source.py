"""Where LoCoMo comes from: `data/locomo10.json` of snap-research/LoCoMo at a commit, pinned by
SHA-256 (`pins.json`), and its QA prompt strings read out of `task_eval/evaluate_gpts.py` (branch `code`).

The recipes name the literals by line in that file (pinned, so a line names one literal for good):
QA_PROMPT, QA_PROMPT_CAT_5 and CONV_START_PROMPT are module constants; the category-2 suffix, the
category-5 suffix and the not-mentioned option are inline literals of `get_gpt_answers`.
"""

from __future__ import annotations

from benchledger.adapters.benchmarks.locomo.prompts import OFFICIAL_SHA256
from benchledger.adapters.sources.spec import Literal, ReleaseSource, TemplateRecipe
from benchledger.pins import PinTable

__all__ = ["PINS", "RELEASE_FILE", "CODE_FILE", "SOURCE", "TEMPLATE_RECIPES"]

RELEASE_FILE = "locomo10.json"
PINS = PinTable.packaged(__package__, "pins.json", "LoCoMo")
"""`locomo10.json` (snap-research/LoCoMo @ 3eb6f2c: 10 conversations, 1,986 QA items) and the official code."""
CODE_FILE = "task_eval/evaluate_gpts.py"

TEMPLATE_RECIPES: tuple[TemplateRecipe, ...] = (
    TemplateRecipe("qa_prompt.txt", CODE_FILE, (Literal(32),)),
    TemplateRecipe("qa_prompt_cat5.txt", CODE_FILE, (Literal(38),)),
    TemplateRecipe("conv_start_prompt.txt", CODE_FILE, (Literal(58),)),
    TemplateRecipe("cat2_question_suffix.txt", CODE_FILE, (Literal(391, 1),)),
    TemplateRecipe("cat5_question_suffix.txt", CODE_FILE, (Literal(393, 1),)),
    TemplateRecipe("cat5_not_mentioned_option.txt", CODE_FILE, (Literal(395, 0),)),
)

SOURCE = ReleaseSource(PINS, run_path=RELEASE_FILE, templates=TEMPLATE_RECIPES, template_pins=OFFICIAL_SHA256)
