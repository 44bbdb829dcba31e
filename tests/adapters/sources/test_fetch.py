"""`benchledger fetch` against a loopback server standing in for GitHub's raw files and the hub.

The server serves files the tests already have (`../shared/data`: the LoCoMo dev file, the official
LoCoMo code), never copies. The library tests fetch declarations of the tests' own built from the
LoCoMo ones (the real LoCoMo pin, `locomo10.json`, is not a file the tests have: the test that
serves the dev file under its name shows the pin refusing it); the end-to-end test installs a
benchmark plug-in through the entry point, fetches it with the CLI and runs it by name.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from benchledger.adapters.benchmarks.locomo.prompts import OFFICIAL_SHA256
from benchledger.adapters.benchmarks.locomo.source import CODE_FILE, SOURCE as LOCOMO, TEMPLATE_RECIPES
from benchledger.adapters.sources.download import INCOMPLETE
from benchledger.adapters.sources.fetch import fetch_release
from benchledger.adapters.sources.receipt import RECEIPT, read_receipt
from benchledger.adapters.sources.settings import FetchSettings
from benchledger.adapters.sources.spec import HubFiles, Literal, ReleaseSource, RemoteFile, TemplateRecipe
from benchledger.errors import BadInput
from plugin_dist import write_distribution
from source_server import SourceServer

LOCOMO_CODE_COMMIT = LOCOMO.code.commit
HUB_REPO = "tests/locomo-dev"


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def server(shared_data):
    served = SourceServer(
        github={f"snap-research/locomo/{LOCOMO_CODE_COMMIT}/{CODE_FILE}":
                shared_data / "sources" / "locomo-code" / CODE_FILE},
        hub={HUB_REPO: {"locomo-dev.json": shared_data / "locomo" / "locomo-dev.json"}})
    base = served.start()
    served.settings = FetchSettings(github_raw=base, hub=base)
    yield served
    served.stop()


def dev_source() -> ReleaseSource:
    """LoCoMo's declaration with the dev file from the hub (whose hash the hub publishes) as its release."""
    return replace(LOCOMO, release=(HubFiles(HUB_REPO, (RemoteFile("locomo-dev.json", "locomo-dev.json"),)),),
                   run_path="locomo-dev.json")


def test_a_whole_fetch_lays_out_the_release_and_the_templates_at_their_pins(server, shared_data, tmp_path):
    folder = tmp_path / "rel"
    seen = []
    result = fetch_release("locomo-dev", dev_source(), folder, server.settings,
                           progress=lambda stage, done, total: seen.append((done, total)))
    dev = shared_data / "locomo" / "locomo-dev.json"
    assert result.run_path == folder / "locomo-dev.json" and sha(result.run_path) == sha(dev)
    assert sha(folder / "source" / CODE_FILE) == LOCOMO.code.files[0].sha256
    assert {p.name: sha(p) for p in (folder / "prompts").iterdir()} == OFFICIAL_SHA256
    assert result.downloaded == 2 and result.bytes_downloaded == dev.stat().st_size + (
        shared_data / "sources" / "locomo-code" / CODE_FILE).stat().st_size
    receipt = read_receipt(folder)
    entry = receipt.files["locomo-dev.json"]
    assert entry.origin == f"huggingface.co/datasets/{HUB_REPO}" and entry.revision == server.hub_commit
    assert entry.published == f"hub sha256 {sha(dev)}"
    assert receipt.files[f"source/{CODE_FILE}"].published.startswith("pinned sha256 e878692f")
    assert receipt.files["prompts/qa_prompt.txt"].published.startswith(f"derived from {CODE_FILE}")
    assert seen and seen[-1][0] == seen[-1][1] == result.bytes_downloaded  # the bar reaches its end
    assert not list(folder.rglob("*" + INCOMPLETE))


def test_the_release_pin_refuses_a_part_of_the_release_served_under_its_name(server, shared_data, tmp_path):
    # The dev file holds 7 of locomo10.json's 10 conversations: served as locomo10.json, the pin refuses it.
    release = LOCOMO.release[0]
    server.github[f"{release.repo}/{release.commit}/data/locomo10.json"] = shared_data / "locomo" / "locomo-dev.json"
    folder = tmp_path / "rel"
    with pytest.raises(BadInput) as refused:
        fetch_release("locomo", LOCOMO, folder, server.settings)
    assert "data/locomo10.json" in str(refused.value) and "not the pinned 79fa87e90f04" in str(refused.value)
    assert refused.value.exit_code == 2
    assert not (folder / "locomo10.json").exists() and not list(folder.rglob("*" + INCOMPLETE))
    assert not (folder / RECEIPT).exists()


def test_a_hub_file_that_is_not_what_the_hub_published_is_refused(server, tmp_path):
    server.serve_instead[f"datasets/{HUB_REPO}/resolve/{server.hub_commit}/locomo-dev.json"] = b"[]"
    with pytest.raises(BadInput, match="not the hub's published"):
        fetch_release("locomo-dev", dev_source(), tmp_path / "rel", server.settings)
    assert not (tmp_path / "rel" / "locomo-dev.json").exists()


def test_an_edited_official_code_file_is_refused_before_any_template_is_read(server, shared_data, tmp_path):
    code = (shared_data / "sources" / "locomo-code" / CODE_FILE).read_bytes()
    server.serve_instead[f"snap-research/locomo/{LOCOMO_CODE_COMMIT}/{CODE_FILE}"] = code.replace(b"QA_PROMPT", b"QA")
    with pytest.raises(BadInput, match="not the pinned e878692fd259"):
        fetch_release("locomo-dev", dev_source(), tmp_path / "rel", server.settings)
    assert not (tmp_path / "rel" / "prompts").exists()


def test_a_template_that_does_not_come_out_at_its_pin_stops_the_fetch_naming_it(server, tmp_path):
    # qa_prompt.txt read from the category-5 constant's line: the text is official, but not that template.
    recipes = tuple(TemplateRecipe(r.name, r.code, (Literal(38),)) if r.name == "qa_prompt.txt" else r
                    for r in TEMPLATE_RECIPES)
    with pytest.raises(BadInput) as refused:
        fetch_release("locomo-dev", replace(dev_source(), templates=recipes), tmp_path / "rel", server.settings)
    message = str(refused.value)
    assert "template qa_prompt.txt" in message and "line 38" in message and "not the pinned a30fe18a6c9b" in message
    assert not (tmp_path / "rel" / "prompts").exists() and not (tmp_path / "rel" / RECEIPT).exists()


def test_the_right_recipes_pass_where_a_wrong_one_fails(server, tmp_path):
    # The other side of the boundary above: the declared recipes give every pinned template.
    result = fetch_release("locomo-dev", dev_source(), tmp_path / "rel", server.settings)
    assert set(p.name for p in (result.folder / "prompts").iterdir()) == set(OFFICIAL_SHA256)


def test_a_download_cut_off_midway_is_taken_up_again_and_arrives_whole(server, shared_data, tmp_path):
    # huggingface_hub's http_get writes in 10 MB chunks: a cut inside the first chunk of this 1.5 MB file
    # leaves nothing kept, so it asks again from the start (a cut after a written chunk resumes with
    # Range, as the next test shows across processes).
    key = f"datasets/{HUB_REPO}/resolve/{server.hub_commit}/locomo-dev.json"
    server.cut_after[key] = 1_000_000
    result = fetch_release("locomo-dev", dev_source(), tmp_path / "rel", server.settings)
    assert sha(result.run_path) == sha(shared_data / "locomo" / "locomo-dev.json")
    assert len(server.gets(key)) == 2


def test_a_partial_file_left_by_an_earlier_fetch_is_resumed_not_downloaded_again(server, shared_data, tmp_path):
    dev = (shared_data / "locomo" / "locomo-dev.json").read_bytes()
    folder = tmp_path / "rel"
    folder.mkdir()
    (folder / ("locomo-dev.json" + INCOMPLETE)).write_bytes(dev[:700_000])
    result = fetch_release("locomo-dev", dev_source(), folder, server.settings)
    key = f"datasets/{HUB_REPO}/resolve/{server.hub_commit}/locomo-dev.json"
    assert [r.range for r in server.gets(key)] == ["bytes=700000-"]
    assert result.run_path.read_bytes() == dev


def test_a_second_fetch_with_everything_present_asks_no_server(server, tmp_path):
    folder = tmp_path / "rel"
    fetch_release("locomo-dev", dev_source(), folder, server.settings)
    server.stop()  # offline from here on
    again = fetch_release("locomo-dev", dev_source(), folder, server.settings)
    assert again.downloaded == 0 and again.run_path == folder / "locomo-dev.json"
    # The other side: a changed file is noticed, and needs the source again (which is gone).
    (folder / "prompts" / "qa_prompt.txt").write_text("edited")
    with pytest.raises(BadInput, match="the hub did not describe dataset tests/locomo-dev"):
        fetch_release("locomo-dev", dev_source(), folder, server.settings)


_PLUGIN = '''
"""locomo-dev: LoCoMo's adapter over the dev file, fetched from a source of the tests' own."""
from dataclasses import replace

from benchledger.adapters.benchmarks.locomo.benchmark import LoCoMo
from benchledger.adapters.benchmarks.locomo.source import SOURCE
from benchledger.adapters.sources.spec import GitHubFiles, RemoteFile


class LoCoMoDev(LoCoMo):
    name = "LoCoMo-dev"
    command = "locomo-dev"
    summary = "LoCoMo's first seven conversations, from a test source"
    source = replace(SOURCE, release=(GitHubFiles("tests/locomo-dev", "{commit}", (
        RemoteFile("data/locomo-dev.json", "locomo-dev.json", "{sha}"),)),), run_path="locomo-dev.json")
'''


def test_fetch_then_run_by_name_end_to_end(server, shared_data, tmp_path):
    dev = shared_data / "locomo" / "locomo-dev.json"
    commit = "d" * 40
    server.github[f"tests/locomo-dev/{commit}/data/locomo-dev.json"] = dev
    site = write_distribution(tmp_path / "site", name="locomo-dev-bench", version="1.0", module="locomo_dev_bench",
                              source=_PLUGIN.replace("{commit}", commit).replace("{sha}", sha(dev)),
                              group="benchledger.benchmarks", entry="locomo-dev = locomo_dev_bench:LoCoMoDev")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")]),
           "BENCHLEDGER_GITHUB_RAW": server.settings.github_raw, "HF_ENDPOINT": server.settings.hub,
           "BENCHLEDGER_DATA_DIR": str(tmp_path / "data")}

    def benchledger(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "benchledger.cli.main", "--ledger", str(tmp_path / "l.db"),
                               *args], capture_output=True, text=True, env=env, timeout=300)

    before = benchledger("run", "locomo-dev", "--conversations", "conv-26", "--question-limit", "3")
    assert before.returncode == 2 and "benchledger fetch locomo-dev" in before.stderr
    assert "CORPUS_DIR" not in before.stderr  # the line names this command's FILE, not another's argument
    fetched = benchledger("fetch", "locomo-dev")
    assert fetched.returncode == 0, fetched.stderr
    assert "fetched LoCoMo-dev: 2 file(s)" in fetched.stdout and "run it:  benchledger run locomo-dev" in fetched.stdout
    folder = tmp_path / "data" / "releases" / "locomo-dev"
    assert sha(folder / "locomo-dev.json") == sha(dev)
    again = benchledger("fetch", "locomo-dev")
    assert again.returncode == 0 and "already fetched" in again.stdout
    ran = benchledger("run", "locomo-dev", "--conversations", "conv-26", "--question-limit", "3",
                      "--out", str(tmp_path / "r.json"))
    assert ran.returncode == 0, ran.stderr
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["total"] == 3 and report["failed"] == 0
    # The run recorded the file it read with where it came from, and the scorecard prints it.
    assert report["release"] == (f"locomo-dev.json sha256 {sha(dev)}, fetched from github.com/tests/locomo-dev "
                                 f"@ {commit[:12]}")
    assert f"  release {report['release']}" in ran.stdout
    release = {c["name"]: c for c in report["conditions"]}["official_release"]
    assert not release["met"] and release["reason"] == "3 of 1,986 LoCoMo questions"
    refused = benchledger("fetch", "locomo")
    assert refused.returncode == 2 and "data/locomo10.json" in refused.stderr


def test_a_gated_dataset_needs_the_users_token_which_reaches_the_hub_only(server, tmp_path, monkeypatch):
    gated = replace(dev_source(), release=(replace(dev_source().release[0], gated=True),))
    monkeypatch.delenv("HF_TOKEN", raising=False)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))  # no token saved by a login either
    with pytest.raises(BadInput, match="is gated: accept its terms on the hub, then set HF_TOKEN") as refused:
        fetch_release("locomo-dev", gated, tmp_path / "rel", server.settings)
    assert refused.value.field == "HF_TOKEN" and not server.requests  # refused before asking anything
    token = "hf_" + "x" * 34
    monkeypatch.setenv("HF_TOKEN", token)
    fetch_release("locomo-dev", gated, tmp_path / "rel", server.settings)
    hub_requests = [r for r in server.requests if "datasets/" in r.path]
    assert hub_requests and all(r.authorization for r in hub_requests)
    assert not any(r.authorization for r in server.requests if r.path.startswith("/snap-research/"))
    for path in (tmp_path / "rel").rglob("*"):
        if path.is_file() and path.suffix in (".json", ".txt", ".py"):
            assert token not in path.read_text(encoding="utf-8", errors="replace"), path


def test_fetch_names_what_it_cannot_fetch_in_one_line(monkeypatch, tmp_path):
    from click.testing import CliRunner

    from benchledger.cli.main import cli

    unknown = CliRunner().invoke(cli, ["fetch", "nosuch"])
    assert unknown.exit_code == 2 and "no benchmark 'nosuch' is installed" in unknown.output
    # LongMemEval-V2 registered its own source entry, a gated hub dataset: no token, no request
    monkeypatch.delenv("HF_TOKEN", raising=False)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))
    gated = CliRunner().invoke(cli, ["fetch", "longmemeval-v2", "--hub", "http://127.0.0.1:9"])
    assert gated.exit_code == 2 and "is gated: accept its terms on the hub, then set HF_TOKEN" in gated.output
