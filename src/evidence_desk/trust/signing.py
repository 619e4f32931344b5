"""The desk's Ed25519 signing key and the receipt signature.

A desk signs every receipt with one long-lived Ed25519 key, kept as an unencrypted PKCS#8
PEM file readable only by its owner (mode 0600, in a 0700 directory it creates). The key is
created on first use and published atomically: written to a temporary file in the same
directory, then hard-linked into place, so a reader never sees half a key and two
processes racing to create it end up using the same one.

What is signed: the domain-separated message `b"evidence-desk/receipt/v1\\n"` followed by
the receipt's canonical SHA-256 in lower-case hex ASCII. The domain prefix keeps a receipt
signature from being valid for anything else the key might ever sign.

A key is named by `key_id`: the first 16 hex digits of the SHA-256 of its raw 32-byte
public key. Public keys and signatures travel as standard base64.

Which keys a verifier trusts is its own business: `parse_key_list` reads a list of trusted
public keys (one base64 key per line) and `parse_public_key` one key given as base64 or PEM,
so one desk can trust receipts another desk signed without trusting whatever key a receipt
carries.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import hashlib
import os
import tempfile
from pathlib import Path

from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)

ALGORITHM = "ed25519"
DOMAIN = b"evidence-desk/receipt/v1\n"


def _load(path: Path) -> Ed25519PrivateKey:
    try:
        key = serialization.load_pem_private_key(path.read_bytes(), password=None)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"The signing key {path} is not an unencrypted PEM private key.") from exc
    if not isinstance(key, Ed25519PrivateKey):
        raise ValueError(f"The signing key {path} is not an Ed25519 private key.")
    return key


def load_or_create_key(path: Path) -> Ed25519PrivateKey:
    """The private key stored at `path`, created (0600, directory 0700) if it is missing."""
    if path.exists():
        return _load(path)
    if not path.parent.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.parent.chmod(0o700)
    pem = Ed25519PrivateKey.generate().private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".key-", suffix=".tmp")  # mode 0600
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(pem)
            handle.flush()
            os.fsync(handle.fileno())
        try:
            os.link(tmp, path)  # atomic, and fails if another process created the key first
        except FileExistsError:
            pass
        except OSError:  # a file system without hard links: replace atomically instead
            os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
    return _load(path)


def raw_public_key(key: Ed25519PrivateKey | Ed25519PublicKey) -> bytes:
    """The 32 raw bytes of a key's public half."""
    public = key.public_key() if isinstance(key, Ed25519PrivateKey) else key
    return public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def public_key_b64(key: Ed25519PrivateKey | Ed25519PublicKey) -> str:
    """The public key as base64 of its raw 32 bytes (what receipts record)."""
    return base64.b64encode(raw_public_key(key)).decode("ascii")


def key_id_for(raw_public: bytes) -> str:
    """First 16 hex digits of the SHA-256 of a raw public key."""
    return hashlib.sha256(raw_public).hexdigest()[:16]


def _message(canonical_sha256: str) -> bytes:
    return DOMAIN + canonical_sha256.encode("ascii")


def sign_hash(key: Ed25519PrivateKey, canonical_sha256: str) -> str:
    """Base64 Ed25519 signature over the domain-separated receipt hash."""
    return base64.b64encode(key.sign(_message(canonical_sha256))).decode("ascii")


def decode_public_key(public_key: str) -> bytes | None:
    """Raw bytes of a base64 public key, or None when it is not 32 bytes of valid base64."""
    try:
        raw = base64.b64decode(public_key, validate=True)
    except (binascii.Error, ValueError):
        return None
    return raw if len(raw) == 32 else None


def signature_valid(raw_public: bytes, canonical_sha256: str, signature: str) -> bool:
    """True when `signature` (base64) is the key's signature over the receipt hash."""
    try:
        sig = base64.b64decode(signature, validate=True)
        message = _message(canonical_sha256)
        Ed25519PublicKey.from_public_bytes(raw_public).verify(sig, message)
    except (binascii.Error, ValueError, UnicodeEncodeError, InvalidSignature):
        return False
    return True


def parse_key_list(text: str) -> list[bytes]:
    """Raw public keys of a trusted-keys list: one base64 key per line, as `public_key_b64`
    writes it; `#` starts a comment and blank lines are ignored.

    ValueError names the first line that is not a key.
    """
    keys: list[bytes] = []
    for number, line in enumerate(text.splitlines(), start=1):
        content = line.split("#", 1)[0].strip()
        if not content:
            continue
        raw = decode_public_key(content)
        if raw is None:
            raise ValueError(f"line {number} is not a base64 Ed25519 public key")
        keys.append(raw)
    return keys


def parse_public_key(text: str) -> bytes:
    """The raw bytes of the one public key `text` holds: a PEM public key
    (`-----BEGIN PUBLIC KEY-----`), or one base64 key in the format of `parse_key_list`.

    ValueError says what is wrong, for anything else (a private key, another algorithm,
    no key or several).
    """
    if "-----BEGIN" in text:
        try:
            key = serialization.load_pem_public_key(text.encode("utf-8"))
        except (ValueError, TypeError, UnsupportedAlgorithm) as exc:
            raise ValueError("it is not a PEM public key") from exc
        if not isinstance(key, Ed25519PublicKey):
            raise ValueError("its PEM public key is not an Ed25519 key")
        return raw_public_key(key)
    keys = parse_key_list(text)
    if len(keys) != 1:
        raise ValueError(f"it holds {len(keys)} keys, not one")
    return keys[0]
