"""Key lines in TOML text: tomllib gives no positions for keys, and a message must name the line."""
from __future__ import annotations

import re
import sys
from collections.abc import Mapping, Sequence
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # the same parser, before it joined the standard library
    import tomli as tomllib


def locate_keys(text: str) -> dict[tuple[str, ...], int]:
    """1-based line of every key and table in TOML text: `[table]` / `[[array]]` headers, dotted keys and
    keys inside inline tables. For text tomllib accepted; anything it cannot follow is simply left out."""
    scanner = _Locator(text)
    try:
        scanner.scan()
    except (IndexError, ValueError, tomllib.TOMLDecodeError):
        pass
    return scanner.found


def line_of(found: Mapping[tuple[str, ...], int], path: Sequence[str]) -> int | None:
    """The key's line, else the nearest enclosing table's (its header), else None."""
    p = tuple(path)
    while p:
        if p in found:
            return found[p]
        p = p[:-1]
    return None


class _Locator:
    _BARE_END = ",]}\n#"

    def __init__(self, text: str) -> None:
        self.text = text
        self.i = 0
        self.found: dict[tuple[str, ...], int] = {}
        self._newlines = [m.start() for m in re.finditer("\n", text)]

    def line(self, pos: int) -> int:
        import bisect

        return bisect.bisect_left(self._newlines, pos) + 1

    def record(self, path: tuple[str, ...], pos: int) -> None:
        for n in range(1, len(path) + 1):  # `a.b.c = 1` defines table a and a.b there too
            self.found.setdefault(path[:n], self.line(pos))

    def scan(self) -> None:
        t = self.text
        table: tuple[str, ...] = ()
        while self.i < len(t):
            self.skip_blank(newlines=True)
            if self.i >= len(t):
                break
            start = self.i
            if t.startswith("[[", self.i):
                end = t.index("]]", self.i)
                table = self.key_path(t[self.i + 2:end])
                self.record(table, start)
                self.i = end + 2
            elif t[self.i] == "[":
                end = self.header_end(self.i + 1)
                table = self.key_path(t[self.i + 1:end])
                self.record(table, start)
                self.i = end + 1
            else:
                eq = self.key_end(self.i)
                key = table + self.key_path(t[self.i:eq])
                self.record(key, start)
                self.i = eq + 1
                self.skip_blank(newlines=False)
                self.value(key)
            self.skip_to_eol()

    @staticmethod
    def key_path(raw: str) -> tuple[str, ...]:
        """A (dotted, quoted) key as its parts: tomllib decodes it, so quoting and escapes are exact."""
        node: Any = tomllib.loads(f"{raw.strip()} = 0")
        parts: list[str] = []
        while isinstance(node, dict) and len(node) == 1:
            k, node = next(iter(node.items()))
            parts.append(k)
        return tuple(parts)

    def header_end(self, i: int) -> int:
        """Index of the `]` closing a table header, past quoted parts."""
        t = self.text
        while t[i] != "]":
            i = self.string_end(i) if t[i] in "\"'" else i + 1
        return i

    def key_end(self, i: int) -> int:
        """Index of the `=` after a key, past quoted parts."""
        t = self.text
        while t[i] != "=":
            if t[i] == "\n":
                raise ValueError("no = on the line")
            i = self.string_end(i) if t[i] in "\"'" else i + 1
        return i

    def string_end(self, i: int) -> int:
        """Index just past the string starting at i (basic, literal, or multi-line)."""
        t = self.text
        q = t[i]
        if t.startswith(q * 3, i):
            j = i + 3
            while True:
                if q == '"' and t[j] == "\\":
                    j += 2
                    continue
                if t.startswith(q * 3, j):
                    j += 3
                    while j < len(t) and t[j] == q:  # up to two quotes may end the content
                        j += 1
                    return j
                j += 1
        j = i + 1
        while t[j] != q:
            j += 2 if (q == '"' and t[j] == "\\") else 1
        return j + 1

    def skip_blank(self, newlines: bool) -> None:
        t = self.text
        while self.i < len(t):
            c = t[self.i]
            if c in " \t\r" or (newlines and c == "\n"):
                self.i += 1
            elif c == "#":
                self.skip_to_eol(comment_only=True)
            else:
                break

    def skip_to_eol(self, comment_only: bool = False) -> None:
        end = self.text.find("\n", self.i)
        self.i = len(self.text) if end < 0 else end + (0 if comment_only else 1)

    def value(self, path: tuple[str, ...] | None) -> None:
        """Step over one value; keys of inline tables are recorded under `path`."""
        t = self.text
        c = t[self.i]
        if c in "\"'":
            self.i = self.string_end(self.i)
        elif c == "[":
            self.i += 1
            while True:
                self.skip_blank(newlines=True)
                if t[self.i] == "]":
                    self.i += 1
                    return
                self.value(None)
                self.skip_blank(newlines=True)
                if t[self.i] == ",":
                    self.i += 1
        elif c == "{":
            self.i += 1
            while True:
                self.skip_blank(newlines=False)
                if t[self.i] == "}":
                    self.i += 1
                    return
                start = self.i
                eq = self.key_end(self.i)
                key = self.key_path(t[self.i:eq])
                if path is not None:
                    self.record(path + key, start)
                self.i = eq + 1
                self.skip_blank(newlines=False)
                self.value(path + key if path is not None else None)
                self.skip_blank(newlines=False)
                if t[self.i] == ",":
                    self.i += 1
        else:
            while self.i < len(t) and t[self.i] not in self._BARE_END:
                self.i += 1

