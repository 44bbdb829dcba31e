"""Find and open memory systems through Python entry points (group `benchledger.memory`).

The systems that ship in the box are declared in benchledger's own pyproject under the same group a
third-party package uses, so there is one way in: an entry point `name = "module:Class"` where the
class has `name` and `version` attributes and a constructor `Class(store_path, **options)`.

`available_memories` loads every entry point so it can report versions; a system that fails to
load is still listed, with the error, so a broken plugin is visible instead of missing.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from benchledger.adapters.memory.protocol import MemorySystem
from benchledger.errors import BadInput

__all__ = ["GROUP", "MemoryInfo", "available_memories", "load_memory_class", "open_memory"]

GROUP = "benchledger.memory"


class MemoryInfo(BaseModel):
    """One installed memory system, as the registry sees it."""

    model_config = ConfigDict(frozen=True)

    name: str
    """The entry point name, used as `--memory NAME`."""
    version: str | None
    """The class's `version`, None when it cannot be loaded."""
    module: str
    """Where the class lives: `module:Class`."""
    distribution: str | None
    """The installed distribution that declares it, as `name version`."""
    error: str | None = None
    """Why loading failed, when it did."""


def _entry_points() -> dict[str, EntryPoint]:
    found: dict[str, EntryPoint] = {}
    for point in entry_points(group=GROUP):
        found.setdefault(point.name, point)  # the first distribution on sys.path wins
    return dict(sorted(found.items()))


def _distribution(point: EntryPoint) -> str | None:
    dist = point.dist
    return f"{dist.name} {dist.version}" if dist is not None else None


def load_memory_class(name: str) -> type[MemorySystem]:
    """The class registered as `name`; `BadInput` if unknown or if it cannot be imported."""
    points = _entry_points()
    point = points.get(name)
    if point is None:
        installed = ", ".join(points) or "none"
        raise BadInput(f"unknown memory system '{name}'; installed: {installed}", field="memory")
    try:
        return point.load()
    except (ImportError, AttributeError) as exc:
        raise BadInput(
            f"memory system '{name}' ({point.value}, from {_distribution(point)}) cannot be "
            f"loaded: {type(exc).__name__}: {exc}",
            field="memory",
        ) from exc


def available_memories() -> dict[str, MemoryInfo]:
    """Every registered memory system by name, with its version and origin."""
    infos: dict[str, MemoryInfo] = {}
    for name, point in _entry_points().items():
        version, error = None, None
        try:
            version = str(point.load().version)
        except Exception as exc:  # a broken plugin is reported, never hidden
            error = f"{type(exc).__name__}: {exc}"
        infos[name] = MemoryInfo(name=name, version=version, module=point.value,
                                 distribution=_distribution(point), error=error)
    return infos


def open_memory(name: str, store_path: Path, **options: object) -> MemorySystem:
    """Open the memory system registered as `name` on the evaluation store at `store_path`."""
    cls = load_memory_class(name)
    try:
        inspect.signature(cls).bind(Path(store_path), **options)
    except TypeError as exc:
        raise BadInput(f"memory system '{name}' does not take options {sorted(options)}: {exc}",
                       field="memory") from exc
    factory: Callable[..., MemorySystem] = cls  # a plugin class takes its own options
    return factory(Path(store_path), **options)
