"""The probe records what an HTTPS endpoint presents, judged against the shipped root store only.

The private-CA attack, re-created: a loopback OpenAI-compatible server presents a certificate a CA
made on the spot signed (`tls_ca.py`, with `openssl`), and the environment trusts that CA every way
it can (`SSL_CERT_FILE`, `SSL_CERT_DIR`, `REQUESTS_CA_BUNDLE`, `CURL_CA_BUNDLE`). The openai SDK then
reaches the server, so the run goes on; the probe records the chain and refuses it all the same,
since it reads certifi's store alone, and `provider_endpoint` is diagnostic with that reason. The
same chain checked against a store that holds the CA verifies: the refusal is the store, not the
server. An address that is not public after resolution is refused on its own.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from benchledger.adapters.models.loopback import LoopbackOpenAI
from benchledger.adapters.models.probe import probe_endpoint, probed_certificate, probed_tls, server_certificate
from benchledger.adapters.models.tls_evidence import address_problem, environment_proxy, tls_evidence
from benchledger.cli.main import cli
from benchledger.ledger.store import Ledger
from tls_ca import make_ca

pytestmark = pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command "
                                "(Debian's openssl package: apt-get install -y openssl)")

SHIPPED = "its certificate chain does not verify against the shipped root store (certifi "
CA_NAME = "organizationName=benchledger tests, commonName=benchledger test CA"


@pytest.fixture
def ca(tmp_path):
    return make_ca(tmp_path / "ca")


@pytest.fixture
def https_server(ca, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-loopback-tls-test-000000")
    with LoopbackOpenAI(tls=ca.server_context()) as server:
        yield server


@pytest.fixture
def environment_trusts_the_ca(ca, monkeypatch, tmp_path):
    """Every variable a TLS client might read its trusted CAs from names the private CA."""
    hashed = tmp_path / "certs"
    hashed.mkdir()
    shutil.copy(ca.ca_pem, hashed / "ca.pem")
    subprocess.run(["openssl", "rehash", str(hashed)], check=True, capture_output=True, timeout=60)
    for name in ("SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"):
        monkeypatch.setenv(name, str(ca.ca_pem))
    monkeypatch.setenv("SSL_CERT_DIR", str(hashed))


def test_a_private_ca_the_environment_trusts_is_refused_and_its_chain_recorded(ca, https_server,
                                                                               environment_trusts_the_ca):
    assert probe_endpoint(https_server.base_url, "OPENAI_API_KEY") is None  # reached, as the SDK trusts the CA
    evidence = probed_tls(https_server.base_url)
    assert evidence is not None and not evidence.trusted and probed_certificate(https_server.base_url) is None
    assert evidence.chain[0].sha256 == ca.server_sha256 and evidence.chain[0].issuer == CA_NAME
    assert evidence.address == "127.0.0.1" and evidence.root_store.startswith("certifi ")
    assert len(evidence.problems) == 2
    assert evidence.problems[0].startswith(SHIPPED) and evidence.problems[0].endswith(f"(issuer {CA_NAME})")
    assert evidence.problems[1] == "127.0.0.1 resolved to 127.0.0.1, a loopback address on the runner's machine"
    assert server_certificate(https_server.base_url) is None


def test_the_same_chain_verifies_against_a_store_that_holds_its_ca(ca, https_server):
    evidence = tls_evidence(https_server.base_url, timeout=5, root_store=ca.ca_pem)
    assert evidence is not None and evidence.trusted
    assert [c.sha256 for c in evidence.chain][:1] == [ca.server_sha256] and evidence.chain[-1].subject == CA_NAME
    assert evidence.problems == ("127.0.0.1 resolved to 127.0.0.1, a loopback address on the runner's machine",)


def test_a_host_name_resolving_to_loopback_is_refused_by_its_address(https_server, ca):
    url = https_server.base_url.replace("127.0.0.1", "localhost")
    evidence = tls_evidence(url, timeout=5, root_store=ca.ca_pem)
    assert evidence is not None and "localhost resolved to " in evidence.problems[-1]
    assert "a loopback address" in evidence.problems[-1]


@pytest.mark.parametrize("address, kind", [
    ("127.0.0.1", "loopback"), ("::1", "loopback"), ("::ffff:127.0.0.1", "loopback"),
    ("10.0.0.5", "private"), ("172.16.0.1", "private"), ("192.168.1.1", "private"), ("fd00::1", "private"),
    ("169.254.169.254", "link-local"), ("fe80::1%eth0", "link-local"),
    ("100.64.0.1", "non-public"), ("0.0.0.0", "private"),
])
def test_an_address_that_is_not_public_is_refused(address, kind):
    assert address_problem("api.openai.com", address) == (
        f"api.openai.com resolved to {address}, a {kind} address on the runner's machine")


@pytest.mark.parametrize("address", ["162.159.140.245", "8.8.8.8", "2606:4700::6810:84e5"])
def test_a_public_address_passes(address):
    assert address_problem("api.openai.com", address) is None


def test_a_proxy_the_environment_names_is_recorded_without_its_credentials(monkeypatch, https_server, ca):
    monkeypatch.setenv("HTTPS_PROXY", "http://user:secret@10.0.0.1:3128")
    assert environment_proxy("https://api.openai.com/v1") == "http://10.0.0.1:3128"
    evidence = tls_evidence(https_server.base_url, timeout=5, root_store=ca.ca_pem)
    assert evidence is not None and evidence.proxy == "http://10.0.0.1:3128"
    assert evidence.problems[-1] == ("the environment sends calls to 127.0.0.1 through the proxy "
                                     "http://10.0.0.1:3128, over a connection the probe did not see")
    monkeypatch.setenv("NO_PROXY", "api.openai.com")
    assert environment_proxy("https://api.openai.com/v1") is None


def test_plain_http_has_no_certificate(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-loopback-tls-test-000000")
    with LoopbackOpenAI() as server:
        assert probe_endpoint(server.base_url, "OPENAI_API_KEY") is None
        assert probed_certificate(server.base_url) is None and probed_tls(server.base_url) is None


def test_the_private_ca_attack_run_is_diagnostic_with_the_reason(ca, https_server, environment_trusts_the_ca,
                                                                  shared_data):
    result = CliRunner().invoke(cli, [
        "run", "locomo", str(shared_data / "locomo" / "locomo-dev.json"), "--conversations", "conv-26",
        "--question-limit", "3", "--agent-model", "loopback-agent", "--base-url", https_server.base_url,
        "--out", "r.json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    report = json.loads(Path("r.json").read_text())
    with Ledger.open(Path("ledger.db")) as ledger:
        started = next(s.event for s in ledger.reader.events(report["run_id"]) if s.event.type == "RunStarted")
    endpoint = started.config.endpoint
    assert endpoint.base_url == https_server.base_url and endpoint.certificate is None
    assert endpoint.tls is not None and endpoint.tls.chain[0].sha256 == ca.server_sha256
    condition = {c["name"]: c for c in report["conditions"]}["provider_endpoint"]
    assert not condition["met"] and condition["attested"]
    assert condition["reason"].startswith(
        f"answers came from {https_server.base_url}, not a provider's API over verified TLS: "
        f"what model answered cannot be known ({SHIPPED}")
    assert "a loopback address on the runner's machine)" in condition["reason"]
    lines = [line.strip() for line in result.output.splitlines() if "] provider_endpoint" in line]
    assert len(lines) == 1 and lines[0].startswith("[FAIL] provider_endpoint (evidence recorded by the runner's machine):")
