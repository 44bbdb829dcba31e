"""One cached loader for benchledger's plug-in groups (benchmarks and memory systems alike).

An entry-point group is read once and every entry point in it loaded once, as simonw/llm loads its
plugins: the result is cached per group and per `sys.path`, since what is installed is what the
path holds (a test that puts a distribution on the path, or a fresh interpreter, reads it anew).
Built-ins come through the same group a third-party distribution uses.

Each entry point becomes one `Plugin`: its name, module, distribution ("name version") and either
the loaded object or the error that stopped it (a broken plugin is listed, never fatal, never
hidden). One rule for a name two distributions both register: both are listed, and asking for the
bare name is refused with one line naming the distributions, until one is chosen by its qualified
name `NAME@DISTRIBUTION` (as `benchledger benchmarks` / `memories` print it).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from importlib.metadata import EntryPoint, entry_points
from typing import Generic, TypeVar

from benchledger.errors import BadInput

__all__ = ["Plugin", "choose", "load_group"]

T = TypeVar("T")


@dataclass(frozen=True)
class Plugin(Generic[T]):
    """One entry point of a plug-in group, loaded (or with why it could not be)."""

    name: str
    """The entry point's name (`--memory NAME`, `benchledger run NAME`)."""
    module: str
    """Where the object lives: the entry point's reference ("package.module:Class")."""
    distribution: str | None
    """The installed distribution that declares it, as "name version" (None when unknown)."""
    loaded: T | None
    """What the group makes of the entry point (a benchmark object, a memory class); None on error."""
    error: str | None = None
    """Why it could not be loaded, as "ErrorClass: message"."""
    shared: bool = False
    """True when another distribution registers the same name: it must be asked for qualified."""

    @property
    def version(self) -> str | None:
        """The loaded object's own `version` (a memory system's), None where it declares none."""
        version = getattr(self.loaded, "version", None)
        return None if version is None else str(version)

    @property
    def qualified(self) -> str:
        """`NAME@DISTRIBUTION` (the distribution's name without its version): how a shared name is chosen."""
        return f"{self.name}@{self.distribution.split(' ')[0]}" if self.distribution else self.name


def _distribution(point: EntryPoint) -> str | None:
    dist = point.dist
    return f"{dist.name} {dist.version}" if dist is not None else None


def _load(point: EntryPoint, make: Callable[[object], T]) -> Plugin[T]:
    dist = _distribution(point)
    try:
        loaded = make(point.load())
    except Exception as err:  # a broken plugin is listed with its error, never fatal
        return Plugin(point.name, point.value, dist, None, f"{type(err).__name__}: {err}")
    return Plugin(point.name, point.value, dist, loaded)


@lru_cache(maxsize=32)
def _cached(group: str, make: Callable[[object], T], path: tuple[str, ...]) -> tuple[Plugin[T], ...]:
    # the same distribution may be seen twice through two path entries: one entry point, one plugin
    points = {(p.name, p.value, _distribution(p)): p for p in entry_points(group=group)}
    plugins = [_load(point, make) for _, point in sorted(points.items(), key=lambda item: (item[0][0], item[0][1], item[0][2] or ""))]
    names = [plugin.name for plugin in plugins]
    return tuple(Plugin(p.name, p.module, p.distribution, p.loaded, p.error, shared=names.count(p.name) > 1)
                 for p in plugins)


def load_group(group: str, make: Callable[[object], T]) -> tuple[Plugin[T], ...]:
    """Every entry point of `group`, by name, each made once by `make` (which raises to refuse one)."""
    return _cached(group, make, tuple(sys.path))


def _own_name(plugin: Plugin[T]) -> tuple[str, ...]:
    return (plugin.name,)


def choose(plugins: tuple[Plugin[T], ...], wanted: str, *, what: str, field: str,
           aliases: Callable[[Plugin[T]], tuple[str, ...]] = _own_name) -> Plugin[T] | None:
    """The one plugin `wanted` names (by `NAME@DISTRIBUTION`, or by one of its `aliases`: its entry
    point's name unless told); None when none does; BadInput when several do, naming each."""
    qualified = [p for p in plugins if p.qualified.lower() == wanted.lower()]
    found = qualified or [p for p in plugins if wanted in aliases(p)]
    if len(found) > 1:
        raise BadInput(f"{what} {wanted!r} is registered {len(found)} times "
                       f"({', '.join(f'{p.module} from {p.distribution}' for p in found)}); "
                       f"choose one: {' or '.join(p.qualified for p in found)}", field=field)
    return found[0] if found else None
