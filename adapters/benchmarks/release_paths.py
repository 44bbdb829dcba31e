"""Every path a release names resolves inside the release folder, or the load stops in one line.

A release is someone else's files. A LongMemEval-V2 question names an `image`, each trajectory state
a `screenshot`; a Memora persona folder holds session files; a GroupMemBench release its corpus,
question sets and prompts. Read as named, `"image": "/home/me/.ssh/id_rsa"` is a file that gets
base64-encoded and sent to the model endpoint, and a session file that is a symbolic link to
`~/notes.json` becomes memory the run ingests. So a path is resolved (symbolic links followed, `..`
collapsed) and refused unless it lands inside the release folder, whether it was named absolute,
with `..`, or through a link: at load, naming the question (or trajectory, or file) that named it,
before a memory system or a model is asked anything.
"""

from __future__ import annotations

from pathlib import Path

from benchledger.errors import BadInput

__all__ = ["inside", "contained", "contained_file"]


def inside(root: Path, name: str | Path) -> Path | None:
    """`name` (relative to `root`, or absolute) resolved, when it lands inside `root`; else None."""
    candidate = Path(name) if Path(name).is_absolute() else Path(root) / name
    resolved = candidate.resolve()
    return resolved if resolved.is_relative_to(Path(root).resolve()) else None


def contained(root: Path, name: str | Path, *, what: str, file: str | Path, line: int | None = None,
              field: str | None = None) -> Path:
    """`name` resolved inside `root`; BadInput naming `what` named it otherwise (it need not exist)."""
    resolved = inside(root, name)
    if resolved is None:
        lands = (Path(name) if Path(name).is_absolute() else Path(root) / name).resolve()
        raise BadInput(f"{what} names {name}, which resolves to {lands}, outside the release folder "
                       f"{Path(root).resolve()}: refused before anything is sent", file=str(file), line=line,
                       field=field)
    return resolved


def contained_file(root: Path, path: Path) -> Path:
    """A file of the release folder itself (a path as given, not a name inside `root`), resolved; refused
    when it is a link leading out of the folder."""
    return contained(root, Path(path).absolute(), what="the release", file=path)
