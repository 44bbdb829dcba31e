"""Official prompt templates: read pinned by SHA-256, slots filled as the official code fills them.

The official templates are never copied into this repository (their licences differ): code takes
the template text as input, read from the folder a user points at (`../shared/data/<benchmark>/
prompts/`). Each benchmark pins its files by SHA-256, so a run can show it was given the official
bytes; `read_pinned` refuses any other.

Two slot styles exist. LongMemEval's templates were written by running the official function with
`{}` as every argument, so each `{}` stands where `str.format` inserts a value; Memora's carry named
placeholders (`{model_response}`) where an f-string interpolates. Both fillers substitute in one
pass over the template, so a value that itself contains `{}` or `{question}` stays as it is, which
is what `str.format` and f-strings do with argument values.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from pathlib import Path

from benchledger.errors import BadInput

__all__ = ["sha256_of", "read_pinned", "fill_positional", "fill_named"]


def sha256_of(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def read_pinned(folder: Path, pins: Mapping[str, str]) -> dict[str, str]:
    """Every pinned file of `folder`, as exact text (no newline translation), checked by SHA-256."""
    folder = Path(folder)
    texts: dict[str, str] = {}
    for name, digest in pins.items():
        path = folder / name
        if not path.is_file():
            raise BadInput("official prompt file not found", file=str(path))
        data = path.read_bytes()
        if hashlib.sha256(data).hexdigest() != digest:
            raise BadInput(f"SHA-256 is not the official template's {digest[:12]}…; "
                           "point at the official prompts folder", file=str(path))
        texts[name] = data.decode("utf-8")
    return texts


def fill_positional(template: str, *values: str) -> str:
    """Put `values` into the `{}` slots in order; the slot count must match."""
    pieces = template.split("{}")
    if len(pieces) != len(values) + 1:
        raise ValueError(f"template has {len(pieces) - 1} slots, given {len(values)} values")
    out = [pieces[0]]
    for value, piece in zip(values, pieces[1:]):
        out += [value, piece]
    return "".join(out)


def fill_named(template: str, **values: str) -> str:
    """Replace each `{name}` of `values` in one pass; every name must occur in the template."""
    missing = [name for name in values if "{" + name + "}" not in template]
    if missing:
        raise ValueError(f"template has no placeholder {{{missing[0]}}}")
    pattern = re.compile("|".join(re.escape("{" + name + "}") for name in values))
    return pattern.sub(lambda match: values[match.group(0)[1:-1]], template)
