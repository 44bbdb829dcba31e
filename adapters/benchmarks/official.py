"""A benchmark's official protocol: its pinned templates, its answer model and its scorers.

A benchmark that runs under `--protocol official` declares one `OfficialProtocol` (in its folder,
on its `Benchmark.official`). It says which template files its official code fills (pinned by
SHA-256, never copied into this repository: their licences differ) and where to get them, and it
opens, from a `ModelContext`, the answer model and the scorers its official evaluation uses. The
first scorer is the official one; any others are labelled companions that run over the same
answers (LoCoMo's LLM judge beside its token F1).

The templates are read once from a folder (`read_templates`: every pinned file, exact bytes,
checked; one line naming the missing or changed file and where the official ones come from).
A run records their hashes on RunStarted and their texts as blobs, so resume and rejudge read
them back from the ledger (`templates_from`) and need no files.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from benchledger.adapters.benchmarks.official_prompts import read_pinned
from benchledger.errors import BadInput

if TYPE_CHECKING:
    from benchledger.adapters.benchmarks.base import Dataset
    from benchledger.adapters.models.base import AnswerModel, JudgeModel
    from benchledger.adapters.models.factory import ModelContext
    from benchledger.adapters.models.openai_chat import ChatClient

__all__ = ["OfficialProtocol", "Templates"]

Templates = Mapping[str, str]
"""File name -> exact text of an official template."""


class OfficialProtocol(ABC):
    """How a benchmark is run and scored as its own evaluation code does it."""

    benchmark: ClassVar[str]
    """The benchmark's name, for messages."""
    summary: ClassVar[str]
    """One line: which official code, which mode (reports and `benchledger benchmarks` show it)."""
    template_pins: ClassVar[Mapping[str, str]]
    """Template file name -> SHA-256 of the official bytes."""
    template_source: ClassVar[str]
    """Where the official templates come from, for the message when they are missing."""
    scorer_methods: ClassVar[tuple[str, ...]]
    """The methods of the scorers `scorers` opens, in order (the first is the official scorer)."""
    template_free_methods: ClassVar[tuple[str, ...]] = ()
    """Methods whose scorer fills no template (LoCoMo's token F1): rescoring with them needs no files."""
    is_official: ClassVar[bool] = True
    """False for a procedure that is not the benchmark's own code (the `paper` protocol of a benchmark
    whose authors publish no scorer): its scorers are never recorded as official."""

    @property
    def official_method(self) -> str:
        return self.scorer_methods[0]

    @property
    def recorded_official_method(self) -> str | None:
        """The method a scorer must have to be recorded as official (None: none is)."""
        return self.official_method if self.is_official else None

    def read_templates(self, folder: Path) -> dict[str, str]:
        """Every pinned template of `folder`, checked; BadInput naming the file and where to get it."""
        try:
            return read_pinned(Path(folder), self.template_pins)
        except BadInput as err:
            raise BadInput(f"{self.benchmark}'s official prompts: {err}; pass --prompts-dir with the "
                           f"official files ({self.template_source})", field="prompts_dir") from None

    def templates_from(self, hashes: Mapping[str, str], blob: Callable[[str], bytes]) -> dict[str, str] | None:
        """The official templates a run or scorer recorded (file name -> hash, texts as blobs), or None
        when it recorded none of them."""
        found = {name: blob(digest).decode("utf-8") for name, digest in self.template_pins.items()
                 if hashes.get(name) == digest}
        return found or None

    def answer_model(self, context: ModelContext, templates: Templates, dataset: Dataset) -> AnswerModel:
        """The answer model: the offline answerer when no model is asked for, else `official_answerer`."""
        if context.offline_agent:
            return context.offline_answerer()
        return self.official_answerer(context.client(), context.agent_model, templates, dataset)

    @abstractmethod
    def official_answerer(self, client: ChatClient, model: str, templates: Templates, dataset: Dataset) -> AnswerModel:
        """The official prompt over the recalled context, sent and read as the official code does."""

    @abstractmethod
    def scorer(self, context: ModelContext, templates: Templates, method: str) -> JudgeModel:
        """The scorer of one of `scorer_methods`, carrying that `method`."""

    def scorers(self, context: ModelContext, templates: Templates) -> tuple[JudgeModel, ...]:
        """Every scorer of a run under this protocol, the official one first."""
        return tuple(self.scorer(context, templates, method) for method in self.scorer_methods)
