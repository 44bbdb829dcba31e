"""`benchledger conformance DIR`: recompute the official evaluation code's outputs and compare.

One library call (`run_conformance`) and a table: file, check, cases, exact matches, first
mismatch. A file no check claims or reads is a "no check" row and fails the command: a fixture
folder benchledger cannot read must not pass. Exit 1 when any case differs, a claimed file could
not be checked (its reason is shown) or a file is unaccounted for (named); 2 when a DIR is not a
folder. Several DIRs are checked in one table (e.g. `../shared/data/conformance` and
`../shared/data/longmemeval-v2/conformance`).
"""

from __future__ import annotations

import os
from pathlib import Path

import click
from tabulate import tabulate

from benchledger.adapters.benchmarks.conformance import (
    ConformanceOptions, FixtureResult, run_conformance, unclaimed_files,
)
from benchledger.adapters.sources.receipt import fetched_run_path
from benchledger.adapters.sources.settings import release_dir
from benchledger.errors import BadInput, CheckFailed

__all__ = ["COMMANDS", "conformance"]

_MISMATCH_WIDTH = 100


def _row(folder: Path, result: FixtureResult) -> list[object]:
    if result.skipped is not None:
        note = f"not checked: {result.skipped}"
    elif result.cases == 0:
        note = "not checked: no cases"
    else:
        note = result.first_mismatch or ""
    if len(note) > _MISMATCH_WIDTH:
        note = note[:_MISMATCH_WIDTH - 3] + "..."
    return [Path(result.file).relative_to(folder), result.check, result.cases, result.matches, note]


def _fetched_defaults(folder: Path, locomo_release: Path | None,
                      prompts_root: Path | None) -> tuple[Path | None, Path | None]:
    """What `benchledger fetch` laid out, where no option names a file and DIR's parent holds none."""
    if locomo_release is None:
        locomo_release = fetched_run_path("locomo")
    fetched = release_dir("locomo").parent
    if prompts_root is None and fetched.is_dir() and not any(
            (folder.parent / name / "prompts").is_dir() for name in ("locomo", "longmemeval", "memora")):
        prompts_root = fetched
    return locomo_release, prompts_root


_BESIDE_A_CHECKOUT = Path("..", "shared", "data", "conformance")


def _where_fixtures_are() -> str:
    """The hint for a folder that is not there: a real folder of fixtures when one is beside the working
    directory, else what such a folder holds (a path that does not exist helps nobody)."""
    if _BESIDE_A_CHECKOUT.is_dir():
        return f"pass a folder of conformance fixtures, e.g. {_BESIDE_A_CHECKOUT}"
    return ("pass a folder of conformance fixtures (inputs with the outputs each benchmark's official code "
            "produced on them; in the shared data laid beside a checkout, shared/data/conformance)")


@click.command("conformance")
@click.argument("folders", metavar="DIR...", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--locomo-release", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="The LoCoMo release file (e.g. locomo10.json) the LoCoMo predictions point into "
                   "[default: the one `benchledger fetch locomo` laid out, if any].")
@click.option("--prompts-root", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder holding <benchmark>/prompts/ with the official templates [default: DIR's parent, "
                   "or the fetched releases when it holds none].")
def conformance(folders: tuple[Path, ...], locomo_release: Path | None, prompts_root: Path | None) -> None:
    """Recompute every official fixture under each DIR with benchledger's own code; exit 1 on any
    mismatch or on a file no check reads."""
    for folder in folders:
        if not folder.is_dir():
            raise BadInput(f"no such folder: {_where_fixtures_are()}", file=str(folder))
    resolved = [folder.resolve() for folder in folders]
    base = resolved[0] if len(resolved) == 1 else Path(os.path.commonpath(resolved))
    locomo_release, prompts_root = _fetched_defaults(resolved[0], locomo_release, prompts_root)
    options = ConformanceOptions(locomo_release=locomo_release, prompts_root=prompts_root)
    results: list[FixtureResult] = []
    unread: list[Path] = []
    for folder in resolved:
        results += run_conformance(folder, options)
        unread += unclaimed_files(folder)
    rows = [_row(base, result) for result in results]
    rows += [[path.relative_to(base), "no check", "", "", "not checked: no check claims or reads this file"]
             for path in unread]
    rows.sort(key=lambda row: str(row[0]))
    click.echo(tabulate(rows, headers=["file", "check", "cases", "exact", "first mismatch"]))
    failed = [result for result in results if not result.ok]
    cases = sum(result.cases for result in results)
    if failed or unread:
        problems = []
        if failed:
            problems.append(f"{len(failed)} of {len(results)} checked files differ from the official outputs "
                            f"or could not be checked")
        if unread:
            names = ", ".join(str(path.relative_to(base)) for path in unread[:3])
            problems.append(f"{len(unread)} file(s) no check reads ({names}{', ...' if len(unread) > 3 else ''})")
        raise CheckFailed("; ".join(problems))
    click.echo(f"ok: {cases} cases in {len(results)} files match the official outputs exactly")


COMMANDS = [conformance]
