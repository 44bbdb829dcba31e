"""`benchledger synth groupmem OUT_DIR --messages N`: write a synthetic release.

The release has the exact GroupMemBench layout, so every command that reads a release reads it;
the same seed writes the same bytes.
"""

from __future__ import annotations

from pathlib import Path

import click
from benchledger.adapters.benchmarks.groupmem.synth import MIN_MESSAGES, synthesize_groupmem
from benchledger.cli.common import echo_json, json_option

__all__ = ["COMMANDS", "synth"]


@click.group()
def synth() -> None:
    """Write synthetic benchmark releases for scale tests and offline demos."""


@synth.command("groupmem")
@click.argument("out_dir", type=click.Path(file_okay=False, path_type=Path))
@click.option("--messages", type=click.IntRange(min=MIN_MESSAGES), required=True,
              help="Messages per domain.")
@click.option("--domains", default="Synth", show_default=True,
              help="Comma-separated domain names.")
@click.option("--seed", type=int, default=0, show_default=True, help="Same seed, same bytes.")
@json_option
def synth_groupmem(out_dir: Path, messages: int, domains: str, seed: int, as_json: bool) -> None:
    """Write a synthetic GroupMemBench release under OUT_DIR."""
    names = [name.strip() for name in domains.split(",") if name.strip()]
    summary = synthesize_groupmem(out_dir, messages=messages, domains=names, seed=seed)
    if as_json:
        echo_json(summary.model_dump(mode="json"))
        return
    for domain in summary.domains:
        questions = sum(domain.questions.values())
        click.echo(f"{domain.domain}: {domain.messages} messages in {domain.channels} channels, "
                   f"{questions} questions -> {summary.out_dir}")


COMMANDS = [synth]
