"""Getting one file's bytes from a source, resumably, and asking the hub what it published.

Downloads go through `huggingface_hub`'s own helpers, for GitHub raw files and hub files alike:
`http_get` streams with a `Range` header from where a `.incomplete` file stopped (after an
interruption in this process, it retries and resumes by itself; after one in an earlier process,
`fetch` hands it the partial file), and `HfApi.get_paths_info` reports the SHA-256 the hub stores
for each file of a dataset at a commit (its LFS object id; a small file kept in git has only its
git blob id, which is checked as git computes it). The user's `HF_TOKEN` is sent to the hub by
`huggingface_hub` and never passed through or recorded here.

`huggingface_hub` 2.x talks through `httpx2`, 1.x through `httpx` (what a tree that caps it below 2
installs, as the `cognee` extra does): a transport error of either is a download failure, not a crash.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

from benchledger.errors import BadInput

__all__ = ["Published", "download", "hub_commit", "hub_published", "sha256_file", "git_blob_id", "INCOMPLETE"]

INCOMPLETE = ".incomplete"


@dataclass(frozen=True)
class Published:
    """What a source published for a file: the kind of hash and its value, and the size."""

    kind: str
    """"sha256" (pinned here, or the hub's LFS SHA-256) or "git-blob" (the hub's git blob id)."""
    value: str
    size: int | None = None
    by: str = "pinned"
    """Who says so: "pinned" (the benchmark's folder) or "hub" (the source, for that commit)."""


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def git_blob_id(path: Path) -> str:
    """The id git gives the file's bytes (SHA-1 over a `blob <size>\\0` header and the bytes)."""
    digest = hashlib.sha1(f"blob {path.stat().st_size}\0".encode())
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _bar_class(report: Callable[[int], None]) -> type[tqdm]:
    class ForwardingBar(tqdm):
        """Counts bytes into the fetch's own progress display instead of drawing a bar per file."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            kwargs["disable"] = True
            super().__init__(*args, **kwargs)

        def update(self, n: float | None = 1) -> bool | None:
            report(int(n or 0))
            return super().update(n)

    return ForwardingBar


def download(url: str, target: Path, *, headers: dict[str, str] | None = None, expected_size: int | None = None,
             report: Callable[[int], None] = lambda n: None) -> Path:
    """Stream `url` into `target` + ".incomplete", resuming from what it holds; return that partial path.

    The caller checks the hash and moves it into place: nothing unchecked ever takes the final name.
    """
    from huggingface_hub.errors import HfHubHTTPError
    from huggingface_hub.file_download import http_get

    partial = target.with_name(target.name + INCOMPLETE)
    partial.parent.mkdir(parents=True, exist_ok=True)
    resume = partial.stat().st_size if partial.exists() else 0
    if expected_size is not None and resume > expected_size:
        partial.unlink()
        resume = 0
    report(resume)
    if expected_size is not None and resume == expected_size:
        return partial  # complete already: the caller's hash check decides
    failures: tuple[type[Exception], ...] = (OSError, *_transport_errors())
    try:
        with open(partial, "ab") as handle:
            # No expected_size here: a complete response of the wrong length is a wrong file, refused by
            # the caller's hash check like any other, not a download error to retry.
            http_get(url, handle, resume_size=resume, headers=headers, displayed_filename=target.name,
                     tqdm_class=_bar_class(report))
    except HfHubHTTPError as err:
        status = err.response.status_code if err.response is not None else "?"
        raise BadInput(f"the source answered HTTP {status} for {url}; nothing was kept under this name",
                       file=str(target)) from None
    except failures as err:
        raise BadInput(f"download of {url} failed ({type(err).__name__}: {err}); fetch again to resume "
                       f"from the {partial.stat().st_size if partial.exists() else 0} bytes kept",
                       file=str(target)) from None
    return partial


def _api(hub: str) -> Any:
    from huggingface_hub import HfApi

    return HfApi(endpoint=hub)


def hub_commit(hub: str, repo: str, revision: str | None) -> str:
    """The commit a dataset revision names now (a pinned commit is returned as it is)."""
    if revision is not None and len(revision) == 40:
        return revision
    try:
        info = _api(hub).dataset_info(repo, revision=revision or "main")
    except _hub_errors() as err:
        raise BadInput(f"the hub did not describe dataset {repo} ({_status(err)}){_gated_hint(err)}") from None
    if not info.sha:
        raise BadInput(f"the hub reported no commit for dataset {repo}")
    return str(info.sha)


def _transport_errors() -> tuple[type[Exception], ...]:
    """The HTTP clients' own errors: httpx2's, and httpx's where huggingface_hub 1.x is installed."""
    import httpx2

    errors: list[type[Exception]] = [httpx2.HTTPError]
    try:
        import httpx
    except ImportError:
        pass
    else:
        errors.append(httpx.HTTPError)
    return tuple(errors)


def _hub_errors() -> tuple[type[Exception], ...]:
    from huggingface_hub.errors import HfHubHTTPError

    return HfHubHTTPError, *_transport_errors(), OSError


def _gated_hint(err: Exception) -> str:
    response = getattr(err, "response", None)
    if response is not None and response.status_code in (401, 403):
        return "; a gated dataset needs your own token in HF_TOKEN, after accepting its terms on the hub"
    return ""


def _status(err: Exception) -> str:
    response = getattr(err, "response", None)
    return f"HTTP {response.status_code}" if response is not None else f"{type(err).__name__}: {err}"


def hub_published(hub: str, repo: str, commit: str, paths: list[str]) -> dict[str, Published]:
    """What the hub publishes for each path of a dataset at `commit`."""
    try:
        entries = _api(hub).get_paths_info(repo, paths, revision=commit, repo_type="dataset")
    except _hub_errors() as err:
        raise BadInput(f"the hub did not list the files of dataset {repo} @ {commit[:12]} ({_status(err)})"
                       f"{_gated_hint(err)}") from None
    published: dict[str, Published] = {}
    for entry in entries:
        lfs = getattr(entry, "lfs", None)
        if lfs is not None:
            published[entry.path] = Published("sha256", lfs.sha256, lfs.size, by="hub")
        elif getattr(entry, "blob_id", None):
            published[entry.path] = Published("git-blob", entry.blob_id, getattr(entry, "size", None), by="hub")
    missing = [path for path in paths if path not in published]
    if missing:
        raise BadInput(f"the hub lists no file {missing[0]} in dataset {repo} @ {commit[:12]}")
    return published
