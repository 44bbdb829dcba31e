"""A run as one file a third party verifies offline: `export RUN --bundle FILE [--sign KEY]`, `verify FILE`.

One GroupMemBench run (the bundled mini release) is exported once, signed with a key `openssl`
made; each test checks a copy of that bundle in an empty folder of its own, with no ledger there.
A whole-file rewrite (one verdict changed, every later hash recomputed) verifies on its own and is
refused against the signature, against the author's key when the attacker re-signs it with theirs,
and against an expected head.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from bundle_rewrite import rewritten
from ledger_cli import invoke, invoke_expecting

pytestmark = pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command "
                                "(Debian's openssl package: apt-get install -y openssl)")


def _keypair(folder: Path, name: str) -> tuple[Path, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    private, public = folder / f"{name}.pem", folder / f"{name}.pub"
    subprocess.run(["openssl", "genpkey", "-algorithm", "ed25519", "-out", str(private)], check=True,
                   capture_output=True, timeout=60)
    subprocess.run(["openssl", "pkey", "-in", str(private), "-pubout", "-out", str(public)], check=True,
                   capture_output=True, timeout=60)
    return private, public


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """(signed bundle, unsigned bundle, author's public key, attacker's key pair, `show` scorecard, head)."""
    folder = tmp_path_factory.mktemp("author")
    cwd = Path.cwd()
    os.chdir(folder)
    try:
        ledger = folder / "author.db"
        invoke_expecting("run", "groupmem", "--demo", "--out", "r.json", ledger=ledger)
        run_id = json.loads(Path("r.json").read_text())["run_id"]
        key, public = _keypair(folder / "keys", "author")
        attacker = _keypair(folder / "keys", "attacker")
        signed = invoke_expecting("export", run_id, "--bundle", "signed.json", "--sign", str(key), ledger=ledger)
        assert "signed by key sha256 " in signed.output
        invoke_expecting("export", run_id, "--bundle", "unsigned.json", ledger=ledger)
        shown = invoke_expecting("show", run_id, ledger=ledger).output
    finally:
        os.chdir(cwd)
    head = json.loads((folder / "signed.json").read_text())["head"]
    return folder / "signed.json", folder / "unsigned.json", public, attacker, shown, head


@pytest.fixture
def empty(tmp_path):
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    os.chdir(folder)
    return folder


def _verify(*args: str, expect: int):
    result = invoke("verify", *args)
    assert result.exit_code == expect, result.output
    return result.output


def test_a_signed_bundle_verifies_in_an_empty_folder_and_prints_the_same_scorecard(exported, empty):
    signed, _, public, _, shown, head = exported
    shutil.copy(signed, empty / "bundle.json")
    output = _verify("bundle.json", "--signer", str(public), "--expect-head", head, expect=0)
    scorecard, checked = output.split("\nchecked bundle.json, offline, from the file alone:\n")
    assert scorecard.strip() == shown.strip()
    assert "events: 129 of run " in checked and "re-hashed and re-linked from the run's genesis" in checked
    assert "signed: Ed25519 by the key you named" in checked and "head: the one you expected" in checked
    assert "pins for GroupMemBench are this package's" in checked
    assert sorted(p.name for p in empty.iterdir()) == ["bundle.json"]  # nothing written beside it


def test_an_unsigned_bundle_says_its_author_is_unchecked_and_fails_a_named_signer(exported, empty):
    _, unsigned, public, _, _, _ = exported
    output = _verify(str(unsigned), expect=0)
    assert "unsigned: nothing in the bundle says who made it (its author is unchecked)" in output
    refused = _verify(str(unsigned), "--signer", str(public), expect=1)
    assert refused.strip().endswith("the bundle is unsigned, so it is not signed by the key you named "
                                    f"(sha256 {_fingerprint(public)[:16]}…)")


def _fingerprint(public: Path) -> str:
    from benchledger.signing import fingerprint, load_public_key

    return fingerprint(load_public_key(public))


def _rewrite(bundle: Path, target: Path, *, drop_signature: bool = False) -> dict:
    value = rewritten(json.loads(bundle.read_text()))
    if drop_signature:
        value["signature"] = None
    target.write_text(json.dumps(value))
    return value


def test_a_rewritten_and_rechained_bundle_verifies_alone_and_is_refused_against_the_signature(exported, empty):
    signed, _, public, _, _, head = exported
    forged = _rewrite(signed, empty / "unsigned-forgery.json", drop_signature=True)
    assert forged["head"] != head
    alone = _verify("unsigned-forgery.json", expect=0)  # consistent with itself: verify alone cannot see it
    assert "20/40 = 50.0%" in alone and "unsigned: nothing in the bundle says who made it" in alone
    _rewrite(signed, empty / "forgery.json")
    for args in ((), ("--signer", str(public))):
        refused = _verify("forgery.json", *args, expect=1)
        assert "the signature covers another statement than this bundle's run, head" in refused
        assert "the bundle was changed after it was signed" in refused and "DIAGNOSTIC" not in refused
    pinned = _verify("unsigned-forgery.json", "--expect-head", head, expect=1)
    assert f"not the expected {head}" in pinned


def test_a_rewrite_the_attacker_signs_again_passes_only_without_the_authors_key(exported, empty):
    from benchledger.orchestration.bundle import BundleSignature, Pin, statement
    from benchledger.signing import load_signing_key

    signed, _, public, (attacker_key, _), _, _ = exported
    value = rewritten(json.loads(signed.read_text()))
    key = load_signing_key(attacker_key)
    message = statement(value["run_id"], value["head"], {p: Pin(**pin) for p, pin in value["pins"].items()})
    value["signature"] = BundleSignature(public_key=key.public_pem, fingerprint=key.fingerprint,
                                         statement=message.decode(), value=key.sign(message)).model_dump()
    (empty / "resigned.json").write_text(json.dumps(value))
    unchecked = _verify("resigned.json", expect=0)
    assert f"signed by key sha256 {key.fingerprint[:16]}…, which the bundle itself carries" in unchecked
    assert "who made it is unchecked; pass --signer PUBKEY" in unchecked
    refused = _verify("resigned.json", "--signer", str(public), expect=1)
    assert f"the signature is not by the key you named (sha256 {_fingerprint(public)[:16]}…)" in refused
    assert f"the bundle names key sha256 {key.fingerprint[:16]}…" in refused


def test_a_changed_blob_or_a_changed_pin_is_refused(exported, empty):
    signed, _, public, _, _, _ = exported
    value = json.loads(signed.read_text())
    digest = next(iter(value["blobs"]))
    value["blobs"][digest] = "b3RoZXIgYnl0ZXM="  # "other bytes"
    (empty / "blob.json").write_text(json.dumps(value))
    assert "the bundle's events do not check" in _verify("blob.json", expect=1)
    value = json.loads(signed.read_text())
    path = next(iter(value["pins"]))
    value["pins"][path]["sha256"] = "0" * 64
    (empty / "pins.json").write_text(json.dumps(value))
    assert "the bundle was changed after it was signed" in _verify("pins.json", "--signer", str(public), expect=1)


def test_a_file_that_is_not_a_bundle_is_one_line_naming_it(empty):
    Path("b.json").write_text('{"format": "benchledger-bundle/1", "run_id": "x"}')
    result = invoke("verify", "b.json")
    assert result.exit_code == 2
    assert result.output == "Error: b.json: field 'head': not a benchledger bundle (Field required)\n"


def test_a_file_that_is_not_json_is_one_line_naming_it(empty):
    Path("notes.txt").write_text("not a bundle")
    result = invoke("verify", "notes.txt")
    assert result.exit_code == 2
    assert result.output == "Error: notes.txt:1: not valid JSON: Expecting value (column 1)\n"


def test_a_signing_key_that_is_not_ed25519_writes_nothing(exported, empty):
    subprocess.run(["openssl", "genpkey", "-algorithm", "rsa", "-pkeyopt", "rsa_keygen_bits:1024", "-out", "rsa.pem"],
                   check=True, capture_output=True, timeout=60)
    result = invoke("export", "01", "--bundle", "out.json", "--sign", "rsa.pem")
    assert result.exit_code == 2
    assert result.output == "Error: rsa.pem: field 'sign': the signing key is RSA, not Ed25519\n"
    assert not Path("out.json").exists()
    result = invoke("verify", "--signer", "rsa.pem")
    assert result.exit_code == 2 and "--signer checks who signed a bundle" in result.output
