"""LoCoMo's official protocol: the RAG dialog-mode QA call of `evaluate_gpts.py` over what the memory
recalled, scored by the official token F1, with an LLM judge beside it as a labelled second scorer.

Answering (`LoCoMoAnswerModel`), as `get_gpt_answers` does in RAG dialog mode with batch size 1:
the recalled turns in rank order, each `<session date-time>: <speaker> said, "<text>"`, joined by
newlines (`prompts.rag_dialog_context`; the official RAG mode shows no image captions and no start
prompt), then "\\n\\n" and the QA prompt filled with the question: category 2 with its date
suffix, category 5 with the forced choice between "not mentioned" and the released answer
(`prompts.build_query`). The official code draws the order of the two options with an unseeded
`random.random() < 0.5`; here it is drawn from the question id (`not_mentioned_first`), so a run
is repeatable and its prompt can be rebuilt. One message (user; system for gpt-3.5 models),
temperature 0, `max_tokens` 32, n 1; the reply is stripped and a category-5 reply is mapped
through `get_cat_5_answer` (`prompts.cat5_choice`). The session date-time is written back from
the document's timestamp the way the release writes it (`loader.format_session_datetime`). An
empty reply is an operational failure here (the official script would score "" as 0).

Scoring: `TokenF1Scorer` is the official per-item score (`scoring.score_item`, category rules
included) of the recorded answer, with no model call; the verdict is "correct" only for full
credit (score 1), and the score itself goes on `Judged.score`, so the report folds the official
statistics (`report.py`). The second scorer is an LLM judge over the same answers (benchledger's
typed judge, or the offline lexical judge in an offline run), recorded under the method
`locomo-llm-judge`: the judge-based score memory-system papers report, never LoCoMo's own.
"""

from __future__ import annotations

import hashlib

from benchledger.adapters.benchmarks.base import Dataset, Prompts, Question
from benchledger.adapters.benchmarks.locomo.loader import (
    CAT5_ANSWER, CATEGORY_NUMBERS, format_session_datetime,
)
from benchledger.adapters.benchmarks.locomo.prompts import (
    MAX_TOKENS, OFFICIAL_SHA256, TEMPERATURE, TEMPLATE_FILES, Templates, Turn, build_query, cat5_choice,
    official_messages, rag_dialog_context,
)
from benchledger.adapters.benchmarks.locomo.scoring import score_item
from benchledger.adapters.benchmarks.official import OfficialProtocol
from benchledger.adapters.benchmarks.official_prompts import sha256_of
from benchledger.adapters.memory.protocol import Candidate
from benchledger.adapters.models.abstention import is_abstention
from benchledger.adapters.models.base import Answer, AnswerModel, JudgeModel, Verdict
from benchledger.adapters.models.factory import ModelContext
from benchledger.adapters.models.method_judge import MethodJudge
from benchledger.adapters.models.offline import OFFLINE_JUDGE
from benchledger.adapters.models.openai_chat import ChatClient
from benchledger.adapters.models.typed import TypedJudgeModel

__all__ = ["F1_METHOD", "LLM_JUDGE_METHOD", "F1_SCORER", "LoCoMoOfficial", "LoCoMoAnswerModel", "TokenF1Scorer",
           "not_mentioned_first", "category_of"]

F1_METHOD = "locomo-f1"
LLM_JUDGE_METHOD = "locomo-llm-judge"
F1_SCORER = "locomo-token-f1"
"""The name the token-F1 scorer records as its judge: a rule, not a model."""


def category_of(question: Question) -> int:
    """The released category number of a LoCoMo question (from its kind)."""
    return CATEGORY_NUMBERS[question.kind]


def not_mentioned_first(question_id: str) -> bool:
    """Whether option (a) is "not mentioned": a fair coin drawn from the question id, stable across runs."""
    return hashlib.sha256(question_id.encode("utf-8")).digest()[0] % 2 == 0


def _templates(texts: dict[str, str]) -> Templates:
    return Templates(**{field: texts[name] for field, name in TEMPLATE_FILES.items()})


class LoCoMoAnswerModel:
    """The official RAG dialog-mode QA call over the recalled turns."""

    offline = False

    def __init__(self, client: ChatClient, model: str, templates: dict[str, str]) -> None:
        self.client, self.name, self.texts = client, model, templates
        self.strings = _templates(templates)
        self.prompt_hashes = {name: sha256_of(text) for name, text in templates.items()}

    def query(self, question: Question, context: list[Candidate]):
        """The official query for a question over its recalled turns (prompt and category-5 options)."""
        retrieved = [(format_session_datetime(c.passage.timestamp) if c.passage.timestamp else "",
                      Turn(c.passage.author or "", c.passage.text))
                     for c in sorted(context, key=lambda c: c.rank)]
        return build_query(rag_dialog_context(retrieved), question.text, category_of(question),
                           question.extra.get(CAT5_ANSWER, ""), self.strings,
                           not_mentioned_first=not_mentioned_first(question.question_id))

    def answer(self, question: Question, context: list[Candidate], prompts: Prompts | None) -> Answer:
        query = self.query(question, context)
        result = self.client.complete(model=self.name, messages=official_messages(self.name, query.prompt),
                                      params={"temperature": TEMPERATURE, "max_tokens": MAX_TOKENS, "n": 1})
        prediction = result.text if query.cat5_options is None else cat5_choice(result.text, query.cat5_options)
        prediction = str(prediction).strip()
        return Answer(answer=prediction, abstained=is_abstention(prediction), raw=result.text, model=result.model,
                      usage=result.usage, cache_hit=result.cache_hit, latency_ms=result.latency_ms)


class TokenF1Scorer:
    """LoCoMo's official per-item score of a recorded answer; no model is asked."""

    name = F1_SCORER
    offline = False
    asks_model = False
    method = F1_METHOD
    prompt_hashes: dict[str, str] = {}

    def judge(self, question: Question, answer: Answer, prompts: Prompts | None) -> Verdict:
        category = category_of(question)
        score = score_item(answer.answer, question.gold, category)
        return Verdict(verdict="correct" if score == 1 else "incorrect",
                       reason=f"category {category}: official score {float(score):.4f}", model=self.name,
                       score=float(score))


class LoCoMoOfficial(OfficialProtocol):
    benchmark = "LoCoMo"
    summary = ("snap-research/locomo @ 9228632 evaluate_gpts.py, RAG dialog mode: the official QA prompt, "
               "temperature 0, 32 tokens; scored by the official token F1 per category")
    template_pins = OFFICIAL_SHA256
    template_source = ("snap-research/locomo @ 92286325, branch code, task_eval/evaluate_gpts.py; the copy in "
                       "../shared/data/locomo/prompts")
    scorer_methods = (F1_METHOD, LLM_JUDGE_METHOD)
    template_free_methods = (F1_METHOD,)

    def official_answerer(self, client: ChatClient, model: str, templates, dataset: Dataset) -> AnswerModel:
        return LoCoMoAnswerModel(client, model, dict(templates))

    def scorer(self, context: ModelContext, templates, method: str) -> JudgeModel:
        if method == F1_METHOD:
            return TokenF1Scorer()
        judge_name = context.judge_name()
        llm: JudgeModel = (context.offline_judge() if judge_name == OFFLINE_JUDGE
                           else TypedJudgeModel(context.client(), judge_name))
        return MethodJudge(llm, LLM_JUDGE_METHOD)
