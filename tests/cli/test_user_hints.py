"""After a command a new user is told what to do next: a run with --keep names the scope it kept,
where, and how to reuse or remove it; `synth` prints the command that runs what it wrote; a
setting named by an argument is spelled as the argument.
"""

from __future__ import annotations

import shlex


from benchledger.cli.main import _as_the_user_spells_it, cli
from benchledger.errors import BadInput
from conftest import MINI
from ledger_cli import invoke


def test_keep_names_the_kept_scope_and_how_to_reuse_or_remove_it():
    kept = invoke("run", "groupmem", str(MINI), "--domain", "Demo", "--keep")
    assert kept.exit_code == 0
    line = kept.stderr.strip().splitlines()[-1]
    run_id = kept.stdout.split("run ", 1)[1].split()[0]
    assert line.startswith("kept benchmark:GroupMemBench:Demo:") and ".memory/sqlite.sqlite:" in line
    assert "--no-prepare" in line and line.endswith(f" purge {run_id}` removes it")
    purged = invoke("run", "groupmem", str(MINI), "--domain", "Demo")
    assert purged.exit_code == 0 and "kept " not in purged.stderr


def test_synth_prints_the_command_that_runs_what_it_wrote(tmp_path):
    out = tmp_path / "synth release"
    made = invoke("synth", "groupmem", str(out), "--messages", "300", "--domains", "Alpha,Beta")
    assert made.exit_code == 0
    hint = made.stderr.strip().splitlines()[-1]
    assert hint == "run it: " + shlex.join(["benchledger", "run", "groupmem", str(out), "--domain", "Alpha"])
    ran = invoke(*shlex.split(hint.removeprefix("run it: "))[1:], "--question-limit", "1")
    assert ran.exit_code == 0 and "GroupMemBench / Alpha" in ran.stdout


def test_an_argument_is_named_as_the_user_types_it():
    assert _as_the_user_spells_it(BadInput("not like for like", field="runs"), cli) == \
        "argument RUN...: not like for like"
