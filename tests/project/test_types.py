"""The whole package type-checks under mypy (configured in pyproject.toml: strict, flag by flag, for
the store and the projections), with no blanket ignores anywhere.

mypy cannot follow the editable install's import hook (the folders at the top of the repository
are mapped into `benchledger`), so `.ci/typecheck` lays the package out as it is installed, with
symlinks, and checks it there; this test runs that script, as a developer would:

    .ci/typecheck
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from conftest import REPO

PACKAGE_FOLDERS = ("benchledger", "ledger", "projections", "adapters", "orchestration", "cli", "bench")


@pytest.mark.slow
def test_the_package_passes_mypy(tmp_path):
    result = subprocess.run([str(REPO / ".ci" / "typecheck")], cwd=REPO, capture_output=True, text=True,
                            timeout=900, env={**os.environ, "PYTHON": sys.executable})
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Success: no issues found" in result.stdout


def test_no_module_has_a_blanket_type_ignore():
    for folder in PACKAGE_FOLDERS:
        for path in sorted((REPO / folder).rglob("*.py")):
            text = path.read_text()
            assert not re.search(r"#\s*type:\s*ignore(?!\[)", text), path
            assert "mypy: ignore-errors" not in text, path
