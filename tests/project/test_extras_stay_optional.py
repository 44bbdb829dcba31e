"""A fresh `.[test]` install (the README's test command) collects every test module.

Tests of an optional extra skip where it is absent (`conftest.requires_extra`), but only if their
module imports nothing of the extra at collection time. CI installs every extra, so it cannot see
that mistake; this test hides the extras' packages from a child pytest and collects the modules
that use them.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

from conftest import REPO, requires_extra

HIDDEN = ("mem0", "graphiti_core")
"""The packages only an extra (mem0, graphiti) installs, hidden from the child."""
DISTRIBUTIONS = {"mem0": "mem0ai", "graphiti_core": "graphiti-core"}
"""Their distributions, whose metadata is hidden too (the adapters read their versions from it)."""

_HIDE = """
import importlib.metadata as metadata, sys
for name in {hidden!r}:
    sys.modules[name] = None  # import fails and find_spec says absent, as on a machine without the extra
_gone = {dists!r}
_version, _distribution = metadata.version, metadata.distribution
def _hidden(real):
    def look(name):
        if name.lower().replace("_", "-") in _gone:
            raise metadata.PackageNotFoundError(name)
        return real(name)
    return look
metadata.version, metadata.distribution = _hidden(_version), _hidden(_distribution)
"""


def _modules_needing_extras() -> list[str]:
    tests = REPO / "tests"
    return sorted(str(path.relative_to(REPO)) for path in tests.rglob("test_*.py")
                  if re.search(r"requires_extra\(\"(?:%s)\"" % "|".join(HIDDEN), path.read_text()))


def _child(tmp_path, *args: str, hidden: tuple[str, ...] = HIDDEN) -> subprocess.CompletedProcess[str]:
    dists = {DISTRIBUTIONS[name] for name in hidden}
    (tmp_path / "sitecustomize.py").write_text(_HIDE.format(hidden=set(hidden), dists=dists))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")]))}
    env.pop("BENCHLEDGER_NO_SKIPS", None)
    return subprocess.run([sys.executable, *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=600)


def test_the_extras_are_really_hidden_from_the_child(tmp_path):
    hidden = _child(tmp_path, "-c", "import benchledger.adapters.memory.mem0_memory")
    assert hidden.returncode != 0 and "mem0" in hidden.stderr
    assert _child(tmp_path, "-c", "import benchledger.adapters.memory.registry").returncode == 0


def test_every_module_testing_an_extra_collects_without_it(tmp_path):
    modules = _modules_needing_extras()
    assert len(modules) >= 5, modules  # the mem0 and Graphiti tests are found
    collected = _child(tmp_path, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *modules)
    assert collected.returncode == 0, collected.stdout[-3000:] + collected.stderr[-2000:]
    assert not re.search(r"\berror", collected.stdout.splitlines()[-1]), collected.stdout[-2000:]
    for module in modules:
        assert f"{module}::" in collected.stdout, module


@requires_extra("graphiti_core", "graphiti")
def test_each_memory_extra_works_without_the_other(tmp_path):
    """`benchledger[graphiti]` alone must load graphiti (it once imported helpers from mem0's adapter)."""
    graphiti = _child(tmp_path, "-c", "import benchledger.adapters.memory.graphiti_memory", hidden=("mem0",))
    assert graphiti.returncode == 0, graphiti.stderr[-2000:]
    mem0 = _child(tmp_path, "-c", "import benchledger.adapters.memory.mem0_memory", hidden=("graphiti_core",))
    assert mem0.returncode == 0 or "mem0ai is not installed" in mem0.stderr, mem0.stderr[-2000:]
    hidden = _child(tmp_path, "-c", "import benchledger.adapters.memory.mem0_memory", hidden=("mem0",))
    assert hidden.returncode != 0 and "mem0ai is not installed" in hidden.stderr  # the hiding itself works
