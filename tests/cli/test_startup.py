"""Start-up: every command is listed without importing the heavy libraries only some commands need.

The openai SDK (about half a second), nltk (LoCoMo's stemmer) and sqlite-utils (the sqlite export)
are imported on first use. A fresh interpreter lists every command's help and must not have
loaded them; a command that needs one still works (the model, scoring and export tests).
"""

from __future__ import annotations

import json
import subprocess
import sys

from conftest import REPO

HEAVY = ("openai", "nltk", "sqlite_utils")

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
