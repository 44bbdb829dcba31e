"""The plug-in example works as its README says: `examples/toy-memory`'s own tests import the memory
contract shipped in the package (`benchledger.testing`) and pass, and the same contract fails the
same system once it breaks a rule (here: returning more than k candidates).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from conftest import REPO

TOY = REPO / "examples" / "toy-memory"


def _run_its_tests(folder: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"], cwd=folder,
                          env={"PYTHONPATH": str(folder), "PATH": "/usr/bin:/bin"}, capture_output=True, text=True,
                          timeout=600)


def test_the_toy_memory_passes_the_shipped_contract(tmp_path):
    copy = tmp_path / "toy-memory"
    shutil.copytree(TOY, copy)
    done = _run_its_tests(copy)
    assert done.returncode == 0, done.stdout[-3000:]
    assert " passed" in done.stdout and "failed" not in done.stdout


def test_the_contract_fails_a_toy_that_ignores_k(tmp_path):
    copy = tmp_path / "toy-memory"
    shutil.copytree(TOY, copy)
    source = (copy / "toy_memory.py").read_text()
    broken = source.replace("return pack_candidates(scored, k=k, token_budget=token_budget)",
                            "return pack_candidates(scored, k=k + 5, token_budget=token_budget)")
    assert broken != source
    (copy / "toy_memory.py").write_text(broken)
    done = _run_its_tests(copy)
    assert done.returncode == 1 and " failed" in done.stdout, done.stdout[-3000:]
