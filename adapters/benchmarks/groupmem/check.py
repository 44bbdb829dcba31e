"""Check a GroupMemBench release folder before running it: what is there, what is missing.

For each domain (every folder under `questions/` and `data/final/`, or the one asked for) the
check validates the questions of every kind and, when present, the corpus, exactly as
`load_groupmem` would, but records problems instead of stopping at the first one, so one report
shows the whole release. The question files alone are useful (the public repository ships them
without the corpus), which is why a missing corpus is reported with its expected path rather
than raised.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, computed_field

from benchledger.adapters.benchmarks.groupmem.loader import (
    KINDS, corpus_path, parse_question_file, questions_dir, read_corpus, unknown_kind_files,
)
from benchledger.adapters.benchmarks.groupmem.files import DOMAIN_PATTERN, check_domain
from benchledger.errors import BadInput

__all__ = ["DomainCheck", "CheckReport", "check_groupmem"]


class DomainCheck(BaseModel):
    """One domain of the release."""

    model_config = ConfigDict(frozen=True)

    domain: str
    corpus_path: str
    """Where the corpus is (or is expected to be)."""
    corpus_present: bool
    messages: int | None = None
    """Messages in the corpus; None when it is missing or invalid."""
    channels: int | None = None
    questions: dict[str, int]
    """kind -> questions in its file (0 when the file is missing or invalid)."""
    problems: tuple[str, ...] = ()
    """Each a BadInput line naming file, line and field."""

    @computed_field  # type: ignore[prop-decorator]  # pydantic's documented pattern
    @property
    def total_questions(self) -> int:
        return sum(self.questions.values())

    @computed_field  # type: ignore[prop-decorator]  # pydantic's documented pattern
    @property
    def ok(self) -> bool:
        return self.corpus_present and not self.problems


class CheckReport(BaseModel):
    """The whole release: `ok` is False when any corpus is missing or anything is invalid."""

    model_config = ConfigDict(frozen=True)

    root: str
    domains: tuple[DomainCheck, ...]
    problems: tuple[str, ...] = ()
    """Release-level problems (e.g. a folder whose name is not a valid domain)."""

    @computed_field  # type: ignore[prop-decorator]  # pydantic's documented pattern
    @property
    def total_questions(self) -> int:
        return sum(d.total_questions for d in self.domains)

    @computed_field  # type: ignore[prop-decorator]  # pydantic's documented pattern
    @property
    def missing_corpora(self) -> tuple[str, ...]:
        return tuple(d.corpus_path for d in self.domains if not d.corpus_present)

    @computed_field  # type: ignore[prop-decorator]  # pydantic's documented pattern
    @property
    def ok(self) -> bool:
        return not self.problems and all(d.ok for d in self.domains)


def _check_domain(root: Path, domain: str) -> DomainCheck:
    problems: list[str] = []
    counts = {kind: 0 for kind in KINDS}
    folder = questions_dir(root, domain)
    if not folder.is_dir():
        problems.append(f"{folder}: questions folder is missing")
    else:
        problems += [f"{path}: unknown question kind {path.stem!r}"
                     for path in unknown_kind_files(folder)]
        for kind in KINDS:
            path = folder / f"{kind}.jsonl"
            if not path.exists() and not path.is_symlink():  # a broken link or a loop is bad, not absent
                problems.append(f"{path}: no questions file for kind {kind!r}")
                continue
            try:
                counts[kind] = len(parse_question_file(root, path))
            except BadInput as err:
                problems.append(str(err))
    path = corpus_path(root, domain)
    messages = channels = None
    if path.is_file():
        try:
            corpus = read_corpus(root, domain)
            messages, channels = len(corpus.documents), len(corpus.channels)
        except BadInput as err:
            problems.append(str(err))
    return DomainCheck(domain=domain, corpus_path=str(path), corpus_present=path.is_file(),
                       messages=messages, channels=channels, questions=counts,
                       problems=tuple(problems))


def check_groupmem(root: Path, domain: str | None = None) -> CheckReport:
    """Report every domain of the release at `root` (or only `domain`)."""
    root = Path(root)
    folders = [root / "questions", root / "data" / "final"]
    if not any(folder.is_dir() for folder in folders):
        raise BadInput("not a GroupMemBench release: no questions/ or data/final/ folder",
                       file=str(root))
    problems: list[str] = []
    found = sorted({p.name for folder in folders if folder.is_dir() for p in folder.iterdir()
                    if p.is_dir() and not p.name.startswith(".")})
    if domain is not None:
        names = [check_domain(domain)]
        if domain not in found:  # a mistyped domain: say which there are, not a table of zeros
            listed = ", ".join(name for name in found if DOMAIN_PATTERN.fullmatch(name)) or "none"
            raise BadInput(f"no domain {domain!r} in this release; its domains: {listed}", field="domain")
    else:
        names = [name for name in found if DOMAIN_PATTERN.fullmatch(name)]
        problems += [f"{name!r}: not a valid domain folder name" for name in found
                     if name not in names]
    return CheckReport(root=str(root), domains=tuple(_check_domain(root, n) for n in names),
                       problems=tuple(problems))
