"""Pin tables: the SHA-256 and size of every official file of a benchmark, shipped in the package.

A benchmark has one pin table, a JSON file in its folder (gzip-compressed when large, as Memora's
27,645 files are), declared on its release source (`ReleaseSource.pins`, `Benchmark.pin_table()`).
The table lists every official file it knows of, each with its place in the release folder, where
it comes from (a GitHub repository or a hub dataset, and the revision), the path there, and either
its pin (SHA-256 and bytes, and who states them: `pinned_by`) or why it has none (`Unpinned.why`).

A pin is a fact about bytes someone published, so it is checked the same way by anyone, offline:
`official_release` compares what a run recorded with the table the package ships, and `fetch`
compares what arrives with it. Nothing at run time adds or replaces a pin (no setting, receipt,
flag or environment variable): a table is read from the package's own files or built in a
plug-in's own code, never from the runner's environment.

The file format (`FORMAT`), one object:

    {"format": "benchledger-pins/1", "benchmark": "LoCoMo", "groups": [
      {"role": "release" | "code", "origin": "github.com/<owner>/<repo>" | "huggingface.co/datasets/<id>",
       "revision": "<commit>" | null, "source_prefix": "data/", "release_prefix": "",
       "pinned_by": "who states these hashes",
       "files": {"<path in the group>": ["<sha256>", <bytes>] | ["<sha256>", <bytes>, "<pinned by>"]},
       "unpinned": {"<path in the group>": "why no pin is known"}}]}

A file's release path is `release_prefix + path`, its path at the source `source_prefix + path`.
`role` "code" marks the official code the templates are read out of (laid out under `source/`).
"""

from __future__ import annotations

import gzip
import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from importlib.resources import files
from typing import Any, Literal

__all__ = ["FORMAT", "Pin", "Unpinned", "PinTable", "canonical_url", "GITHUB_RAW", "HUB"]

FORMAT = "benchledger-pins/1"
GITHUB_RAW = "https://raw.githubusercontent.com"
"""Where GitHub serves a repository's files at a commit (the default source of `fetch`)."""
HUB = "https://huggingface.co"
"""The Hugging Face hub (the default source of `fetch` for datasets)."""

Role = Literal["release", "code"]


@dataclass(frozen=True)
class Pin:
    """One official file and the bytes it must be."""

    path: str
    """Its path inside the release folder (forward slashes), as a run records it."""
    sha256: str
    bytes: int
    origin: str
    """github.com/<owner>/<repo> or huggingface.co/datasets/<id>."""
    revision: str
    """The commit the pin is for."""
    source_path: str
    """Its path in the repository or dataset at that revision."""
    pinned_by: str
    """Where the pin itself comes from: who states this SHA-256 for that file at that revision."""
    role: Role = "release"


@dataclass(frozen=True)
class Unpinned:
    """An official file whose SHA-256 no source this project trusts states: it cannot be checked."""

    path: str
    origin: str
    revision: str | None
    """The revision it is fetched at, when the benchmark names one (else the source's current one)."""
    source_path: str
    why: str
    role: Role = "release"


Entry = Pin | Unpinned


def canonical_url(origin: str, revision: str, source_path: str) -> str:
    """Where the file is published at that revision, on its own host (what a mirror stands in for)."""
    if origin.startswith("github.com/"):
        return f"{GITHUB_RAW}/{origin.removeprefix('github.com/')}/{revision}/{source_path}"
    if origin.startswith("huggingface.co/datasets/"):
        return f"{HUB}/datasets/{origin.removeprefix('huggingface.co/datasets/')}/resolve/{revision}/{source_path}"
    raise ValueError(f"no known host for origin {origin!r}")


@dataclass(frozen=True, eq=False)
class PinTable:
    """A benchmark's pin table: every official file it knows of, pinned or not, by release path."""

    benchmark: str
    given: tuple[Entry, ...] = ()
    resource: tuple[str, str] | None = field(default=None, repr=False)
    """(package, file name) of a table read from the package on first use, instead of `given`."""

    @classmethod
    def packaged(cls, package: str, name: str, benchmark: str) -> PinTable:
        """The table shipped as `name` in `package` (read when first asked: Memora's is 27,645 entries)."""
        return cls(benchmark, resource=(package, name))

    @classmethod
    def from_json(cls, data: Mapping[str, Any], *, where: str = "pin table") -> PinTable:
        if data.get("format") != FORMAT:
            raise ValueError(f"{where}: format {data.get('format')!r}, not {FORMAT!r}")
        return cls(str(data["benchmark"]), tuple(_entries(data, where)))

    @cached_property
    def entries(self) -> Mapping[str, Entry]:
        """Release path -> its entry, in the table's order."""
        given = self.given
        if self.resource is not None:
            package, name = self.resource
            raw = files(package).joinpath(name).read_bytes()
            loaded = PinTable.from_json(json.loads(gzip.decompress(raw) if name.endswith(".gz") else raw),
                                        where=f"{package}/{name}")
            if loaded.benchmark != self.benchmark:
                raise ValueError(f"{package}/{name} is the pin table of {loaded.benchmark}, not {self.benchmark}")
            given = loaded.given
        table: dict[str, Entry] = {}
        for entry in given:
            if entry.path in table:
                raise ValueError(f"the pin table of {self.benchmark} lists {entry.path} twice")
            table[entry.path] = entry
        return table

    def __report_digest__(self) -> dict[str, Any]:
        """What a report digest counts of the table (`projections.report_digest`): its entries, and a
        packaged table by its file's SHA-256 (cheaper than reading 27,645 entries, and as exact)."""
        packaged = None
        if self.resource is not None:
            package, name = self.resource
            packaged = hashlib.sha256(files(package).joinpath(name).read_bytes()).hexdigest()
        return {"benchmark": self.benchmark, "given": self.given, "packaged": packaged}

    def __iter__(self) -> Iterator[Entry]:
        return iter(self.entries.values())

    def __len__(self) -> int:
        return len(self.entries)

    def pin(self, path: str) -> Pin | None:
        """The pin of the file at `path` in the release folder, or None (unpinned, or not a listed file)."""
        entry = self.entries.get(path)
        return entry if isinstance(entry, Pin) else None

    def entry(self, path: str) -> Entry | None:
        return self.entries.get(path)

    def pins(self) -> list[Pin]:
        return [entry for entry in self if isinstance(entry, Pin)]

    def unpinned(self) -> list[Unpinned]:
        return [entry for entry in self if isinstance(entry, Unpinned)]

    def with_entries(self, extra: Iterable[Entry], *, benchmark: str | None = None) -> PinTable:
        """This table and `extra` (a plug-in building on a built-in's code pins)."""
        return PinTable(benchmark or self.benchmark, (*self.entries.values(), *extra))

    def to_json(self) -> dict[str, Any]:
        """The table in the file format (what `from_json` reads back to an equal table)."""
        groups: dict[tuple[Any, ...], dict[str, Any]] = {}
        for entry in self:
            rel = _common_tail(entry.path, entry.source_path)
            release_prefix, source_prefix = entry.path[: len(entry.path) - len(rel)], \
                entry.source_path[: len(entry.source_path) - len(rel)]
            pinned_by = entry.pinned_by if isinstance(entry, Pin) else ""
            key = (entry.role, entry.origin, entry.revision, pinned_by, release_prefix, source_prefix)
            group = groups.setdefault(key, {"role": entry.role, "origin": entry.origin, "revision": entry.revision,
                                            "source_prefix": source_prefix, "release_prefix": release_prefix,
                                            "pinned_by": pinned_by, "files": {}, "unpinned": {}})
            if isinstance(entry, Pin):
                group["files"][rel] = [entry.sha256, entry.bytes]
            else:
                group["unpinned"][rel] = entry.why
        return {"format": FORMAT, "benchmark": self.benchmark, "groups": list(groups.values())}


def _common_tail(path: str, source_path: str) -> str:
    """The longest run of trailing path segments the two share."""
    a, b = path.split("/"), source_path.split("/")
    n = 0
    while n < min(len(a), len(b)) and a[-1 - n] == b[-1 - n]:
        n += 1
    return "/".join(a[len(a) - n:])


def _entries(data: Mapping[str, Any], where: str) -> Iterator[Entry]:
    for number, group in enumerate(data["groups"]):
        role = group.get("role", "release")
        if role not in ("release", "code"):
            raise ValueError(f"{where}: group {number}: role {role!r}")
        origin, revision = str(group["origin"]), group.get("revision")
        source_prefix, release_prefix = group.get("source_prefix", ""), group.get("release_prefix", "")
        for path, value in group.get("files", {}).items():
            sha, size, *by = value
            if revision is None:
                raise ValueError(f"{where}: group {number}: a pin needs the revision it is for")
            if len(sha) != 64 or not isinstance(size, int):
                raise ValueError(f"{where}: {path}: a pin is [sha256 (64 hex), bytes]")
            yield Pin(release_prefix + path, sha, size, origin, str(revision), source_prefix + path,
                      by[0] if by else str(group["pinned_by"]), role)
        for path, why in group.get("unpinned", {}).items():
            yield Unpinned(release_prefix + path, origin, revision, source_prefix + path, str(why), role)
