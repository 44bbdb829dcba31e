"""LongMemEval-V2's official prompt texts, pinned by SHA-256 and read at run time (never copied here).

The nine files are `../shared/data/longmemeval-v2/prompts/*.txt` (Apache-2.0, xiaowu0162/LongMemEval-V2
@ be15ea6e), byte for byte: the two reader system prompts (each with the official U+0008 where the
source meant `\\boxed{}`), the three reader user parts, and the two judges' system and user texts
with `{question_text}`, `{reference_answer}`, `{model_full_response}`, `{model_final_answer}` slots.
"""

from __future__ import annotations

from pathlib import Path

from benchledger.adapters.benchmarks.official_prompts import read_pinned
from benchledger.errors import BadInput

__all__ = ["TEMPLATE_SHA256", "TEMPLATE_SOURCE", "load_templates", "reader_system_name"]

TEMPLATE_SHA256 = {
    "judge_abstention_system.txt": "4d82ebe1899a0f9c895346a7aba5ccbc0c57e42ae3813b5dfe94cf3eed6763ac",
    "judge_abstention_user.txt": "c4ed1bf276e03daaca22be020c1a829917efafbed7f3de9b1bb569ff161f4dcb",
    "judge_gotchas_system.txt": "c306af72e8e12f87250c42f19cd5670505e54c2590970d3b75ce3be1b5ae8f9a",
    "judge_gotchas_user.txt": "473af72e9b85c8fc96c0cfc93e2bdb6e756514e51335609b64826b183251b215",
    "reader_system_enterprise.txt": "b2d24d41b022824ddea06b61255ead1a9aceae79e4f1658775fddd6d6e66320e",
    "reader_system_web.txt": "c70772c5f4ab1dbdcee28218d5e2b98595a84d64196012cbd00bb9de9e63fd1f",
    "reader_user_intro.txt": "ff44ad223ee19304a32dc194e85388c24c218f0f17a5ead2e76e7ddaccc9a3db",
    "reader_user_intro_empty.txt": "9b691aa790d8b90a79d018208a96065adc8f84bf5b3b9b2b22d1214e1aaa772d",
    "reader_user_question_block.txt": "70d123bce8e0c548dac580cd897870ea4f6bbbfef8c6582d76a13c7809155925",
}
TEMPLATE_SOURCE = ("xiaowu0162/LongMemEval-V2 @ be15ea6e, evaluation/harness.py and evaluation/qa_eval_metrics.py; "
                   "the copy in ../shared/data/longmemeval-v2/prompts")


def reader_system_name(domain: str) -> str:
    return f"reader_system_{domain}.txt"


def load_templates(folder: Path) -> dict[str, str]:
    """Every pinned text of `folder`; BadInput naming a missing or changed file."""
    try:
        return read_pinned(Path(folder), TEMPLATE_SHA256)
    except BadInput as err:
        raise BadInput(f"LongMemEval-V2's official prompts: {err} ({TEMPLATE_SOURCE})",
                       field="prompts_dir") from None
