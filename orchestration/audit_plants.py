"""Planted answers whose verdict is known, derived from each question's gold and the run's recalled context.

Pure and deterministic (`PLANTS_VERSION` versions the rules): the same plan and recalls give the
same plants byte for byte, so an audit can be re-asked and two judges compared on the same items.
For a question that expects an answer:

| kind | the planted answer | it deserves |
|---|---|---|
| specific_wrong_other | another question's gold of the same kind, sharing no content word with this gold | incorrect |
| specific_wrong_altered | the gold with its first number, year, month, weekday or name changed | incorrect |
| vague_topical | "Something to do with <the question's topic>", none of the gold's words in it | incorrect |
| refusal | a refusal: the conversation does not say | incorrect |
| gold_restated | "The answer is <gold>." | correct |

For a question that expects abstention: `answer_on_abstention`, the first sentence of the top
recalled passage offered as the answer (incorrect: the benchmark wants the system to abstain).
A question where a rule finds nothing to plant (no other gold of its kind, no fact to change, no
recalled text) is skipped and counted by reason, never given a weaker plant.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Literal, NamedTuple

from benchledger.adapters.models.offline import STOP_WORDS, content_terms
from benchledger.values import Question

__all__ = ["PLANTS_VERSION", "PLANT_KINDS", "Plant", "Plants", "derive_plants", "REFUSAL"]

PLANTS_VERSION = 1
PLANT_KINDS = ("specific_wrong_other", "specific_wrong_altered", "vague_topical", "refusal",
               "answer_on_abstention", "gold_restated")
REFUSAL = "I don't know: the conversation does not say."

_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")
_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_NUMBER_WORDS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve")
_YEAR = re.compile(r"\b(19|20)\d\d\b")
_NUMBER = re.compile(r"\b\d+\b")
_NAME = re.compile(r"\b[A-Z][a-z]{2,}\b")
_WORD = re.compile(r"[A-Za-z0-9']+")
_QUESTION_WORDS = frozenset("what which who whom whose when where why how kind type sort did does do is are was "
                            "were has have had".split())
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_PASSAGE_HEAD = re.compile(r"\A\[\d+\]\s*(?:\[[^\]\n]*\]\s*)?")


class Plant(NamedTuple):
    plant_id: str
    """"<kind>:<question id>"."""
    question_id: str
    kind: str
    answer: str
    expected: Literal["correct", "incorrect"]


class Plants(NamedTuple):
    plants: list[Plant]
    skipped: dict[str, int]
    """reason -> questions a rule found nothing to plant for."""


def _order(seed: str, key: str) -> str:
    return hashlib.sha256(f"{seed}\x00{key}".encode()).hexdigest()


def _other_gold(question: Question, same_kind: Sequence[Question]) -> str | None:
    """Another question's gold of the same kind that shares no content word with this gold (a stable
    pseudo-random pick, so consecutive questions about one topic do not feed each other)."""
    own = content_terms(question.gold)
    for other in sorted(same_kind, key=lambda o: _order(question.question_id, o.question_id)):
        if other.question_id == question.question_id or not other.gold.strip():
            continue
        if own & content_terms(other.gold) or other.gold.strip().lower() == question.gold.strip().lower():
            continue
        return other.gold
    return None


def _swap(text: str, match: re.Match[str], new: str) -> str:
    return text[:match.start()] + new + text[match.end():]


def _altered(gold: str, context: str) -> str | None:
    """The gold with its first year, month, weekday, number or name changed; None when it has none."""
    if year := _YEAR.search(gold):
        return _swap(gold, year, str(int(year.group()) - 1))
    for names in (_MONTHS, _DAYS):
        if found := re.search(r"\b(" + "|".join(names) + r")\b", gold):
            return _swap(gold, found, names[(names.index(found.group()) + 1) % len(names)])
    if number := _NUMBER.search(gold):
        return _swap(gold, number, str(int(number.group()) + 1))
    if word := re.search(r"\b(" + "|".join(_NUMBER_WORDS) + r")\b", gold, flags=re.IGNORECASE):
        index = _NUMBER_WORDS.index(word.group().lower())
        return _swap(gold, word, _NUMBER_WORDS[(index + 1) % len(_NUMBER_WORDS)])
    if name := _NAME.search(gold):
        taken = {n.lower() for n in _NAME.findall(gold)}
        counts = Counter(n for n in _NAME.findall(context) if n.lower() not in taken and n not in _MONTHS + _DAYS
                         and n.lower() not in STOP_WORDS)
        if counts:
            other = sorted(counts.items(), key=lambda item: (-item[1], item[0]))[0][0]
            return _swap(gold, name, other)
    return None


def _vague(question: Question) -> str | None:
    """The question's topic without its fact: its own words, minus question words and the gold's words."""
    gold = content_terms(question.gold)
    words = [w for w in _WORD.findall(question.text)
             if w.lower() not in STOP_WORDS and w.lower() not in _QUESTION_WORDS and not (content_terms(w) & gold)]
    return f"Something to do with {' '.join(words)}." if words else None


def _first_sentence(context: str) -> str | None:
    """The first sentence of the top recalled passage (its rank and header stripped)."""
    top = context.split("\n\n", 1)[0]
    top = _PASSAGE_HEAD.sub("", top).strip()
    lines = [line for line in top.splitlines() if line.strip()]
    if not lines:
        return None
    sentence = _SENTENCE.split(lines[-1].strip())[0].strip()
    return sentence[:300] or None


def derive_plants(questions: Sequence[Question], contexts: Mapping[str, str]) -> Plants:
    """The plants of every answered question (`contexts`: question id -> the recalled context as the
    answer model saw it; a question without one was not answered and gets no plant)."""
    by_kind: dict[str, list[Question]] = {}
    for question in questions:
        if not question.abstention:
            by_kind.setdefault(question.kind, []).append(question)
    plants: list[Plant] = []
    skipped: Counter[str] = Counter()

    def plant(question: Question, kind: str, answer: str | None, expected: Literal["correct", "incorrect"],
              missing: str) -> None:
        if answer is None:
            skipped[f"{kind}: {missing}"] += 1
            return
        plants.append(Plant(f"{kind}:{question.question_id}", question.question_id, kind, answer, expected))

    for question in questions:
        if question.question_id not in contexts:
            continue
        context = contexts[question.question_id]
        if question.abstention:
            plant(question, "answer_on_abstention", _first_sentence(context), "incorrect", "nothing recalled")
            continue
        plant(question, "specific_wrong_other", _other_gold(question, by_kind[question.kind]), "incorrect",
              "no other gold of its kind shares no word with it")
        plant(question, "specific_wrong_altered", _altered(question.gold, context), "incorrect",
              "no number, date or name to change")
        plant(question, "vague_topical", _vague(question), "incorrect", "the question has no topic words of its own")
        plant(question, "refusal", REFUSAL, "incorrect", "")
        plant(question, "gold_restated", f"The answer is {question.gold.strip().rstrip('.')}.", "correct", "")
    return Plants(plants, dict(sorted(skipped.items())))
