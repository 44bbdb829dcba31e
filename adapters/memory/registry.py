"""Find and open memory systems through Python entry points (group `benchledger.memory`).

The systems that ship in the box are declared in benchledger's own pyproject under the same group a
third-party package uses, so there is one way in: an entry point `name = "module:Class"` where the
class has `name` and `version` attributes and a constructor `Class(store_path, **options)`.

The group is read and each class loaded once, through the loader benchmarks use
(`benchledger.adapters.plugins`), so a duplicate name follows the same rule: listed with both
distributions, refused until one is chosen as `NAME@DISTRIBUTION`. A system that fails to load is
still listed, with the error, so a broken plugin is visible instead of missing.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from pathlib import Path
from typing import cast, get_args

from benchledger.adapters.memory.protocol import MemorySystem
from benchledger.adapters.plugins import Plugin, choose, load_group
from benchledger.errors import BadInput
from benchledger.projections.compare import Role

__all__ = ["GROUP", "MemoryEntry", "available_memories", "load_memory_class", "open_memory", "comparison_role"]

GROUP = "benchledger.memory"


MemoryEntry = Plugin[type[MemorySystem]]
"""An installed memory system as `benchledger memories` lists it (`loaded` is its class)."""


def _make(loaded: object) -> type[MemorySystem]:
    if not isinstance(loaded, type):
        raise TypeError(f"{loaded!r} is not a class")
    str(getattr(loaded, "version"))  # a system without a version cannot be recorded: refused at load
    return loaded


def _plugins() -> tuple[MemoryEntry, ...]:
    return load_group(GROUP, _make)


def load_memory_class(name: str) -> type[MemorySystem]:
    """The class registered as `name` (or `NAME@DISTRIBUTION`); `BadInput` if unknown, registered by
    two distributions, or if it cannot be imported."""
    plugins = _plugins()
    plugin = choose(plugins, name, what="memory system", field="memory")
    if plugin is None:
        installed = ", ".join(sorted({p.name for p in plugins})) or "none"
        raise BadInput(f"unknown memory system '{name}'; installed: {installed}", field="memory")
    if plugin.loaded is None:
        raise BadInput(f"memory system '{name}' ({plugin.module}, from {plugin.distribution}) cannot be "
                       f"loaded: {plugin.error}", field="memory")
    return plugin.loaded


def comparison_role(name: str) -> Role:
    """How `compare` draws a run of the memory recorded as `name`: its class's `comparison_role`
    ("floor", "ceiling"), or "system" for any other and for a memory not installed (or not loadable) here."""
    try:
        role = getattr(load_memory_class(name), "comparison_role", "system")
    except BadInput:
        return "system"
    return cast(Role, role) if role in get_args(Role) else "system"


def available_memories() -> dict[str, MemoryEntry]:
    """Every registered memory system by name (`NAME@DISTRIBUTION` for a name two distributions
    register), with its version and origin."""
    return {(p.qualified if p.shared else p.name): p for p in _plugins()}


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
