"""Building many long-lived, acyclic objects without the cycle collector rescanning them.

Reading a long run types hundreds of thousands of small immutable objects, and folding it builds
the run's state from them. While they are built the cycle collector would rescan the young ones
generation after generation, and its next full collection would then walk all of them once more:
together most of the time of a 50,000-event read and fold. `building_long_lived` pauses the
collector while such objects are made and then moves everything alive straight to the oldest
generation (`gc.freeze` then `gc.unfreeze`; skipped when the program froze objects itself), so
they no longer count as new survivors that trigger a full collection. They stay collectable:
nothing is leaked, a cycle among them is found at the next full collection like any other.

The move is made only when the block built at least a young generation's worth of objects (the
collector's own threshold): asking whether the program froze objects walks every frozen one, and a
small block (the few rows an append reads to check the run's seal) must not pay for the size of
a program that froze its heap (a forking server does; so does `benchledger.bench`).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["building_long_lived"]


@contextmanager
def building_long_lived() -> Iterator[None]:
    """Pause the cycle collector while the block builds long-lived objects (nests safely)."""
    if not gc.isenabled():  # paused by an enclosing block (or by the program): leave it to them
        yield
        return
    gc.disable()
    young = gc.get_count()[0]
    try:
        yield
    finally:
        built = gc.get_count()[0] - young
        # never unfreeze what the program froze itself
        if built >= gc.get_threshold()[0] and gc.get_freeze_count() == 0:
            gc.freeze()
            gc.unfreeze()
        gc.enable()
