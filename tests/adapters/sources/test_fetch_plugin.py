"""A benchmark plug-in of the tests' own, registered through the entry point like any plug-in, whose pin
table pins a file the tests have (LoCoMo's dev file): fetched with the CLI and run by name, and the
same file given by path, are both `[ok] official_release` from the pin. LoCoMo's own pin refuses
that file, fetched under its name or given by path."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys

import pytest

from benchledger.adapters.benchmarks.locomo.source import CODE_FILE, PINS as LOCOMO_PINS
from plugin_dist import write_distribution
from source_server import SourceServer

COMMIT = "d" * 40

PLUGIN = '''
"""locomo-dev: LoCoMo's adapter over the dev file, pinned by the tests, fetched from a source of their own."""
from benchledger.adapters.benchmarks.locomo.benchmark import LoCoMo
from benchledger.adapters.benchmarks.locomo.prompts import OFFICIAL_SHA256
from benchledger.adapters.benchmarks.locomo.source import PINS as LOCOMO_PINS, TEMPLATE_RECIPES
from benchledger.adapters.sources.spec import ReleaseSource
from benchledger.pins import Pin, PinTable
from benchledger.projections.publishable import condition_name
from benchledger.projections.releases import official_release

PINS = PinTable("LoCoMo-dev", (
    Pin("locomo-dev.json", "{sha}", {size}, "github.com/tests/locomo-dev", "{commit}", "data/locomo-dev.json",
        "the tests: ../shared/data/locomo/locomo-dev.json"),
    *(pin for pin in LOCOMO_PINS.pins() if pin.role == "code")))


class LoCoMoDev(LoCoMo):
    name = "LoCoMo-dev"
    command = "locomo-dev"
    summary = "LoCoMo's first seven conversations, pinned by the tests"
    source = ReleaseSource(PINS, run_path="locomo-dev.json", templates=TEMPLATE_RECIPES, template_pins=OFFICIAL_SHA256)
    conditions = tuple(official_release("LoCoMo-dev", PINS) if condition_name(c) == "official_release" else c
                       for c in LoCoMo.conditions)

    def load(self, source, selection):
        return super().load(source, selection).model_copy(update={"benchmark": self.name})
'''


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture
def cli(shared_data, tmp_path):
    dev = shared_data / "locomo" / "locomo-dev.json"
    code = LOCOMO_PINS.pin(f"source/{CODE_FILE}")
    release = LOCOMO_PINS.pin("locomo10.json")
    server = SourceServer(github={
        f"tests/locomo-dev/{COMMIT}/data/locomo-dev.json": dev,
        f"snap-research/locomo/{code.revision}/{CODE_FILE}": shared_data / "sources" / "locomo-code" / CODE_FILE,
        # LoCoMo's own release, served as the dev file: a part of it under its name
        f"snap-research/LoCoMo/{release.revision}/data/locomo10.json": dev})
    base = server.start()
    source = PLUGIN.replace("{commit}", COMMIT).replace("{sha}", sha(dev.read_bytes())).replace(
        "{size}", str(dev.stat().st_size))
    site = write_distribution(tmp_path / "site", name="locomo-dev-bench", version="1.0", module="locomo_dev_bench",
                              source=source, group="benchledger.benchmarks",
                              entry="locomo-dev = locomo_dev_bench:LoCoMoDev")
    env = {**os.environ, "COLUMNS": "0", "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")]),
           "BENCHLEDGER_GITHUB_RAW": base, "HF_ENDPOINT": base, "BENCHLEDGER_DATA_DIR": str(tmp_path / "data")}

    def benchledger(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "benchledger.cli.main", "--ledger", str(tmp_path / "l.db"),
                               *args], capture_output=True, text=True, env=env, timeout=300)

    benchledger.dev = dev
    yield benchledger
    server.stop()


def _official_release(report_path) -> dict:
    return {c["name"]: c for c in json.loads(report_path.read_text())["conditions"]}["official_release"]


def test_fetched_or_given_by_path_the_pinned_file_is_the_official_release(cli, tmp_path):
    before = cli("run", "locomo-dev", "--conversations", "conv-26", "--question-limit", "3")
    assert before.returncode == 2 and "benchledger fetch locomo-dev" in before.stderr
    assert "CORPUS_DIR" not in before.stderr  # the line names this command's FILE, not another's argument
    fetched = cli("fetch", "locomo-dev")
    assert fetched.returncode == 0, fetched.stderr
    assert "fetched LoCoMo-dev: 2 file(s)" in fetched.stdout and "run it:  benchledger run locomo-dev" in fetched.stdout
    folder = tmp_path / "data" / "releases" / "locomo-dev"
    assert (folder / "locomo-dev.json").read_bytes() == cli.dev.read_bytes()
    again = cli("fetch", "locomo-dev")
    assert again.returncode == 0 and "already fetched" in again.stdout
    ran = cli("run", "locomo-dev", "--conversations", "conv-26", "--question-limit", "3", "--out", str(tmp_path / "r.json"))
    assert ran.returncode == 0, ran.stderr
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["total"] == 3 and report["failed"] == 0
    # The run recorded the file it read with where it came from (the loopback, not github.com), and the
    # scorecard prints it; the pin, not the receipt, makes it official.
    assert report["release"].startswith(f"locomo-dev.json sha256 {sha(cli.dev.read_bytes())}, fetched from "
                                        f"github.com/tests/locomo-dev @ {COMMIT[:12]}, through http://127.0.0.1:")
    assert f"  release {report['release']}" in ran.stdout
    assert "[ok  ] official_release: the official LoCoMo-dev release, every file at its pin" in ran.stdout
    by_path = cli("run", "locomo-dev", str(cli.dev), "--conversations", "conv-26", "--question-limit", "3",
                  "--out", str(tmp_path / "p.json"))
    assert by_path.returncode == 0, by_path.stderr
    condition = _official_release(tmp_path / "p.json")
    assert condition["met"] and "(given by path, not fetched)" in condition["reason"]


def test_locomos_pin_refuses_the_dev_file_fetched_or_given_by_path(cli, tmp_path):
    refused = cli("fetch", "locomo")
    assert refused.returncode == 2 and "data/locomo10.json" in refused.stderr
    errors = [line for line in refused.stderr.splitlines() if not line.startswith("  download (bytes): ")]
    assert len(errors) == 1 and "not the pinned 79fa87e90f04" in errors[0]
    ran = cli("run", "locomo", str(cli.dev), "--conversations", "conv-26", "--question-limit", "3",
              "--out", str(tmp_path / "r.json"))
    assert ran.returncode == 0, ran.stderr
    condition = _official_release(tmp_path / "r.json")
    assert not condition["met"]
    assert condition["reason"].startswith("locomo-dev.json is not the official LoCoMo file (SHA-256 ")
    assert "pinned 79fa87e90f04…" in condition["reason"]


def test_fetch_help_lists_what_the_installed_benchmarks_can_fetch_the_plugin_included(cli):
    shown = cli("fetch", "--help")
    assert shown.returncode == 0, shown.stderr
    listed = " ".join(shown.stdout.split("Fetchable benchmarks:", 1)[1].split())  # unwrapped
    assert "locomo-dev LoCoMo-dev from github.com/tests/locomo-dev (2 file(s) pinned)" in listed
    assert "memora Memora from github.com/geniesinc/Memora" in listed
    # Read from the registry, never a hand list: without the plug-in on the path it is not offered.
    bare = subprocess.run([sys.executable, "-m", "benchledger.cli.main", "fetch", "--help"], capture_output=True,
                          text=True, timeout=120, env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    assert bare.returncode == 0 and "Fetchable benchmarks:" in bare.stdout
    assert "locomo-dev" not in bare.stdout and "memora" in bare.stdout
