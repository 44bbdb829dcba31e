"""Every benchmark's template recipes, read out of the official code kept in ../shared/data/sources,
give exactly the pinned templates, byte for byte the files in ../shared/data/<benchmark>/prompts."""

from __future__ import annotations

import hashlib
import json

import pytest

from benchledger.adapters.benchmarks.registry import benchmark_named
from benchledger.adapters.sources.spec import Literal, TemplateRecipe
from benchledger.adapters.sources.templates import derive_template, derive_templates
from benchledger.errors import BadInput

CODE = {"locomo": "locomo-code", "longmemeval": "longmemeval-code", "memora": "memora-code"}


@pytest.mark.parametrize("command", sorted(CODE))
def test_the_recipes_give_the_pinned_templates(shared_data, command):
    source = benchmark_named(command).release_source()
    root = shared_data / "sources" / CODE[command]
    code = [pin for pin in source.pins.pins() if pin.role == "code"]
    for pin in code:  # the kept copies are the pinned files, byte for byte
        data = (root / pin.source_path).read_bytes()
        assert (hashlib.sha256(data).hexdigest(), len(data)) == (pin.sha256, pin.bytes)
        assert pin.path == f"source/{pin.source_path}"
    texts = {pin.source_path: (root / pin.source_path).read_text(encoding="utf-8") for pin in code}
    derived = derive_templates(source.templates, texts, {})
    assert set(derived) == set(source.template_pins)
    prompts = shared_data / command / "prompts"
    for name, text in derived.items():
        assert hashlib.sha256(text.encode("utf-8")).hexdigest() == source.template_pins[name], name
        assert text.encode("utf-8") == (prompts / name).read_bytes(), name


def test_an_interpolation_the_recipe_does_not_name_stops_the_extraction(shared_data):
    code = (shared_data / "sources" / "memora-code" / "evals/model_eval/model_based_evaluator.py").read_text()
    with pytest.raises(BadInput, match=r"interpolates \{date_context\}") as refused:
        derive_template(TemplateRecipe("answer_system.txt", "x.py", (Literal(519),)), code, where="x.py")
    assert refused.value.line == 519
    with pytest.raises(BadInput, match="no string literal #3"):
        derive_template(TemplateRecipe("t.txt", "x.py", (Literal(519, 3),)), code, where="x.py")


def test_the_memora_release_pins_are_the_published_manifest(shared_data):
    # The pins shipped in the package are the manifest's, file for file (hashes and sizes only).
    from benchledger.adapters.benchmarks.memora.source import COMMIT, PINS

    manifest = json.loads((shared_data / "sources" / "memora-release-manifest.json").read_text())
    release = [pin for pin in PINS.pins() if pin.role == "release"]
    assert {pin.source_path: (pin.sha256, pin.bytes) for pin in release} == {
        path: (entry["sha256"], entry["bytes"]) for path, entry in manifest["files"].items()}
    assert {(pin.origin, pin.revision) for pin in release} == {(manifest["source"], COMMIT)} and not PINS.unpinned()
    assert all(pin.path == pin.source_path.removeprefix("data/") for pin in release)


def test_the_skip_reason_names_the_command_that_provides_each_part(monkeypatch, tmp_path):
    from conftest import SHARED_DATA_SOURCES, missing_shared_data_reason

    monkeypatch.setenv("BENCHLEDGER_SHARED_DATA", str(tmp_path / "absent"))
    reason = missing_shared_data_reason()
    assert reason.startswith(f"released benchmark data not found at {tmp_path / 'absent'}")
    for command in ("locomo", "longmemeval", "memora", "groupmem"):
        assert f"`benchledger fetch {command}`" in reason
    assert all(part in reason for part in SHARED_DATA_SOURCES)
