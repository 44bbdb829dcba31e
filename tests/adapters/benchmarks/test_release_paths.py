"""Every path a release names stays inside the release folder: an image, a screenshot, a session file or a
release file that resolves outside (absolute, `..`, a symbolic link out) is refused at load in one line
naming what named it; the same names inside the release are read as before.

The releases are copies, in the test's folder, of the synthetic LongMemEval-V2 release and of the Memora
fixture; the "secret" is a file beside the copy, outside it.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from benchledger.adapters.benchmarks.longmemeval_v2.official import context_items
from benchledger.adapters.benchmarks.registry import benchmark_named
from benchledger.errors import BadInput
from conftest import REPO


@pytest.fixture
def v2(shared_data, tmp_path) -> Path:
    root = tmp_path / "release"
    shutil.copytree(shared_data / "longmemeval-v2" / "synthetic", root)
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "id_rsa").write_bytes(b"-----BEGIN OPENSSH PRIVATE KEY-----\n")
    return root


def _rewrite(path: Path, edit) -> None:
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    path.write_text("".join(json.dumps(edit(row)) + "\n" for row in rows))


def _load_v2(root: Path):
    benchmark = benchmark_named("longmemeval-v2")
    return benchmark.load(root, benchmark.selection_of({"domain": "web"}))


def _image_question(root: Path) -> str:
    return next(json.loads(line)["id"] for line in (root / "questions.jsonl").read_text().splitlines()
                if line.strip() and json.loads(line).get("image"))


@pytest.mark.parametrize("name", ["{secret}/id_rsa", "../secret/id_rsa", "question_screenshots/../../secret/id_rsa"],
                         ids=["absolute", "dot-dot", "dot-dot inside the name"])
def test_a_question_image_outside_the_release_is_refused_naming_the_question(v2, name):
    qid = _image_question(v2)
    value = name.format(secret=v2.parent / "secret")
    _rewrite(v2 / "questions.jsonl", lambda row: {**row, "image": value} if row["id"] == qid else row)
    with pytest.raises(BadInput) as refused:
        _load_v2(v2)
    message = str(refused.value)
    assert f"question {qid}: its image names {value}" in message and "outside the release folder" in message
    assert refused.value.field == "image" and refused.value.file.endswith("questions.jsonl") and "\n" not in message


def test_an_image_that_is_a_link_out_of_the_release_is_refused(v2):
    qid = _image_question(v2)
    link = v2 / "question_screenshots" / "link.png"
    os.symlink(v2.parent / "secret" / "id_rsa", link)
    _rewrite(v2 / "questions.jsonl", lambda row: {**row, "image": "question_screenshots/link.png"}
             if row["id"] == qid else row)
    with pytest.raises(BadInput, match=f"question {qid}: its image names question_screenshots/link.png, which "
                                       f"resolves to {v2.parent / 'secret' / 'id_rsa'}"):
        _load_v2(v2)


def test_images_inside_the_release_still_load_absolute_or_relative(v2):
    qid = _image_question(v2)
    original = next(json.loads(line)["image"] for line in (v2 / "questions.jsonl").read_text().splitlines()
                    if line.strip() and json.loads(line)["id"] == qid)
    _rewrite(v2 / "questions.jsonl", lambda row: {**row, "image": str(v2 / original)} if row["id"] == qid else row)
    dataset = _load_v2(v2)
    image = next(q.extra["question_image"] for q in dataset.questions if q.question_id == qid)
    assert Path(image) == (v2 / original).resolve()


def test_a_screenshot_outside_the_release_is_refused_naming_the_trajectory(v2):
    first = json.loads((v2 / "trajectories.jsonl").read_text().splitlines()[0])
    _rewrite(v2 / "trajectories.jsonl", lambda row: {**row, "states": [
        {**row["states"][0], "screenshot": "../secret/id_rsa"}, *row["states"][1:]]} if row["id"] == first["id"] else row)
    shutil.rmtree(v2 / "screenshots")  # refused whether or not the screenshots are laid out
    with pytest.raises(BadInput) as refused:
        _load_v2(v2)
    assert f"trajectory {first['id']}, state 0: its screenshot names ../secret/id_rsa" in str(refused.value)
    assert refused.value.field == "states[0].screenshot"


def test_a_recalled_states_screenshot_is_sent_only_from_inside_the_release(v2):
    dataset = _load_v2(v2)
    doc = next(d for docs in dataset.scopes.values() for d in docs if d.extra.get("screenshot"))
    from types import SimpleNamespace

    inside = context_items([SimpleNamespace(rank=1, text="t", document=doc)], v2)
    assert [item["type"] for item in inside] == ["text", "image"]
    outside = doc.model_copy(update={"extra": {**doc.extra, "screenshot": str(v2.parent / "secret" / "id_rsa")}})
    assert [item["type"] for item in context_items([SimpleNamespace(rank=1, text="t", document=outside)], v2)] == \
        ["text"]


def test_a_release_file_that_is_a_link_out_is_refused(v2, tmp_path):
    moved = tmp_path / "elsewhere.jsonl"
    shutil.move(v2 / "trajectories.jsonl", moved)
    os.symlink(moved, v2 / "trajectories.jsonl")
    with pytest.raises(BadInput, match="the release names .*trajectories.jsonl, which resolves to .*elsewhere.jsonl"):
        _load_v2(v2)


@pytest.fixture
def memora(tmp_path) -> Path:
    root = tmp_path / "memora"
    shutil.copytree(REPO / "tests" / "fixtures" / "memora", root)
    return root


def _load_memora(root: Path):
    benchmark = benchmark_named("memora")
    return benchmark.load(root, benchmark.selection_of({"split": "weekly"}))


def test_a_memora_session_file_that_is_a_link_out_is_refused(memora, tmp_path):
    assert _load_memora(memora).scopes  # the other side: the copy as it is loads
    session = next((memora / "weekly").glob("*/conversations/session_0001.json"))
    shutil.move(session, tmp_path / "notes.json")
    os.symlink(tmp_path / "notes.json", session)
    with pytest.raises(BadInput, match=r"session_0001.json, which resolves to .*notes.json, outside the release"):
        _load_memora(memora)


def test_a_memora_persona_folder_that_is_a_link_out_is_refused(memora, tmp_path):
    persona = next(p for p in (memora / "weekly").iterdir() if p.is_dir())
    shutil.move(persona, tmp_path / persona.name)
    os.symlink(tmp_path / persona.name, persona)
    with pytest.raises(BadInput, match="outside the release folder"):
        _load_memora(memora)



def test_a_release_given_by_a_relative_path_loads(tmp_path, monkeypatch):
    from conftest import MINI

    shutil.copytree(MINI, tmp_path / "mini")
    monkeypatch.chdir(tmp_path)
    benchmark = benchmark_named("groupmem")
    assert benchmark.load(Path("mini"), benchmark.selection_of({"domain": "Demo"})).questions
