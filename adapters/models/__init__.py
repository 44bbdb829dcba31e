"""Models that answer and judge: the OpenAI-compatible client and deterministic offline ones.

`build_models` (factory) turns run options into an (answer, judge) pair; `reference` and `typed`
are the two call protocols; `offline` the deterministic models; `openai_chat` the client with
retries and the response cache; `loopback` a local OpenAI-compatible server for tests and benches.
"""

from benchledger.adapters.models.abstention import ABSTENTION_ANSWER, is_abstention
from benchledger.adapters.models.base import (
    Answer, AnswerModel, EmptyResponseError, JudgeModel, ModelError, ModelParseError,
    TransientModelError, Usage, Verdict,
)
from benchledger.adapters.models.factory import OFFLINE_NAMES, build_models
from benchledger.adapters.models.offline import OFFLINE_ANSWERER, OFFLINE_JUDGE
from benchledger.adapters.models.openai_chat import ChatClient, ChatResult
from benchledger.adapters.models.response_cache import InMemoryResponseCache, ResponseCache, cache_key, ledger_cache

__all__ = [
    "Answer", "AnswerModel", "JudgeModel", "ModelError", "Usage", "Verdict",
    "TransientModelError", "ModelParseError", "EmptyResponseError",
    "build_models", "OFFLINE_NAMES", "OFFLINE_ANSWERER", "OFFLINE_JUDGE",
    "ChatClient", "ChatResult", "ResponseCache", "InMemoryResponseCache", "ledger_cache", "cache_key",
    "ABSTENTION_ANSWER", "is_abstention",
]
