"""cephx capability strings: validate them as the monitor does, and build the usual ones.

The monitor parses each service's caps with its own boost::spirit grammar
(src/mon/MonCap.cc, src/osd/OSDCap.cc, src/mds/MDSAuthCaps.cc,
src/mgr/MgrCap.cc). The grammars (caps_grammar.py) are transcribed rule by rule with tiny
PEG combinators that behave like qi: sequences are atomic, alternatives are
ordered, repetitions are greedy and never give back. That is what makes the
"stopped at" position identical to the monitor's (checked case by case against
a running mon of each release: Nautilus 14.2.21, Pacific 16.2.15, Reef 18.2.7
and Tentacle 20.2.4; see tests/unit/test_caps.py, scripts/capture_caps_verdicts.py).

Releases differ in the mon and MDS caps only (docs/releases.md):
- Nautilus has no `fsname=` (mon and mds), no `root_squash` and no `f` flag
  (mds), all three Pacific's.
- Reef and later take the match parts in one fixed order, each optional:
  `[fsname=] [path=] [root_squash] [uid=] [gids=]`; Pacific allowed only some
  combinations (`fsname=a uid=1` and `gids=1` alone were refused).
- Reef and later answer a failed parse whose unparsed rest still holds an
  `allow` with "Permission flags in MDS caps must start with 'r' or 'rw' or be
  '*' or 'all'" instead of the "stopped at" text; Tentacle words it "Permission
  flags in MDS capability string must be '*' or 'all' or must start with 'r'".
  (Octopus, Quincy and Squid were not captured: they are checked as Nautilus,
  Pacific and Reef.)
`validate(..., release=...)` answers as that release's monitor; without a
release it answers as Pacific's, whose rules are the strictest of the releases
cephtui supports (Pacific to Tentacle): what it accepts, each of them accepts.

Two deliberate choices:
- Empty text is refused (the mon refuses it too). An entity that should have
  no cap for a service simply has no entry for it: omit the key.
- `validate(..., strict=True)` (the default) also refuses profile names that
  grant nothing. The mon and OSD grammars accept any profile name; only mgr
  refuses unknown ones (mds has no profiles at all). `strict=False` answers
  exactly as the monitor would.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from cephtui.ceph.ops.caps_grammar import (
    ASCII_SPACE,
    FS_NAME,
    MDS_FIXED_ORDER_SINCE,
    PACIFIC,
    REEF,
    RELEASES,
    TENTACLE,
    WORD,
    Captures,
    run,
    service_grammar,
)

__all__ = [
    "SERVICES", "MON_PROFILES", "OSD_PROFILES", "MGR_PROFILES", "PROFILES", "CapsError", "validate", "is_valid",
    "parse_caps_list", "cli_caps", "RELEASES", "PACIFIC", "REEF", "TENTACLE", "release_number", "rbd_client",
    "cephfs_client", "rgw_gateway",
    "read_only_monitoring",
]

SERVICES = ("mon", "mgr", "osd", "mds")

# Profile names each service's code expands in Pacific (MonCap::expand_profile*,
# OSDCapGrant::expand_profile, MgrCapGrant::expand_profile).
MON_PROFILES = (
    "mon", "osd", "mds", "mgr", "bootstrap-osd", "bootstrap-mds", "bootstrap-mgr", "bootstrap-rgw",
    "bootstrap-rbd", "bootstrap-rbd-mirror", "fs-client", "simple-rados-client",
    "simple-rados-client-with-blocklist", "rbd", "rbd-mirror", "crash", "role-definer", "read-only",
    "read-write",
)
OSD_PROFILES = ("read-only", "read-write", "rbd", "rbd-read-only")
MGR_PROFILES = ("read-only", "read-write", "crash", "osd", "mds", "rbd", "rbd-read-only")  # no "rgw" in Pacific
PROFILES: dict[str, tuple[str, ...]] = {"mon": MON_PROFILES, "osd": OSD_PROFILES, "mgr": MGR_PROFILES, "mds": ()}
MGR_RBD_PROFILE_KEYS = ("pool", "namespace")


# What Reef's monitor says instead of "stopped at" (see _parse), and Tentacle's rewording of it.
MDS_PERM_FLAGS = "Permission flags in MDS caps must start with 'r' or 'rw' or be '*' or 'all'"
MDS_PERM_FLAGS_TENTACLE = "Permission flags in MDS capability string must be '*' or 'all' or must start with 'r'"


def release_number(release: str | int | None) -> int:
    """16 for 'pacific', 16, '16.2.15' or 'ceph version 16.2.15 (...) pacific (stable)'; Pacific for None or 0."""
    if release is None:
        return RELEASES["pacific"]
    if isinstance(release, int):
        return release if release > 0 else RELEASES["pacific"]  # 0: the monmap did not say
    text = release.strip().lower()
    if text in RELEASES:
        return RELEASES[text]
    for word in text.replace("(", " ").split():
        if word in RELEASES:
            return RELEASES[word]
        head = word.split(".")[0]
        if head.isdigit():
            return int(head)
    raise ValueError(f"unknown Ceph release {release!r} (one of {', '.join(RELEASES)} or a version number)")


class CapsError(ValueError):
    """A cap string the monitor would refuse; `position` is where parsing stopped (0-based)."""

    def __init__(self, service: str, text: str, position: int, message: str | None = None) -> None:
        self.service = service
        self.text = text
        self.position = max(0, min(position, len(text)))
        super().__init__(message or _stopped_at(service, text, self.position))

    @property
    def message(self) -> str:
        return str(self)

    def pointer(self) -> str:
        """The text with a caret under the bad position (a single-line rendering for the UI)."""
        shown = self.text.replace("\n", " ").replace("\t", " ")
        return f"{shown}\n{' ' * self.position}^"


def _stopped_at(service: str, text: str, pos: int) -> str:
    # mon and mgr say "at end of" when everything parsed but no grant matched; osd/mds never do.
    if pos >= len(text) and service in ("mon", "mgr"):
        return f"{service} capability parse failed, stopped at end of '{text}'"
    return f"{service} capability parse failed, stopped at '{text[pos:]}' of '{text}'"


# ------------------------------------------------------------------ validation

def _unquote(text: str) -> str:
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return text


def _parse(service: str, text: str, release: int = RELEASES["pacific"]) -> Captures:
    """Run the service's grammar the way its parse() does; raise CapsError at the stop position."""
    if service == "mds" and text == "allow":
        return []  # MDSAuthCaps::parse special-cases the legacy bare "allow"
    newer_mds = service == "mds" and release >= MDS_FIXED_ORDER_SINCE
    grammar = service_grammar(service, release)
    captures: Captures = []
    start = 0
    if service in ("osd", "mds"):
        # phrase_parse with an ascii::space skipper: one pre-skip, and a post-skip on success.
        start = run(ASCII_SPACE, 0)(text, 0, captures) or 0
    end = grammar(text, start, captures)
    if end is not None and service in ("osd", "mds"):
        end = run(ASCII_SPACE, 0)(text, end, captures)
    stop = start if end is None else end
    if end is None or stop != len(text):
        if newer_mds and "allow" in text[stop:]:
            # Reef+: a grant left unparsed gets a hint about the permission flags instead
            raise CapsError(service, text, stop, MDS_PERM_FLAGS_TENTACLE if release >= 20 else MDS_PERM_FLAGS)
        raise CapsError(service, text, stop)
    return captures


def _check_mgr_profiles(text: str, captures: Captures) -> None:
    """MgrCap::parse expands each profile and fails on unknown names or keys."""
    current = ""
    for tag, a, b in captures:
        value = _unquote(text[a:b])
        if tag == "profile":
            current = value
            if value not in MGR_PROFILES:
                raise CapsError("mgr", text, a, "mgr capability parse failed during profile evaluation: "
                                f"unrecognized profile '{value}' (known: {', '.join(MGR_PROFILES)})")
        elif tag == "profile_key" and current in ("rbd", "rbd-read-only") and value not in MGR_RBD_PROFILE_KEYS:
            raise CapsError("mgr", text, a, "mgr capability parse failed during profile evaluation: "
                            f"profile '{current}' does not recognize key '{value}'")


def _check_known_profiles(service: str, text: str, captures: Captures) -> None:
    known = PROFILES[service]
    for tag, a, b in captures:
        name = _unquote(text[a:b])
        if tag == "profile" and name not in known:
            raise CapsError(service, text, a, f"unknown {service} profile '{name}': it grants nothing "
                            f"(known: {', '.join(known)}); the monitor would accept it")


def validate(service: str, text: str, *, strict: bool = True, release: str | int | None = None) -> None:
    """Raise CapsError when the monitor would refuse `text` as `service` caps.

    strict=True also refuses mon/osd profile names that grant nothing (the mon accepts those).
    release: the monitor's release (codename, major version or `ceph version` text); None answers
    as Pacific, the strictest.
    """
    if service not in SERVICES:
        raise CapsError(service, text, 0, f"unknown cap type '{service}' (expected one of {', '.join(SERVICES)})")
    captures = _parse(service, text, release_number(release))
    if service == "mgr":
        _check_mgr_profiles(text, captures)
    elif strict and service in ("mon", "osd"):
        _check_known_profiles(service, text, captures)


def is_valid(service: str, text: str, *, strict: bool = True, release: str | int | None = None) -> bool:
    try:
        validate(service, text, strict=strict, release=release)
    except CapsError:
        return False
    return True


def parse_caps_list(caps: Mapping[str, str], *, strict: bool = True, release: str | int | None = None) -> None:
    """Validate every service's caps; a service with no cap is simply absent from the mapping."""
    for service in _ordered(caps):
        validate(service, caps[service], strict=strict, release=release)


def _ordered(caps: Mapping[str, str]) -> list[str]:
    return sorted(caps, key=lambda s: (SERVICES.index(s) if s in SERVICES else len(SERVICES), s))


def cli_caps(caps: Mapping[str, str]) -> list[str]:
    """The `caps` argument of `auth get-or-create` / `auth caps`: service, cap, ... in mon, mgr, osd, mds order."""
    out: list[str] = []
    for service in _ordered(caps):
        out += [service, caps[service]]
    return out


# ------------------------------------------------------------------ templates

def _per_pool(profile: str, pools: Sequence[str]) -> list[str]:
    return [f"profile {profile} pool={_token(p, 'pool name')}" for p in pools]


def _token(value: str, what: str) -> str:
    """A value as a cap token: bare when it is a plain word, else quoted with a quote it does not contain."""
    if not value or ('"' in value and "'" in value):
        raise ValueError(f"{what} {value!r} cannot be written in a cap")
    if all(ch in WORD for ch in value):
        return value
    return f"'{value}'" if '"' in value else f'"{value}"'


def rbd_client(pools: Sequence[str] = (), read_only_pools: Sequence[str] = ()) -> dict[str, str]:
    """RBD docs ("Create a Block Device User"): mon 'profile rbd', osd/mgr 'profile rbd pool=...'.

    No pools at all means every pool.
    """
    if not pools and not read_only_pools:
        return {"mon": "profile rbd", "osd": "profile rbd", "mgr": "profile rbd"}
    grants = _per_pool("rbd", pools) + _per_pool("rbd-read-only", read_only_pools)
    caps = {"mon": "profile rbd", "osd": ", ".join(grants), "mgr": ", ".join(grants)}
    parse_caps_list(caps)
    return caps


def cephfs_client(fs_name: str, path: str = "/", *, write: bool = True, root_squash: bool = False) -> dict[str, str]:
    """What `ceph fs authorize FS client.x PATH rw` grants in Pacific (AuthMonitor "fs authorize").

    The OSD cap is `tag cephfs data=FS`: `data` is the application-metadata key and its value is
    the file system's name, so it covers every data pool of that file system.
    """
    if not fs_name or any(ch not in FS_NAME for ch in fs_name):
        raise ValueError(f"file system name {fs_name!r} may only contain letters, digits, '-', '_' and '.'")
    if not path.startswith("/"):
        raise ValueError(f"path {path!r} must be absolute")
    perm = "rw" if write else "r"
    mds = f"allow {perm} fsname={fs_name}"
    if path != "/":
        mds += " path=" + _token(path, "path")
    if root_squash:
        mds += " root_squash"
    caps = {"mon": f"allow r fsname={fs_name}", "osd": f"allow {perm} tag cephfs data={fs_name}", "mds": mds}
    parse_caps_list(caps)
    return caps


def rgw_gateway() -> dict[str, str]:
    """A radosgw instance (manual-deployment docs, plus the mgr cap cephadm gives it for the service map)."""
    return {"mon": "allow rw", "mgr": "allow rw", "osd": "allow rwx"}


def read_only_monitoring() -> dict[str, str]:
    """Enough for `ceph -s`, `osd tree`, `pg dump` and this TUI's read-only mode."""
    return {"mon": "allow r", "mgr": "allow r"}
