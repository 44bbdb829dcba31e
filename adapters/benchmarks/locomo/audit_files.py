"""The LoCoMo audit's files (dial481/locomo-audit @ 9493fb4b, CC BY-NC 4.0), read onto a LoCoMo run's questions.

The audit names a question `locomo_<c>_qa<k>`: `c` the conversation's position in
`locomo10.json` (`LOCOMO10_SAMPLE_IDS`), `k` the index into that conversation's full `qa` list
(category 5 included), which is exactly this adapter's `<sample_id>:q<k>`.

- Planted answers (`ap-baseline/v1|v2/ap_eval_results*.json`): `detailed_results` groups of
  `{question_id, question, golden_answer, generated_answer, ...}`, every answer deliberately wrong.
- Error records (`errors.json`): a list of `{question_id, question, golden_answer, category,
  error_type, correct_answer, ...}`. `WRONG_CITATION` records keep the official gold (the audit:
  they "do not affect scoring"). Of the other 99 (upstream), the forms the questions' records take
  are read from `RECORD_FORMS`: the 41 whose record says the question is wrong (premise_error),
  cannot be answered (not_determinable) or is disputed (contested) are left out of a corrected
  score; the rest give a replacement answer, with its dialog ids ("(D9:14)") stripped.

A file whose SHA-256 is one of `PINNED` is named as the audit's; any other is read the same way
and labelled as of unknown origin (a filtered copy, an edited one).
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import NamedTuple

from benchledger.adapters.benchmarks.json_source import line_of, read_json
from benchledger.errors import BadInput

__all__ = ["LOCOMO10_SAMPLE_IDS", "PINNED", "PINNED_KINDS", "RECORD_FORMS", "PlantedRow", "PlantedFile", "OverlayRow", "ErrorFile",
           "run_question_id", "read_planted_answers", "read_error_records", "strip_dialog_ids", "is_audit_file",
           "is_error_records"]

LOCOMO10_SAMPLE_IDS = ("conv-26", "conv-30", "conv-41", "conv-42", "conv-43", "conv-44", "conv-47", "conv-48",
                       "conv-49", "conv-50")
"""The conversations of `locomo10.json` in release order (the audit's `<c>`)."""

PINNED = {
    "f298ef46263fada20688a1d672be37d4f488c6da3b19343eea55ae5c1b5fe55e": "locomo-audit errors.json @ 9493fb4b",
    "080338f63c229d36b2a177cf4c0720a47aedff830f8202c908c40412d76f5feb": "locomo-audit ap-baseline v1 (specific-but-wrong)",
    "a83882eda3ff02fd04dace6edddd0ceed533a245fedb3069ffde02a9503c4e3a": "locomo-audit ap-baseline v1 (specific-but-wrong)",
    "3118fcc86f683d32e0b7294f65345ff8d612e74bd8d5da9af82627d12b82810a": "locomo-audit ap-baseline v2 (vague-but-topical)",
    "3c32acbdcf667967a4e1f9f541b06566ae5e7361dc92f79f9043af7d068adc6b": "locomo-audit ap-baseline v2 (vague-but-topical)",
}
"""SHA-256 of the audit's upstream files at 9493fb4b -> what they are."""
PINNED_KINDS = {sha: "specific_but_wrong" if "v1" in label else "vague_but_topical"
                for sha, label in PINNED.items() if "ap-baseline" in label}
"""The pinned planted-answer files -> the kind of plant they hold."""

_PREMISE = ("0_qa26 0_qa94 0_qa135 1_qa57 1_qa63 2_qa68 2_qa69 3_qa73 3_qa119 4_qa74 4_qa86 4_qa136 4_qa165 6_qa11 "
            "6_qa37 6_qa61 6_qa88 7_qa116 7_qa123 7_qa174 7_qa179 8_qa4 8_qa24 8_qa102 8_qa103 8_qa144 9_qa72 "
            "9_qa88 9_qa151")
_NOT_DETERMINABLE = "0_qa144 3_qa4 3_qa66 4_qa128 6_qa17 9_qa137 9_qa147"
_CONTESTED = "0_qa77 2_qa63 5_qa4 5_qa18 5_qa41"
RECORD_FORMS: dict[str, str] = {
    **{f"locomo_{i}": "premise_error" for i in _PREMISE.split()},
    **{f"locomo_{i}": "not_determinable" for i in _NOT_DETERMINABLE.split()},
    **{f"locomo_{i}": "contested" for i in _CONTESTED.split()},
}
"""Score-corrupting records that give no answer to the question as asked, by the form of their
`correct_answer` (read record by record for the 99; every other one is a replacement)."""

_AUDIT_ID = re.compile(r"locomo_(\d+)_qa(\d+)")
_DIALOG_ID = re.compile(r"\bD\d+:\d+(?:\s*-\s*\d+)?\b")
_PAREN = re.compile(r"\s*\(([^()]*)\)")
_FILLER = re.compile(r"^(?:[\s,;.:\-–]|\b(?:per|from|in|at|see|as|and|unnamed|stated|by|said|"
                     r"[A-Z][a-z]+'s|own|words|actual)\b)*$")
_BARE = re.compile(r"\s*(?:\b(?:in|at|from|per)\s+)?\bD\d+:\d+(?:\s*-\s*\d+)?\b")


class PlantedRow(NamedTuple):
    question_id: str
    """The run's question id."""
    question: str
    answer: str
    judgments: tuple[bool, ...]
    """The file's own recorded verdicts on the answer (`llm_judgments`, True = judged correct); empty when unscored."""


class PlantedFile(NamedTuple):
    sha256: str
    label: str
    pinned: bool
    rows: list[PlantedRow]
    not_mapped: int
    """Rows naming a conversation outside locomo10.json's ten."""


class OverlayRow(NamedTuple):
    question_id: str
    """The run's question id."""
    question: str
    form: str
    """replacement, premise_error, not_determinable or contested."""
    gold: str
    """The replacement (dialog ids stripped) or '' when the question is left out."""


class ErrorFile(NamedTuple):
    sha256: str
    label: str
    pinned: bool
    rows: list[OverlayRow]


def run_question_id(audit_id: str) -> str | None:
    """`locomo_3_qa12` -> `conv-42:q12`; None when it names no conversation of locomo10.json."""
    match = _AUDIT_ID.fullmatch(audit_id)
    if match is None or int(match.group(1)) >= len(LOCOMO10_SAMPLE_IDS):
        return None
    return f"{LOCOMO10_SAMPLE_IDS[int(match.group(1))]}:q{match.group(2)}"


def strip_dialog_ids(text: str) -> str:
    """A corrected answer without its dialog ids: a parenthesis that only cites goes, one that
    says more keeps what it says; a bare id goes with the "in"/"per" that introduces it."""
    def paren(match: re.Match[str]) -> str:
        inner = match.group(1)
        if not _DIALOG_ID.search(inner):
            return match.group(0)
        rest = _BARE.sub("", inner).strip(" ,;:-–")
        if _FILLER.fullmatch(rest):
            return ""
        return f" ({' '.join(rest.split())})"
    text = _PAREN.sub(paren, text)
    text = _BARE.sub("", text)
    return " ".join(text.split()).replace(" ,", ",").replace(" .", ".").strip()


def _label(sha: str, path: Path) -> str:
    return PINNED.get(sha, f"{path.name} (not the audit's pinned file: of unknown origin)")


def is_error_records(value: object) -> bool:
    """True for the shape of the audit's errors.json (a list of records with an error_type)."""
    return isinstance(value, list) and bool(value) and all(isinstance(r, dict) and "error_type" in r for r in value[:1])


def is_audit_file(value: object) -> bool:
    """True for the shape of the audit's planted-answer files."""
    return isinstance(value, dict) and isinstance(value.get("detailed_results"), dict)


def read_planted_answers(path: Path) -> PlantedFile:
    """Every planted answer of an `ap_eval_results*.json`, keyed by the run's question ids."""
    value, text = read_json(path)
    sha = hashlib.sha256(path.read_bytes()).hexdigest()
    if not is_audit_file(value):
        raise BadInput("not the LoCoMo audit's planted-answers format (no detailed_results object)",
                       file=str(path), line=1, field="detailed_results")
    rows, not_mapped = [], 0
    for group, records in value["detailed_results"].items():
        if not isinstance(records, list):
            raise BadInput("expected a list of records", file=str(path), line=line_of(text, ("detailed_results", group)),
                           field=f"detailed_results.{group}")
        for index, record in enumerate(records):
            where = ("detailed_results", group, index)
            for name in ("question_id", "question", "generated_answer"):
                if not isinstance(record, dict) or not isinstance(record.get(name), str):
                    raise BadInput("missing or not a string", file=str(path), line=line_of(text, where),
                                   field=f"detailed_results.{group}[{index}].{name}")
            qid = run_question_id(record["question_id"])
            if qid is None:
                not_mapped += 1
                continue
            judged = record.get("llm_judgments")
            judgments = tuple(v for v in judged.values() if isinstance(v, bool)) if isinstance(judged, dict) else ()
            rows.append(PlantedRow(qid, record["question"], record["generated_answer"], judgments))
    return PlantedFile(sha, _label(sha, path), sha in PINNED, rows, not_mapped)


def read_error_records(path: Path) -> ErrorFile:
    """The score-corrupting records of an `errors.json`, keyed by the run's question ids."""
    value, text = read_json(path)
    sha = hashlib.sha256(path.read_bytes()).hexdigest()
    if not isinstance(value, list):
        raise BadInput("expected a JSON list of error records", file=str(path), line=1)
    rows = []
    for index, record in enumerate(value):
        for name in ("question_id", "question", "error_type", "correct_answer"):
            if not isinstance(record, dict) or not isinstance(record.get(name), str):
                raise BadInput("missing or not a string", file=str(path), line=line_of(text, (index,)),
                               field=f"[{index}].{name}")
        if record["error_type"] == "WRONG_CITATION":
            continue
        qid = run_question_id(record["question_id"])
        if qid is None:
            raise BadInput(f"question_id {record['question_id']!r} names no LoCoMo-10 question", file=str(path),
                           line=line_of(text, (index,)), field=f"[{index}].question_id")
        form = RECORD_FORMS.get(record["question_id"], "replacement")
        gold = strip_dialog_ids(record["correct_answer"]) if form == "replacement" else ""
        rows.append(OverlayRow(qid, record["question"], form, gold))
    return ErrorFile(sha, _label(sha, path), sha in PINNED, rows)
