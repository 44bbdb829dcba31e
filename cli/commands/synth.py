"""`benchledger synth groupmem|longmemeval-v2|mem2actbench OUT_DIR ...`: write a synthetic release.

The release has the benchmark's exact layout, so every command that reads a release reads it;
the same seed writes the same bytes.
"""

from __future__ import annotations

import shlex
from pathlib import Path

import click
from benchledger.adapters.benchmarks.groupmem.synth import MIN_MESSAGES, synthesize_groupmem
from benchledger.adapters.benchmarks.longmemeval_v2.synth import synthesize_longmemeval_v2
from benchledger.adapters.benchmarks.mem2actbench.synth import MIN_TASKS, synthesize_mem2actbench
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
    first = summary.domains[0].domain if summary.domains else "Synth"
    click.echo(f"run it: {shlex.join(['benchledger', 'run', 'groupmem', str(summary.out_dir), '--domain', first])}",
               err=True)


@synth.command("longmemeval-v2")
@click.argument("out_dir", type=click.Path(file_okay=False, path_type=Path))
@click.option("--trajectories", type=click.IntRange(min=1), default=500, show_default=True,
              help="Trajectories per domain: the medium haystack of every question holds all of them.")
@click.option("--questions", type=click.IntRange(min=1), default=14, show_default=True,
              help="Questions per domain (cycling over the seven types and six scoring functions).")
@click.option("--states", type=click.IntRange(min=1), default=10, show_default=True,
              help="States per trajectory.")
@click.option("--tree-lines", type=click.IntRange(min=1), default=40, show_default=True,
              help="Accessibility-tree lines per state (a state's size).")
@click.option("--seed", type=int, default=0, show_default=True, help="Same seed, same bytes.")
@json_option
def synth_longmemeval_v2(out_dir: Path, trajectories: int, questions: int, states: int, tree_lines: int,
                         seed: int, as_json: bool) -> None:
    """Write a synthetic LongMemEval-V2 release (official layout, both tiers) under OUT_DIR."""
    summary = synthesize_longmemeval_v2(out_dir, trajectories=trajectories, questions=questions, states=states,
                                        tree_lines=tree_lines, seed=seed)
    if as_json:
        echo_json(summary.model_dump(mode="json"))
        return
    for domain, count in summary.trajectories.items():
        click.echo(f"{domain}: {count} trajectories, {summary.questions[domain]} questions -> {summary.out_dir}")
    click.echo(f"{summary.states} states, trajectories.jsonl {summary.bytes_trajectories} bytes")
    first = next(iter(summary.trajectories), "web")
    click.echo("run it: " + shlex.join(["benchledger", "run", "longmemeval-v2", str(summary.out_dir), "--domain", first,
                                        "--tier", "medium"]), err=True)


@synth.command("mem2actbench")
@click.argument("out_dir", type=click.Path(file_okay=False, path_type=Path))
@click.option("--tasks", type=click.IntRange(min=MIN_TASKS), default=40, show_default=True,
              help="Tasks (cycling over the four levels; both split folders hold them all).")
@click.option("--seed", type=int, default=0, show_default=True, help="Same seed, same bytes.")
@json_option
def synth_mem2actbench(out_dir: Path, tasks: int, seed: int, as_json: bool) -> None:
    """Write a synthetic Mem2ActBench release (both split folders, the published layout) under OUT_DIR."""
    summary = synthesize_mem2actbench(out_dir, tasks=tasks, seed=seed)
    if as_json:
        echo_json(summary.model_dump(mode="json"))
        return
    levels = ", ".join(f"{level} {n}" for level, n in summary.levels.items())
    click.echo(f"{summary.tasks} tasks ({levels}) -> {summary.out_dir}")
    click.echo("sessions: " + ", ".join(f"{split} {n}" for split, n in summary.sessions.items()))
    for defect in summary.defects:
        click.echo(f"defect, as the pinned commit has them: {defect}")
    click.echo("run it: " + shlex.join(["benchledger", "run", "mem2actbench", str(summary.out_dir)]), err=True)


COMMANDS = [synth]
