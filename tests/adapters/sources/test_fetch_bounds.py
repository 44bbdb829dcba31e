"""Every body a fetch reads is capped, and a fetch that reaches no source says so in one line.

A loopback mirror sends a body that never ends: the download stops at the pinned size, else at the
size the hub announced, else at the fetch's limit, with one line, and keeps nothing. A source that
cannot be reached (a closed port) stops `benchledger fetch memora` with one line naming `--from`,
no retry chatter and no partial file.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from test_fetch import DEV, dev_key, hub_dev, pinned_dev, server  # noqa: F401  (the server fixture)

from benchledger.adapters.sources.download import INCOMPLETE
from benchledger.adapters.sources.fetch import fetch_release
from benchledger.adapters.sources.settings import FetchSettings
from benchledger.errors import BadInput


def _refused(server, source, folder, settings=None):
    with pytest.raises(BadInput) as refused:
        fetch_release("locomo-dev", source, folder, settings or server.settings)
    assert not (folder / DEV).exists() and not list(folder.rglob("*" + INCOMPLETE))
    return str(refused.value)


def test_an_endless_body_stops_at_the_pinned_size(server, shared_data, tmp_path):
    server.endless.add(dev_key(server))
    size = (shared_data / "locomo" / DEV).stat().st_size
    message = _refused(server, pinned_dev(shared_data, server.hub_commit), tmp_path / "rel")
    assert f"runs past the {size:,} bytes pinned for it: stopped there, nothing kept" in message
    assert "\n" not in message
    # the client stopped reading: what the mirror managed to send is the cap and what was in flight
    assert server.bytes_sent[dev_key(server)] < size + (16 << 20)


def test_an_endless_body_stops_at_the_size_the_hub_announced(server, shared_data, tmp_path):
    server.endless.add(dev_key(server))
    size = (shared_data / "locomo" / DEV).stat().st_size
    message = _refused(server, hub_dev(), tmp_path / "rel")
    assert f"runs past the {size:,} bytes the source announced: stopped there, nothing kept" in message


def test_the_fetch_limit_caps_what_a_source_announces(server, shared_data, tmp_path):
    limit = FetchSettings(github_raw=server.settings.github_raw, hub=server.settings.hub, max_download_bytes=100_000)
    message = _refused(server, hub_dev(), tmp_path / "rel", limit)
    assert "more than the 100,000 of the fetch limit (BENCHLEDGER_FETCH_MAX_BYTES); nothing was downloaded" in message
    server.endless.add(dev_key(server))  # announcing no length at all: stopped at the limit while reading
    message = _refused(server, hub_dev(), tmp_path / "rel2", limit)
    assert "runs past the 100,000 bytes of the fetch limit (BENCHLEDGER_FETCH_MAX_BYTES)" in message
    # the other side of the limit: a file within it arrives whole
    within = FetchSettings(github_raw=server.settings.github_raw, hub=server.settings.hub, max_download_bytes=4 << 20)
    server.endless.clear()
    assert fetch_release("locomo-dev", hub_dev(), tmp_path / "rel3", within).downloaded == 2


def test_a_body_announcing_more_than_its_pin_is_refused_before_it_is_read(server, shared_data, tmp_path):
    server.serve_instead[dev_key(server)] = (shared_data / "locomo" / DEV).read_bytes() + b" " * 10
    message = _refused(server, pinned_dev(shared_data, server.hub_commit), tmp_path / "rel")
    assert "more than the" in message and "pinned for it; nothing was downloaded" in message


def test_the_limit_setting_is_refused_unless_it_is_a_positive_number(monkeypatch):
    monkeypatch.setenv("BENCHLEDGER_FETCH_MAX_BYTES", "-1")
    with pytest.raises(BadInput, match="field 'BENCHLEDGER_FETCH_MAX_BYTES': must be a positive number of bytes"):
        FetchSettings.from_env()
    monkeypatch.setenv("BENCHLEDGER_FETCH_MAX_BYTES", "5000")
    assert FetchSettings.from_env().max_download_bytes == 5000


def test_offline_fetch_memora_is_one_line_naming_from_and_leaves_nothing(tmp_path):
    env = {**os.environ, "BENCHLEDGER_GITHUB_RAW": "http://127.0.0.1:9", "BENCHLEDGER_DATA_DIR": str(tmp_path / "d")}
    done = subprocess.run([sys.executable, "-m", "benchledger.cli.main", "fetch", "memora"], capture_output=True,
                          text=True, env=env, timeout=300)
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("Error: the source cannot be reached: cannot reach 127.0.0.1:9 (ConnectError")
    assert lines[0].endswith("To lay out a copy you already have: benchledger fetch memora --from DIR")
    folder = tmp_path / "d" / "releases" / "memora"
    assert not [p for p in folder.rglob("*") if p.is_file()] if folder.exists() else True
