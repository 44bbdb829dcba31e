"""Which release a run read, and whether it is the official one: a pure fold over `RunConfig.release_files`.

A run records every release file it read with its SHA-256, and, for a file `benchledger fetch`
laid out, the source, revision and the hash the source published (`orchestration/releases.py`).
`official_release` is the condition every benchmark declares with its own pins and its own idea of
"the whole release": a file pinned in the benchmark's folder must hash to its pin wherever it came
from; a file whose hash only its source knows (a hub dataset) must have been fetched and hash to
what the source published; and the selection must be the whole release. `release_line` is what
the scorecard prints so a third party can fetch the same bytes and check them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence

from benchledger.ledger.events import ReleaseFile
from benchledger.projections.publishable import Check, Condition, names, run_config
from benchledger.projections.state import RunState
from benchledger.projections.tallies import KindTally

__all__ = ["manifest_sha256", "release_line", "fetched_as_published", "official_release", "NOT_FETCHED"]

NOT_FETCHED = "release not fetched from its source: its hashes cannot be checked"

Pinned = Callable[[ReleaseFile], "str | None"]
"""The SHA-256 the benchmark's folder pins for a recorded file, or None when it pins none."""
Whole = Callable[[RunState, Sequence[ReleaseFile]], "str | None"]
"""Why the selection is not the whole release (`3 of 500 LongMemEval questions`), or None."""


def manifest_sha256(files: Sequence[ReleaseFile]) -> str:
    """One SHA-256 over the release's files: `<sha256>  <path>` lines, sorted by path (as sha256sum prints)."""
    lines = "".join(f"{f.sha256}  {f.path}\n" for f in sorted(files, key=lambda f: f.path))
    return hashlib.sha256(lines.encode("utf-8")).hexdigest()


def fetched_as_published(file: ReleaseFile) -> bool:
    """The file was fetched from its source and its bytes are what the source published."""
    if file.origin is None or file.published is None:
        return False
    kind, _, value = file.published.rpartition(" ")
    # a git blob id was checked against the bytes at fetch time; the receipt's SHA-256 is of those bytes
    return (kind in ("pinned sha256", "hub sha256") and value == file.sha256) or kind == "hub git-blob"


def release_line(files: Sequence[ReleaseFile]) -> str:
    """The release a run read, in one line a third party can check it by."""
    if not files:
        return "not recorded (the run predates release pinning)"
    sources = sorted({f"{f.origin} @ {f.revision[:12]}" for f in files if f.origin and f.revision})
    given = sum(1 for f in files if f.origin is None)
    what = (f"{files[0].path} sha256 {files[0].sha256}" if len(files) == 1 else
            f"{len(files):,} files, {sum(f.bytes for f in files):,} bytes, manifest sha256 {manifest_sha256(files)}")
    if not sources:
        return f"{what} (given by path, not fetched)"
    where = "; ".join(sources)
    return f"{what}, fetched from {where}" + (f" ({given} file(s) given by path)" if given else "")


def official_release(benchmark: str, pinned: Pinned, whole: Whole | None = None) -> Check:
    """The run read the whole official release: pinned files at their pins, the others fetched as
    their source published them, and a selection of the whole (see the module docstring)."""
    @names("official_release")
    def check(state: RunState, overall: KindTally, scorer: str | None) -> Condition:
        files = run_config(state).release_files
        if not files:
            return Condition(name="official_release", met=False,
                             reason=f"the run recorded no release files, so its {benchmark} release cannot be checked")
        partial = whole(state, files) if whole is not None else None
        if partial is not None:
            return Condition(name="official_release", met=False, reason=partial)
        unchecked: list[str] = []
        for file in files:
            pin = pinned(file)
            if pin is not None and file.sha256 != pin:
                return Condition(name="official_release", met=False,
                                 reason=f"{file.path} is not the official {benchmark} file "
                                        f"(SHA-256 {file.sha256[:12]}…, pinned {pin[:12]}…)")
            if pin is None and not fetched_as_published(file):
                unchecked.append(file.path)
        if unchecked:
            return Condition(name="official_release", met=False,
                             reason=f"{NOT_FETCHED} ({unchecked[0]}"
                                    + (f" and {len(unchecked) - 1} more)" if len(unchecked) > 1 else ")"))
        return Condition(name="official_release", met=True,
                         reason=f"the official {benchmark} release: {release_line(files)}")
    return check
