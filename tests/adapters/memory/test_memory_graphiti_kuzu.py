"""Graphiti refuses to start, in one line, when the `kuzu` module is not the Kuzu pip installed.

cognee's wheels ship a top-level `kuzu` shim (its Ladybug fork) that overwrites Kuzu's files while
pip still lists Kuzu; Graphiti then failed deep inside with "function CREATE_FTS_INDEX is not defined".
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from conftest import MINI, requires_extra

pytestmark = requires_extra("graphiti_core", "graphiti")


def test_the_module_must_be_the_installed_distribution() -> None:
    from benchledger.adapters.memory.graphiti_memory import kuzu_problem

    assert kuzu_problem("0.11.3", "0.11.3") is None
    said = kuzu_problem("0.19.0", "0.11.3")
    assert said and "reports version 0.19.0" in said and "kuzu==0.11.3" in said
    assert "not installed" in (kuzu_problem("0.11.3", None) or "")


def test_a_kuzu_shim_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    shadow = tmp_path / "shadow"
    (shadow / "kuzu").mkdir(parents=True)
    (shadow / "kuzu" / "__init__.py").write_text('__version__ = "0.19.0"  # what the Ladybug shim reports\n')
    work = tmp_path / "shim"
    work.mkdir()
    refused = subprocess.run([sys.executable, "-m", "benchledger.cli.main", "run", "groupmem", str(MINI), "--domain",
                              "Demo", "--question-limit", "1", "--memory", "graphiti"],
                             cwd=work, env={**os.environ, "PYTHONPATH": str(shadow)}, capture_output=True, text=True,
                             timeout=300)
    assert refused.returncode == 2, refused.stderr
    lines = [line for line in refused.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "kuzu module reports version 0.19.0" in lines[0], refused.stderr
    assert list((tmp_path / "shim").iterdir()) == []
