"""The command line checked token by token before argparse parses it, so that no typo is taken for something else.

`cephtui [GLOBAL OPTIONS] [COMMAND [COMMAND OPTIONS]]`, as `ceph [options] osd tree`: the global options
(connection, read-only, the TUI's own) go before the command, each command's options after it.

Before the command, a `--name` that is none of cephtui's options may be a Ceph config option handed to
librados, in exactly the forms librados' own parser takes (src/common/config.cc, parse_option, as the `ceph`
CLI passes them on): `--mon-host X`, `--mon_host=X`; a boolean as `--log-to-stderr`, `--log-to-stderr=false`
or `--no-log-to-stderr`. Whether the name is an option, and whether it is a boolean, comes from the local
librados' own option table (`conf_get` on a handle that never connects), and the value is checked with
`conf_set` there too: a value librados refuses is refused here, with its reason, before any connection.

Anything else is refused with exit status 2 and one line naming it, with the closest option (difflib) when
there is one: an unknown option, an option of another command, a global option given after the command
("-c is a connection option: put it before `snapshot`"), a command's option given before it, a misspelt
command. Without this, librados silently skipped an unknown `--read-onyl` and the word after it.
"""
from __future__ import annotations

import argparse
import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from cephtui.ceph.librados_options import BOOL_VALUES, LibradosOptions

# The options that say how to connect (the ceph CLI's, plus its librados short forms -m and -k).
CONNECTION = frozenset({"-c", "--conf", "--id", "--user", "-n", "--name", "-k", "--keyring", "--cluster", "-m",
                        "--mon-host", "--connect-timeout", "--timeout", "--profile", "--config"})
# librados spells these with underscores too (`--mon_host=X`); they are cephtui's own options.
ALIASES = {"--mon_host": "--mon-host"}
_NEGATIVE = re.compile(r"^-\d")


class UsageError(Exception):
    """A command line refused before anything ran (exit status 2); str() is the one-line reason."""


def option_kinds(parser: argparse.ArgumentParser) -> dict[str, str]:
    """Each option string of the parser: 'flag' (no value), 'value' (exactly one) or 'variadic' (?, *, +)."""
    kinds: dict[str, str] = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            continue
        nargs = action.nargs
        kind = "flag" if nargs == 0 else "value" if nargs is None or nargs == 1 else "variadic"
        for opt in action.option_strings:
            kinds[opt] = kind
    return kinds


@dataclass
class Split:
    """The command line divided: what argparse parses, and the librados options (in order, as given)."""

    ours: list[str] = field(default_factory=list)
    librados: list[str] = field(default_factory=list)
    command: str | None = None


def _closest(word: str, candidates: Sequence[str]) -> str | None:
    found = difflib.get_close_matches(word, sorted(set(candidates)), n=1, cutoff=0.6)
    return found[0] if found else None


def split_argv(top: argparse.ArgumentParser, commands: dict[str, argparse.ArgumentParser], argv: Sequence[str],
               librados: LibradosOptions, librados_version: str = "") -> Split:
    """Check every token and divide the command line; UsageError for anything that is not one of ours,
    a librados option in a form librados takes, or a command."""
    glob = option_kinds(top)
    subs = {name: option_kinds(p) for name, p in commands.items()}
    owners: dict[str, list[str]] = {}
    for name, kinds in subs.items():
        for opt in kinds:
            if opt not in ("-h", "--help"):
                owners.setdefault(opt, []).append(name)
    names = list(commands)
    out = Split()
    args = list(argv)
    lib = f"the local librados ({librados_version})" if librados_version else "the local librados"
    i = 0
    prev_bool = ""  # a boolean librados option just before: `--opt true` is not a form librados takes

    def opt_of(tok: str) -> tuple[str, bool]:
        """The option string and whether the token carries its value (`--x=v`, `-cFILE`)."""
        if tok.startswith("--"):
            name, eq, _ = tok.partition("=")
            return name, bool(eq)
        return tok[:2], len(tok) > 2

    def take_value(opt: str, attached: bool, kinds: dict[str, str]) -> None:
        nonlocal i
        out.ours.append(args[i])
        if kinds.get(opt) == "value" and not attached and i + 1 < len(args):
            i += 1
            out.ours.append(args[i])

    def elsewhere(opt: str, command: str | None, attached: bool = False) -> str:
        where = owners[opt]
        if command is None:
            # The command after it, past the option's own value: in `--pool rbd bench`, `rbd` is the pool.
            takes_value = not attached and any(subs[w].get(opt) == "value" for w in where)
            after = args[i + 1 + takes_value:]
            target = next((a for a in after if a in commands and a in where), None)
            if target:
                return f"{opt} is an option of `{target}`: put it after the command (cephtui ... {target} {opt} ...)"
            return f"{opt} is an option of `{'`, `'.join(where)}`, after the command (cephtui {where[0]} {opt} ...)"
        return f"{opt} is not an option of `{command}` (it belongs to `{'`, `'.join(where)}`)"

    def unknown(opt: str, command: str | None) -> UsageError:
        pool = list(subs[command]) + list(glob) if command else list(glob) + list(owners)
        close = _closest(opt, [o for o in pool if o.startswith("--") == opt.startswith("--")])
        text = f"unknown option {opt}"
        if command is None and opt.startswith("--"):
            text += f": neither a cephtui option nor a Ceph option {lib} knows"
        elif command is not None:
            text += f" for `{command}`"
        if close:
            text += f"; did you mean {close}?"
        return UsageError(text + f" (cephtui{' ' + command if command else ''} --help lists the options)")

    while i < len(args):
        tok = args[i]
        command = out.command
        if tok == "--":
            out.ours.extend(args[i:])
            break
        if tok.startswith("-") and len(tok) > 1 and not (command and _NEGATIVE.match(tok)):
            opt, attached = opt_of(tok)
            if opt in ALIASES:
                tok = ALIASES[opt] + tok[len(opt):]
                args[i] = tok
                opt = ALIASES[opt]
            if command is not None:
                if opt in subs[command]:
                    take_value(opt, attached, subs[command])
                elif opt in glob:
                    what = "a connection option" if opt in CONNECTION else "a global option"
                    raise UsageError(f"{opt} is {what}: put it before `{command}` (cephtui {opt} ... {command} ...)")
                elif opt in owners:
                    raise UsageError(elsewhere(opt, command))
                elif opt.startswith("--") and _librados_kind(librados, opt[2:]):
                    raise UsageError(f"{opt} is a Ceph option for librados: put it before `{command}` "
                                     f"(cephtui {opt} ... {command} ...)")
                else:
                    raise unknown(opt, command)
                i += 1
                continue
            prev_bool = ""
            if opt in glob:
                take_value(opt, attached, glob)
            elif opt in owners:
                raise UsageError(elsewhere(opt, None, attached))
            elif opt.startswith("--"):
                name = opt[2:]
                kind = librados.kind(name)
                if kind == "bool":
                    value = tok.partition("=")[2] if attached else None
                    if value is not None and value not in BOOL_VALUES:
                        raise UsageError(f"{opt} is a Ceph boolean: give it as {opt}, {opt}=true, {opt}=false or "
                                         f"--no-{name} (got {tok!r})")
                    out.librados.append(tok)
                    prev_bool = opt
                elif kind == "value":
                    if attached:
                        value = tok.partition("=")[2]
                        out.librados.append(tok)
                    else:
                        if i + 1 >= len(args):
                            raise UsageError(f"{opt} needs a value ({opt} VALUE or {opt}=VALUE)")
                        value = args[i + 1]
                        if value in commands:
                            raise UsageError(f"{opt} takes a value, and `{value}` would be it; write "
                                             f"{opt}={value} if you mean that, else give {opt} a value")
                        out.librados += [tok, value]
                        i += 1
                    why = librados.refusal(name, value)
                    if why is not None:
                        raise UsageError(f"{opt} {value!r}: not a value {lib} takes for {librados.key(name)} ({why})")
                elif name[:3] in ("no-", "no_") and not attached and librados.kind(name[3:]) == "bool":
                    out.librados.append(tok)
                else:
                    raise unknown(opt, None)
            else:
                raise unknown(opt, None)
            i += 1
            continue
        if command is not None:
            out.ours.append(tok)  # a command's argument (remove's OSD names); argparse judges it
            i += 1
            continue
        if tok not in commands:
            if prev_bool and tok.lower() in ("true", "false", "yes", "no", "0", "1", "on", "off"):
                raise UsageError(f"`{tok}` after {prev_bool}: a Ceph boolean takes its value as "
                                 f"{prev_bool}={tok.lower() if tok.lower() in BOOL_VALUES else 'true'} "
                                 f"(or --no-{prev_bool[2:]}), never as a separate word")
            close = _closest(tok, names)
            hint = f"; did you mean {close}?" if close else ""
            raise UsageError(f"unknown command {tok!r}{hint} (the commands: {', '.join(names)}; "
                             "none starts the TUI)")
        out.command = tok
        out.ours.append(tok)
        i += 1
    return out


def _librados_kind(librados: LibradosOptions, name: str) -> str | None:
    kind = librados.kind(name)
    if kind is None and name[:3] in ("no-", "no_") and librados.kind(name[3:]) == "bool":
        return "bool"
    return kind
