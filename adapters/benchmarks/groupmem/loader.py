"""GroupMemBench adapter: a released domain folder validated into a `Dataset`.

Layout read unchanged (see `/work/shared/data/SOURCES.md`):
`<root>/data/final/<Domain>/synthetic_domain_channels_rolevariants_<Domain>.json` (channel ->
chronological messages), `<root>/questions/<Domain>/<kind>.jsonl`, and optionally
`<root>/prompts/agent_system.txt` + `judge_system.txt` (loaded into `Prompts` when both exist).

Choices worth knowing:
- Canonical order is the official loader's (`messages.order_key`): plain string order on
  (channel, timestamp as released, msg_node), so "Msg_184" < "Msg_28". `Document.position` is the
  index in that order over the whole release, so a message keeps its position whatever limit is
  applied, and the official BM25 ties and padding follow it. Content is `html.unescape`d once;
  the released timestamp string is kept in `Document.extra["timestamp"]` (passages show it
  verbatim); nothing else is rewritten.
- `is_noise` is a dataset annotation: it is not on the Documents a memory system ingests, only in
  `Dataset.annotations["is_noise"]` (the doc_ids so marked) for reports. The decision marker stays.
- `message_limit=N` keeps the N earliest messages (by time, then canonical position), still in
  canonical order. `question_limit=N` keeps the first N lines of each selected kind's file, in file
  order (so every kind stays represented).
- A `reply_to` naming a message that does not exist is kept as released, logged as one structlog
  warning (count and the first few) and counted in `release.dangling_replies`: the released
  data is read unchanged, and refusing it would make a whole domain unusable over one link.
- Released question ids are unique per kind ("multi_hop_3"); an id used in more than one selected
  kind is prefixed "<kind>:" so question ids stay unique in the dataset.
- Everything else that is wrong raises `BadInput` naming file, line and field before anything is
  returned, so a bad release never reaches a ledger or a memory system.
"""

from __future__ import annotations

import html
import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import structlog
from pydantic import ValidationError

from benchledger.adapters.benchmarks.base import Dataset, Document, Prompts, Question, ReleaseFacts
from benchledger.adapters.benchmarks.groupmem.files import (
    check_domain, line_at, read_text, scan_channels,
)
from benchledger.adapters.benchmarks.groupmem.messages import order_key
from benchledger.adapters.benchmarks.groupmem.schema import (
    ABSTENTION_GOLD, KINDS, SURROGATE_ESCAPE, RawMessage, RawQuestion, extras_as_strings,
    is_encodable,
)
from benchledger.adapters.benchmarks.groupmem.selection import GroupMemSelection
from benchledger.adapters.benchmarks.json_source import huge_integer
from benchledger.errors import BadInput

__all__ = [
    "ADAPTER_VERSION", "BENCHMARK", "KINDS", "ABSTENTION_GOLD", "SOLVABILITY_FILTERED_DOMAINS",
    "Corpus", "QuestionSet", "corpus_path", "questions_dir", "read_corpus", "read_questions",
    "read_prompts", "load_groupmem", "parse_question_file", "unknown_kind_files",
]

ADAPTER_VERSION = "groupmem/2"
BENCHMARK = "GroupMemBench"
SOLVABILITY_FILTERED_DOMAINS: tuple[str, ...] = ("Finance", "Technology")
_log = structlog.get_logger(__name__)


def corpus_path(root: Path, domain: str) -> Path:
    """Where the release keeps a domain's messages."""
    domain = check_domain(domain)
    return root / "data" / "final" / domain / f"synthetic_domain_channels_rolevariants_{domain}.json"


def questions_dir(root: Path, domain: str) -> Path:
    return root / "questions" / check_domain(domain)


def _first_error(err: ValidationError) -> tuple[str, str]:
    """(dotted location, message) of the first problem, with a count of the rest."""
    first = err.errors()[0]
    loc = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in first["loc"])
    more = f" (and {err.error_count() - 1} more)" if err.error_count() > 1 else ""
    return loc, first["msg"] + more


@dataclass(frozen=True)
class Corpus:
    """A domain's messages, validated and in canonical order."""

    path: Path
    channels: tuple[str, ...]
    documents: tuple[Document, ...]
    dangling_replies: int
    extra_fields: tuple[str, ...]
    noise: frozenset[str] = frozenset()
    """doc_ids the release marks `is_noise` (a dataset annotation, withheld from memory systems)."""


def read_corpus(root: Path, domain: str) -> Corpus:
    """Read and validate every message of a domain (BadInput on the first problem)."""
    path = corpus_path(root, domain)
    if not path.is_file():
        raise BadInput("corpus file is missing (download it from the GroupMemBench release)",
                       file=str(path))
    text = read_text(root, path)
    channels, positioned = scan_channels(text, path)
    raw: list[tuple[str, RawMessage]] = []
    seen: dict[str, str] = {}
    check_text = SURROGATE_ESCAPE.search(text) is not None
    for channel in channels if check_text else ():
        if not is_encodable(channel):
            raise BadInput("channel name is not valid Unicode (lone surrogate escape)",
                           file=str(path), field=f"channels[{json.dumps(channel)}]")
    for item in positioned:
        where = f"channels[{json.dumps(item.channel, ensure_ascii=False)}][{item.index}]"
        if not isinstance(item.value, dict):
            raise BadInput("a message must be a JSON object", file=str(path),
                           line=line_at(text, item.offset), field=where)
        try:
            message = RawMessage.model_validate(item.value)
        except ValidationError as err:
            loc, msg = _first_error(err)
            raise BadInput(msg, file=str(path), line=line_at(text, item.offset),
                           field=where + loc) from None
        if check_text and (name := message.unencodable_field()):
            raise BadInput("not valid Unicode (lone surrogate escape)", file=str(path),
                           line=line_at(text, item.offset), field=f"{where}.{name}")
        if message.msg_node in seen:
            raise BadInput(f"duplicate msg_node {message.msg_node!r} (first at {seen[message.msg_node]})",
                           file=str(path), line=line_at(text, item.offset), field=where + ".msg_node")
        seen[message.msg_node] = where
        raw.append((item.channel, message))
    raw.sort(key=lambda pair: order_key(pair[0], pair[1].timestamp, pair[1].msg_node))
    dangling = [(m.msg_node, m.reply_to) for _, m in raw if m.reply_to is not None
                and m.reply_to not in seen]
    if dangling:
        _log.warning("groupmem.dangling_replies", file=str(path), count=len(dangling),
                     first=[f"{node}->{target}" for node, target in dangling[:5]])
    extra_fields = sorted({key for _, m in raw for key in (m.model_extra or {})})
    documents = tuple(
        Document(
            doc_id=m.msg_node, text=html.unescape(m.content), author=m.author, role=m.role,
            channel=channel, reply_to=m.reply_to, timestamp=m.moment, phase=m.phase_name,
            topic=m.topic, is_decision=m.is_decision_point, position=index,
            extra={**extras_as_strings(m), "timestamp": m.timestamp},
        )
        for index, (channel, m) in enumerate(raw)
    )
    noise = frozenset(m.msg_node for _, m in raw if m.is_noise)
    return Corpus(path, tuple(channels), documents, len(dangling), tuple(extra_fields), noise)


def _earliest(documents: tuple[Document, ...], limit: int | None) -> tuple[Document, ...]:
    """The `limit` earliest documents (time, then position), kept in canonical order."""
    if limit is None:
        return documents
    chosen = set(sorted(range(len(documents)), key=lambda i: (documents[i].timestamp, i))[:limit])
    return tuple(doc for i, doc in enumerate(documents) if i in chosen)


@dataclass(frozen=True)
class QuestionSet:
    """The selected questions of a domain and what each kind file held."""

    questions: tuple[Question, ...]
    kinds: tuple[str, ...]
    available: dict[str, int]
    """kind -> questions in its file before any limit."""
    missing_kinds: tuple[str, ...]
    extra_fields: tuple[str, ...]


def parse_question_file(root: Path, path: Path) -> list[RawQuestion]:
    """Validate one `<kind>.jsonl`: blank lines skipped, ids unique within the file."""
    questions: list[RawQuestion] = []
    lines_of: dict[str, int] = {}
    for number, line in enumerate(read_text(root, path).split("\n"), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except (json.JSONDecodeError, RecursionError) as err:
            raise BadInput(f"not a valid JSON line ({err})", file=str(path), line=number) from None
        except ValueError:  # an integer longer than Python converts
            raise huge_integer(line, path, line=number) from None
        if not isinstance(value, dict):
            raise BadInput("a question line must be a JSON object", file=str(path), line=number)
        try:
            question = RawQuestion.model_validate(value)
        except ValidationError as err:
            loc, msg = _first_error(err)
            raise BadInput(msg, file=str(path), line=number, field=loc.lstrip(".") or None) from None
        if SURROGATE_ESCAPE.search(line) and (name := question.unencodable_field()):
            raise BadInput("not valid Unicode (lone surrogate escape)", file=str(path), line=number,
                           field=name)
        if question.id in lines_of:
            raise BadInput(f"duplicate id {question.id!r} (first on line {lines_of[question.id]})",
                           file=str(path), line=number, field="id")
        lines_of[question.id] = number
        questions.append(question)
    return questions


def unknown_kind_files(folder: Path) -> list[Path]:
    """`*.jsonl` files in a domain's questions folder that name no known kind."""
    return [path for path in sorted(folder.glob("*.jsonl")) if path.stem not in KINDS]


def _selected_kinds(kinds: Sequence[str] | None) -> tuple[str, ...] | None:
    if kinds is None:
        return None
    if isinstance(kinds, str) or not all(isinstance(kind, str) for kind in kinds):
        raise BadInput("kinds must be a list of kind names", field="kinds")
    unknown = [kind for kind in kinds if kind not in KINDS]
    if unknown:
        raise BadInput(f"unknown kind {unknown[0]!r}; choose from {', '.join(KINDS)}", field="kinds")
    if not kinds:
        raise BadInput("select at least one kind", field="kinds")
    return tuple(kind for kind in KINDS if kind in kinds)


def _limit(name: str, value: int | None) -> int | None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
        raise BadInput(f"must be an integer of at least 1, got {value!r} (leave it out to take everything)",
                       field=name)
    return value


def read_questions(root: Path, domain: str, *, kinds: Sequence[str] | None = None,
                   question_limit: int | None = None) -> QuestionSet:
    """Validate the selected kind files; `kinds=None` means every kind whose file exists."""
    selected = _selected_kinds(kinds)
    question_limit = _limit("question_limit", question_limit)
    folder = questions_dir(root, domain)
    if not Path(root).is_dir():
        raise BadInput("no such release folder; pass the folder that holds data/final, questions and prompts",
                       file=str(root))
    if not folder.is_dir():
        domains = sorted(p.name for p in (Path(root) / "questions").glob("*") if p.is_dir())
        hint = f"; domains in this release: {', '.join(domains)}" if domains else ""
        raise BadInput(f"questions folder is missing{hint}", file=str(folder))
    for path in unknown_kind_files(folder):
        raise BadInput(f"unknown question kind {path.stem!r}; expected one of {', '.join(KINDS)}",
                       file=str(path))
    # A kind file that is a broken link or a loop is present and bad, never silently absent.
    present = tuple(kind for kind in KINDS if (folder / f"{kind}.jsonl").exists()
                    or (folder / f"{kind}.jsonl").is_symlink())
    for kind in selected or ():
        if kind not in present:
            raise BadInput(f"no questions file for kind {kind!r}", file=str(folder / f"{kind}.jsonl"))
    chosen = selected if selected is not None else present
    parsed = {kind: parse_question_file(root, folder / f"{kind}.jsonl") for kind in chosen}
    id_uses = Counter(q.id for raws in parsed.values() for q in raws)
    questions: list[Question] = []
    for kind, raws in parsed.items():
        for raw in raws[:question_limit] if question_limit is not None else raws:
            questions.append(Question(
                question_id=f"{kind}:{raw.id}" if id_uses[raw.id] > 1 else raw.id,
                kind=kind, text=raw.question, asking_user=raw.asking_user_id, gold=raw.answer,
                abstention=kind == "abstention",
            ))
    extra = sorted({key for raws in parsed.values() for q in raws for key in (q.model_extra or {})})
    return QuestionSet(
        questions=tuple(questions), kinds=chosen,
        available={kind: len(raws) for kind, raws in parsed.items()},
        missing_kinds=tuple(kind for kind in KINDS if kind not in present), extra_fields=tuple(extra),
    )


def read_prompts(root: Path) -> Prompts | None:
    """The released system prompts, when both files exist."""
    agent, judge = root / "prompts" / "agent_system.txt", root / "prompts" / "judge_system.txt"
    if not (agent.is_file() and judge.is_file()):
        return None
    return Prompts(agent_system=read_text(root, agent), judge_system=read_text(root, judge))


def load_groupmem(root: Path, domain: str, *, kinds: Sequence[str] | None = None,
                  message_limit: int | None = None,
                  question_limit: int | None = None) -> Dataset:
    """Validate one domain of a GroupMemBench release into a `Dataset` (one scope, "default")."""
    root = Path(root)
    check_domain(domain)
    message_limit = _limit("message_limit", message_limit)
    question_set = read_questions(root, domain, kinds=kinds, question_limit=question_limit)
    corpus = read_corpus(root, domain)
    documents = _earliest(corpus.documents, message_limit)
    release = ReleaseFacts(
        documents_available=len(corpus.documents),
        questions_available=sum(question_set.available.values()),
        kinds_available=KINDS,
        dangling_replies=corpus.dangling_replies,
        extra_fields={"messages": corpus.extra_fields, "questions": question_set.extra_fields},
    )
    selection = GroupMemSelection(domain=domain, kinds=tuple(kinds or ()), message_limit=message_limit,
                                  question_limit=question_limit)
    return Dataset(
        benchmark=BENCHMARK, subset=domain, adapter_version=ADAPTER_VERSION, source=str(root),
        scopes={"default": documents}, questions=question_set.questions,
        prompts=read_prompts(root), selection=selection, release=release,
        annotations={"is_noise": tuple(doc.doc_id for doc in documents if doc.doc_id in corpus.noise)},
    )
