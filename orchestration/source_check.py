"""`verify RUN --against-source`: the release files a run recorded, re-read from their official source.

The run recorded, for every release file it read, the SHA-256 and size of its bytes (and, when a
fetch laid it out, where that fetch says it came from: a record, possibly a mirror's). A third party
with internet asks the official source again, which is where the package's own pin table says the
file is published (`benchledger.pins`: origin, revision, path), never the URL the run recorded:

- a GitHub file (no host states a hash for it) is downloaded at its pinned revision and hashed,
  capped at the size the run recorded (a longer body differs, and is cut off there);
- a hub file: the hub's stated SHA-256 for it at that revision (its LFS object id) is read through
  its API, so a 2.7 GB file is checked without downloading it; a small file kept in git (the hub
  states only its git blob id) is downloaded and hashed.

The revision is the pin's; for a file the table has no pin for, the table's revision, else the one the
run recorded, else what the hub names `main` now (said in the file's line). A recorded file the table
names no source for is `no-source`. The base URLs are the fetch's settings (`--github-raw`, `--hub`,
`BENCHLEDGER_GITHUB_RAW`, `HF_ENDPOINT`), so a mirror, or a loopback stand-in in tests, is read the
same way, and the base used is recorded. Downloads go to a temporary folder that is removed; nothing
else is written but the one `SourceChecked` event (`orchestration.checks`), which changes no score.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path

from benchledger import __version__
from benchledger.adapters.benchmarks.registry import benchmark_for_run
from benchledger.adapters.sources.download import (
    BodyPastCap, Cap, SourceUnreachable, download, hub_commit, hub_published, sha256_file,
)
from benchledger.adapters.sources.settings import FetchSettings
from benchledger.clock import now_iso
from benchledger.errors import BadInput
from benchledger.ledger.events import ReleaseFile
from benchledger.ledger.events.checks import SourceChecked, SourceFileChecked
from benchledger.ledger.recorder import Recorder
from benchledger.orchestration.checks import append_check, checker_name
from benchledger.pins import Pin, PinTable, Unpinned
from benchledger.projections.state import fold_run
from benchledger.redaction import safe_message, strip_url_credentials

__all__ = ["check_against_source"]

_GITHUB, _HUB = "github.com/", "huggingface.co/datasets/"


def _entry(table: PinTable | None, file: ReleaseFile, files: Sequence[ReleaseFile]) -> Pin | Unpinned | None:
    """The table's entry for a recorded file: by its release path, or, for a benchmark whose release is
    one file read under any name (LoCoMo), that file's entry."""
    if table is None:
        return None
    entry = table.entry(file.path)
    if entry is None and len(files) == 1:
        releases = [e for e in table if e.role == "release"]
        entry = releases[0] if len(releases) == 1 else None
    return entry


def _revision(entry: Pin | Unpinned, file: ReleaseFile, settings: FetchSettings) -> tuple[str, str]:
    """(the revision to read, how it was chosen)."""
    if isinstance(entry, Pin):
        return entry.revision, ""
    if entry.revision:
        return entry.revision, ""
    if file.revision:
        return file.revision, " (the revision the run recorded; the table pins none)"
    if entry.origin.startswith(_HUB):
        return hub_commit(settings.hub, entry.origin.removeprefix(_HUB), None), \
            " (what the hub names main now: the run recorded no revision)"
    raise BadInput(f"{entry.origin} names no revision for {entry.source_path}")


def _downloaded(url: str, file: ReleaseFile, folder: Path, headers: dict[str, str] | None) -> str:
    target = folder / "body"
    partial = download(url, target, cap=Cap(file.bytes, "the run recorded for it"), headers=headers)
    sha = sha256_file(partial)
    partial.unlink()
    return sha


def _check_file(file: ReleaseFile, entry: Pin | Unpinned | None, settings: FetchSettings,
                folder: Path) -> SourceFileChecked:
    recorded = dict(path=file.path, recorded_sha256=file.sha256, recorded_bytes=file.bytes)
    if entry is None:
        return SourceFileChecked(**recorded, status="no-source",
                                 detail="the package's pin table names no official source for this file")
    url, how, source = "", "", f"{entry.origin} {entry.source_path}"
    try:
        revision, chosen = _revision(entry, file, settings)
        source = f"{entry.origin} @ {revision} {entry.source_path}"
        if entry.origin.startswith(_GITHUB):
            url = f"{settings.github_raw}/{entry.origin.removeprefix(_GITHUB)}/{revision}/{entry.source_path}"
            how, sha = "downloaded", _downloaded(url, file, folder, None)
        elif entry.origin.startswith(_HUB):
            from huggingface_hub import hf_hub_url
            from huggingface_hub.utils import build_hf_headers

            repo = entry.origin.removeprefix(_HUB)
            url = hf_hub_url(repo, entry.source_path, repo_type="dataset", revision=revision, endpoint=settings.hub)
            published = hub_published(settings.hub, repo, revision, [entry.source_path])[entry.source_path]
            if published.kind == "sha256":
                how, sha = "hub-published", published.value
            else:  # a small file kept in git: the hub states its git blob id only
                how, sha = "downloaded", _downloaded(url, file, folder, build_hf_headers())
        else:
            return SourceFileChecked(**recorded, source=source, status="no-source",
                                     detail=f"no way to read {entry.origin}")
    except BodyPastCap:
        return SourceFileChecked(**recorded, source=source, url=strip_url_credentials(url), how="downloaded",
                                 status="differs",
                                 detail=f"the source's body runs past the {file.bytes:,} bytes the run recorded")
    except (SourceUnreachable, BadInput) as err:
        return SourceFileChecked(**recorded, source=source, url=strip_url_credentials(url), status="unreadable",
                                 detail=safe_message(f"the source could not be read: {err.detail}"))
    agrees = sha == file.sha256
    detail = "" if agrees else f"the source's SHA-256 is {sha}, the run recorded {file.sha256}"
    return SourceFileChecked(**recorded, source=source, url=strip_url_credentials(url), how=how,
                             source_sha256=sha, status="agrees" if agrees else "differs",
                             detail=detail + (chosen if chosen else ""))


def check_against_source(ledger: Recorder, run_ref: str, settings: FetchSettings, *,
                         checked_by: str | None = None) -> tuple[str, SourceChecked]:
    """Re-read every release file run `run_ref` recorded from its official source; record and return the check."""
    run_id = ledger.reader.resolve_run(run_ref)
    state = fold_run(run_id, ledger.reader.verified_events(run_id))
    if state.started is None:
        raise BadInput(f"run {run_id} has no recorded start to check", field="run")
    files = state.started.config.release_files
    if not files:
        raise BadInput(f"run {run_id} recorded no release files (it predates release pinning): there is nothing "
                       "to check against a source", field="against_source")
    benchmark = benchmark_for_run(state.started.config.benchmark)
    table = benchmark.pin_table() if benchmark is not None else None
    with tempfile.TemporaryDirectory(prefix="benchledger-source-check-") as folder:
        checked = tuple(_check_file(file, _entry(table, file, files), settings, Path(folder)) for file in files)
    fields = dict(checked_by=checker_name(checked_by), checked_at=now_iso(), checked_with=f"benchledger {__version__}",
                  github_raw=strip_url_credentials(settings.github_raw), hub=strip_url_credentials(settings.hub),
                  files=checked)
    made: list[SourceChecked] = []

    def make(check_id: str) -> SourceChecked:
        made.append(SourceChecked(check_id=check_id, **fields))
        return made[-1]

    check_id = append_check(ledger, run_id, make)
    return check_id, made[-1]
