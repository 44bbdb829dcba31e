"""Ed25519 signatures over a bundle's statement, with keys as the PEM files openssl writes.

`openssl genpkey -algorithm ed25519 -out key.pem` writes the private key (PKCS#8), `openssl pkey
-in key.pem -pubout -out key.pub` its public key (SubjectPublicKeyInfo); `cryptography` reads both.
A key is named by its fingerprint: the SHA-256 of its 32 raw public bytes, which is what a
verifier compares when they hold the signer's public key.

What is signed is the caller's business (`orchestration.bundle` signs a statement naming the run,
its head and what the bundle adds); this module only signs and checks bytes, and reads keys,
refusing with one line a file that is not an unencrypted Ed25519 key of the kind asked for.
"""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path

from benchledger.errors import BadInput

__all__ = ["SigningKey", "load_signing_key", "load_public_key", "fingerprint", "check_signature",
           "public_key_from_pem"]


def _read(path: Path, what: str) -> bytes:
    try:
        return path.read_bytes()
    except OSError as err:
        raise BadInput(f"cannot read the {what} ({err.strerror or err})", file=str(path)) from None


def fingerprint(public_raw: bytes) -> str:
    """SHA-256 (hex) of an Ed25519 public key's 32 raw bytes."""
    return hashlib.sha256(public_raw).hexdigest()


class SigningKey:
    """An Ed25519 private key read from a PEM file: it signs, and names its public key."""

    def __init__(self, key: object) -> None:
        from cryptography.hazmat.primitives import serialization

        self._key = key
        public = key.public_key()  # type: ignore[attr-defined]
        self.public_raw: bytes = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        self.public_pem: str = public.public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode("ascii")

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.public_raw)

    def sign(self, message: bytes) -> str:
        """The signature over `message`, base64."""
        return base64.b64encode(self._key.sign(message)).decode("ascii")  # type: ignore[attr-defined]


def load_signing_key(path: Path) -> SigningKey:
    """The Ed25519 private key in `path` (PEM, unencrypted), or BadInput naming the file."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    data = _read(path, "signing key")
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except TypeError:
        raise BadInput("the signing key is encrypted; write it without a passphrase "
                       "(openssl genpkey -algorithm ed25519 -out key.pem)", file=str(path), field="sign") from None
    except ValueError:
        raise BadInput("not a PEM private key (openssl genpkey -algorithm ed25519 -out key.pem writes one)",
                       file=str(path), field="sign") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise BadInput(f"the signing key is {type(key).__name__.removesuffix('PrivateKey') or 'another kind'}, "
                       "not Ed25519", file=str(path), field="sign")
    return SigningKey(key)


def public_key_from_pem(data: bytes, *, where: str, field: str) -> bytes:
    """The 32 raw bytes of the Ed25519 public key in PEM `data`, or BadInput naming `where`."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    try:
        key = serialization.load_pem_public_key(data)
    except ValueError:
        raise BadInput("not a PEM public key (openssl pkey -in key.pem -pubout writes one)",
                       file=where, field=field) from None
    if not isinstance(key, Ed25519PublicKey):
        raise BadInput("the public key is not an Ed25519 key", file=where, field=field)
    return key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def load_public_key(path: Path) -> bytes:
    """The 32 raw bytes of the Ed25519 public key in `path` (PEM), or BadInput naming the file."""
    return public_key_from_pem(_read(path, "public key"), where=str(path), field="signer")


def check_signature(public_raw: bytes, message: bytes, signature_b64: str) -> bool:
    """Whether `signature_b64` is the Ed25519 signature of `message` by the key `public_raw`."""
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    try:
        signature = base64.b64decode(signature_b64, validate=True)
        Ed25519PublicKey.from_public_bytes(public_raw).verify(signature, message)
    except (InvalidSignature, ValueError):
        return False
    return True
