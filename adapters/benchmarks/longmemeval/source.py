"""Where LongMemEval comes from: the cleaned release on the Hugging Face hub (its hashes are what the
hub publishes for the revision), and the reader and judge templates read out of the official code
(xiaowu0162/LongMemEval @ 9e0b455, MIT).

Each template is a string literal the official code passes to `str.format` (so its `{}` slots are
the code's own); the no-retrieval reader is `'{}'`, plus `'Answer step by step.'` with chain of
thought, as `prepare_prompt` builds it with `+=`.
"""

from __future__ import annotations

from benchledger.adapters.benchmarks.longmemeval.prompts import TEMPLATE_SHA256
from benchledger.adapters.sources.spec import GitHubFiles, HubFiles, Literal, ReleaseSource, RemoteFile, TemplateRecipe

__all__ = ["SOURCE", "RELEASE_FILES", "HUB_DATASET"]

HUB_DATASET = "xiaowu0162/longmemeval-cleaned"
RELEASE_FILES = ("longmemeval_s_cleaned.json", "longmemeval_m_cleaned.json", "longmemeval_oracle.json")
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

SOURCE = ReleaseSource(
    release=(HubFiles(HUB_DATASET, tuple(RemoteFile(name, name) for name in RELEASE_FILES)),),
    run_path="longmemeval_s_cleaned.json",
    code=GitHubFiles("xiaowu0162/LongMemEval", "9e0b455f4ef0e2ab8f2e582289761153549043fc", (
        RemoteFile(_JUDGE, _JUDGE, "ecce9c4c79dc89d99534ac17b383a5cbb5b9f0c69ee98adaf0684742e3d95251"),
        RemoteFile(_READER, _READER, "4f1eb3c69d7ad40f04065b9c0bc86f6582441018fc6ff751d162d66c95baf672"),
    )),
    templates=TEMPLATE_RECIPES,
    template_pins=TEMPLATE_SHA256,
)
