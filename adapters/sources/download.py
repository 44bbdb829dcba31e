"""Getting one file's bytes from a source, bounded and resumable, and asking the hub what it published.

Bodies are streamed with huggingface_hub's own HTTP client (`get_session()`: its proxies, redirects
and offline mode), for GitHub raw files and hub files alike, but read here rather than through
`huggingface_hub.file_download.http_get`: that helper writes every chunk it is sent and compares the
size only once the body has ended (an endless body filled 4.76 GB in 25 s before anything looked),
and it retries a dropped connection five times, logging "Trying to resume download..." each time.
Here a body is read as it arrives, up to a cap (the pinned size, else the size the source
announced, else the fetch's limit): the first byte past it stops the download, and the partial file
is deleted, so nothing past the cap is ever kept. A connection that drops after bytes arrived is
taken up again with a `Range` request, silently, while it makes progress; what arrived stays in
`<name>.incomplete` for the next fetch to resume. A file is opened only once its first byte
arrives: a source that cannot be reached leaves nothing behind (`SourceUnreachable`, one line).

`HfApi.get_paths_info` reports the SHA-256 the hub stores for each file of a dataset at a commit (its
LFS object id; a small file kept in git has only its git blob id, which is checked as git computes
it). The user's `HF_TOKEN` reaches the hub through `build_hf_headers`, and is never recorded here.

`huggingface_hub` 2.x talks through `httpx2`, 1.x through `httpx` (what a tree that caps it below 2
installs, as the `cognee` extra does): a transport error of either is a download failure, not a crash.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchledger.errors import BadInput

__all__ = ["Published", "Cap", "SourceUnreachable", "BodyPastCap", "download", "hub_commit", "hub_published", "sha256_file",
           "git_blob_id", "INCOMPLETE", "CHUNK"]

INCOMPLETE = ".incomplete"
CHUNK = 1 << 20
"""Bytes read and written at a time."""
def _timeout() -> float:
    """Seconds to connect, and between two reads of a body: huggingface_hub's own setting
    (`HF_HUB_DOWNLOAD_TIMEOUT`, 10 by default)."""
    from huggingface_hub import constants

    return float(constants.HF_HUB_DOWNLOAD_TIMEOUT)


_STALLS = 3
"""Connections in a row that may drop without delivering a byte before a download gives up."""


@dataclass(frozen=True)
class Published:
    """What a file must hash to, and who says so."""

    kind: str
    """"sha256" (pinned, or the hub's LFS SHA-256) or "git-blob" (the hub's git blob id)."""
    value: str
    size: int | None = None
    by: str = "pinned"
    """"pinned" (the package's pin table) or "hub" (what the source published for that commit)."""


@dataclass(frozen=True)
class Cap:
    """The most bytes a body may have, and where that figure comes from (for the one line past it)."""

    bytes: int
    why: str
    """"pinned for it", "the source announced", "the fetch limit (BENCHLEDGER_FETCH_MAX_BYTES)"."""


class SourceUnreachable(BadInput):
    """No connection to a source could be made (offline, a name that does not resolve, a refused port)."""

    def __init__(self, host: str, reason: str) -> None:
        self.host, self.reason = host, reason
        super().__init__(f"cannot reach {host} ({reason})")


class BodyPastCap(BadInput):
    """A body ran (or was announced to run) past its cap: stopped there, nothing kept."""


class _Restart(Exception):
    """The source refused the range asked for: start the file again from its first byte."""


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(CHUNK), b""):
            digest.update(block)
    return digest.hexdigest()


def git_blob_id(path: Path) -> str:
    """The id git gives the file's bytes (SHA-1 over a `blob <size>\\0` header and the bytes)."""
    digest = hashlib.sha1(f"blob {path.stat().st_size}\0".encode())
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(CHUNK), b""):
            digest.update(block)
    return digest.hexdigest()


def _host(url: str) -> str:
    return url.split("://", 1)[-1].split("/", 1)[0]


def _errors() -> tuple[tuple[type[Exception], ...], tuple[type[Exception], ...]]:
    """(could not connect, any other transport error) of httpx2, and of httpx where 1.x is installed."""
    import httpx2
    from huggingface_hub.errors import OfflineModeIsEnabled

    connect: list[type[Exception]] = [httpx2.ConnectError, httpx2.ConnectTimeout, OfflineModeIsEnabled]
    transport: list[type[Exception]] = [httpx2.TransportError]
    try:
        import httpx
    except ImportError:
        pass
    else:
        connect += [httpx.ConnectError, httpx.ConnectTimeout]
        transport.append(httpx.TransportError)
    return tuple(connect), tuple(transport)


def download(url: str, target: Path, *, cap: Cap, headers: dict[str, str] | None = None,
             expected_size: int | None = None, report: Callable[[int], None] = lambda n: None,
             stop: threading.Event | None = None) -> Path:
    """Stream `url` into `target` + ".incomplete" (resuming what it holds), at most `cap` bytes; return it.

    The caller checks the hash and moves it into place: nothing unchecked ever takes the final name.
    Once `stop` is set (the fetch was refused elsewhere, or interrupted) no connection is tried again.
    """
    from huggingface_hub import get_session

    partial = target.with_name(target.name + INCOMPLETE)
    held = partial.stat().st_size if partial.exists() else 0
    if held > cap.bytes:
        partial.unlink()
        held = 0
    report(held)
    if expected_size is not None and held == expected_size:
        return partial  # complete already: the caller's hash check decides
    connect, transport = _errors()
    session, stalls = get_session(), 0
    while True:
        before = partial.stat().st_size if partial.exists() else 0
        try:
            _stream(session, url, partial, before, cap, headers, report)
            return partial
        except _Restart:
            partial.unlink(missing_ok=True)
            report(-before)
        except connect as err:
            kept = partial.stat().st_size if partial.exists() else 0
            raise SourceUnreachable(_host(url), f"{type(err).__name__}: {err}"
                                    + (f"; {kept:,} bytes of {target.name} are kept for the next fetch" if kept else "")
                                    ) from None
        except transport as err:
            grown = (partial.stat().st_size if partial.exists() else 0) > before
            stalls = 0 if grown else stalls + 1
            _give_up_after(_STALLS if stop is not None and stop.is_set() else stalls, url, target, partial, err)


def _give_up_after(stalls: int, url: str, target: Path, partial: Path, err: Exception) -> None:
    if stalls < _STALLS:
        return
    kept = partial.stat().st_size if partial.exists() else 0
    raise BadInput(f"download of {url} failed ({type(err).__name__}: {err}); "
                   + (f"{kept:,} bytes are kept and the next fetch resumes from there" if kept else "nothing was kept"),
                   file=str(target)) from None


def _stream(session: Any, url: str, partial: Path, resume: int, cap: Cap, headers: dict[str, str] | None,
            report: Callable[[int], None]) -> None:
    asked = {**(headers or {}), "Accept-Encoding": "identity"}
    if resume:
        asked["Range"] = f"bytes={resume}-"
    with session.stream("GET", url, headers=asked, timeout=_timeout()) as response:
        status = response.status_code
        if status == 416 and resume:
            raise _Restart()
        if status >= 400:
            raise BadInput(f"the source answered HTTP {status} for {url}; nothing was kept under this name",
                           file=str(partial.with_name(partial.name.removesuffix(INCOMPLETE))))
        if resume and status != 206:  # the source ignored the range: the whole body follows
            partial.unlink(missing_ok=True)
            report(-resume)
            resume = 0
        announced = response.headers.get("Content-Length")
        if announced is not None and announced.isdigit() and resume + int(announced) > cap.bytes:
            partial.unlink(missing_ok=True)
            raise BodyPastCap(f"the source announces {resume + int(announced):,} bytes for {url}, more than the "
                           f"{cap.bytes:,} {cap.why}; nothing was downloaded",
                           file=str(partial.with_name(partial.name.removesuffix(INCOMPLETE))))
        written, handle = resume, None
        try:
            for chunk in response.iter_bytes():  # as they arrive: a cut keeps every byte before it
                if not chunk:
                    continue
                if written + len(chunk) > cap.bytes:
                    if handle is not None:
                        handle.close()
                        handle = None
                    partial.unlink(missing_ok=True)
                    raise BodyPastCap(f"the body of {url} runs past the {cap.bytes:,} bytes {cap.why}: stopped "
                                   "there, nothing kept",
                                   file=str(partial.with_name(partial.name.removesuffix(INCOMPLETE))))
                if handle is None:  # opened at the first byte: a failed connection leaves no file
                    partial.parent.mkdir(parents=True, exist_ok=True)
                    handle = open(partial, "ab" if resume else "wb")
                handle.write(chunk)
                written += len(chunk)
                report(len(chunk))
        finally:
            if handle is not None:
                handle.close()
        if handle is None and not partial.exists():  # an empty file, which is a file too
            partial.parent.mkdir(parents=True, exist_ok=True)
            partial.write_bytes(b"")


def _api(hub: str) -> Any:
    from huggingface_hub import HfApi

    return HfApi(endpoint=hub)


def _hub_failure(err: Exception, hub: str, what: str) -> BadInput:
    connect, _ = _errors()
    if isinstance(err, connect):
        return SourceUnreachable(_host(hub), f"{type(err).__name__}: {err}")
    response = getattr(err, "response", None)
    status = f"HTTP {response.status_code}" if response is not None else f"{type(err).__name__}: {err}"
    hint = ("; a gated dataset needs your own token in HF_TOKEN, after accepting its terms on the hub"
            if response is not None and response.status_code in (401, 403) else "")
    return BadInput(f"{what} ({status}){hint}")


def _hub_errors() -> tuple[type[Exception], ...]:
    from huggingface_hub.errors import HfHubHTTPError

    connect, transport = _errors()
    return HfHubHTTPError, *connect, *transport, OSError


def hub_commit(hub: str, repo: str, revision: str | None) -> str:
    """The commit a dataset revision names now (a pinned commit is returned as it is)."""
    if revision is not None and len(revision) == 40:
        return revision
    try:
        info = _api(hub).dataset_info(repo, revision=revision or "main", timeout=_timeout())
    except _hub_errors() as err:
        raise _hub_failure(err, hub, f"the hub did not describe dataset {repo}") from None
    if not info.sha:
        raise BadInput(f"the hub reported no commit for dataset {repo}")
    return str(info.sha)


def hub_published(hub: str, repo: str, commit: str, paths: list[str]) -> dict[str, Published]:
    """What the hub publishes for each path of a dataset at `commit`."""
    try:
        entries = _api(hub).get_paths_info(repo, paths, revision=commit, repo_type="dataset")
    except _hub_errors() as err:
        raise _hub_failure(err, hub, f"the hub did not list the files of dataset {repo} @ {commit[:12]}") from None
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
