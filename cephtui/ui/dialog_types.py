"""What the app's dialogs take and give, below the dialogs themselves: a form's fields and the builder that turns
their values into operations (screens/wizards/form.py shows them), a refusal made safe to show, and what the
confirm dialog (screens/confirm.py) reports of a run. ui/services.py names them for the app's services."""
from __future__ import annotations

import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from cephtui.ceph import ops as ops_mod
from cephtui.ceph.ops import Operation

Builder = Callable[[dict[str, str]], Sequence[Operation]]

_INVISIBLE = ("Cc", "Cf", "Zl", "Zp", "Cs", "Co")


def readable(message: str, limit: int = 240) -> str:
    """A refusal made safe to show. It may echo what was typed: a raw ESC would reach the terminal, a
    bidi override would reverse the rest of the line, zero-width characters hide, and a 10,000-character
    value buries the reason. So such characters become visible escapes and long lines are cut in the middle."""
    text = "".join(c if c == "\n" or unicodedata.category(c) not in _INVISIBLE
                   else c.encode("unicode_escape").decode("ascii") for c in message)
    half = limit // 2
    return "\n".join(line if len(line) <= limit else f"{line[:half]} … {line[-half:]}"
                     for line in text.split("\n"))


@dataclass(frozen=True)
class Field:
    key: str
    label: str
    value: str = ""
    choices: tuple[str, ...] = ()  # a Select instead of free text
    placeholder: str = ""
    labels: tuple[str, ...] = ()  # what the Select shows for each choice (default: the choice itself)


@dataclass(frozen=True)
class Outcome:
    """What happened: `ran` is False when cancelled; `results` pairs each op run with (ok, message)."""

    ran: bool
    results: tuple[tuple[ops_mod.Operation, bool, str], ...] = ()

    @property
    def ok(self) -> bool:
        return self.ran and bool(self.results) and all(ok for _, ok, _ in self.results)
