"""The store type-checks under `mypy --strict` (configured in pyproject.toml), with no blanket ignores.

mypy cannot follow the editable install's import hook (the folders at the top of the repository
are mapped into `benchledger`), so the test lays the package out as it is installed, with
symlinks, and checks it there. The same by hand, from the repository:

    tree=$(mktemp -d) && mkdir $tree/benchledger && ln -s $PWD/benchledger/*.py $tree/benchledger/ \\
      && ln -s $PWD/ledger $tree/benchledger/ledger \\
      && (cd $tree && $OLDPWD/.venv/bin/python -m mypy --config-file $OLDPWD/pyproject.toml -p benchledger.ledger)
"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from conftest import REPO


def _installed_layout(root):
    package = root / "benchledger"
    package.mkdir(parents=True)
    for module in (REPO / "benchledger").glob("*.py"):
        (package / module.name).symlink_to(module)
    (package / "ledger").symlink_to(REPO / "ledger")
    return root


@pytest.mark.slow
def test_the_store_passes_mypy_strict(tmp_path):
    tree = _installed_layout(tmp_path / "tree")
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(REPO / "pyproject.toml"),
         "--cache-dir", str(tmp_path / "cache"), "-p", "benchledger.ledger"],
        cwd=tree, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Success" in result.stdout


def test_the_store_has_no_blanket_type_ignores():
    for path in sorted((REPO / "ledger").rglob("*.py")):
        text = path.read_text()
        assert "# type: ignore\n" not in text and not re.search(r"#\s*type:\s*ignore(?!\[)", text), path
        assert "mypy: ignore-errors" not in text, path
