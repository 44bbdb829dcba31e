"""Which release a run read, and whether it is the official one: a pure fold over `RunConfig.release_files`.

A run records every release file it read with its SHA-256 and size, and, for a file `benchledger
fetch` laid out, what the fetch's receipt recorded of it: the source, revision, URL and the hash the
source published (`orchestration/releases.py`). That record is shown, never trusted:
`official_release` is checked from the recorded hashes and the pin table the package ships
(`benchledger.pins`), by anyone, offline. A file is official when it hashes to its pin, whether it
was fetched, copied or given by path; a file the table has no pin for makes the condition say so
(`no pin for F: official_release cannot be checked`), and the run is diagnostic. Each benchmark
composes the condition with its own table, its own idea of "the whole release" and, where its
release is one file read under any name (LoCoMo), which table entry a recorded file is.

`release_line` is what the scorecard prints so a third party can get the same bytes and check
them; it names the URL a file actually came from when that was not the file's own host (a
mirror, a `--hub`), and a copy laid out by `fetch --from`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence

from benchledger.ledger.events import ReleaseFile
from benchledger.pins import PinTable, canonical_url
from benchledger.projections.publishable import Check, Condition, names, run_config
from benchledger.projections.state import RunState
from benchledger.projections.tallies import KindTally

__all__ = ["manifest_sha256", "release_line", "mirrors", "official_release", "no_pin_reason", "NO_PIN"]

NO_PIN = "official_release cannot be checked"

Whole = Callable[[RunState, Sequence[ReleaseFile]], "str | None"]
"""Why the selection is not the whole release (`3 of 500 LongMemEval questions`), or None."""
Locate = Callable[[ReleaseFile], str]
"""The pin table's path for a recorded file (by default the path it was recorded under)."""


def manifest_sha256(files: Sequence[ReleaseFile]) -> str:
    """One SHA-256 over the release's files: `<sha256>  <path>` lines, sorted by path (as sha256sum prints)."""
    lines = "".join(f"{f.sha256}  {f.path}\n" for f in sorted(files, key=lambda f: f.path))
    return hashlib.sha256(lines.encode("utf-8")).hexdigest()


def no_pin_reason(paths: Sequence[str]) -> str:
    more = f" (and {len(paths) - 1} more file(s) without a pin)" if len(paths) > 1 else ""
    return f"no pin for {paths[0]}: {NO_PIN}{more}"


def _base(url: str) -> str:
    """scheme://host[:port] of a URL."""
    scheme, _, rest = url.partition("://")
    return f"{scheme}://{rest.split('/', 1)[0]}"


def mirrors(files: Sequence[ReleaseFile]) -> list[str]:
    """The hosts files were fetched from that are not their source's own (a mirror, `--hub`, `--github-raw`)."""
    found: set[str] = set()
    for file in files:
        if not file.url or file.url.startswith("file://") or not (file.origin and file.revision):
            continue
        try:
            own = canonical_url(file.origin, file.revision, "")
        except ValueError:
            found.add(_base(file.url))
            continue
        if _base(file.url) != _base(own):
            found.add(_base(file.url))
    return sorted(found)


def release_line(files: Sequence[ReleaseFile]) -> str:
    """The release a run read, in one line a third party can check it by."""
    if not files:
        return "not recorded (the run predates release pinning)"
    what = (f"{files[0].path} sha256 {files[0].sha256}" if len(files) == 1 else
            f"{len(files):,} files, {sum(f.bytes for f in files):,} bytes, manifest sha256 {manifest_sha256(files)}")
    fetched = [f for f in files if f.origin and f.revision and not (f.url or "").startswith("file://")]
    copied = sorted({(f.url or "").removeprefix("file://") for f in files if (f.url or "").startswith("file://")})
    given = len(files) - len(fetched) - sum(1 for f in files if (f.url or "").startswith("file://"))
    parts = []
    if fetched:
        sources = "; ".join(sorted({f"{f.origin} @ {(f.revision or '')[:12]}" for f in fetched}))
        parts.append(f"fetched from {sources}")
        if away := mirrors(fetched):
            parts.append(f"through {', '.join(away)}, not the source's own host")
    if copied:
        parts.append(f"copied from {copied[0]}" + (f" and {len(copied) - 1} more" if len(copied) > 1 else ""))
    if not parts:
        return f"{what} (given by path, not fetched)"
    return f"{what}, {', '.join(parts)}" + (f" ({given} file(s) given by path)" if given else "")


def official_release(benchmark: str, pins: PinTable, whole: Whole | None = None,
                     locate: Locate = lambda file: file.path) -> Check:
    """The run read the whole official release: every file at its pin in `pins`, and a selection of
    the whole (see the module docstring). What a receipt recorded plays no part."""
    @names("official_release")
    def check(state: RunState, overall: KindTally, scorer: str | None) -> Condition:
        files = run_config(state).release_files
        if not files:
            return Condition(name="official_release", met=False,
                             reason=f"the run recorded no release files, so its {benchmark} release cannot be checked")
        unpinned: list[str] = []
        for file in files:  # a file that is not its pin says the most, then a part of the release
            pin = pins.pin(locate(file))
            if pin is None:
                unpinned.append(file.path)
            elif (file.sha256, file.bytes) != (pin.sha256, pin.bytes):
                return Condition(name="official_release", met=False,
                                 reason=f"{file.path} is not the official {benchmark} file "
                                        f"(SHA-256 {file.sha256[:12]}…, pinned {pin.sha256[:12]}…)")
        partial = whole(state, files) if whole is not None else None
        if partial is not None:
            return Condition(name="official_release", met=False, reason=partial)
        if unpinned:
            return Condition(name="official_release", met=False, reason=no_pin_reason(unpinned))
        return Condition(name="official_release", met=True,
                         reason=f"the official {benchmark} release, every file at its pin: {release_line(files)}")
    return check
