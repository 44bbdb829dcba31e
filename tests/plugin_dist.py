"""Write what `pip install <plugin>` leaves in site-packages: a module and its dist-info entry points."""

from __future__ import annotations

from pathlib import Path

__all__ = ["write_distribution"]


def write_distribution(site: Path, *, name: str, version: str, module: str, source: str, group: str,
                       entry: str) -> Path:
    """A one-module distribution `name` registering `entry` ("key = module:Object") in `group`."""
    dist_info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    dist_info.mkdir(parents=True)
    (site / f"{module}.py").write_text(source)
    (dist_info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    (dist_info / "entry_points.txt").write_text(f"[{group}]\n{entry}\n")
    return site
