"""LoCoMo's official QA scorer, exactly as `task_eval/evaluation.py` behaves.

Source: snap-research/locomo @ 92286325 (branch `code`), `normalize_answer`, `f1_score`, `f1` and
`eval_question_answering`. Conformance quirks 1-5 and 9:

- `normalize_answer`: delete every "," first, lower-case, drop ASCII punctuation
  (`string.punctuation`; a typographic apostrophe stays), replace the words a/an/the/AND by a
  space (the `regex` module's word boundaries, as the official code uses), collapse whitespace.
- `f1_score`: token-multiset F1 over Porter-stemmed tokens (nltk's `PorterStemmer`, the reference
  is nltk 3.9.1); the integer 0 when nothing overlaps (so an empty side scores 0).
- Category 1 (`multi_answer_f1`): prediction and gold are split on "," BEFORE normalising; the
  mean over gold parts of the best `f1_score` over prediction parts, averaged the way `np.mean`
  sums (pairwise, below), so sums of scores are the official ones bit for bit.
- Categories 2 and 4: `f1_score`; category 3 first cuts the gold at its first ";".
- Category 5: 1 if the lower-cased prediction contains "no information available" or
  "not mentioned", else 0 (plain substrings: "Not-mentioned" and double spaces score 0).
- The gold is `str(answer)` (integers occur); the released category-5 items have no `answer`
  (quirk 7): their score does not depend on it.
- Evidence recall (`evidence_recall`): with no evidence the item's recall is 1; otherwise the
  first context id alone picks the mode: "S…" reads every id as a session and matches
  `ev.split(':')[0][1:]`, anything else matches evidence strings verbatim.

Scores keep the official types (int 0/1 or float) because the official printout shows sums as
Python prints them ("110" for category 5, "288.0" elsewhere).
"""

from __future__ import annotations

import string
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import regex

__all__ = [
    "CATEGORIES", "Score", "normalize_answer", "f1_score", "multi_answer_f1", "category5_score",
    "score_item", "evidence_recall", "numpy_mean",
]

CATEGORIES: tuple[int, ...] = (1, 2, 3, 4, 5)
Score = int | float
_PUNCTUATION = frozenset(string.punctuation)
_ARTICLES = regex.compile(r"\b(a|an|the|and)\b")
_ABSTAINED = ("no information available", "not mentioned")


@lru_cache(maxsize=1)
def _porter() -> Any:
    from nltk.stem.porter import PorterStemmer  # imported when first scored: nltk costs ~0.2 s at start-up

    return PorterStemmer()


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    return str(_porter().stem(word))


def normalize_answer(text: str) -> str:
    text = text.replace(",", "").lower()
    text = "".join(ch for ch in text if ch not in _PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", text).split())


def _stems(text: str) -> list[str]:
    return [_stem(word) for word in normalize_answer(text).split()]


def f1_score(prediction: str, ground_truth: str) -> Score:
    """Token F1 of the stemmed, normalised texts; the integer 0 without overlap."""
    predicted, gold = _stems(prediction), _stems(ground_truth)
    same = sum((Counter(predicted) & Counter(gold)).values())
    if same == 0:
        return 0
    precision = 1.0 * same / len(predicted)
    recall = 1.0 * same / len(gold)
    return (2 * precision * recall) / (precision + recall)


def _pairwise_sum(values: Sequence[float]) -> float:
    """numpy's pairwise summation of float64 (blocks of 8, 128 per leaf)."""
    n = len(values)
    if n < 8:
        total = 0.0
        for value in values:
            total += value
        return total
    if n <= 128:
        partial = [float(v) for v in values[:8]]
        index = 8
        while index < n - n % 8:
            for lane in range(8):
                partial[lane] += values[index + lane]
            index += 8
        total = ((partial[0] + partial[1]) + (partial[2] + partial[3])) + \
                ((partial[4] + partial[5]) + (partial[6] + partial[7]))
        for value in values[index:]:
            total += value
        return total
    half = n // 2
    half -= half % 8
    return _pairwise_sum(values[:half]) + _pairwise_sum(values[half:])


def numpy_mean(values: Sequence[Score]) -> float:
    """`np.mean` of a non-empty list of numbers, to the last bit."""
    return _pairwise_sum([float(v) for v in values]) / len(values)


def multi_answer_f1(prediction: str, ground_truth: str) -> float:
    """Category 1: mean over comma-separated gold parts of the best F1 over prediction parts."""
    predictions = [part.strip() for part in prediction.split(",")]
    golds = [part.strip() for part in ground_truth.split(",")]
    return numpy_mean([max(f1_score(p, gold) for p in predictions) for gold in golds])


def category5_score(prediction: str) -> int:
    lowered = prediction.lower()
    return 1 if any(phrase in lowered for phrase in _ABSTAINED) else 0


def score_item(prediction: str, answer: object, category: int) -> Score:
    """The official per-item score of a prediction against a released gold of a category."""
    gold = str(answer)
    if category == 3:
        gold = gold.split(";")[0].strip()
    if category in (2, 3, 4):
        return f1_score(prediction, gold)
    if category == 1:
        return multi_answer_f1(prediction, gold)
    if category == 5:
        return category5_score(prediction)
    raise ValueError(f"LoCoMo category {category!r} is not one of 1-5")


def evidence_recall(evidence: Sequence[str], context_ids: Sequence[str]) -> Score:
    """The official per-item RAG recall of the evidence by the retrieved context ids.

    With evidence but no context ids the official code fails (it reads the first id); here that
    is a recall of 0.0, as nothing was retrieved.
    """
    if not evidence:
        return 1
    if not context_ids:
        return 0.0
    if context_ids[0].startswith("S"):
        sessions = [context_id[1:] for context_id in context_ids]
        hits = sum(ev.split(":")[0][1:] in sessions for ev in evidence)
    else:
        hits = sum(ev in context_ids for ev in evidence)
    return float(hits) / len(evidence)
