"""Installed, benchledger is one import name: the wheel's top level holds `benchledger` alone.

The folders stay at the top of the repository (`ledger/`, `adapters/`, ...); `pyproject.toml` maps
each to a subpackage of `benchledger`. These tests build the real wheel and read its file list.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

from conftest import REPO

MAPPED = ("benchledger", "ledger", "projections", "adapters", "orchestration", "cli", "bench", "examples", "testing")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(REPO)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    (found,) = out.glob("benchledger-*.whl")
    return found


@pytest.mark.slow
def test_the_wheel_adds_exactly_one_top_level_name(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    top = {name.split("/")[0] for name in names if not name.split("/")[0].endswith(".dist-info")}
    assert top == {"benchledger"}
    for folder in MAPPED[1:]:
        assert f"benchledger/{folder}/__init__.py" in names
    assert "benchledger/projections/export_page.html" in names  # package data travels too
    entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "benchledger = benchledger.cli.main:cli" in text
    assert "sqlite = benchledger.adapters.memory.sqlite_fts:SqliteMemory" in text


@pytest.mark.slow
def test_every_package_folder_is_in_the_wheel_with_no_list_naming_it(wheel: Path) -> None:
    """setup.py discovers the packages below each mapped folder: a new one (a benchmark's folder) is
    in the wheel, and pyproject.toml holds no hand list to forget it in."""
    assert "packages" not in tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    found = set()
    for folder in MAPPED:
        for init in (REPO / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(REPO / folder).parts
            prefix = ["benchledger"] if folder == "benchledger" else ["benchledger", folder]
            found.add(".".join(prefix + list(rel)))
    in_wheel = {name.rsplit("/", 1)[0].replace("/", ".") for name in zipfile.ZipFile(wheel).namelist()
                if name.endswith("/__init__.py")}
    assert "benchledger.adapters.benchmarks.mem2actbench" in found
    assert found == in_wheel


@pytest.mark.slow
def test_the_quick_start_runs_from_an_installed_wheel(wheel: Path, tmp_path: Path) -> None:
    """`run groupmem --demo` from a plain (non-editable) install: the mini release travels in the wheel."""
    names = zipfile.ZipFile(wheel).namelist()
    assert "benchledger/examples/groupmem-mini/questions/Demo/temporal.jsonl" in names
    assert "benchledger/examples/groupmem-mini/data/final/Demo/synthetic_domain_channels_rolevariants_Demo.json" in names
    target = tmp_path / "site"
    done = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target),
                           str(wheel)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    work = tmp_path / "elsewhere"
    work.mkdir()
    # the installed copy comes first on the path, ahead of this checkout's editable install
    check = subprocess.run([sys.executable, "-c", "import benchledger.examples as e; print(e.example_path('groupmem-mini'))"],
                           capture_output=True, text=True, cwd=work, env={"PYTHONPATH": str(target), "PATH": ""})
    assert check.stdout.strip().startswith(str(target)), check.stdout + check.stderr
    run = subprocess.run([sys.executable, "-m", "benchledger.cli.main", "run", "groupmem", "--demo"],
                         capture_output=True, text=True, cwd=work, timeout=600,
                         env={"PYTHONPATH": str(target), "PATH": "", "HOME": str(tmp_path)})
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.startswith("DIAGNOSTIC  GroupMemBench / Demo")
    assert (work / "benchledger.db").exists()


def test_ci_installs_every_optional_extra() -> None:
    """An extra CI does not install would leave its tests unrun (or skipped, which CI refuses)."""
    import re

    extras = set(tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"])
    installed = re.search(r"pip install -q -e '\.\[([a-z0-9,_-]+)\]'", (REPO / ".ci" / "run").read_text())
    assert installed, ".ci/run no longer installs the project with its extras"
    assert extras - set(installed.group(1).split(",")) == set()
