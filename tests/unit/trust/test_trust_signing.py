"""The desk key: creation, permissions, atomic publication; signatures."""

from __future__ import annotations

import base64
import os
import stat
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ec import SECP256R1, generate_private_key
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from evidence_desk.trust.signing import (
    decode_public_key,
    key_id_for,
    load_or_create_key,
    parse_key_list,
    parse_public_key,
    public_key_b64,
    raw_public_key,
    sign_hash,
    signature_valid,
)

DIGEST = "ab" * 32


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_created_once_with_private_permissions(tmp_path: Path) -> None:
    path = tmp_path / "home" / "keys" / "desk.pem"
    key = load_or_create_key(path)
    assert mode(path) == 0o600
    assert mode(path.parent) == 0o700
    assert path.read_bytes().startswith(b"-----BEGIN PRIVATE KEY-----")
    again = load_or_create_key(path)
    assert raw_public_key(again) == raw_public_key(key)
    assert [p.name for p in path.parent.iterdir()] == ["desk.pem"]  # no temporary file left


def test_existing_directory_is_left_alone(tmp_path: Path) -> None:
    tmp_path.chmod(0o755)
    load_or_create_key(tmp_path / "desk.pem")
    assert mode(tmp_path) == 0o755


def test_a_key_created_concurrently_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "desk.pem"
    other = Ed25519PrivateKey.generate()
    pem = other.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    real_link = os.link

    def racing_link(src: str, dst: Path) -> None:
        Path(dst).write_bytes(pem)  # another process publishes its key first
        real_link(src, dst)

    monkeypatch.setattr(os, "link", racing_link)
    key = load_or_create_key(path)
    assert raw_public_key(key) == raw_public_key(other)
    assert [p.name for p in tmp_path.iterdir()] == ["desk.pem"]


def test_without_hard_links_the_key_is_replaced_into_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_link(src: str, dst: Path) -> None:
        raise OSError("hard links not supported")

    monkeypatch.setattr(os, "link", no_link)
    path = tmp_path / "desk.pem"
    key = load_or_create_key(path)
    assert raw_public_key(load_or_create_key(path)) == raw_public_key(key)
    assert mode(path) == 0o600
    assert [p.name for p in tmp_path.iterdir()] == ["desk.pem"]


def test_a_failed_write_leaves_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def failing_fsync(fd: int) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "fsync", failing_fsync)
    with pytest.raises(OSError, match="disk full"):
        load_or_create_key(tmp_path / "desk.pem")
    assert list(tmp_path.iterdir()) == []


def test_a_key_of_another_kind_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "desk.pem"
    ec = generate_private_key(SECP256R1())
    path.write_bytes(
        ec.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    with pytest.raises(ValueError, match="is not an Ed25519 private key"):
        load_or_create_key(path)


def test_a_damaged_key_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "desk.pem"
    path.write_text("-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----\n")
    with pytest.raises(ValueError, match="is not an unencrypted PEM private key"):
        load_or_create_key(path)


def test_public_key_and_key_id() -> None:
    key = Ed25519PrivateKey.generate()
    raw = raw_public_key(key)
    assert raw == raw_public_key(key.public_key()) and len(raw) == 32
    assert decode_public_key(public_key_b64(key)) == raw
    assert len(key_id_for(raw)) == 16
    assert key_id_for(raw) != key_id_for(raw_public_key(Ed25519PrivateKey.generate()))


@pytest.mark.parametrize("bad", ["not base64!", "AAAA", "é", ""])
def test_decode_public_key_rejects_bad_input(bad: str) -> None:
    assert decode_public_key(bad) is None


def test_signatures() -> None:
    key = Ed25519PrivateKey.generate()
    raw = raw_public_key(key)
    sig = sign_hash(key, DIGEST)
    assert signature_valid(raw, DIGEST, sig)
    assert not signature_valid(raw, "cd" * 32, sig)
    assert not signature_valid(raw_public_key(Ed25519PrivateKey.generate()), DIGEST, sig)
    assert not signature_valid(raw, DIGEST, "***")
    assert not signature_valid(raw, "é", sig)
    assert not signature_valid(b"short", DIGEST, sig)


def test_signature_is_domain_separated() -> None:
    key = Ed25519PrivateKey.generate()
    bare = key.sign(DIGEST.encode("ascii"))
    assert not signature_valid(raw_public_key(key), DIGEST, base64.b64encode(bare).decode())


def public_pem(key: Ed25519PrivateKey) -> str:
    return (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode("ascii")
    )


def test_key_list_skips_comments_and_blank_lines() -> None:
    one, two = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    text = (
        f"# desks we trust\n\n{public_key_b64(one)}\r\n"
        f"  {public_key_b64(two)}  # the other newsroom\n"
    )
    assert parse_key_list(text) == [raw_public_key(one), raw_public_key(two)]
    assert parse_key_list("# nothing yet\n") == []


def test_key_list_names_the_first_bad_line() -> None:
    text = f"{public_key_b64(Ed25519PrivateKey.generate())}\n# fine\nAAAA\nnot a key\n"
    with pytest.raises(ValueError, match=r"^line 3 is not a base64 Ed25519 public key$"):
        parse_key_list(text)


def test_public_key_as_base64_or_pem() -> None:
    key = Ed25519PrivateKey.generate()
    raw = raw_public_key(key)
    assert parse_public_key(public_key_b64(key) + "\n") == raw
    assert parse_public_key(f"# desk B\n{public_key_b64(key)}\n") == raw
    assert parse_public_key(public_pem(key)) == raw


def test_a_file_of_no_key_or_several_is_refused() -> None:
    b64 = public_key_b64(Ed25519PrivateKey.generate())
    with pytest.raises(ValueError, match=r"^it holds 0 keys, not one$"):
        parse_public_key("# empty\n")
    with pytest.raises(ValueError, match=r"^it holds 2 keys, not one$"):
        parse_public_key(f"{b64}\n{b64}\n")
    with pytest.raises(ValueError, match=r"^line 1 is not a base64"):
        parse_public_key("hello")


def test_a_pem_that_is_no_ed25519_public_key_is_refused() -> None:
    private = Ed25519PrivateKey.generate().private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    with pytest.raises(ValueError, match=r"^it is not a PEM public key$"):
        parse_public_key(private.decode("ascii"))  # a private key is never a trusted key
    ec = generate_private_key(SECP256R1()).public_key()
    ec_pem = ec.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    with pytest.raises(ValueError, match=r"^its PEM public key is not an Ed25519 key$"):
        parse_public_key(ec_pem.decode("ascii"))
