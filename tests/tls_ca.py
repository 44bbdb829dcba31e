"""A throwaway certificate authority and a server certificate for 127.0.0.1, made with `openssl`.

For tests of what an HTTPS endpoint presents: the CA's certificate is what a client is told to
trust (`SSL_CERT_FILE`), the server's is what a loopback server presents.
"""

from __future__ import annotations

import hashlib
import ssl
import subprocess
from dataclasses import dataclass
from pathlib import Path

__all__ = ["TestCA", "make_ca"]


@dataclass(frozen=True)
class TestCA:
    ca_pem: Path
    server_pem: Path
    server_key: Path
    server_sha256: str
    """SHA-256 of the server certificate's DER bytes."""

    def server_context(self) -> ssl.SSLContext:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(self.server_pem, self.server_key)
        return context


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True, timeout=60)


def make_ca(folder: Path, *, host: str = "127.0.0.1", ca_name: str = "benchledger test CA") -> TestCA:
    """A CA named `ca_name` and a certificate it signed for `host` (an IP address or a DNS name)."""
    folder.mkdir(parents=True, exist_ok=True)
    _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
             "-subj", f"/O=benchledger tests/CN={ca_name}", cwd=folder)
    _openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr",
             "-subj", f"/O=benchledger tests/CN={host}", cwd=folder)
    san = f"IP:{host}" if host.replace(".", "").isdigit() else f"DNS:{host}"
    (folder / "san.ext").write_text(f"subjectAltName={san}\nbasicConstraints=CA:FALSE\n")
    _openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
             "-out", "server.pem", "-days", "2", "-extfile", "san.ext", cwd=folder)
    der = ssl.PEM_cert_to_DER_cert((folder / "server.pem").read_text())
    return TestCA(folder / "ca.pem", folder / "server.pem", folder / "server.key", hashlib.sha256(der).hexdigest())
