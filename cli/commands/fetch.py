"""`benchledger fetch BENCHMARK [--to DIR] [--from COPY]`: a release and its official prompts, checked.

One library call (`fetch_release`, or `lay_out_copy` for a copy the user has) over the benchmark's
pin table, with a progress bar over the bytes; then where the release is and the command that runs
it. With `--from`, one line per file of the table says what the copy holds: `ok`, `differs from the
pin`, `no pin` or `missing`. The sources' base URLs are options (`--github-raw`, `--hub`) and
environment variables, for mirrors and tests; the pins are never options.
"""

from __future__ import annotations

import time
from pathlib import Path

import click

from benchledger.adapters.benchmarks.registry import available_benchmarks, benchmark_named
from benchledger.adapters.sources.copy import DIFFERS, MISSING, NO_PIN, OK, CopyResult, lay_out_copy
from benchledger.adapters.sources.fetch import fetch_release
from benchledger.adapters.sources.settings import FetchSettings, release_dir
from benchledger.cli.common import AppContext, pass_app
from benchledger.cli.progress import make_progress
from benchledger.errors import BadInput
from benchledger.pins import Unpinned

__all__ = ["COMMANDS", "fetch"]


_MISSING_SHOWN = 10
"""Files missing from a copy named one by one; past that, a count (a partial copy of Memora lacks thousands)."""


def _copy_lines(result: CopyResult) -> None:
    width = max(len(status) for status in (OK, DIFFERS, NO_PIN, MISSING))
    missing = 0
    for checked in result.checked:
        if checked.status == MISSING:
            missing += 1
            if missing > _MISSING_SHOWN:
                continue
        detail = ""
        if checked.status == DIFFERS and checked.sha256 and checked.pinned:
            detail = f"  (SHA-256 {checked.sha256[:12]}…, pinned {checked.pinned[:12]}…)"
        click.echo(f"{checked.status:<{width}}  {checked.path}{detail}")
    if missing > _MISSING_SHOWN:
        click.echo(f"{MISSING:<{width}}  … and {missing - _MISSING_SHOWN:,} more file(s) of the release not in the copy")


def fetchable() -> list[tuple[str, str]]:
    """(command, where it comes from) of every installed benchmark that declares a source, from the registry."""
    found = []
    for entry in available_benchmarks():
        benchmark = entry.loaded
        source = None if benchmark is None else benchmark.release_source()
        if benchmark is not None and source is not None:
            entries = source.pins.entries.values()
            origins = sorted({e.origin for e in entries if e.role == "release"})
            unpinned = sum(isinstance(e, Unpinned) for e in entries)
            pinned = f"{len(entries) - unpinned:,} file(s) pinned" + (f", {unpinned:,} not" if unpinned else "")
            found.append((benchmark.command, f"{benchmark.name} from {', '.join(origins)} ({pinned})"))
    return found


class _FetchCommand(click.Command):
    """`fetch --help` ends with what it can fetch, read from the installed benchmarks when help is asked."""

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = fetchable()
        with formatter.section("Fetchable benchmarks"):
            formatter.write_dl(rows or [("(none)", "no installed benchmark declares a source")])
        super().format_epilog(ctx, formatter)


@click.command("fetch", cls=_FetchCommand)
@click.argument("benchmark")
@click.option("--to", "to", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="The release folder to lay the files out in [default: the per-user data folder's "
                   "releases/BENCHMARK, where `run BENCHMARK` finds it]")
@click.option("--from", "copy", type=click.Path(exists=True, file_okay=False, path_type=Path), default=None,
              metavar="DIR",
              help="Check a copy of the release you already have against the pins and lay it out, instead of "
                   "downloading (a folder laid out as `run` reads it, or a clone of the source)")
@click.option("--github-raw", default=None, metavar="URL",
              help="Base URL of raw GitHub files [env BENCHLEDGER_GITHUB_RAW; default https://raw.githubusercontent.com]")
@click.option("--hub", default=None, metavar="URL",
              help="Base URL of the Hugging Face hub [env HF_ENDPOINT; default https://huggingface.co]")
@pass_app
def fetch(app: AppContext, benchmark: str, to: Path | None, copy: Path | None, github_raw: str | None,
          hub: str | None) -> None:
    """Download BENCHMARK's release and official prompt sources at their pinned revisions, check every
    file by SHA-256 against the benchmark's pins, derive the official templates, and lay them out where
    `run` finds them."""
    declared = benchmark_named(benchmark)
    source = declared.release_source()
    if source is None:
        raise BadInput(f"{declared.name} declares no source to fetch from; pass its files by path", field="benchmark")
    if copy is not None and (github_raw or hub):
        raise BadInput("--from lays out a copy you have and downloads nothing: give it, or --github-raw/--hub, "
                       "not both", field="from")
    folder = to if to is not None else release_dir(declared.command)
    started = time.monotonic()
    progress = make_progress(app.log_format)
    try:
        if copy is not None:
            copied = lay_out_copy(declared.command, source, folder, copy, progress=progress)
        else:
            result = fetch_release(declared.command, source, folder,
                                   FetchSettings.from_env(github_raw=github_raw, hub=hub), progress=progress)
    finally:
        close = getattr(progress, "close", None)
        if close is not None:
            close()
    seconds = time.monotonic() - started
    run_it = f"run it:  benchledger run {declared.command}" + ("" if to is None else f" {folder / source.run_path}")
    if copy is not None:
        _copy_lines(copied)
        counts = ", ".join(f"{copied.count(s):,} {s}" for s in (OK, DIFFERS, NO_PIN, MISSING) if copied.count(s))
        if copied.receipt is None:
            raise BadInput(f"{counts}: the copy is not the release its pins describe, so it is not laid out as one "
                           f"(the files that are ok stay in {folder})", file=str(copy))
        click.echo(f"laid out {declared.name} from {copy}: {counts} ({seconds:.1f} s)")
        click.echo(f"release: {copied.folder}")
        click.echo(run_it)
        return
    files = len(result.receipt.files)
    if result.downloaded:
        click.echo(f"fetched {declared.name}: {result.downloaded} file(s), {result.bytes_downloaded:,} bytes "
                   f"downloaded, {files} checked by SHA-256, in {seconds:.1f} s")
    else:
        click.echo(f"{declared.name} is already fetched: {files} file(s) checked by SHA-256, nothing downloaded "
                   f"({seconds:.1f} s)")
    click.echo(f"release: {result.folder}")
    click.echo(run_it)


COMMANDS = [fetch]
