"""LongMemEval's official prompt files, pinned by SHA-256, and which one each call uses.

The files are `../shared/data/longmemeval/prompts/*.txt` (MIT, xiaowu0162/LongMemEval @ 9e0b455),
written by running the official functions with `{}` as every argument; they are read at run time,
never copied here. `load_templates(folder)` reads them all and refuses any file whose bytes are not
the official ones.

Judge (`evaluate_qa.py::get_anscheck_prompt`): an abstention question (`'_abs' in question_id`)
uses `judge_abstention.txt` whatever its type; otherwise the question type picks the file, and
single-session-user, single-session-assistant and multi-session share one text. Reader
(`run_generation.py::prepare_prompt`): `answer_<kind>_<cot|direct>.txt`, where kind is the plain
template, `merge` or `replace` (index-expansion modes) or `noretrieval`.
"""

from __future__ import annotations

from pathlib import Path

from benchledger.adapters.benchmarks.official_prompts import read_pinned
from benchledger.errors import BadInput

__all__ = ["TEMPLATE_SHA256", "QUESTION_TYPES", "load_templates", "judge_template_name",
           "reader_template_name", "CON_NOTE_TEMPLATE"]

TEMPLATE_SHA256 = {
    "answer_con_note.txt": "1afab7da2e46782b717d009f6a208516611d691ad0e931e95e2b5c58eb2a23c8",
    "answer_cot.txt": "9e2b3110622929ab896696dd8937231c7436740ec3b9586f653f97346e19ab2c",
    "answer_direct.txt": "e427ff913456e51a132ec865b1b5038d562bdc36890976943ad421cc9b365c9d",
    "answer_merge_cot.txt": "aa840fef33fe11024fd541dfcc9b2be22b1a5ac036a8e64401719fabebc69786",
    "answer_merge_direct.txt": "ee2c5cc64b363b420f014ed1655db0cbb105079edd16dd20adf609b6aa1a9bc7",
    "answer_noretrieval_cot.txt": "87fbea339174fb15f08e3b0b85781e9127c524a4024b91575403d7a647329ded",
    "answer_noretrieval_direct.txt": "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a",
    "answer_replace_cot.txt": "0fd27f00495a2ddfaf661b4e6bdb0550ca3fc72d343513139a268edda06f1e4d",
    "answer_replace_direct.txt": "00410c8193a84a2bdb96f86ea1c806ccdc6379f6144060ab03a5fa195f32009e",
    "judge_abstention.txt": "5c0b365a1e1d06db36377c735432b56e122ca3c428f89faf61d43a0d5a7e050b",
    "judge_knowledge-update.txt": "183a9b3a6197ec620940f610cdc1207201ec98c1113dd633ea685cfc322fafac",
    "judge_multi-session.txt": "fba020ba3d57982efdc9a937c1c01f897b789a608c7f88e60244121f6505e5bc",
    "judge_single-session-assistant.txt": "fba020ba3d57982efdc9a937c1c01f897b789a608c7f88e60244121f6505e5bc",
    "judge_single-session-preference.txt": "741ee3bcbea7ff5e8ed359acef61d2f8ded3de021bbcff6ee13de455f2e2aa9b",
    "judge_single-session-user.txt": "fba020ba3d57982efdc9a937c1c01f897b789a608c7f88e60244121f6505e5bc",
    "judge_temporal-reasoning.txt": "8d33a5fdd83afeeb4592454a965eab43d1fcb2dedc042d1d3892f4254be6c273",
}

QUESTION_TYPES = (
    "single-session-user", "single-session-preference", "single-session-assistant",
    "multi-session", "temporal-reasoning", "knowledge-update",
)
"""The six types, in the order `print_qa_metrics.py` prints them."""

CON_NOTE_TEMPLATE = "answer_con_note.txt"
_EXPANSION_KINDS = {"none": "", "merge": "merge_", "replace": "replace_"}


def load_templates(folder: Path) -> dict[str, str]:
    """Every official LongMemEval prompt file of `folder` by name, checked against its pin."""
    return read_pinned(Path(folder), TEMPLATE_SHA256)


def judge_template_name(question_type: str, question_id: str) -> str:
    if "_abs" in question_id:
        return "judge_abstention.txt"
    if question_type not in QUESTION_TYPES:
        raise BadInput(f"question_type {question_type!r} has no official judge prompt; "
                       f"LongMemEval has {', '.join(QUESTION_TYPES)}", field="question_type")
    return f"judge_{question_type}.txt"


def reader_template_name(*, retrieval: bool, cot: bool, expansion: str = "none") -> str:
    """The reader template `prepare_prompt` picks for these settings."""
    style = "cot" if cot else "direct"
    if not retrieval:
        return f"answer_noretrieval_{style}.txt"
    if expansion not in _EXPANSION_KINDS:
        raise BadInput(f"merge_key_expansion_into_value {expansion!r} is not none, merge or "
                       "replace", field="merge_key_expansion_into_value")
    return f"answer_{_EXPANSION_KINDS[expansion]}{style}.txt"
