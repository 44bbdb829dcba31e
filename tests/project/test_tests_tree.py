"""The test tree keeps its shape: test files in the layer folders tests/README.md lists, one
conftest.py, unique basenames.

A second conftest.py below tests/ would break every `from conftest import MINI`: pytest imports
each folder's conftest.py under the one module name `conftest` (the folders are not packages), so
whichever it loaded last is what the import finds. Fixtures one folder alone uses go in that
folder's test module or in tests/conftest.py.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from conftest import REPO


def tree_problems(tests: Path) -> list[str]:
    """What is out of shape in the test tree at `tests`, one line each; empty when nothing is."""
    folders = set(re.findall(r"^\| `([a-z/]+)/` \|", (tests / "README.md").read_text(encoding="utf-8"), re.M))
    files = sorted(path for path in tests.rglob("test_*.py") if "fixtures" not in path.relative_to(tests).parts)
    problems = [f"{path.relative_to(tests)}: pytest imports every conftest.py as the module `conftest`, so "
                "`from conftest import ...` would find this one; put its fixtures in tests/conftest.py"
                for path in sorted(tests.rglob("conftest.py")) if path != tests / "conftest.py"]
    problems += [f"{path.relative_to(tests)}: not in a folder tests/README.md lists; move it to its layer's folder"
                 for path in files if path.parent.relative_to(tests).as_posix() not in folders]
    used = {path.parent.relative_to(tests).as_posix() for path in files}
    problems += [f"{folder}/: tests/README.md lists it, but it holds no test" for folder in sorted(folders - used)]
    problems += [f"{name}: {count} test files of this name; pytest cannot import two modules of one name from "
                 "folders that are not packages" for name, count in Counter(path.name for path in files).items()
                 if count > 1]
    return problems


def test_the_repositorys_test_tree_is_in_shape():
    assert tree_problems(REPO / "tests") == []
    listed = set(re.findall(r"^\| `([a-z/]+)/` \|", (REPO / "tests" / "README.md").read_text(encoding="utf-8"), re.M))
    assert {"ledger", "projections", "adapters/benchmarks", "orchestration", "cli", "project"} <= listed


def test_each_way_out_of_shape_is_named(tmp_path):
    (tmp_path / "README.md").write_text("| folder | what |\n|---|---|\n| `ledger/` | the store |\n| `cli/` | commands |\n"
                                        "| `bench/` | figures |\n")
    for path in ("conftest.py", "ledger/test_store.py", "cli/test_store.py", "cli/conftest.py", "test_flat.py",
                 "fixtures/test_not_a_test.py"):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("")
    problems = tree_problems(tmp_path)
    assert [line.split(":")[0] for line in problems] == ["cli/conftest.py", "test_flat.py", "bench/", "test_store.py"]
    (tmp_path / "cli" / "conftest.py").unlink()
    (tmp_path / "bench").mkdir()
    (tmp_path / "test_flat.py").rename(tmp_path / "bench" / "test_flat.py")
    (tmp_path / "cli" / "test_store.py").rename(tmp_path / "cli" / "test_commands.py")
    assert tree_problems(tmp_path) == []
