"""LongMemEval's official protocol: the reader prompt of `run_generation.py` over what the memory
recalled, judged by `evaluate_qa.py`'s per-type prompts and read as it reads them.

Answering (`LongMemEvalReader`): the recalled turns become the official flat-turn chunks, each the
recalled turn and the turn after it in its session (`reader.py`: a ranked turn and the next one,
as the official index pairs them), in rank order; `reader_prompt` sorts them by their session
date string, renders each as JSON (`history_format` json), and fills the chain-of-thought reader
template (`answer_cot.txt`, the official run script's default) with the history, the question
date and the question. Dates are written back from the documents' timestamps the way the release
writes them. One user message, n 1, temperature 0, `max_tokens` 800 (the cot generation length);
the answer is the reply stripped. The official script truncates a history longer than the model's
context; benchledger leaves that to the run's `--token-budget` on recall. With nothing recalled
the history is empty.

Judging (`LongMemEvalJudge`, method `longmemeval-judge`): `judge.judge_request` for the question's
type (`judge_abstention.txt` for an `_abs` id), one user message, n 1, temperature 0,
`max_tokens` 10; the label is `'yes' in reply.strip().lower()`. The judge defaults to the official
`gpt-4o-2024-08-06` (the `gpt-4o` alias is mapped as `evaluate_qa.py` maps it).
"""

from __future__ import annotations

from benchledger.adapters.benchmarks.base import Dataset, Document, Prompts, Question
from benchledger.adapters.benchmarks.longmemeval.corpus_ids import haystack_position
from benchledger.adapters.benchmarks.longmemeval.judge import (
    JUDGE_MODEL_ALIASES, OFFICIAL_JUDGE_MODEL, judge_label, judge_request,
)
from benchledger.adapters.benchmarks.longmemeval.loader import format_longmemeval_date
from benchledger.adapters.benchmarks.longmemeval.prompts import TEMPLATE_SHA256, reader_template_name
from benchledger.adapters.benchmarks.longmemeval.reader import Chunk, ReaderSettings, reader_prompt, reader_request
from benchledger.adapters.benchmarks.official import OfficialProtocol
from benchledger.adapters.benchmarks.official_prompts import fill_positional, sha256_of
from benchledger.adapters.memory.protocol import Candidate
from benchledger.adapters.models.abstention import is_abstention
from benchledger.adapters.models.base import Answer, AnswerModel, JudgeModel, Verdict
from benchledger.adapters.models.factory import ModelContext
from benchledger.adapters.models.offline import OFFLINE_JUDGE
from benchledger.adapters.models.method_judge import MethodJudge
from benchledger.adapters.models.openai_chat import ChatClient

__all__ = ["JUDGE_METHOD", "LongMemEvalOfficial", "LongMemEvalReader", "LongMemEvalJudge", "recalled_chunks"]

JUDGE_METHOD = "longmemeval-judge"
READER = ReaderSettings(retriever_type="flat-turn", topk_context=10**6, cot=True)
"""The reader's settings: flat-turn chunks (what a memory recalls are turns), JSON history, cot."""


def _date(document: Document) -> str:
    return format_longmemeval_date(document.timestamp) if document.timestamp else ""


def recalled_chunks(context: list[Candidate], scope: tuple[Document, ...]) -> list[Chunk]:
    """The flat-turn chunks of the recalled turns in rank order: each turn and the next of its session."""
    by_place = {place: doc for doc in scope if (place := haystack_position(doc.doc_id)) is not None}
    chunks = []
    for candidate in sorted(context, key=lambda c: c.rank):
        # Derived text (a fact) is no haystack turn: the official chunking has no place for it.
        place = haystack_position(candidate.document.doc_id) if candidate.document is not None else None
        if place is None:
            continue
        pair = [doc for turn in (place[1], place[1] + 1) if (doc := by_place.get((place[0], turn))) is not None]
        chunks.append(Chunk(_date(pair[0]), [{"role": d.role or d.author or "", "content": d.text} for d in pair]))
    return chunks


def _texts_hashes(templates) -> tuple[dict[str, str], dict[str, str]]:
    texts = dict(templates)
    return texts, {name: sha256_of(text) for name, text in texts.items()}


class LongMemEvalReader:
    """The official reader call over the recalled turns."""

    offline = False

    def __init__(self, client: ChatClient, model: str, templates, dataset: Dataset) -> None:
        self.client, self.name = client, model
        self.texts, self.prompt_hashes = _texts_hashes(templates)
        self.scopes = dataset.scopes

    def prompt(self, question: Question, context: list[Candidate]) -> str:
        chunks = recalled_chunks(context, self.scopes.get(question.scope_key, ()))
        entry = {"question": question.text,
                 "question_date": format_longmemeval_date(question.question_time) if question.question_time else ""}
        if not chunks:  # nothing recalled: the history is empty
            template = self.texts[reader_template_name(retrieval=True, cot=READER.cot)]
            return fill_positional(template, "", entry["question_date"], entry["question"])
        return reader_prompt(chunks, entry, READER, self.texts)

    def answer(self, question: Question, context: list[Candidate], prompts: Prompts | None) -> Answer:
        request = reader_request(self.name, self.prompt(question, context), cot=READER.cot,
                                 question_id=question.question_id)
        call = request.create_kwargs()
        result = self.client.complete(model=call.pop("model"), messages=call.pop("messages"), params=call)
        text = result.text.strip()
        return Answer(answer=text, abstained=is_abstention(text), raw=result.text, model=result.model,
                      usage=result.usage, cache_hit=result.cache_hit, latency_ms=result.latency_ms)


class LongMemEvalJudge:
    """`evaluate_qa.py`'s judge: the type's prompt, ten tokens, 'yes' anywhere in the reply."""

    offline = False
    method = JUDGE_METHOD

    def __init__(self, client: ChatClient, model: str, templates) -> None:
        self.client, self.name = client, JUDGE_MODEL_ALIASES.get(model, model)
        self.templates, self.prompt_hashes = _texts_hashes(templates)

    def judge(self, question: Question, answer: Answer, prompts: Prompts | None) -> Verdict:
        reference = {"question_id": question.question_id, "question_type": question.kind,
                     "question": question.text, "answer": question.gold}
        call = judge_request(self.templates, reference, answer.answer, model=self.name).create_kwargs()
        result = self.client.complete(model=call.pop("model"), messages=call.pop("messages"), params=call)
        label = judge_label(result.text)
        return Verdict(verdict="correct" if label else "incorrect", reason=result.text.strip(), raw=result.text,
                       model=result.model, usage=result.usage, cache_hit=result.cache_hit,
                       latency_ms=result.latency_ms)


class LongMemEvalOfficial(OfficialProtocol):
    benchmark = "LongMemEval"
    summary = ("xiaowu0162/LongMemEval @ 9e0b455: the chain-of-thought reader prompt over flat-turn chunks; "
               "evaluate_qa.py's per-type judge (gpt-4o-2024-08-06), print_qa_metrics")
    template_pins = TEMPLATE_SHA256
    template_source = ("xiaowu0162/LongMemEval @ 9e0b455, src/evaluation/evaluate_qa.py and "
                       "src/generation/run_generation.py; the copy in ../shared/data/longmemeval/prompts")
    scorer_methods = (JUDGE_METHOD,)

    def official_answerer(self, client: ChatClient, model: str, templates, dataset: Dataset) -> AnswerModel:
        return LongMemEvalReader(client, model, templates, dataset)

    def scorer(self, context: ModelContext, templates, method: str) -> JudgeModel:
        name = context.judge_name(official=OFFICIAL_JUDGE_MODEL)
        if name == OFFLINE_JUDGE:
            return MethodJudge(context.offline_judge(), JUDGE_METHOD)
        return LongMemEvalJudge(context.client(), name, templates)
