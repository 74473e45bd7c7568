"""The cap grammars of the mon, mgr, osd and mds, as each release's parser accepts them: PEG combinators
transcribed from MonCap.cc, MgrCap.cc, OSDCap.cc and MDSAuthCaps.cc. caps.py validates with them."""
from __future__ import annotations

from collections.abc import Callable

# Codename -> major version, as `ceph version` prints them.
RELEASES: dict[str, int] = {
    "nautilus": 14, "octopus": 15, "pacific": 16, "quincy": 17, "reef": 18, "squid": 19, "tentacle": 20,
}
PACIFIC, REEF, TENTACLE = RELEASES["pacific"], RELEASES["reef"], RELEASES["tentacle"]


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


def service_grammar(service: str, release: int) -> Parser:
    if release < RELEASES["pacific"] and service in ("mon", "mds"):
        return _OLDER[(service, RELEASES["nautilus"])]
    if release >= MDS_FIXED_ORDER_SINCE and service == "mds":
        return _OLDER[("mds", RELEASES["reef"])]
    return _GRAMMARS[service]
