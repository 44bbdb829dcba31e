"""Where LoCoMo comes from: `data/locomo10.json` of snap-research/LoCoMo at a commit, pinned by
SHA-256, and its QA prompt strings read out of `task_eval/evaluate_gpts.py` (branch `code`).

The recipes name the literals by line in that file (pinned, so a line names one literal for good):
QA_PROMPT, QA_PROMPT_CAT_5 and CONV_START_PROMPT are module constants; the category-2 suffix, the
category-5 suffix and the not-mentioned option are inline literals of `get_gpt_answers`.
"""

from __future__ import annotations

from benchledger.adapters.benchmarks.locomo.prompts import OFFICIAL_SHA256
from benchledger.adapters.sources.spec import GitHubFiles, Literal, ReleaseSource, RemoteFile, TemplateRecipe

__all__ = ["RELEASE_FILE", "RELEASE_SHA256", "RELEASE_BYTES", "CODE_FILE", "SOURCE", "TEMPLATE_RECIPES"]

RELEASE_FILE = "locomo10.json"
RELEASE_SHA256 = "79fa87e90f04081343b8c8debecb80a9a6842b76a7aa537dc9fdf651ea698ff4"
"""SHA-256 of `data/locomo10.json` at snap-research/LoCoMo @ 3eb6f2c (10 conversations, 1,986 QA items)."""
RELEASE_BYTES = 2_805_274
CODE_FILE = "task_eval/evaluate_gpts.py"

TEMPLATE_RECIPES: tuple[TemplateRecipe, ...] = (
    TemplateRecipe("qa_prompt.txt", CODE_FILE, (Literal(32),)),
    TemplateRecipe("qa_prompt_cat5.txt", CODE_FILE, (Literal(38),)),
    TemplateRecipe("conv_start_prompt.txt", CODE_FILE, (Literal(58),)),
    TemplateRecipe("cat2_question_suffix.txt", CODE_FILE, (Literal(391, 1),)),
    TemplateRecipe("cat5_question_suffix.txt", CODE_FILE, (Literal(393, 1),)),
    TemplateRecipe("cat5_not_mentioned_option.txt", CODE_FILE, (Literal(395, 0),)),
)

SOURCE = ReleaseSource(
    release=(GitHubFiles("snap-research/LoCoMo", "3eb6f2c585f5e1699204e3c3bdf7adc5c28cb376", (
        RemoteFile("data/locomo10.json", RELEASE_FILE, RELEASE_SHA256, RELEASE_BYTES),)),),
    run_path=RELEASE_FILE,
    code=GitHubFiles("snap-research/locomo", "92286325a40764bee61f77824ddb95233b11c4d6", (
        RemoteFile(CODE_FILE, CODE_FILE, "e878692fd25919c4069b87ee5c2c5c24d8916e97c55b00500e9bf8b467c065a0"),)),
    templates=TEMPLATE_RECIPES,
    template_pins=OFFICIAL_SHA256,
)
