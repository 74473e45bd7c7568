"""The current theme's semantic colours, for what cephtui draws from Python.

CSS follows the theme by itself ($success, $warning ...). Rich Text, markup strings and the virtual
table's cells are built in Python with explicit styles, so they ask here, at render time:

    style("bold err")   -> "bold #ff5f5f"        roles: ok warn err info accent muted
    style("muted")      -> "#949494"             (instead of "dim", whose look depends on the terminal)
    badge("ok")         -> "bold #121212 on #87d787"     (also style("badge ok"), for tables of styles)
    markup("warn", "⚠ x") -> "[#ffd75f]⚠ x[/]"   (the text is not escaped: escape what came from outside)

ok/warn/err are the theme's success/warning/error, info its primary (or variables["cephtui-info"]),
accent its accent, muted variables["cephtui-muted"] or the foreground blended toward the background.
The app calls set_theme() on start and on every theme change; generation() then moves on, so caches
of rendered text (widgets.tables.sync_static) know to draw again.
"""
from __future__ import annotations

from dataclasses import dataclass

from textual.color import Color
from textual.theme import Theme

ROLES = ("ok", "warn", "err", "info", "accent", "muted")
MUTED_BLEND = 0.4  # muted without a variable: this far from the foreground toward the background


def _luminance(color: Color) -> float:
    def channel(c: int) -> float:
        v = c / 255
        return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4
    return 0.2126 * channel(color.r) + 0.7152 * channel(color.g) + 0.0722 * channel(color.b)


def contrast(a: str, b: str) -> float:
    """WCAG 2 contrast ratio of two colours (1 to 21)."""
    la, lb = sorted((_luminance(Color.parse(a)), _luminance(Color.parse(b))), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def _hex(value: str) -> str:
    return Color.parse(value).hex.lower()


@dataclass(frozen=True)
class Palette:
    name: str
    ok: str
    warn: str
    err: str
    info: str
    accent: str
    muted: str
    foreground: str
    background: str

    @classmethod
    def from_theme(cls, theme: Theme) -> Palette:
        # The theme's own values as they are (Textual's generated ones pass through HSL and come back a shade
        # off, which would break the default theme's exact 256-colour values); generated ones where it has none.
        generated = theme.to_color_system().generate()

        def get(name: str) -> str:
            value = getattr(theme, name, None)
            return _hex(value if isinstance(value, str) and value else generated[name])

        fg, bg = get("foreground"), get("background")
        variables = theme.variables
        muted = variables.get("cephtui-muted") or Color.parse(fg).blend(Color.parse(bg), MUTED_BLEND).hex
        return cls(name=theme.name, ok=get("success"), warn=get("warning"), err=get("error"),
                   info=_hex(variables.get("cephtui-info") or get("primary")), accent=get("accent"),
                   muted=_hex(muted), foreground=fg, background=bg)

    def color(self, role: str) -> str:
        if role not in ROLES:
            raise KeyError(f"unknown colour role {role!r} (roles: {', '.join(ROLES)})")
        value: str = getattr(self, role)
        return value

    def text_on(self, role: str) -> str:
        """The theme's background or foreground, whichever reads better on the role's colour."""
        under = self.color(role)
        return max((self.background, self.foreground), key=lambda c: contrast(c, under))


_current: Palette | None = None
_generation = 0
_styles: dict[str, str] = {}


def set_theme(theme: Theme) -> None:
    global _current, _generation
    _current = Palette.from_theme(theme)
    _generation += 1
    _styles.clear()


def current() -> Palette:
    """The palette in use; before any app set one, cephtui's default theme's."""
    global _current
    if _current is None:
        from cephtui.ui.themes import DEFAULT_THEME, builtin_themes_dir, read_theme
        _current = Palette.from_theme(read_theme(builtin_themes_dir() / f"{DEFAULT_THEME}.json"))
    return _current


def generation() -> int:
    """Moves on at every theme change."""
    return _generation


def color(role: str) -> str:
    return current().color(role)


def style(spec: str) -> str:
    """A Rich/Textual style string with role names replaced by colours: "bold err", "italic muted", "on warn";
    "badge ROLE" is badge(ROLE)."""
    cached = _styles.get(spec)
    if cached is None:
        p = current()
        words = spec.split()
        if words[:1] == ["badge"] and len(words) == 2:
            cached = badge(words[1])
        else:
            cached = " ".join(p.color(w) if w in ROLES else w for w in words)
        _styles[spec] = cached
    return cached


def badge(role: str) -> str:
    """Bold text in the role's colour as a background: the OK/WARN/ERR badge, FULL, READ-ONLY."""
    p = current()
    return f"bold {p.text_on(role)} on {p.color(role)}"


def markup(spec: str, text: str) -> str:
    """`text` in markup coloured as style(spec); escape any part of `text` that came from outside."""
    return f"[{style(spec)}]{text}[/]"
