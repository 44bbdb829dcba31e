"""`benchledger conformance DIR`: recompute the official evaluation code's outputs and compare.

One library call (`run_conformance`) and a table: file, check, cases, exact matches, first
mismatch. A fixture no check claims yet is shown as a "no check" row and is not a failure. Exit 1
when any case differs or a claimed file could not be checked (its reason is shown); 2 when DIR is
not a folder.
"""

from __future__ import annotations

from pathlib import Path

import click
from tabulate import tabulate

from benchledger.adapters.benchmarks.conformance import (
    ConformanceOptions, FixtureResult, run_conformance, unclaimed_files,
)
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


@click.command("conformance")
@click.argument("folder", metavar="DIR", type=click.Path(path_type=Path))
@click.option("--locomo-release", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="The LoCoMo release file (e.g. locomo10.json) the LoCoMo predictions point into.")
@click.option("--prompts-root", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder holding <benchmark>/prompts/ with the official templates [default: DIR's parent].")
def conformance(folder: Path, locomo_release: Path | None, prompts_root: Path | None) -> None:
    """Recompute every official fixture under DIR with benchledger's own code; exit 1 on any mismatch."""
    if not folder.is_dir():
        raise BadInput("no such folder (pass the conformance folder, e.g. ../shared/data/conformance)",
                       file=str(folder))
    folder = folder.resolve()
    options = ConformanceOptions(locomo_release=locomo_release, prompts_root=prompts_root)
    results = run_conformance(folder, options)
    rows = [_row(folder, result) for result in results]
    rows += [[path.relative_to(folder), "no check", "", "", ""] for path in unclaimed_files(folder)]
    rows.sort(key=lambda row: str(row[0]))
    click.echo(tabulate(rows, headers=["file", "check", "cases", "exact", "first mismatch"]))
    failed = [result for result in results if not result.ok]
    cases = sum(result.cases for result in results)
    if failed:
        raise CheckFailed(f"{len(failed)} of {len(results)} checked files differ from the official "
                          f"outputs or could not be checked")
    click.echo(f"ok: {cases} cases in {len(results)} files match the official outputs exactly")


COMMANDS = [conformance]
