"""Ceph releases (which librados this is, which the mons run) and the cephx key types each release reads."""
from __future__ import annotations

import base64
import binascii
import ctypes
import re
import struct
from dataclasses import dataclass

# CryptoKey's type field (src/auth/Crypto.h: u16 type, utime_t created, u16 len, secret): CEPH_CRYPTO_NONE 0 and
# CEPH_CRYPTO_AES 1 (src/include/ceph_fs.h), CEPH_CRYPTO_AES256KRB5 2, Tentacle's default ("aes256k" to
# `ceph-authtool --key-type`; its keys are 60 characters, AES's 40).
KEY_TYPES = {0: "none", 1: "aes", 2: "aes256k"}
KEY_TYPE_SINCE = {2: (20, "Ceph 20 Tentacle")}  # the first release that reads (and makes) the type
RELEASES = {14: "nautilus", 15: "octopus", 16: "pacific", 17: "quincy", 18: "reef", 19: "squid", 20: "tentacle",
            21: "umbrella"}
_VERSION_TEXT = re.compile(r"ceph version (\d+\.\d+\.\d+)\S*\s+\(\w+\)\s+(\w+)")


@dataclass(frozen=True)
class Release:
    """A Ceph version as `ceph version` says it: 16.2.15 pacific."""

    version: str
    name: str

    @property
    def major(self) -> int:
        try:
            return int(self.version.split(".")[0])
        except ValueError:
            return 0

    def __str__(self) -> str:
        return f"{self.version} {self.name}".strip()


def parse_release(text: str) -> Release | None:
    """`ceph version 16.2.15 (618f44...) pacific (stable)` as a Release."""
    m = _VERSION_TEXT.search(text or "")
    return Release(m.group(1), m.group(2)) if m else None


_LOCAL: list[Release | None] = []


def local_release() -> Release | None:
    """The Ceph release of the librados the rados module runs on (not the binding's API version, which
    stays 3.0.0 from Nautilus to Tentacle): libceph-common's ceph_version_to_str(), found through the
    module's own library."""
    if not _LOCAL:
        found = None
        try:
            import rados  # here, not at the top: machines without python3-rados still import this module

            lib = ctypes.CDLL(rados.__file__)
            version, name = lib["_Z19ceph_version_to_strv"], lib["_Z19ceph_release_to_strv"]
            version.restype = name.restype = ctypes.c_char_p
            found = Release(version().decode(), name().decode())
        except Exception:  # no rados, or a build without the symbol: said as "of unknown version"
            found = None
        _LOCAL.append(found)
    return _LOCAL[0]


def librados_text(release: Release | None = None) -> str:
    r = release if release is not None else local_release()
    return f"this librados is {r}" if r else "this librados is of an unknown version"


def keyring_key(path: str, name: str) -> str | None:
    """The `key = ...` of section [name] in a keyring file, or None."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    inside = False
    for line in lines:
        text = line.strip()
        if text.startswith("["):
            inside = text == f"[{name}]"
        elif inside:
            key, sep, value = text.partition("=")
            if sep and key.strip() == "key":
                return value.strip()
    return None


def key_type(key: str) -> int | None:
    """The type field of an encoded CryptoKey (base64 of u16 type, 8 bytes created, u16 len, secret)."""
    try:
        raw = base64.b64decode(key, validate=True)
    except (binascii.Error, ValueError):
        return None
    if len(raw) < 12:
        return None
    return int(struct.unpack_from("<H", raw)[0])


def unreadable_key_reason(path: str, name: str, local: Release | None) -> str | None:
    """Why this librados cannot load the keyring's key for `name`, when its key type is the reason."""
    key = keyring_key(path, name)
    ktype = key_type(key) if key else None
    if ktype is None or ktype == 1:
        return None
    since = KEY_TYPE_SINCE.get(ktype)
    if since is not None and local is not None and local.major >= since[0]:
        return None  # this librados reads it: the type is not the problem
    what = KEY_TYPES.get(ktype, f"type-{ktype}")
    made = f"made by {since[1]} or newer" if since else "a type this librados does not know"
    needs = f"{since[1]} or newer" if since else "the release that made it"
    return (f"the keyring {path} holds an {what} key for {name} (key type {ktype}, {made}), and "
            f"{librados_text(local)}, which reads only aes keys: run cephtui with the cluster's release of "
            f"python3-rados ({needs}; on a mon node, or `cephadm shell`), or give cephtui an aes key, which the "
            "cluster must allow (`ceph mon set auth_allowed_ciphers aes256k,aes`, then `ceph auth get-or-create "
            "client.NAME ... --key_type aes`; less secure)")


def keyring_has(path: str, name: str) -> bool:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return any(line.strip() == f"[{name}]" for line in f)
    except OSError:
        return False
