"""`benchledger fetch`: a benchmark's release and official prompts, from their sources, checked.

The procedure, for one `ReleaseSource`:

1. A folder whose every file still hashes to what it must (its pin; for a file without one, what
   its source published, as the receipt recorded; each template to its template pin) is done:
   nothing is asked of any server, so a second fetch is instant and works offline. Its bytes are
   hashed, never judged by their size.
2. Otherwise the old receipt is removed and every file of the pin table is planned (`plan.py`).
3. A file already in place is hashed: kept if it is what it must be, deleted if not (a file of the
   right size with other bytes included), then downloaded. A download goes beside its final name
   (`<name>.incomplete`, resumed where an interrupted fetch left it), capped (`download.py`),
   checked, and only then moved into place, up to `DOWNLOADS_IN_FLIGHT` at once. A file that does
   not hash right is deleted and the fetch stops, naming it (the first one in the table's order).
4. Every template is read out of the official code files (role "code", under `source/`,
   `templates.derive_templates`) and must come out at its pin, else the fetch stops and names the
   template; they are written under `prompts/`.
5. The receipt is written last (`receipt.py`): a record of what was laid out, from where, when.

What stops a fetch is a `BadInput` (exit 2) naming the file; files already checked stay, so the next
fetch goes on from there. A source that cannot be reached stops it with one line that names
`--from`, the way to lay out a copy the user already has (`copy.py`).
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from benchledger.adapters.sources.download import SourceUnreachable, download, git_blob_id, sha256_file
from benchledger.adapters.sources.plan import AS_ARRIVED, Planned, plan_fetch
from benchledger.adapters.sources.receipt import RECEIPT, FetchedFile, Receipt, read_receipt, write_receipt
from benchledger.adapters.sources.settings import FetchSettings
from benchledger.adapters.sources.spec import ReleaseSource
from benchledger.adapters.sources.templates import derive_templates
from benchledger.clock import now_iso
from benchledger.errors import BadInput
from benchledger.pins import Pin

__all__ = ["FetchResult", "fetch_release", "write_templates", "in_place", "CODE_FOLDER", "PROGRESS_STAGE",
           "DOWNLOADS_IN_FLIGHT"]

CODE_FOLDER = "source"
"""Where the official code files land inside the release folder (the pin tables' `release_prefix`)."""
PROGRESS_STAGE = "download (bytes)"
DOWNLOADS_IN_FLIGHT = 8
"""Files downloaded at once (each checked on its own before it takes its name)."""

Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class FetchResult:
    folder: Path
    run_path: Path
    """What `run` reads (the release file, or the folder)."""
    receipt: Receipt
    downloaded: int
    """Files downloaded by this fetch (0 when everything was already in place)."""
    bytes_downloaded: int


def _matches(path: Path, item: Planned) -> tuple[bool, str]:
    """Whether the file's bytes are what they must be, and its SHA-256 (bytes nobody publishes a hash for
    are never what they must be: only a download records them)."""
    sha = sha256_file(path)
    if item.expected.kind == AS_ARRIVED:
        return False, sha
    if item.expected.kind == "git-blob":
        return git_blob_id(path) == item.expected.value, sha
    return sha == item.expected.value, sha


def _record(item: Planned, sha: str, size: int) -> FetchedFile:
    return FetchedFile(sha256=sha, bytes=size, origin=item.entry.origin, revision=item.revision,
                       path=item.entry.source_path, url=item.url,
                       published=f"{item.expected.by} {item.expected.kind} {item.expected.value}")


def _place(folder: Path, item: Planned, progress: Callable[[int], None],
           stop: threading.Event | None = None) -> tuple[FetchedFile, int]:
    """The file in place and checked; the bytes downloaded for it."""
    target = folder / item.to
    replaced = ""
    if target.is_file():
        ok, sha = _matches(target, item)
        if ok:
            progress(target.stat().st_size)
            return _record(item, sha, target.stat().st_size), 0
        target.unlink()  # other bytes, whatever their size: never kept under the name
        replaced = f"; {item.to} in place was not what it must be (SHA-256 {sha[:12]}…) and was removed"
    if stop is not None and stop.is_set():
        raise BadInput("the fetch stopped before this file", file=str(target))
    try:
        partial = download(item.url, target, cap=item.cap, headers=item.headers, expected_size=item.expected.size,
                           report=progress, stop=stop)
    except SourceUnreachable as err:
        raise SourceUnreachable(err.host, err.reason + replaced) from None
    ok, sha = (True, sha256_file(partial)) if item.expected.kind == AS_ARRIVED else _matches(partial, item)
    if not ok:
        shown = sha if item.expected.kind == "sha256" else git_blob_id(partial)
        partial.unlink()
        whose = "pinned" if item.expected.by == "pinned" else "hub's published"
        raise BadInput(f"{item.entry.origin} @ {item.revision[:12]} {item.entry.source_path}: {item.expected.kind} of "
                       f"what arrived is {shown[:12]}…, not the {whose} {item.expected.value[:12]}…; it was deleted, "
                       "nothing is laid out under that name", file=str(target))
    size = partial.stat().st_size
    os.replace(partial, target)
    return _record(item, sha, size), size


def write_templates(folder: Path, source: ReleaseSource) -> dict[str, FetchedFile]:
    """Every template read out of the official code laid out under `source/`, at its pin, written."""
    code = {entry.source_path: entry for entry in source.pins if entry.role == "code"}
    texts = {path: (folder / entry.path).read_text(encoding="utf-8") for path, entry in code.items()}
    shown = {path: str(folder / entry.path) for path, entry in code.items()}
    derived = derive_templates(source.templates, texts, shown)
    wrong = [(name, hashlib.sha256(text.encode("utf-8")).hexdigest()) for name, text in derived.items()
             if hashlib.sha256(text.encode("utf-8")).hexdigest() != source.template_pins.get(name)]
    if wrong:
        name, got = wrong[0]
        pinned = source.template_pins.get(name)
        recipe = next(r for r in source.templates if r.name == name)
        raise BadInput(f"template {name} read out of {recipe.code} (line {recipe.parts[0].line}) hashes to "
                       f"{got[:12]}…, not the pinned {pinned[:12] + '…' if pinned else '(no pin)'}"
                       + (f"; {len(wrong) - 1} more template(s) differ" if len(wrong) > 1 else ""),
                       file=shown[recipe.code])
    out: dict[str, FetchedFile] = {}
    prompts = folder / source.prompts_to
    prompts.mkdir(parents=True, exist_ok=True)
    for name, text in derived.items():
        data = text.encode("utf-8")
        (prompts / name).write_bytes(data)
        recipe = next(r for r in source.templates if r.name == name)
        entry = code[recipe.code]
        out[f"{source.prompts_to}/{name}"] = FetchedFile(
            sha256=hashlib.sha256(data).hexdigest(), bytes=len(data), origin=entry.origin,
            revision=entry.revision or "", path=recipe.code,
            published=f"derived from {recipe.code}, pinned sha256 {source.template_pins[name]}")
    return out


def in_place(folder: Path, source: ReleaseSource, receipt: Receipt | None) -> bool:
    """Whether every file of the release is in `folder` with the bytes it must have (see step 1)."""
    if receipt is None:
        return False
    expected: dict[str, str] = {}
    for entry in source.pins:
        if isinstance(entry, Pin):
            expected[entry.path] = entry.sha256
        elif entry.path in receipt.files:  # no pin: what the source published, as recorded when it was fetched
            expected[entry.path] = receipt.files[entry.path].sha256
        else:
            return False
    expected |= {f"{source.prompts_to}/{recipe.name}": source.template_pins.get(recipe.name, "")
                 for recipe in source.templates}
    return all((folder / rel).is_file() and sha256_file(folder / rel) == sha for rel, sha in expected.items())


def _unreachable(command: str, err: SourceUnreachable) -> BadInput:
    return BadInput(f"the source cannot be reached: {err.detail}. To lay out a copy you already have: "
                    f"benchledger fetch {command} --from DIR")


def fetch_release(command: str, source: ReleaseSource, folder: Path, settings: FetchSettings,
                  progress: Progress = lambda stage, done, total: None) -> FetchResult:
    """Fetch, check and lay out one benchmark's release in `folder` (see the module docstring)."""
    folder = Path(folder)
    receipt = read_receipt(folder)
    if in_place(folder, source, receipt):
        assert receipt is not None
        return FetchResult(folder, folder / source.run_path, receipt, 0, 0)
    (folder / RECEIPT).unlink(missing_ok=True)  # what it described no longer holds
    try:
        plan = plan_fetch(source, settings)
    except SourceUnreachable as err:
        raise _unreachable(command, err) from None
    total = sum(item.expected.size or 0 for item in plan)
    done = 0
    lock = threading.Lock()

    def report(n: int) -> None:
        nonlocal done
        if n == 0:  # nothing moved (a fetch that reaches no source prints no bar at all)
            return
        with lock:
            done += n
            progress(PROGRESS_STAGE, done, max(total, done))

    folder.mkdir(parents=True, exist_ok=True)
    files: dict[str, FetchedFile] = {}
    downloaded = bytes_downloaded = 0
    # Memora's release is 27,645 small files: one at a time, the round trips would be most of the fetch.
    pool = ThreadPoolExecutor(max_workers=DOWNLOADS_IN_FLIGHT, thread_name_prefix="fetch")
    stop = threading.Event()
    try:
        placed = [pool.submit(_place, folder, item, report, stop) for item in plan]
        for item, future in zip(plan, placed):
            try:
                entry, size = future.result()  # the first file refused stops the fetch, naming it
            except SourceUnreachable as err:
                raise _unreachable(command, err) from None
            files[item.to] = entry
            downloaded += 1 if size else 0
            bytes_downloaded += size
    except BaseException:
        # On a refusal or Ctrl-C no download starts or retries, and the ones reading now are cut off by
        # closing the client under them (huggingface_hub makes a new one when next asked).
        stop.set()
        from huggingface_hub import close_session

        close_session()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    if source.templates:
        files.update(write_templates(folder, source))
    receipt = Receipt(benchmark=command, run_path=source.run_path, files=files, fetched_at=now_iso())
    write_receipt(folder, receipt)
    return FetchResult(folder, folder / source.run_path, receipt, downloaded, bytes_downloaded)
