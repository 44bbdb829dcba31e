"""`fetch --from DIR`: a copy the user has, checked against the pins file by file, laid out where `run` finds it.

Copies are made in the test's folder from files the tests have (the LoCoMo dev file and official
code), laid out as `run` reads them or as the source's repository holds them; what is checked is the
bytes that land, whatever their size.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from test_fetch import DEV, hub_dev, pinned_dev, sha

from benchledger.adapters.benchmarks.locomo.prompts import OFFICIAL_SHA256
from benchledger.adapters.benchmarks.locomo.source import CODE_FILE
from benchledger.adapters.benchmarks.memora.source import PINS as MEMORA_PINS
from benchledger.adapters.sources.copy import DIFFERS, MISSING, NO_PIN, OK, lay_out_copy
from benchledger.adapters.sources.download import INCOMPLETE
from benchledger.adapters.sources.receipt import RECEIPT, read_receipt
from benchledger.errors import BadInput
from ledger_cli import invoke_expecting

COMMIT = "e" * 40


def _copy(shared_data: Path, root: Path, *, code_at: str = "source/") -> Path:
    root.mkdir(parents=True)
    shutil.copyfile(shared_data / "locomo" / DEV, root / DEV)
    (root / code_at / CODE_FILE).parent.mkdir(parents=True)
    shutil.copyfile(shared_data / "sources" / "locomo-code" / CODE_FILE, root / code_at / CODE_FILE)
    return root


@pytest.mark.parametrize("layout", ["source/", ""], ids=["as run reads it", "as the repository holds it"])
def test_a_copy_at_its_pins_is_laid_out_with_its_templates_and_a_receipt(shared_data, tmp_path, layout):
    copy = _copy(shared_data, tmp_path / "mine", code_at=layout)
    folder = tmp_path / "rel"
    result = lay_out_copy("locomo-dev", pinned_dev(shared_data, COMMIT), folder, copy)
    assert [(c.path, c.status) for c in result.checked] == [(DEV, OK), (f"source/{CODE_FILE}", OK)]
    assert sha(folder / DEV) == sha(copy / DEV) and result.run_path == folder / DEV
    assert {p.name: sha(p) for p in (folder / "prompts").iterdir()} == OFFICIAL_SHA256
    entry = read_receipt(folder).files[DEV]
    assert entry.url == f"file://{copy.resolve()}" and entry.published == f"copied, pinned sha256 {sha(copy / DEV)}"
    assert not list(folder.rglob("*" + INCOMPLETE))


def test_a_file_of_other_bytes_differs_a_missing_one_is_missing_and_nothing_claims_a_release(shared_data, tmp_path):
    copy = _copy(shared_data, tmp_path / "mine")
    data = bytearray((copy / DEV).read_bytes())
    data[10] ^= 1  # the same size, other bytes
    (copy / DEV).write_bytes(bytes(data))
    (copy / "source" / CODE_FILE).unlink()
    folder = tmp_path / "rel"
    result = lay_out_copy("locomo-dev", pinned_dev(shared_data, COMMIT), folder, copy)
    assert [(c.path, c.status) for c in result.checked] == [(DEV, DIFFERS), (f"source/{CODE_FILE}", MISSING)]
    assert result.receipt is None and not (folder / RECEIPT).exists() and not (folder / DEV).exists()
    assert not list(folder.rglob("*" + INCOMPLETE))


def test_a_file_without_a_pin_is_laid_out_as_no_pin(shared_data, tmp_path):
    copy = _copy(shared_data, tmp_path / "mine")
    result = lay_out_copy("locomo-dev", hub_dev(), tmp_path / "rel", copy)
    assert [(c.path, c.status) for c in result.checked] == [(DEV, NO_PIN), (f"source/{CODE_FILE}", OK)]
    assert read_receipt(tmp_path / "rel").files[DEV].published == "copied, no pin"


def test_from_refuses_what_is_not_a_copy(shared_data, tmp_path):
    with pytest.raises(BadInput, match="is not a folder"):
        lay_out_copy("locomo-dev", hub_dev(), tmp_path / "rel", tmp_path / "nothing")
    (tmp_path / "rel").mkdir()
    with pytest.raises(BadInput, match="is the release folder itself"):
        lay_out_copy("locomo-dev", hub_dev(), tmp_path / "rel", tmp_path / "rel")


def test_fetch_memora_from_a_copy_says_per_file_what_it_holds(shared_data, tmp_path, monkeypatch):
    monkeypatch.setenv("BENCHLEDGER_DATA_DIR", str(tmp_path / "data"))
    copy = tmp_path / "memora"
    code = shared_data / "sources" / "memora-code"
    shutil.copytree(code / "evals", copy / "evals")  # the official evaluators, as the repository holds them
    made_up = [pin for pin in MEMORA_PINS.pins() if pin.path.startswith("weekly/")][:2]
    for pin in made_up:  # two files of the release, of made-up bytes, at their places in a clone
        (copy / pin.source_path).parent.mkdir(parents=True, exist_ok=True)
        (copy / pin.source_path).write_text(json.dumps({"made": "up"}))
    done = invoke_expecting("fetch", "memora", "--from", str(copy), expect=2)
    lines = done.output.splitlines()
    assert f"ok                    source/evals/model_eval/model_based_evaluator.py" in lines
    assert sum(line.startswith("differs from the pin  weekly/") for line in lines) == 2
    assert sum(line.startswith("missing  ") or line.startswith("missing               ") for line in lines) == 11
    assert f"… and {len(MEMORA_PINS) - 4 - 10:,} more file(s) of the release not in the copy" in done.output
    assert lines[-1].startswith(f"Error: {copy}: 2 ok, 2 differs from the pin, {len(MEMORA_PINS) - 4:,} missing: "
                                "the copy is not the release")
    folder = tmp_path / "data" / "releases" / "memora"
    assert not (folder / RECEIPT).exists() and (folder / "source/evals/agent_eval/memory_to_answer.py").is_file()
    assert not any((folder / pin.path).exists() for pin in made_up)
