"""Deterministic offline models: the whole path runs with no network, and says so.

Both are pure functions of their inputs and carry `offline = True`; a run that uses them is
diagnostic, never publishable.

`offline-extractive/1` answers from the recalled context only. It stems the question's content
words (question words and stop words removed), splits every passage into sentences, and answers
with the sentence sharing the largest fraction of those words (ties go to the better-ranked
passage, then the earlier sentence). Below `MIN_OVERLAP`, or with no context, it abstains with
`ABSTENTION_ANSWER`.

`offline-lexical-judge/1` compares normalised tokens (lowercase, punctuation removed, articles
dropped, as SQuAD does): an answer is correct when it contains at least `MIN_CONTAINMENT` of
the gold tokens or reaches token F1 `MIN_F1`. Figures come before overlap: an answer must state
every number, time and date the gold states, as a value (`adapters.models.quantities`: "9 PM" =
"21:00", "July 18, 2025" = "2025-07-18"), or it is incorrect whatever words it shares ("10 PM to
7 AM" against gold "9 PM to 8 AM"). The abstention rule comes first: on an abstention
question the answer is correct only when it abstains and invents nothing (`MAX_INVENTED`, zero:
no word that is neither in the question nor abstention wording); on any
other question an abstaining answer is incorrect.

On a Memora question (one with criteria) the judge answers each criterion with
`lexical_criterion`: the criterion's content terms (stemmed, without stop words and without the
wording every criterion shares: "does the response mention / say / recommend ...") are looked for
in the answer; the answer "mentions" the criterion when at least `MIN_CRITERION_COVERAGE` of them
are present (none are, when the answer abstains). The reply is yes when it mentions it, no
otherwise, and the other way round for a criterion that asks about avoiding something ("avoid",
"not", "never", "without"). The verdict follows `adapters.models.criteria.verdict_from_criteria`.

`extractive_answer`, `lexical_verdict` and `lexical_criterion` are exposed for the loopback
server, which answers with the same logic over HTTP.
"""

from __future__ import annotations

import re
import threading
from collections import Counter

import snowballstemmer
from benchledger.adapters.benchmarks.base import Prompts, Question
from benchledger.adapters.memory.protocol import Candidate
from benchledger.adapters.models.abstention import ABSTENTION_ANSWER, ABSTENTION_VOCABULARY, is_abstention
from benchledger.adapters.models.base import Answer, Verdict, VerdictLabel
from benchledger.adapters.models.criteria import CriterionJudgment, combine_judgments
from benchledger.adapters.models.quantities import quantities
from benchledger.values import OFFLINE_MODEL_PREFIX

__all__ = [
    "OFFLINE_ANSWERER", "OFFLINE_JUDGE", "OfflineExtractiveAnswerer", "OfflineLexicalJudge",
    "extractive_answer", "lexical_verdict", "lexical_criterion", "content_terms", "normalized_tokens",
    "MIN_OVERLAP", "MIN_CONTAINMENT", "MIN_F1", "MAX_INVENTED", "MIN_CRITERION_COVERAGE",
]

OFFLINE_ANSWERER = f"{OFFLINE_MODEL_PREFIX}extractive/1"
OFFLINE_JUDGE = f"{OFFLINE_MODEL_PREFIX}lexical-judge/1"
MIN_OVERLAP = 0.3
MIN_CONTAINMENT = 0.6
MIN_F1 = 0.5
MAX_INVENTED = 0
MIN_CRITERION_COVERAGE = 0.5

STOP_WORDS = frozenset(
    """a an the of in on at to for from by with about into over under after before during as and
    or but if then than so that this these those there here is are was were be been being am do
    does did doing have has had having will would shall should can could may might must it its
    i me my mine we us our ours you your yours he him his she her they them their what which who
    whom whose when where why how yyyy mm dd any all some each please tell current currently""".split()
)
_WORD = re.compile(r"[a-z0-9]+")
_SENTENCE_BREAK = re.compile(r"(?<=[.!?;])\s+|\n+")
_PUNCTUATION = re.compile(r"[^\w\s]|_")
_ARTICLES = frozenset({"a", "an", "the"})
_CRITERION_WORDING = """response answer reply mention mentions mentioned mentioning say says said
    state states stated recommend recommends recommended recommending recommendation suggest suggests
    suggested suggesting include includes included including refer refers note notes noted list
    lists indicate indicates acknowledge acknowledges tell tells told correctly explicitly""".split()
_AVOIDING = frozenset({"avoid", "avoids", "avoiding", "not", "never", "without", "refrain", "refrains"})
_local = threading.local()  # snowball stemmers keep state, so one per thread


def _stem(words: list[str]) -> list[str]:
    stemmer = getattr(_local, "stemmer", None)
    if stemmer is None:
        stemmer = _local.stemmer = snowballstemmer.stemmer("english")
    return stemmer.stemWords(words)


def content_terms(text: str) -> set[str]:
    """Stemmed words of a text without stop words and question words."""
    return set(_stem([w for w in _WORD.findall(text.lower()) if w not in STOP_WORDS]))


def normalized_tokens(text: str) -> list[str]:
    """Lowercase, punctuation removed, articles dropped, split on spaces (SQuAD's normalisation).

    Punctuation is removed rather than split on, so a date stays one token ("2025-07-18" ->
    "20250718") and "2025-07-17" shares nothing with it.
    """
    words = (_PUNCTUATION.sub("", word) for word in text.lower().split())
    return [w for w in words if w and w not in _ARTICLES]


def extractive_answer(question: str, passages: list[str]) -> str:
    """The best-overlapping sentence of the passages, or the abstention sentence."""
    wanted = content_terms(question)
    best: tuple[float, int, int] | None = None
    best_sentence = ""
    for passage_index, passage in enumerate(passages):
        for sentence_index, sentence in enumerate(_SENTENCE_BREAK.split(passage)):
            sentence = sentence.strip()
            if not sentence or not wanted:
                continue
            overlap = len(wanted & content_terms(sentence)) / len(wanted)
            rank = (overlap, -passage_index, -sentence_index)
            if best is None or rank > best:
                best, best_sentence = rank, sentence
    if best is None or best[0] < MIN_OVERLAP:
        return ABSTENTION_ANSWER
    return best_sentence


def lexical_verdict(*, question: str, gold: str, answer: str, abstention: bool,
                    abstained: bool = False) -> tuple[VerdictLabel, str]:
    """(verdict, reason) by the abstention rule, then token containment / F1 against gold."""
    abstains = abstained or is_abstention(answer)
    if abstention:
        allowed = ABSTENTION_VOCABULARY | STOP_WORDS | set(normalized_tokens(question))
        invented = sorted({w for w in normalized_tokens(answer) if w not in allowed})
        if abstains and len(invented) <= MAX_INVENTED:
            return "correct", "abstention question: the answer abstains and invents nothing"
        if not abstains:
            return "incorrect", "abstention question: the answer does not abstain"
        return "incorrect", f"abstention question: the answer also claims {' '.join(invented[:8])}"
    if abstains:
        return "incorrect", "the answer abstains but the question has an answer"
    missing = sorted(quantities(gold) - quantities(answer))
    if missing:
        return "incorrect", f"the answer does not state the gold's {', '.join(missing)}"
    gold_tokens, answer_tokens = normalized_tokens(gold), normalized_tokens(answer)
    if not gold_tokens:
        return "unclear", "the gold answer has no words to compare"
    common = sum((Counter(gold_tokens) & Counter(answer_tokens)).values())
    containment = common / len(gold_tokens)
    precision = common / len(answer_tokens) if answer_tokens else 0.0
    f1 = 2 * precision * containment / (precision + containment) if common else 0.0
    figures = f"containment={containment:.2f} f1={f1:.2f}"
    if containment >= MIN_CONTAINMENT or f1 >= MIN_F1:
        return "correct", figures
    return "incorrect", figures


def lexical_criterion(criterion: str, answer: str, *, abstained: bool = False) -> tuple[str, str]:
    """("yes" | "no", reason) for one Memora criterion about an answer, by term coverage."""
    words = _WORD.findall(criterion.lower())
    avoiding = any(w in _AVOIDING for w in words)
    terms = content_terms(" ".join(w for w in words if w not in _AVOIDING)) - set(_stem(_CRITERION_WORDING))
    if not terms:
        return "no", "the criterion names nothing to look for"
    present = set() if abstained or is_abstention(answer) else terms & content_terms(answer)
    mentions = len(present) / len(terms) >= MIN_CRITERION_COVERAGE
    figures = f"{len(present)}/{len(terms)} criterion terms in the answer"
    return ("yes" if mentions != avoiding else "no"), figures + (" (criterion asks for absence)" if avoiding else "")


class OfflineExtractiveAnswerer:
    """Answers with the recalled sentence that best matches the question; abstains otherwise."""

    name = OFFLINE_ANSWERER
    offline = True
    prompt_hashes: dict[str, str] = {}

    def answer(self, question: Question, context: list[Candidate], prompts: Prompts | None) -> Answer:
        passages = [candidate.text for candidate in sorted(context, key=lambda c: c.rank)]
        final = extractive_answer(question.text, passages)
        abstained = final == ABSTENTION_ANSWER
        raw = f"Offline extractive answer from {len(passages)} recalled passages.\nFinal: {final}"
        return Answer(answer=final, abstained=abstained, raw=raw, model=self.name)


class OfflineLexicalJudge:
    """Judges by normalised token overlap with gold, after the abstention rule."""

    name = OFFLINE_JUDGE
    offline = True
    prompt_hashes: dict[str, str] = {}

    def judge(self, question: Question, answer: Answer, prompts: Prompts | None) -> Verdict:
        if question.criteria:
            judgments = []
            for criterion in question.criteria:
                said, reason = lexical_criterion(criterion.question, answer.answer, abstained=answer.abstained)
                judgments.append(CriterionJudgment(criterion_id=criterion.criterion_id, answer=said,
                                                   reason=reason, raw=f"{reason}\nFinal: {said.capitalize()}",
                                                   model=self.name))
            return combine_judgments(question, judgments, model=self.name)
        verdict, reason = lexical_verdict(question=question.text, gold=question.gold, answer=answer.answer,
                                          abstention=question.abstention, abstained=answer.abstained)
        raw = f"{reason}\nFinal: {verdict.capitalize()}"
        return Verdict(verdict=verdict, reason=reason, raw=raw, model=self.name)
