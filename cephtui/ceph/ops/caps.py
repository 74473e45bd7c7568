"""cephx capability strings: validate them as the monitor does, and build the usual ones.

The monitor parses each service's caps with its own boost::spirit grammar
(src/mon/MonCap.cc, src/osd/OSDCap.cc, src/mds/MDSAuthCaps.cc,
src/mgr/MgrCap.cc). The grammars below are transcribed rule by rule with tiny
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

from collections.abc import Callable, Mapping, Sequence

__all__ = [
    "SERVICES", "MON_PROFILES", "OSD_PROFILES", "MGR_PROFILES", "PROFILES", "CapsError", "validate", "is_valid",
    "parse_caps_list", "cli_caps", "RELEASES", "release_number", "rbd_client", "cephfs_client", "rgw_gateway",
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


# Codename -> major version, as `ceph version` prints them.
RELEASES: dict[str, int] = {
    "nautilus": 14, "octopus": 15, "pacific": 16, "quincy": 17, "reef": 18, "squid": 19, "tentacle": 20,
}
PACIFIC, REEF, TENTACLE = RELEASES["pacific"], RELEASES["reef"], RELEASES["tentacle"]
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


# ------------------------------------------------------------------ PEG combinators
# A parser takes (text, index, captures) and returns the new index or None.
# Captures are (tag, start, end) spans, rolled back when a branch fails.

Captures = list[tuple[str, int, int]]
Parser = Callable[[str, int, Captures], "int | None"]


def lit(token: str) -> Parser:
    def p(s: str, i: int, c: Captures) -> int | None:
        return i + len(token) if s.startswith(token, i) else None
    return p


def charset(spec: str) -> set[str]:
    """A qi char_("a-zA-Z0-9_./-") set: ranges and literal characters."""
    out: set[str] = set()
    i = 0
    while i < len(spec):
        if i + 2 < len(spec) and spec[i + 1] == "-":
            out.update(chr(o) for o in range(ord(spec[i]), ord(spec[i + 2]) + 1))
            i += 3
        else:
            out.add(spec[i])
            i += 1
    return out


def run(allowed: set[str] | Callable[[str], bool], minimum: int = 1) -> Parser:
    """Greedy run of characters (`+char_(...)` when minimum is 1, `*` when 0)."""
    ok = allowed.__contains__ if isinstance(allowed, set) else allowed

    def p(s: str, i: int, c: Captures) -> int | None:
        j = i
        while j < len(s) and ok(s[j]):
            j += 1
        return j if j - i >= minimum else None
    return p


def seq(*parsers: Parser) -> Parser:
    def p(s: str, i: int, c: Captures) -> int | None:
        mark, j = len(c), i
        for q in parsers:
            r = q(s, j, c)
            if r is None:
                del c[mark:]
                return None
            j = r
        return j
    return p


def alt(*parsers: Parser) -> Parser:
    def p(s: str, i: int, c: Captures) -> int | None:
        for q in parsers:
            mark = len(c)
            r = q(s, i, c)
            if r is not None:
                return r
            del c[mark:]
        return None
    return p


def opt(q: Parser) -> Parser:
    def p(s: str, i: int, c: Captures) -> int | None:
        mark = len(c)
        r = q(s, i, c)
        if r is None:
            del c[mark:]
            return i
        return r
    return p


def star(q: Parser) -> Parser:
    def p(s: str, i: int, c: Captures) -> int | None:
        while True:
            mark = len(c)
            r = q(s, i, c)
            if r is None:
                del c[mark:]
                return i
            if r == i:  # an empty match would loop forever; qi stops too
                return i
            i = r
    return p


def plus(q: Parser) -> Parser:
    return seq(q, star(q))


def seqor(*parsers: Parser) -> Parser:
    """qi's `a || b || c`: any non-empty ordered subsequence (left-associative)."""
    def two(a: Parser, b: Parser) -> Parser:
        maybe_b = opt(b)

        def p(s: str, i: int, c: Captures) -> int | None:
            r = a(s, i, c)
            return b(s, i, c) if r is None else maybe_b(s, r, c)
        return p
    out = parsers[0]
    for q in parsers[1:]:
        out = two(out, q)
    return out


def listof(item: Parser, sep: Parser) -> Parser:
    """qi's `item % sep`."""
    return seq(item, star(seq(sep, item)))


def capture(tag: str, q: Parser) -> Parser:
    def p(s: str, i: int, c: Captures) -> int | None:
        r = q(s, i, c)
        if r is not None:
            c.append((tag, i, r))
        return r
    return p


def uint32(s: str, i: int, c: Captures) -> int | None:
    """qi::uint_: digits only, fails on overflow."""
    j = run(DIGITS)(s, i, c)
    # Length first: int() of thousands of digits raises (Python's int_max_str_digits), qi just overflows.
    if j is None or j - i > 10 or int(s[i:j]) > 0xFFFFFFFF:
        return None
    return j


def not_char(q: str) -> Callable[[str], bool]:
    return lambda ch: ch != q


DIGITS = charset("0-9")
WORD = charset("a-zA-Z0-9_./-")
NETWORK = charset("/.:a-fA-F0-9][")
FS_NAME = charset("a-zA-Z0-9_.-")
BLANK = {" ", "\t"}
ASCII_SPACE = {" ", "\t", "\n", "\v", "\f", "\r"}

quoted = alt(seq(lit('"'), run(not_char('"')), lit('"')), seq(lit("'"), run(not_char("'")), lit("'")))
equoted = alt(seq(lit('"'), run(not_char('"'), 0), lit('"')), seq(lit("'"), run(not_char("'"), 0), lit("'")))
unquoted_word = run(WORD)
string = alt(quoted, unquoted_word)  # `str` in the grammars
estring = alt(equoted, unquoted_word)
network_str = run(NETWORK)
fs_name_str = run(FS_NAME)
sp = run({" ", "\n", "\t"})  # mon/mgr/mds `spaces`
blank_sep = seq(run({" "}, 0), alt(lit(";"), lit(",")), run({" "}, 0))


# ------------------------------------------------------------------ mon / mgr (MonCap.cc, MgrCap.cc)

def _rwxa_monmgr() -> Parser:
    return alt(lit("*"), lit("all"), seqor(lit("r"), lit("w"), lit("x")))


def _kv_map(equal_spaces: bool, tag: str | None = None) -> Parser:
    eq = seq(opt(sp), lit("="), opt(sp), string) if equal_spaces else seq(lit("="), string)
    key = capture(tag, string) if tag else string
    kv_pair = seq(key, alt(eq, seq(sp, lit("prefix"), sp, string), seq(sp, lit("regex"), sp, string)))
    return seq(kv_pair, star(seq(sp, kv_pair)))


def _network() -> Parser:
    return opt(seq(sp, lit("network"), sp, network_str))


def _mon_grammar(with_fsname: bool = True) -> Parser:
    allow_sp = seq(opt(sp), lit("allow"), sp)
    kv = _kv_map(equal_spaces=False)
    # `allow r fsname=a` came with Pacific's CephFS-restricted mon caps
    fsname = opt(seq(sp, lit("fsname"), alt(lit("="), sp), fs_name_str)) if with_fsname else opt(lit(""))
    command_match = seq(allow_sp, lit("command"), alt(lit("="), sp), string,
                        opt(seq(sp, lit("with"), sp, kv)), _network())
    service_match = seq(allow_sp, lit("service"), alt(lit("="), sp), string, sp, _rwxa_monmgr(), _network())
    profile_match = seq(opt(sp), opt(seq(lit("allow"), sp)), lit("profile"), alt(lit("="), sp),
                        capture("profile", string), _network())
    rwxa_match = seq(allow_sp, _rwxa_monmgr(), _network(), fsname)
    grant = seq(opt(sp), alt(rwxa_match, profile_match, service_match, command_match), opt(sp))
    return listof(grant, blank_sep)


def _mgr_grammar() -> Parser:
    allow_sp = seq(opt(sp), lit("allow"), sp)
    kv = _kv_map(equal_spaces=True)
    command_match = seq(allow_sp, lit("command"), alt(lit("="), sp), string,
                        opt(seq(sp, lit("with"), sp, kv)), _network())
    service_match = seq(allow_sp, lit("service"), alt(lit("="), sp), string, sp, _rwxa_monmgr(), _network())
    module_match = seq(allow_sp, lit("module"), alt(lit("="), sp), string,
                       opt(seq(sp, lit("with"), sp, kv)), sp, _rwxa_monmgr(), _network())
    profile_match = seq(opt(sp), opt(seq(lit("allow"), sp)), lit("profile"), alt(lit("="), sp),
                        capture("profile", string), opt(seq(sp, _kv_map(True, "profile_key"))), _network())
    rwxa_match = seq(allow_sp, _rwxa_monmgr(), _network())
    grant = seq(opt(sp), alt(rwxa_match, profile_match, service_match, module_match, command_match), opt(sp))
    return listof(grant, blank_sep)


# ------------------------------------------------------------------ osd (OSDCap.cc)

def _osd_grammar() -> Parser:
    spaces = run(ASCII_SPACE)
    wildcard = alt(lit("*"), lit("all"))
    pool_name = opt(seq(spaces, lit("pool"), alt(lit("="), spaces), string))
    nspace = seq(spaces, lit("namespace"), alt(lit("="), spaces), estring, opt(lit("*")))
    object_prefix = opt(seq(spaces, lit("object_prefix"), spaces, string))
    pooltag = seq(spaces, lit("tag"), spaces, string, spaces, alt(wildcard, string),
                  opt(spaces), lit("="), opt(spaces), alt(wildcard, string))
    # Pacific dropped the old `auid N` match.
    match = alt(pooltag, seq(nspace, pooltag), seq(pool_name, nspace, object_prefix), seq(pool_name, object_prefix))
    rwx = seq(spaces, seqor(lit("r"), lit("w"), lit("x")))
    classes = seqor(seq(spaces, lit("class-read")), seq(spaces, lit("class-write")))
    rwxa = alt(seq(spaces, wildcard), seqor(rwx, classes))  # "allow * class-read" is refused
    capspec = alt(rwxa, seq(spaces, lit("class"), spaces, string, opt(seq(spaces, string))))
    profile_name = seq(lit("profile"), alt(lit("="), spaces), capture("profile", string))
    profile = alt(seq(profile_name, pool_name, nspace), seq(profile_name, pool_name))
    network = opt(seq(spaces, lit("network"), spaces, network_str))
    grant = seq(run(BLANK, 0),
                alt(seq(lit("allow"), capspec, match, network),
                    seq(lit("allow"), match, capspec, network),
                    seq(profile, network)),
                run(BLANK, 0))
    return listof(grant, alt(lit(";"), lit(",")))


# ------------------------------------------------------------------ mds (MDSAuthCaps.cc)

def _mds_grammar(since: int) -> Parser:
    """The MDS grammar of release `since` (16: Pacific's, 18: Reef's and later, 14: Nautilus's)."""
    quoted_path = alt(seq(lit('"'), run(not_char('"'), 0), lit('"')),
                      seq(lit("'"), run(not_char("'"), 0), lit("'")))
    path = seq(sp, lit("path"), lit("="), alt(quoted_path, run(WORD)))
    uid = seq(sp, lit("uid"), lit("="), uint32)
    gidlist = opt(seq(sp, lit("gids"), lit("="), listof(uint32, lit(","))))
    fs_name = opt(seq(sp, lit("fsname"), lit("="), fs_name_str))
    root_squash = seq(sp, lit("root_squash"))
    if since >= RELEASES["reef"]:  # every part optional, in this order
        match = seq(fs_name, opt(path), opt(root_squash), opt(uid), gidlist)
    elif since >= RELEASES["pacific"]:  # only these combinations
        match = opt(alt(seq(fs_name, path, root_squash), seq(uid, gidlist), seq(path, uid, gidlist),
                        seq(fs_name, path), seq(fs_name, root_squash), seq(path, root_squash), path,
                        root_squash, fs_name))
    else:  # Nautilus: no fsname, no root_squash
        match = opt(alt(seq(uid, gidlist), seq(path, uid, gidlist), path))
    # Longest first: qi takes the first literal that matches ("rw" before "rws" would stop at 's').
    specs: tuple[str, ...] = ("*", "all", "rwfps", "rwps", "rwfp", "rwfs", "rwp", "rws", "rwf", "rw", "r")
    if since < RELEASES["pacific"]:  # no `f` (full-cluster writes) before Pacific
        specs = tuple(x for x in specs if "f" not in x)
    capspec = seq(sp, alt(*(lit(x) for x in specs)))
    grant = seq(lit("allow"), capspec, match, opt(seq(sp, lit("network"), sp, network_str)))
    return listof(grant, blank_sep)


_GRAMMARS: dict[str, Parser] = {
    "mon": _mon_grammar(), "mgr": _mgr_grammar(), "osd": _osd_grammar(), "mds": _mds_grammar(RELEASES["pacific"]),
}
# The grammars that changed, by the release they changed in (measured on Nautilus, Pacific, Reef, Tentacle;
# Octopus is taken as Nautilus, Quincy as Pacific, Squid as Reef).
_OLDER: dict[tuple[str, int], Parser] = {
    ("mon", RELEASES["nautilus"]): _mon_grammar(with_fsname=False),
    ("mds", RELEASES["nautilus"]): _mds_grammar(RELEASES["nautilus"]),
    ("mds", RELEASES["reef"]): _mds_grammar(RELEASES["reef"]),
}
MDS_FIXED_ORDER_SINCE = RELEASES["reef"]


def _grammar(service: str, release: int) -> Parser:
    if release < RELEASES["pacific"] and service in ("mon", "mds"):
        return _OLDER[(service, RELEASES["nautilus"])]
    if release >= MDS_FIXED_ORDER_SINCE and service == "mds":
        return _OLDER[("mds", RELEASES["reef"])]
    return _GRAMMARS[service]


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
    grammar = _grammar(service, release)
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
