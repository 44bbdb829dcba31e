"""What a fetch will download: one `Planned` per file of a benchmark's pin table, with its URL and checks.

For every entry of the pin table (`ReleaseSource.pins`):

- the URL it is read from: `<github_raw>/<owner>/<repo>/<commit>/<path>` for a GitHub file,
  `<hub>/datasets/<id>/resolve/<commit>/<path>` for a hub file (the bases are settings, so a mirror
  or a test serves the same paths; the URL used is recorded);
- what it must hash to: its pin, or, for a hub file without one, what the hub publishes for the
  commit (a dataset revision left open is resolved to its commit first; a pinned file asks the hub
  nothing: its pin decides). GitHub publishes no hash, so a GitHub file without a pin is taken as it
  arrives from its commit (`AS_ARRIVED`): downloaded whatever is in place, its SHA-256 recorded, never
  official (`official_release` checks pins alone);
- the most bytes its body may have (`Cap`): the pin's size, else the size the hub announced, at
  most the settings' limit.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from benchledger.adapters.sources.download import Cap, Published, hub_commit, hub_published
from benchledger.adapters.sources.settings import FetchSettings
from benchledger.adapters.sources.spec import ReleaseSource
from benchledger.errors import BadInput
from benchledger.pins import Pin, Unpinned

__all__ = ["Planned", "plan_fetch", "release_path", "AS_ARRIVED"]

AS_ARRIVED = "as-arrived"
"""The `Published.kind` of a file nobody publishes a hash for: what arrives is recorded, never checked."""

_GITHUB, _HUB = "github.com/", "huggingface.co/datasets/"


@dataclass(frozen=True)
class Planned:
    entry: Pin | Unpinned
    url: str
    revision: str
    expected: Published
    cap: Cap
    headers: dict[str, str] | None = None

    @property
    def to(self) -> str:
        return self.entry.path


def release_path(to: str) -> str:
    """`to`, refused unless it is a relative path inside the release folder."""
    parts = Path(to).parts
    if Path(to).is_absolute() or not parts or ".." in parts or "\\" in to:
        raise BadInput(f"a release file may only land inside the release folder, not at {to!r}", field="to")
    return to


def _expected(entry: Pin | Unpinned, published: Published | None, settings: FetchSettings) -> tuple[Published, Cap]:
    if isinstance(entry, Pin):
        return Published("sha256", entry.sha256, entry.bytes), Cap(entry.bytes, "pinned for it")
    assert published is not None
    if published.size is not None and published.size <= settings.max_download_bytes:
        return published, Cap(published.size, "the source announced")
    # what a source announces is capped too: a hub may announce anything for a file no pin describes
    return published, Cap(settings.max_download_bytes, "of the fetch limit (BENCHLEDGER_FETCH_MAX_BYTES)")


def _github(entries: list[Pin | Unpinned], settings: FetchSettings) -> list[Planned]:
    plan = []
    for entry in entries:
        if not isinstance(entry, Pin) and entry.revision is None:
            raise BadInput(f"{entry.origin} file {entry.source_path} has no pin and no commit: it cannot be fetched",
                           field="revision")
        expected, cap = _expected(entry, None, settings) if isinstance(entry, Pin) else (
            Published(AS_ARRIVED, "-", None, by="nobody"),
            Cap(settings.max_download_bytes, "of the fetch limit (BENCHLEDGER_FETCH_MAX_BYTES)"))
        assert entry.revision is not None
        repo = entry.origin.removeprefix(_GITHUB)
        plan.append(Planned(entry, f"{settings.github_raw}/{repo}/{entry.revision}/{entry.source_path}",
                            entry.revision, expected, cap))
    return plan


def _hub(repo: str, entries: list[Pin | Unpinned], source: ReleaseSource, settings: FetchSettings) -> list[Planned]:
    from huggingface_hub import get_token, hf_hub_url
    from huggingface_hub.utils import build_hf_headers

    if repo in source.gated and not get_token():
        raise BadInput(f"dataset {repo} is gated: accept its terms on the hub, then set HF_TOKEN to your own "
                       "token (it is sent to the hub only, never recorded)", field="HF_TOKEN")
    open_ended = [entry for entry in entries if not isinstance(entry, Pin)]
    commits = {entry.revision for entry in open_ended}
    if len(commits) > 1:
        raise BadInput(f"the pin table names several revisions of dataset {repo} for its unpinned files", field="revision")
    commit = hub_commit(settings.hub, repo, commits.pop()) if open_ended else ""
    published = hub_published(settings.hub, repo, commit, [e.source_path for e in open_ended]) if open_ended else {}
    headers = build_hf_headers()  # the user's HF_TOKEN, when set: sent to the hub, never recorded
    plan = []
    for entry in entries:
        revision = entry.revision if isinstance(entry, Pin) else commit
        expected, cap = _expected(entry, published.get(entry.source_path), settings)
        url = hf_hub_url(repo, entry.source_path, repo_type="dataset", revision=revision, endpoint=settings.hub)
        plan.append(Planned(entry, url, revision, expected, cap, headers))
    return plan


def plan_fetch(source: ReleaseSource, settings: FetchSettings) -> list[Planned]:
    """Every file of the pin table, in its order, planned (hub metadata is asked once per dataset)."""
    by_origin: dict[str, list[Pin | Unpinned]] = {}
    for entry in source.pins:
        release_path(entry.path)
        by_origin.setdefault(entry.origin, []).append(entry)
    planned: dict[str, Planned] = {}
    for origin, entries in by_origin.items():
        if origin.startswith(_GITHUB):
            items = _github(entries, settings)
        elif origin.startswith(_HUB):
            items = _hub(origin.removeprefix(_HUB), entries, source, settings)
        else:
            raise BadInput(f"no way to fetch from {origin!r} (github.com/... or huggingface.co/datasets/...)",
                           field="origin")
        planned.update((item.to, item) for item in items)
    return [planned[entry.path] for entry in source.pins]
