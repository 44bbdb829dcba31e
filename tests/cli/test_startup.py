"""Start-up: every command is listed without importing the heavy libraries only some commands need.

The openai SDK (about half a second), nltk (LoCoMo's stemmer) and sqlite-utils (the sqlite export)
are imported on first use. A fresh interpreter lists every command's help and must not have
loaded them; a command that needs one still works (the model, scoring and export tests). A bare
`benchledger --help` imports click and the command index alone (no command module, no pydantic),
and commands that need no model or memory (`runs`, `verify`, `show`) import no SDK, server
driver, memory system or hub client: each listed from a fresh child process's `sys.modules`.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from benchledger.cli import lazy_commands
from conftest import REPO

HEAVY = ("openai", "nltk", "sqlite_utils")
NOT_FOR_A_LEDGER_COMMAND = ("openai", "nltk", "sqlite_utils", "datasette", "psycopg", "huggingface_hub", "mem0",
                            "graphiti_core", "kuzu", "qdrant_client", "wordllama", "httpx", "httpx2")
BARE_HELP_LOADS = {"benchledger", "benchledger.cli", "benchledger.cli.main", "benchledger.cli.lazy_commands",
                   "benchledger.cli.command_index", "benchledger.cli.commands"}

_LOADED = """
import json, sys
from benchledger.cli.main import cli
try:
    cli(sys.argv[1:], prog_name="benchledger")
except SystemExit as done:
    code = done.code
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""


def loaded_by(*args: str, cwd: Path = REPO) -> tuple[int, list[str]]:
    """(exit code, every module in sys.modules) of a fresh `benchledger ARGS` in a child process."""
    out = subprocess.run([sys.executable, "-c", _LOADED, *args], cwd=cwd, capture_output=True, text=True,
                         timeout=120, check=True).stdout
    result = json.loads(out.strip().splitlines()[-1])
    return result["code"], result["modules"]

_PROBE = """
import json, sys
from click.testing import CliRunner
from benchledger.cli.main import cli
runner = CliRunner()
codes = [runner.invoke(cli, ["--help"]).exit_code]
for name in sorted(cli.list_commands(None)):
    codes.append(runner.invoke(cli, [name, "--help"]).exit_code)
print(json.dumps({"codes": codes, "loaded": sorted(m for m in %r if m in sys.modules)}))
"""


def test_listing_every_commands_help_loads_no_heavy_library() -> None:
    out = subprocess.run([sys.executable, "-c", _PROBE % (HEAVY,)], cwd=REPO, capture_output=True, text=True,
                         timeout=120, check=True).stdout
    result = json.loads(out.strip().splitlines()[-1])
    assert len(result["codes"]) > 10 and set(result["codes"]) == {0}
    assert result["loaded"] == []


def test_a_bare_help_loads_click_and_the_command_index_and_nothing_else() -> None:
    code, modules = loaded_by("--help")
    assert code == 0
    ours = {name for name in modules if name.split(".")[0] == "benchledger"}
    assert ours == BARE_HELP_LOADS, sorted(ours - BARE_HELP_LOADS)
    third_party = sorted({name.split(".")[0] for name in modules} - set(sys.stdlib_module_names)
                         - {"benchledger", "click"})
    assert [name for name in third_party if not name.startswith("_")] == []  # (`_editable` finders are site's)


def test_commands_that_need_no_model_or_memory_import_no_sdk_driver_or_memory_system(tmp_path: Path) -> None:
    ledger = str(tmp_path / "ledger.db")
    from benchledger.ledger.store import Ledger

    Ledger.open(tmp_path / "ledger.db").close()
    for args in (("runs",), ("verify",), ("show", "--help"), ("events", "--help")):
        code, modules = loaded_by("--ledger", ledger, *args, cwd=tmp_path)
        assert code == 0, args
        assert sorted({name.split(".")[0] for name in modules} & set(NOT_FOR_A_LEDGER_COMMAND)) == [], args
    code, modules = loaded_by("run", "groupmem", "--help", cwd=tmp_path)  # the other side: run loads its own
    assert code == 0 and "benchledger.orchestration.session" in modules


def test_the_command_index_is_the_one_the_command_modules_give() -> None:
    index = Path(lazy_commands.__file__).with_name("command_index.py")
    assert index.read_text(encoding="utf-8") == lazy_commands.index_source(), (
        "cli/command_index.py is stale: run `python -m benchledger.cli.lazy_commands` and commit it")
