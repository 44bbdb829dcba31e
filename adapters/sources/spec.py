"""What a benchmark declares about where its release comes from: files, revisions, pins, templates.

A `ReleaseSource` is pure data, set on a benchmark's declaration (`Benchmark.source`), so a
benchmark added later (a plug-in, LongMemEval-V2) registers its own entry the same way the
built-ins do. It names:

- `release`: the released files, each from a GitHub repository at a commit (`GitHubFiles`) or a
  Hugging Face dataset (`HubFiles`), and where each lands in the release folder (`to`);
- `code`: the official source files the templates are read from, pinned by SHA-256 at a commit;
- `templates`: how each official template is read out of that code (`TemplateRecipe`), and the
  SHA-256 it must come out at (the benchmark's own template pins, never a setting);
- `run_path`: what `benchledger run <benchmark>` is given inside the fetched folder (a file or ".").

A file whose `sha256` is None is one whose hash is not known to this project: the fetch asks the
source (the hub reports each file's LFS SHA-256 for a revision) and records what it published.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = ["RemoteFile", "GitHubFiles", "HubFiles", "Literal", "TemplateRecipe", "ReleaseSource"]


@dataclass(frozen=True)
class RemoteFile:
    """One file of a source: its path there, where it lands, and its pinned hash when known."""

    path: str
    """Path inside the repository or dataset."""
    to: str
    """Path inside the release folder (relative, forward slashes)."""
    sha256: str | None = None
    """The pinned SHA-256; None when only the source can say (it is then asked and recorded)."""
    size: int | None = None
    """Bytes, when pinned."""


@dataclass(frozen=True)
class GitHubFiles:
    """Files of a GitHub repository at one commit, fetched as raw files."""

    repo: str
    """owner/name."""
    commit: str
    files: tuple[RemoteFile, ...]

    @property
    def origin(self) -> str:
        return f"github.com/{self.repo}"


@dataclass(frozen=True)
class HubFiles:
    """Files of a Hugging Face dataset; their SHA-256 is what the hub reports for the revision."""

    repo: str
    """The dataset id (owner/name)."""
    files: tuple[RemoteFile, ...]
    revision: str | None = None
    """A commit to pin; None: the dataset's current `main` commit, resolved and recorded at fetch time."""
    gated: bool = False
    """The dataset needs the user's own token (HF_TOKEN); the token is never recorded."""

    @property
    def origin(self) -> str:
        return f"huggingface.co/datasets/{self.repo}"


@dataclass(frozen=True)
class Literal:
    """A string literal of the official source: the `nth` string expression starting on `line`.

    The code file is pinned by SHA-256 before it is read, so a line number names one expression for
    good. An f-string's interpolations become the text `slots` gives for each expression's source
    (a fixed string, or another literal spliced in); one not named in `slots` stops the extraction.
    """

    line: int
    nth: int = 0
    slots: Mapping[str, str | Literal] = field(default_factory=dict)


@dataclass(frozen=True)
class TemplateRecipe:
    """One official template file: the literals of `code` whose concatenation it is."""

    name: str
    """The template's file name under prompts/ ("qa_prompt.txt")."""
    code: str
    """Path of the official code file (one of the source's `code` files) it is read from."""
    parts: tuple[Literal, ...]


@dataclass(frozen=True)
class ReleaseSource:
    """Everything `benchledger fetch` needs for one benchmark."""

    release: tuple[GitHubFiles | HubFiles, ...]
    run_path: str
    """What `run` reads inside the release folder: a file ("locomo10.json") or "." for the folder."""
    code: GitHubFiles | None = None
    """The official code the templates are read from (kept under `source/` in the release folder)."""
    templates: tuple[TemplateRecipe, ...] = ()
    template_pins: Mapping[str, str] = field(default_factory=dict)
    """name -> SHA-256 every derived template must come out at (the benchmark's own pins)."""
    prompts_to: str = "prompts"
    """Folder inside the release folder the templates are written to."""
