"""Every `benchledger` command the docs show names a real command and only options it has, and those
that need no model, key, network or placeholder run as written (issue 36 item 6).

A page's code blocks are what a reader copies. The samples (`$ benchledger ...` lines under a cog
block) are re-run by `test_docs.py`; this covers every other command line of every page: the command
(and subcommand) is looked up in the CLI itself and each `--option` in that command's own options, so
a renamed option or a removed command fails here. The lines that can run on a fresh machine as
written (no placeholder in capitals but RUN, which is filled in with a run's id, no synopsis brackets, no model
option, no URL, no home folder) run, page by page in
the page's order (a page's `synth` makes the folder its `check` reads), in a scratch folder where
`examples/` is the checkout's and `../shared/data` the tests' shared data.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import click
import pytest

from benchledger.cli.main import cli

REPO = Path(__file__).resolve().parents[2]
PAGES = sorted([REPO / "README.md", *(REPO / "docs").rglob("*.md")])
GLOBAL_WITH_VALUE = {"--ledger", "--log-format"}
PLACEHOLDER = re.compile(r"(?<![\w-])[A-Z][A-Z_]{1,}(?:\.\.\.)?(?![\w-])|path/to|~|https?://|postgresql://|[<>|&$\[]|\.\.\.")
NEEDS_A_MODEL = ("--agent-model", "--judge-model", "--memory mem0", "--memory graphiti", "--memory http",
                 "--memory echo", "--memory toy", "--from", "--signer", "--sign ", "--against-source", "--spot-check")
OFFLINE_COMMANDS = {"run", "check", "synth", "sweep", "memories", "benchmarks", "runs", "verify", "show",
                    "questions", "question", "failures", "events", "replay", "export", "diff", "compare"}


def documented_commands(text: str) -> list[str]:
    """The command lines of a page's code blocks (not its `$ ` samples), continuations joined, comments cut."""
    commands = []
    for block in re.findall(r"^ *```[^\n]*\n(.*?)^ *```", text, flags=re.S | re.M):
        if re.search(r"^\s*\$ ", block, flags=re.M):  # a transcript: its lines are output (and cog's samples)
            continue
        for line in re.sub(r"\\\n\s*", " ", block).splitlines():
            for part in re.sub(r"\s+#.*$", "", line.strip()).split("&&"):
                if part.strip().startswith("benchledger "):
                    commands.append(" ".join(part.split()))
    return commands


def _words(command: str) -> list[str]:
    return [word for word in re.split(r"\s+", command) if word]


def problems_of(command: str) -> list[str]:
    """What in a documented command the CLI does not have (empty: every word it names exists)."""
    words = _words(command)[1:]
    while words and words[0].startswith("-"):  # the group's own options, before the command
        option = words.pop(0).split("=")[0]
        if option not in {p for param in cli.params for p in param.opts}:
            return [f"no global option {option}"]
        if option in GLOBAL_WITH_VALUE and "=" not in option and words:
            words.pop(0)
    if not words:
        return []
    ctx = click.Context(cli)
    found = cli.get_command(ctx, words[0])
    if found is None:
        return [f"no command {words[0]!r}"]
    name = words[0]
    if isinstance(found, click.Group) and len(words) > 1 and "@" in words[1]:
        return []  # NAME@DISTRIBUTION: a plug-in of another distribution, not installed here
    while isinstance(found, click.Group) and len(words) > 1 and not words[1].startswith("-"):
        sub = found.get_command(click.Context(found), words[1])
        if sub is None:
            if not any(p.param_type_name == "argument" for p in found.params):
                return [f"no command {name} {words[1]!r}"]
            break
        name, found, words = f"{name} {words[1]}", sub, words[1:]
    known = {opt for param in found.params for opt in (*param.opts, *param.secondary_opts)} | {"--help"}
    named = {match.split("=")[0] for match in re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*(?:=\S*)?", command)
             if not command.startswith(f"benchledger {match}")}
    named -= {p for param in cli.params for p in param.opts}
    return [f"`{name}` has no option {option}" for option in sorted(named - known)]


def runnable(command: str) -> bool:
    """Whether a documented command can run on a fresh machine as written: offline, nothing to fill in,
    no release that only `fetch` (the network) provides (`run BENCHMARK` with no folder or file)."""
    words = _words(command)
    reads_a_fetched_release = (len(words) > 2 and words[1] in {"run", "check"} and "--demo" not in words
                               and (len(words) == 3 or words[3].startswith("-")))
    return (len(words) > 1 and words[1] in OFFLINE_COMMANDS and not PLACEHOLDER.search(_with_runs(command, "x", "y"))
            and not any(option in command for option in NEEDS_A_MODEL) and not reads_a_fetched_release)


RUN_WORD = re.compile(r"(?<![\w-])RUN(_A|_B)?(?![\w-])")


def _with_runs(command: str, *runs: str) -> str:
    """RUN filled in with run ids as a reader fills them with their own: each RUN of a command the next
    run (`compare RUN RUN RUN` compares three), RUN_A the first, RUN_B the second."""
    count = iter(range(len(runs) * 10))

    def run_for(match: re.Match[str]) -> str:
        return {"_A": runs[0], "_B": runs[1 % len(runs)]}.get(match.group(1) or "", runs[next(count) % len(runs)])
    return RUN_WORD.sub(run_for, command)


DOCUMENTED = [(str(page.relative_to(REPO)), command) for page in PAGES
              for command in documented_commands(page.read_text(encoding="utf-8"))]


def test_the_finder_reads_blocks_and_the_checker_tells_a_real_option_from_a_stale_one():
    block = "```bash\nbenchledger run groupmem --demo   # offline\nbenchledger runs \\\n  --wide\n```\n" \
            "benchledger run outside a block\n```\n$ benchledger runs\nbenchledger output line\n```\n" \
            "```\nbenchledger fetch locomo && benchledger run locomo\n```\n"
    assert documented_commands(block) == ["benchledger run groupmem --demo", "benchledger runs --wide",
                                          "benchledger fetch locomo", "benchledger run locomo"]
    assert not runnable("benchledger run locomo") and runnable("benchledger run groupmem examples/x --domain Demo")
    assert problems_of("benchledger run groupmem --demo") == []
    assert problems_of("benchledger --ledger x.db show RUN --brief") == []
    assert problems_of("benchledger synth mem2actbench release --tasks 20") == []
    assert problems_of("benchledger run groupmem --no-such-flag") == ["`run groupmem` has no option --no-such-flag"]
    assert problems_of("benchledger frobnicate RUN") == ["no command 'frobnicate'"]
    assert problems_of("benchledger synth nothing OUT") == ["no command synth 'nothing'"]
    assert runnable("benchledger run groupmem --demo") and runnable("benchledger show RUN")
    assert not runnable("benchledger show RUN FILE") and _with_runs("diff RUN_A RUN_B", "a", "b") == "diff a b"
    assert _with_runs("compare RUN RUN RUN", "a", "b", "c") == "compare a b c"
    assert not runnable("benchledger run locomo --agent-model gpt-4o") and not runnable("benchledger fetch locomo")


def test_the_docs_show_many_commands():
    assert len(DOCUMENTED) >= 80 and len({page for page, _ in DOCUMENTED}) >= 10


def test_every_command_the_docs_show_exists_with_the_options_it_names():
    stale = {f"{page}: {command}": problems for page, command in DOCUMENTED if (problems := problems_of(command))}
    assert stale == {}


RUNNABLE_PAGES = sorted({page for page, command in DOCUMENTED if runnable(command)})


def test_some_commands_of_several_pages_run_as_written():
    assert sum(runnable(command) for _, command in DOCUMENTED) >= 10 and len(RUNNABLE_PAGES) >= 3


@pytest.mark.slow
@pytest.mark.parametrize("page", RUNNABLE_PAGES)
def test_the_offline_commands_a_page_shows_run_as_written(page, shared_data, tmp_path):
    (tmp_path / "examples").symlink_to(REPO / "examples")
    env = {key: value for key, value in os.environ.items() if not key.endswith("_API_KEY")}
    env["BENCHLEDGER_LEDGER"] = str(tmp_path / "benchledger.db")
    # a reader of any page has run the README's first command (three times, to have runs to compare): the
    # pages' RUN is one of those
    runs = []
    for name in ("a.json", "b.json", "c.json"):
        subprocess.run([sys.executable, "-m", "benchledger.cli.main", "run", "groupmem", "--demo", "--out", name],
                       capture_output=True, check=True, timeout=600, cwd=tmp_path, env=env)
        runs.append(json.loads((tmp_path / name).read_text())["run_id"])
    for command in [command for p, command in DOCUMENTED if p == page and runnable(command)]:
        written = _with_runs(command, *runs).replace("../shared/data", str(shared_data)).replace("/tmp/", f"{tmp_path}/")
        args = shlex.split(written)[1:]
        done = subprocess.run([sys.executable, "-m", "benchledger.cli.main", *args], capture_output=True, text=True,
                              timeout=600, cwd=tmp_path, env=env)
        assert done.returncode == 0, f"{page}: `{command}` exited {done.returncode}: {done.stderr[-800:]}"
