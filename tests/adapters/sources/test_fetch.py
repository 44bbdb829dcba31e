"""`benchledger fetch` against a loopback server standing in for GitHub's raw files and the hub.

The server serves files the tests already have (`../shared/data`: the LoCoMo dev file, the official
LoCoMo code), never copies. The library tests fetch release sources of the tests' own, whose pin
tables pin the dev file (or leave it to what the hub publishes) beside LoCoMo's own code pins (the
real LoCoMo pin, `locomo10.json`, is not a file the tests have: the test that serves the dev file
under its name shows the pin refusing it). `test_fetch_plugin.py` fetches a benchmark plug-in
through the CLI; `test_fetch_bounds.py` holds the caps and the offline case; `test_fetch_from.py`
the copies.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace
from pathlib import Path

import pytest

from benchledger.adapters.benchmarks.locomo.prompts import OFFICIAL_SHA256
from benchledger.adapters.benchmarks.locomo.source import CODE_FILE, PINS as LOCOMO_PINS, SOURCE as LOCOMO
from benchledger.adapters.benchmarks.locomo.source import TEMPLATE_RECIPES
from benchledger.adapters.sources.download import INCOMPLETE
from benchledger.adapters.sources.fetch import fetch_release
from benchledger.adapters.sources.receipt import RECEIPT, read_receipt
from benchledger.adapters.sources.settings import FetchSettings
from benchledger.adapters.sources.spec import Literal, ReleaseSource, TemplateRecipe
from benchledger.errors import BadInput
from benchledger.pins import Pin, PinTable, Unpinned
from source_server import SourceServer

LOCOMO_CODE_COMMIT = LOCOMO_PINS.pin(f"source/{CODE_FILE}").revision
HUB_REPO = "tests/locomo-dev"
DEV = "locomo-dev.json"
CODE_PINS = tuple(pin for pin in LOCOMO_PINS.pins() if pin.role == "code")


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def server(shared_data):
    served = SourceServer(
        github={f"snap-research/locomo/{LOCOMO_CODE_COMMIT}/{CODE_FILE}":
                shared_data / "sources" / "locomo-code" / CODE_FILE},
        hub={HUB_REPO: {DEV: shared_data / "locomo" / DEV}})
    base = served.start()
    served.settings = FetchSettings(github_raw=base, hub=base)
    yield served
    served.stop()


def source_of(*release: Pin | Unpinned, run_path: str = DEV) -> ReleaseSource:
    """LoCoMo's templates and code pins, with `release` as its release files."""
    return ReleaseSource(PinTable("LoCoMo-dev", (*release, *CODE_PINS)), run_path=run_path,
                         templates=TEMPLATE_RECIPES, template_pins=OFFICIAL_SHA256)


def hub_dev() -> ReleaseSource:
    """The dev file from the hub, unpinned: checked against what the hub publishes for the commit."""
    return source_of(Unpinned(DEV, f"huggingface.co/datasets/{HUB_REPO}", None, DEV, "the tests' own file"))


def pinned_dev(shared_data: Path, commit: str) -> ReleaseSource:
    """The dev file from the hub at `commit`, pinned."""
    dev = shared_data / "locomo" / DEV
    return source_of(Pin(DEV, sha(dev), dev.stat().st_size, f"huggingface.co/datasets/{HUB_REPO}", commit, DEV,
                         "the tests: ../shared/data/locomo/locomo-dev.json"))


def dev_key(server: SourceServer) -> str:
    return f"datasets/{HUB_REPO}/resolve/{server.hub_commit}/{DEV}"


def test_a_whole_fetch_lays_out_the_release_and_the_templates_at_their_pins(server, shared_data, tmp_path):
    folder = tmp_path / "rel"
    seen = []
    result = fetch_release("locomo-dev", hub_dev(), folder, server.settings,
                           progress=lambda stage, done, total: seen.append((done, total)))
    dev = shared_data / "locomo" / DEV
    assert result.run_path == folder / DEV and sha(result.run_path) == sha(dev)
    assert sha(folder / "source" / CODE_FILE) == CODE_PINS[0].sha256
    assert {p.name: sha(p) for p in (folder / "prompts").iterdir()} == OFFICIAL_SHA256
    assert result.downloaded == 2 and result.bytes_downloaded == dev.stat().st_size + CODE_PINS[0].bytes
    receipt = read_receipt(folder)
    entry = receipt.files[DEV]
    assert entry.origin == f"huggingface.co/datasets/{HUB_REPO}" and entry.revision == server.hub_commit
    assert entry.published == f"hub sha256 {sha(dev)}" and entry.url == f"{server.settings.hub}/{dev_key(server)}"
    code = receipt.files[f"source/{CODE_FILE}"]
    assert code.published.startswith("pinned sha256 e878692f") and code.url.startswith(server.settings.github_raw)
    assert receipt.files["prompts/qa_prompt.txt"].published.startswith(f"derived from {CODE_FILE}")
    assert receipt.fetched_at and receipt.fetched_at.endswith(("Z", "+00:00"))
    assert seen and seen[-1][0] == seen[-1][1] == result.bytes_downloaded  # the bar reaches its end
    assert not list(folder.rglob("*" + INCOMPLETE))


def test_a_pinned_hub_file_asks_the_hub_nothing_but_the_bytes(server, shared_data, tmp_path):
    result = fetch_release("locomo-dev", pinned_dev(shared_data, server.hub_commit), tmp_path / "rel", server.settings)
    assert sha(result.run_path) == sha(shared_data / "locomo" / DEV)
    assert not [r for r in server.requests if r.path.startswith("/api/")]
    assert read_receipt(tmp_path / "rel").files[DEV].published.startswith("pinned sha256 ")


def test_the_release_pin_refuses_a_part_of_the_release_served_under_its_name(server, shared_data, tmp_path):
    # The dev file holds 7 of locomo10.json's 10 conversations: served as locomo10.json, the pin refuses it.
    release = LOCOMO_PINS.pin("locomo10.json")
    server.github[f"snap-research/LoCoMo/{release.revision}/data/locomo10.json"] = shared_data / "locomo" / DEV
    folder = tmp_path / "rel"
    with pytest.raises(BadInput) as refused:
        fetch_release("locomo", LOCOMO, folder, server.settings)
    assert "data/locomo10.json" in str(refused.value) and "not the pinned 79fa87e90f04" in str(refused.value)
    assert refused.value.exit_code == 2
    assert not (folder / "locomo10.json").exists() and not list(folder.rglob("*" + INCOMPLETE))
    assert not (folder / RECEIPT).exists()


def test_a_hub_file_that_is_not_what_the_hub_published_is_refused(server, tmp_path):
    server.serve_instead[dev_key(server)] = b"[]"
    with pytest.raises(BadInput, match="not the hub's published"):
        fetch_release("locomo-dev", hub_dev(), tmp_path / "rel", server.settings)
    assert not (tmp_path / "rel" / DEV).exists()


def test_an_edited_official_code_file_is_refused_before_any_template_is_read(server, shared_data, tmp_path):
    code = (shared_data / "sources" / "locomo-code" / CODE_FILE).read_bytes()
    server.serve_instead[f"snap-research/locomo/{LOCOMO_CODE_COMMIT}/{CODE_FILE}"] = code.replace(b"QA_PROMPT", b"QA")
    with pytest.raises(BadInput, match="not the pinned e878692fd259"):
        fetch_release("locomo-dev", hub_dev(), tmp_path / "rel", server.settings)
    assert not (tmp_path / "rel" / "prompts").exists()


def test_a_template_that_does_not_come_out_at_its_pin_stops_the_fetch_naming_it(server, tmp_path):
    # qa_prompt.txt read from the category-5 constant's line: the text is official, but not that template.
    recipes = tuple(TemplateRecipe(r.name, r.code, (Literal(38),)) if r.name == "qa_prompt.txt" else r
                    for r in TEMPLATE_RECIPES)
    with pytest.raises(BadInput) as refused:
        fetch_release("locomo-dev", replace(hub_dev(), templates=recipes), tmp_path / "rel", server.settings)
    message = str(refused.value)
    assert "template qa_prompt.txt" in message and "line 38" in message and "not the pinned a30fe18a6c9b" in message
    assert not (tmp_path / "rel" / "prompts").exists() and not (tmp_path / "rel" / RECEIPT).exists()


def test_the_right_recipes_pass_where_a_wrong_one_fails(server, tmp_path):
    # The other side of the boundary above: the declared recipes give every pinned template.
    result = fetch_release("locomo-dev", hub_dev(), tmp_path / "rel", server.settings)
    assert set(p.name for p in (result.folder / "prompts").iterdir()) == set(OFFICIAL_SHA256)


def test_a_download_cut_off_midway_is_taken_up_again_where_it_stopped(server, shared_data, tmp_path):
    server.cut_after[dev_key(server)] = 1_000_000
    result = fetch_release("locomo-dev", hub_dev(), tmp_path / "rel", server.settings)
    assert sha(result.run_path) == sha(shared_data / "locomo" / DEV)
    asked = server.gets(dev_key(server))
    assert len(asked) == 2 and asked[0].range is None
    assert asked[1].range is not None and int(asked[1].range.removeprefix("bytes=").rstrip("-")) > 0


def test_a_partial_file_left_by_an_earlier_fetch_is_resumed_not_downloaded_again(server, shared_data, tmp_path):
    dev = (shared_data / "locomo" / DEV).read_bytes()
    folder = tmp_path / "rel"
    folder.mkdir()
    (folder / (DEV + INCOMPLETE)).write_bytes(dev[:700_000])
    result = fetch_release("locomo-dev", hub_dev(), folder, server.settings)
    assert [r.range for r in server.gets(dev_key(server))] == ["bytes=700000-"]
    assert result.run_path.read_bytes() == dev


def test_a_second_fetch_with_everything_present_asks_no_server(server, tmp_path):
    folder = tmp_path / "rel"
    fetch_release("locomo-dev", hub_dev(), folder, server.settings)
    server.stop()  # offline from here on
    again = fetch_release("locomo-dev", hub_dev(), folder, server.settings)
    assert again.downloaded == 0 and again.run_path == folder / DEV
    # The other side: a changed file is noticed, and needs the source again (which is gone).
    (folder / "prompts" / "qa_prompt.txt").write_text("edited")
    with pytest.raises(BadInput, match="the source cannot be reached: cannot reach 127.0.0.1:"):
        fetch_release("locomo-dev", hub_dev(), folder, server.settings)


def _same_size_other_bytes(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[100] ^= 0x01
    path.write_bytes(bytes(data))


def test_a_file_in_place_is_hashed_not_sized_kept_when_right_replaced_when_not(server, shared_data, tmp_path):
    source = pinned_dev(shared_data, server.hub_commit)
    folder = tmp_path / "rel"
    fetch_release("locomo-dev", source, folder, server.settings)
    (folder / RECEIPT).unlink()  # no receipt to lean on: each file in place is judged by its bytes alone
    before = len(server.gets(dev_key(server)))
    kept = fetch_release("locomo-dev", source, folder, server.settings)
    assert kept.downloaded == 0 and len(server.gets(dev_key(server))) == before  # the right file is not fetched again
    _same_size_other_bytes(folder / DEV)
    replaced = fetch_release("locomo-dev", source, folder, server.settings)
    assert replaced.downloaded == 1 and len(server.gets(dev_key(server))) == before + 1
    assert sha(folder / DEV) == sha(shared_data / "locomo" / DEV)


def test_a_same_size_file_of_other_bytes_is_refused_offline_even_under_a_receipt(server, shared_data, tmp_path):
    source = pinned_dev(shared_data, server.hub_commit)
    folder = tmp_path / "rel"
    fetch_release("locomo-dev", source, folder, server.settings)
    size = (folder / DEV).stat().st_size
    _same_size_other_bytes(folder / DEV)
    assert (folder / DEV).stat().st_size == size and (folder / RECEIPT).exists()
    server.stop()
    with pytest.raises(BadInput) as refused:
        fetch_release("locomo-dev", source, folder, server.settings)
    assert "--from DIR" in str(refused.value) and f"{DEV} in place was not what it must be (SHA-256 " in str(refused.value)
    assert not (folder / DEV).exists() and not (folder / RECEIPT).exists()  # nothing claims the wrong bytes


def test_a_gated_dataset_needs_the_users_token_which_reaches_the_hub_only(server, tmp_path, monkeypatch):
    gated = replace(hub_dev(), gated=frozenset({HUB_REPO}))
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
