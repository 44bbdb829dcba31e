"""`benchledger fetch BENCHMARK [--to DIR]`: download a release and its official prompts, checked.

One library call (`fetch_release`) over the benchmark's declared sources, with a progress bar over
the bytes; then where the release is and the command that runs it. The sources' base URLs are
options (`--github-raw`, `--hub`) and environment variables, for mirrors and tests; the pins are
never options.
"""

from __future__ import annotations

import time
from pathlib import Path

import click

from benchledger.adapters.benchmarks.registry import benchmark_named
from benchledger.adapters.sources.fetch import fetch_release
from benchledger.adapters.sources.settings import FetchSettings, release_dir
from benchledger.cli.common import AppContext, pass_app
from benchledger.cli.progress import make_progress
from benchledger.errors import BadInput

__all__ = ["COMMANDS", "fetch"]


@click.command("fetch")
@click.argument("benchmark")
@click.option("--to", "to", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="The release folder to lay the files out in [default: the per-user data folder's "
                   "releases/BENCHMARK, where `run BENCHMARK` finds it]")
@click.option("--github-raw", default=None, metavar="URL",
              help="Base URL of raw GitHub files [env BENCHLEDGER_GITHUB_RAW; default https://raw.githubusercontent.com]")
@click.option("--hub", default=None, metavar="URL",
              help="Base URL of the Hugging Face hub [env HF_ENDPOINT; default https://huggingface.co]")
@pass_app
def fetch(app: AppContext, benchmark: str, to: Path | None, github_raw: str | None, hub: str | None) -> None:
    """Download BENCHMARK's release and official prompt sources at their pinned revisions, check every
    file by SHA-256, derive the official templates, and lay them out where `run` finds them."""
    declared = benchmark_named(benchmark)
    source = declared.release_source()
    if source is None:
        raise BadInput(f"{declared.name} declares no source to fetch from; pass its files by path", field="benchmark")
    folder = to if to is not None else release_dir(declared.command)
    started = time.monotonic()
    progress = make_progress(app.log_format)
    result = fetch_release(declared.command, source, folder, FetchSettings.from_env(github_raw=github_raw, hub=hub),
                           progress=progress)
    close = getattr(progress, "close", None)
    if close is not None:
        close()
    seconds = time.monotonic() - started
    files = len(result.receipt.files)
    if result.downloaded:
        click.echo(f"fetched {declared.name}: {result.downloaded} file(s), {result.bytes_downloaded:,} bytes "
                   f"downloaded, {files} checked by SHA-256, in {seconds:.1f} s")
    else:
        click.echo(f"{declared.name} is already fetched: {files} file(s) checked by SHA-256, nothing downloaded "
                   f"({seconds:.1f} s)")
    click.echo(f"release: {result.folder}")
    default = to is None
    click.echo(f"run it:  benchledger run {declared.command}" + ("" if default else f" {result.run_path}"))


COMMANDS = [fetch]
