"""The probe records the certificate an HTTPS endpoint presents, verified, and a run carries it.

A loopback OpenAI-compatible server presents a certificate signed by a throwaway test CA
(`tls_ca.py`, made with `openssl`); the client trusts that CA through `SSL_CERT_FILE` as the
openai SDK's client does. Without the CA trusted, the probe refuses the endpoint; over plain HTTP
there is no certificate to record. A run over HTTPS on loopback records the certificate and is
still diagnostic: 127.0.0.1 is not a provider's API.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from benchledger.adapters.models.loopback import LoopbackOpenAI
from benchledger.adapters.models.probe import probe_endpoint, probed_certificate, server_certificate
from benchledger.cli.main import cli
from benchledger.errors import BadInput
from benchledger.ledger.store import Ledger
from tls_ca import make_ca

pytestmark = pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command "
                                "(Debian's openssl package: apt-get install -y openssl)")


@pytest.fixture
def ca(tmp_path):
    return make_ca(tmp_path / "ca")


@pytest.fixture
def https_server(ca, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-loopback-tls-test-000000")
    with LoopbackOpenAI(tls=ca.server_context()) as server:
        yield server


def test_the_probe_records_the_verified_certificate(ca, https_server, monkeypatch):
    monkeypatch.setenv("SSL_CERT_FILE", str(ca.ca_pem))
    assert https_server.base_url.startswith("https://127.0.0.1:")
    certificate = probe_endpoint(https_server.base_url, "OPENAI_API_KEY")
    assert certificate is not None and certificate.sha256 == ca.server_sha256
    assert certificate.subject == "organizationName=benchledger tests, commonName=127.0.0.1"
    assert certificate.issuer == "organizationName=benchledger tests, commonName=benchledger test CA"
    assert probed_certificate(https_server.base_url) == certificate


def test_a_certificate_no_trusted_ca_signed_is_refused_and_never_recorded(https_server, monkeypatch, tmp_path):
    other = make_ca(tmp_path / "other")  # a CA that did not sign the server's certificate
    monkeypatch.setenv("SSL_CERT_FILE", str(other.ca_pem))
    with pytest.raises(BadInput, match="cannot be reached"):
        probe_endpoint(https_server.base_url, "OPENAI_API_KEY")
    assert server_certificate(https_server.base_url) is None


def test_plain_http_has_no_certificate(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-loopback-tls-test-000000")
    with LoopbackOpenAI() as server:
        assert probe_endpoint(server.base_url, "OPENAI_API_KEY") is None
        assert probed_certificate(server.base_url) is None


def test_a_run_over_https_records_the_certificate_and_is_diagnostic_on_loopback(ca, https_server, monkeypatch,
                                                                                shared_data):
    monkeypatch.setenv("SSL_CERT_FILE", str(ca.ca_pem))
    result = CliRunner().invoke(cli, [
        "run", "locomo", str(shared_data / "locomo" / "locomo-dev.json"), "--conversations", "conv-26",
        "--question-limit", "3", "--agent-model", "loopback-agent", "--base-url", https_server.base_url,
        "--out", "r.json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    report = json.loads(Path("r.json").read_text())
    with Ledger.open(Path("ledger.db")) as ledger:
        started = next(s.event for s in ledger.reader.events(report["run_id"]) if s.event.type == "RunStarted")
    assert started.config.endpoint.base_url == https_server.base_url
    assert started.config.endpoint.certificate.sha256 == ca.server_sha256
    condition = {c["name"]: c for c in report["conditions"]}["provider_endpoint"]
    assert not condition["met"] and condition["reason"] == (
        f"answers came from {https_server.base_url}, not a provider's API over verified TLS: "
        "what model answered cannot be known")
