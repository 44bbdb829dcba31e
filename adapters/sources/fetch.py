"""`benchledger fetch`: a benchmark's release and official prompts, from their sources, checked.

The procedure, for one `ReleaseSource`:

1. A folder whose receipt lists every declared file, each present with its recorded bytes, is
   done: nothing is asked of any server (a second fetch is instant and works offline).
2. Each file's expected hash is its pin, or, for a hub file, what the hub publishes for the commit
   (a dataset revision left open is resolved to its commit first, and that commit is recorded).
3. A file already in place with the expected hash is kept; any other is downloaded beside its
   final name (`<name>.incomplete`, resumed where an interrupted fetch left it), checked, and only
   then moved into place, up to `DOWNLOADS_IN_FLIGHT` at once. A file that does not hash right is
   deleted and the fetch stops, naming it (the first one in declaration order).
4. The official code files are fetched the same way (under `source/`), and every template is read
   out of them (`templates.derive_templates`) and must come out at its pin, else the fetch stops and
   names the template; they are written under `prompts/`.
5. The receipt is written last (`receipt.py`).

What stops a fetch is a `BadInput` (exit 2) naming the file; files already checked stay, so the
next fetch goes on from there.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from benchledger.adapters.sources.download import (
    Published, download, git_blob_id, hub_commit, hub_published, sha256_file,
)
from benchledger.adapters.sources.receipt import FetchedFile, Receipt, read_receipt, verify_present, write_receipt
from benchledger.adapters.sources.settings import FetchSettings
from benchledger.adapters.sources.spec import GitHubFiles, HubFiles, ReleaseSource, RemoteFile
from benchledger.adapters.sources.templates import derive_templates
from benchledger.errors import BadInput

__all__ = ["FetchResult", "fetch_release", "CODE_FOLDER", "PROGRESS_STAGE", "DOWNLOADS_IN_FLIGHT"]

CODE_FOLDER = "source"
"""Where the official code files land inside the release folder."""
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


@dataclass(frozen=True)
class _Planned:
    to: str
    url: str
    origin: str
    revision: str
    path: str
    published: Published
    headers: dict[str, str] | None = None


def _relative(to: str) -> str:
    parts = Path(to).parts
    if Path(to).is_absolute() or not parts or ".." in parts:
        raise BadInput(f"a release file may only land inside the release folder, not at {to!r}", field="to")
    return to


def _github_plan(files: GitHubFiles, base: str, under: str = "") -> list[_Planned]:
    plan = []
    for file in files.files:
        if file.sha256 is None:
            raise BadInput(f"{files.origin} file {file.path} has no pinned SHA-256: GitHub publishes none",
                           field="sha256")
        plan.append(_Planned(_relative(under + file.to), f"{base}/{files.repo}/{files.commit}/{file.path}",
                             files.origin, files.commit, file.path, Published("sha256", file.sha256, file.size)))
    return plan


def _hub_plan(files: HubFiles, hub: str) -> list[_Planned]:
    from huggingface_hub import get_token, hf_hub_url
    from huggingface_hub.utils import build_hf_headers

    if files.gated and not get_token():
        raise BadInput(f"dataset {files.repo} is gated: accept its terms on the hub, then set HF_TOKEN to your own "
                       "token (it is sent to the hub only, never recorded)", field="HF_TOKEN")
    commit = hub_commit(hub, files.repo, files.revision)
    published = hub_published(hub, files.repo, commit, [file.path for file in files.files])
    headers = build_hf_headers()  # the user's HF_TOKEN, when set: sent, never recorded
    plan = []
    for file in files.files:
        pin = published[file.path]
        if file.sha256 is not None and (pin.kind != "sha256" or pin.value != file.sha256):
            raise BadInput(f"the hub publishes {pin.kind} {pin.value[:12]}… for {file.path} @ {commit[:12]}, "
                           f"not the pinned {file.sha256[:12]}…", field="sha256")
        plan.append(_Planned(_relative(file.to), hf_hub_url(files.repo, file.path, repo_type="dataset",
                                                            revision=commit, endpoint=hub),
                             files.origin, commit, file.path, pin, headers))
    return plan


def _matches(path: Path, published: Published) -> tuple[bool, str]:
    """Whether the file's bytes are what was published, and its SHA-256."""
    sha = sha256_file(path)
    if published.kind == "git-blob":
        return git_blob_id(path) == published.value, sha
    return sha == published.value, sha


def _whose(published: Published) -> str:
    return "pinned" if published.by == "pinned" else "hub's published"


def _describe(published: Published) -> str:
    return f"{published.by} {published.kind} {published.value}"


def _expected_files(source: ReleaseSource) -> set[str]:
    expected = {file.to for part in source.release for file in part.files}
    if source.code is not None:
        expected |= {CODE_FOLDER + "/" + file.to for file in source.code.files}
    return expected | {f"{source.prompts_to}/{recipe.name}" for recipe in source.templates}


def _place(folder: Path, item: _Planned, progress: Callable[[int], None]) -> tuple[FetchedFile, int]:
    """The file in place and checked; the bytes downloaded for it."""
    target = folder / item.to
    if target.is_file():
        ok, sha = _matches(target, item.published)
        if ok:
            progress(target.stat().st_size)
            return FetchedFile(sha256=sha, bytes=target.stat().st_size, origin=item.origin, revision=item.revision,
                               path=item.path, published=_describe(item.published)), 0
    partial = download(item.url, target, headers=item.headers, expected_size=item.published.size, report=progress)
    ok, sha = _matches(partial, item.published)
    if not ok:
        shown = sha if item.published.kind == "sha256" else git_blob_id(partial)
        partial.unlink()
        raise BadInput(f"{item.origin} @ {item.revision[:12]} {item.path}: {item.published.kind} of what arrived "
                       f"is {shown[:12]}…, not the {_whose(item.published)} {item.published.value[:12]}…; it was deleted, "
                       "nothing is laid out under that name", file=str(target))
    size = partial.stat().st_size
    os.replace(partial, target)
    return FetchedFile(sha256=sha, bytes=size, origin=item.origin, revision=item.revision, path=item.path,
                       published=_describe(item.published)), size


def _write_templates(folder: Path, source: ReleaseSource, code: dict[str, FetchedFile]) -> dict[str, FetchedFile]:
    if source.code is None:
        raise BadInput("the source declares templates but no official code to read them from", field="code")
    texts = {file.path: (folder / CODE_FOLDER / file.to).read_text(encoding="utf-8") for file in source.code.files}
    shown = {file.path: str(folder / CODE_FOLDER / file.to) for file in source.code.files}
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
        origin = code[CODE_FOLDER + "/" + recipe.code]
        out[f"{source.prompts_to}/{name}"] = FetchedFile(
            sha256=hashlib.sha256(data).hexdigest(), bytes=len(data), origin=origin.origin, revision=origin.revision,
            path=recipe.code, published=f"derived from {recipe.code}, pinned sha256 {source.template_pins[name]}")
    return out


def fetch_release(command: str, source: ReleaseSource, folder: Path, settings: FetchSettings,
                  progress: Progress = lambda stage, done, total: None) -> FetchResult:
    """Fetch, check and lay out one benchmark's release in `folder` (see the module docstring)."""
    folder = Path(folder)
    expected = _expected_files(source)
    receipt = read_receipt(folder)
    if receipt is not None and set(receipt.files) == expected and not verify_present(folder, receipt):
        return FetchResult(folder, folder / source.run_path, receipt, 0, 0)

    plan: list[_Planned] = []
    for part in source.release:
        plan += _github_plan(part, settings.github_raw) if isinstance(part, GitHubFiles) else _hub_plan(part, settings.hub)
    if source.code is not None:
        plan += _github_plan(source.code, settings.github_raw, CODE_FOLDER + "/")
    total = sum(item.published.size or 0 for item in plan)
    done = 0
    lock = threading.Lock()

    def report(n: int) -> None:
        nonlocal done
        with lock:
            done += n
            progress(PROGRESS_STAGE, done, max(total, done))

    folder.mkdir(parents=True, exist_ok=True)
    files: dict[str, FetchedFile] = {}
    downloaded = bytes_downloaded = 0
    # Memora's release is 27,645 small files: one at a time, the round trips would be most of the fetch.
    pool = ThreadPoolExecutor(max_workers=DOWNLOADS_IN_FLIGHT, thread_name_prefix="fetch")
    try:
        placed = [pool.submit(_place, folder, item, report) for item in plan]
        for item, future in zip(plan, placed):
            entry, size = future.result()  # the first file refused stops the fetch, naming it
            files[item.to] = entry
            downloaded += 1 if size else 0
            bytes_downloaded += size
    finally:  # on a refusal or Ctrl-C no new download starts; those in flight finish into .incomplete
        pool.shutdown(wait=True, cancel_futures=True)
    if source.templates:
        files.update(_write_templates(folder, source, files))
    receipt = Receipt(benchmark=command, run_path=source.run_path, files=files)
    write_receipt(folder, receipt)
    return FetchResult(folder, folder / source.run_path, receipt, downloaded, bytes_downloaded)


def declared_file(source: ReleaseSource, to: str) -> RemoteFile | None:
    """The declaration of the release file that lands at `to`, if any."""
    return next((file for part in source.release for file in part.files if file.to == to), None)
