"""What a benchmark declares about where its release comes from: its pin table, templates, layout.

A `ReleaseSource` is pure data, set on a benchmark's declaration (`Benchmark.source`), so a
benchmark added later (a plug-in, LongMemEval-V2) registers its own entry the same way the
built-ins do. It names:

- `pins`: the benchmark's pin table (`benchledger.pins`): every official file, where it lands in
  the release folder, its source (a GitHub repository or a Hugging Face dataset) and revision, and
  its SHA-256 and size where a public source states them; the official code the templates are read
  from is in it too (role "code", landing under `source/`);
- `templates`: how each official template is read out of that code (`TemplateRecipe`), and the
  SHA-256 it must come out at (the benchmark's own template pins, never a setting);
- `run_path`: what `benchledger run <benchmark>` is given inside the fetched folder (a file or ".");
- `gated`: the hub datasets that need the user's own token.

The pin table is the one place a file's hash is declared: `fetch` checks what arrives against it,
and `official_release` checks what a run read against it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from benchledger.pins import PinTable

__all__ = ["Literal", "TemplateRecipe", "ReleaseSource"]


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
    """The official code file it is read from: its path at the source (a "code" entry of the pin table)."""
    parts: tuple[Literal, ...]


@dataclass(frozen=True)
class ReleaseSource:
    """Everything `benchledger fetch` needs for one benchmark."""

    pins: PinTable
    run_path: str
    """What `run` reads inside the release folder: a file ("locomo10.json") or "." for the folder."""
    templates: tuple[TemplateRecipe, ...] = ()
    template_pins: Mapping[str, str] = field(default_factory=dict)
    """name -> SHA-256 every derived template must come out at (the benchmark's own pins)."""
    prompts_to: str = "prompts"
    """Folder inside the release folder the templates are written to."""
    gated: frozenset[str] = frozenset()
    """Hub datasets (owner/name) that need the user's own token (HF_TOKEN), never recorded."""
