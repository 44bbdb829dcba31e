"""`benchledger run locomo|longmemeval|memora`: the other released benchmarks as full runs.

Each subcommand attaches to the `run` group, loads its release (bad input exits 2 before anything
is written) and hands the dataset to `execute_run`, the same library call and scorecard as
`run groupmem`, with the same shared memory, model and run options.

- LoCoMo: every conversation is its own scope; category 5 (adversarial) is asked as an abstention
  question; LoCoMo has no asking user. `--categories` takes the names the scorecard shows
  (multi_hop, temporal, open_domain, single_hop, adversarial) or the release's numbers 1-5.
- LongMemEval: every question carries its own haystack, so each question is its own scope.
- Memora: one split; each persona is a scope, and the judge answers each evaluation question
  (see `adapters.models.criteria`); the report adds FAMA per question and per category.

None of these releases ships prompts, so the reference protocol (the release's own prompts) can
only run with the offline models; asking it of a real model is refused up front, naming
`--protocol typed`, instead of failing every question at its first call.
"""

from __future__ import annotations

from pathlib import Path

import click
from benchledger.adapters.benchmarks.base import Dataset
from benchledger.adapters.models.factory import OFFLINE_NAMES
from benchledger.cli.commands.run import execute_run, run
from benchledger.cli.common import AppContext, pass_app
from benchledger.cli.options import memory_options, model_options, run_options, split_csv
from benchledger.errors import BadInput

__all__ = ["COMMANDS", "run_locomo", "run_longmemeval", "run_memora", "require_prompts_for_reference"]


def require_prompts_for_reference(dataset: Dataset, opts: dict) -> None:
    """BadInput when a real model would be asked under the reference protocol with no release prompts."""
    real = [m for m in (opts.get("agent_model"), opts.get("judge_model")) if m and m not in OFFLINE_NAMES]
    if opts.get("protocol") == "reference" and dataset.prompts is None and real:
        raise BadInput(f"{dataset.benchmark} releases no prompts for the reference protocol; "
                       "run its models with --protocol typed", field="protocol")


def _categories(values: tuple[str, ...]) -> list[str | int] | None:
    chosen = split_csv(values)
    return [int(c) if c.isdigit() else c for c in chosen] or None


@run.command("locomo")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--categories", multiple=True,
              help="multi_hop, temporal, open_domain, single_hop, adversarial, or 1-5 "
                   "(comma-separated or repeated) [default: all five].")
@click.option("--question-limit", type=click.IntRange(min=1), default=None,
              help="Ask only the first N selected questions, in file order (diagnostic).")
@click.option("--conversations", multiple=True,
              help="Conversation sample_ids to run (comma-separated or repeated) [default: all].")
@memory_options
@model_options
@run_options
@pass_app
def run_locomo(app: AppContext, file: Path, categories: tuple[str, ...], question_limit: int | None,
               conversations: tuple[str, ...], **opts) -> None:
    """Run LoCoMo from a release FILE (locomo10.json format); each conversation is its own scope."""
    from benchledger.adapters.benchmarks.locomo.loader import load_locomo

    dataset = load_locomo(file, categories=_categories(categories), question_limit=question_limit,
                          conversation_ids=split_csv(conversations) or None)
    require_prompts_for_reference(dataset, opts)
    execute_run(app, dataset, opts)


@run.command("longmemeval")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--question-limit", type=click.IntRange(min=1), default=None,
              help="Ask only the first N questions, in file order (diagnostic).")
@memory_options
@model_options
@run_options
@pass_app
def run_longmemeval(app: AppContext, file: Path, question_limit: int | None, **opts) -> None:
    """Run LongMemEval from a release FILE (longmemeval_s/_m/_oracle.json); each question is its own scope."""
    from benchledger.adapters.benchmarks.longmemeval.loader import load_longmemeval

    dataset = load_longmemeval(file, question_limit=question_limit)
    require_prompts_for_reference(dataset, opts)
    execute_run(app, dataset, opts)


@run.command("memora")
@click.argument("root", type=click.Path(file_okay=False, path_type=Path))
@click.option("--split", type=click.Choice(["weekly", "monthly", "quarterly"]), required=True,
              help="Which history length to run.")
@memory_options
@model_options
@run_options
@pass_app
def run_memora(app: AppContext, root: Path, split: str, **opts) -> None:
    """Run one split of a Memora release folder ROOT; judged per criterion, scored with FAMA."""
    from benchledger.adapters.benchmarks.memora.loader import load_memora

    dataset = load_memora(root, split=split)  # type: ignore[arg-type]
    require_prompts_for_reference(dataset, opts)
    execute_run(app, dataset, opts)


COMMANDS: list[click.Command] = []  # the subcommands hang on `run`, which cli.commands.run registers
