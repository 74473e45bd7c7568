"""Themes as data files: what ships, what the user adds, and the colours the panes draw with."""
from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

import pytest
from rich.color import Color as RichColor
from rich.color import ColorSystem
from textual.theme import BUILTIN_THEMES, Theme

import cephtui
from cephtui.ui import palette, themes
from cephtui.ui.themes import (
    DEFAULT_THEME,
    builtin_themes_dir,
    load_all_themes,
    read_theme,
    theme_names,
    user_themes_dir,
)

REPO = Path(__file__).resolve().parents[2]
SHIPPED = ("cephtui", "cephtui-light", "cephtui-high-contrast")
COLOUR_FIELDS = ("primary", "secondary", "accent", "warning", "error", "success", "foreground", "background",
                 "surface", "panel")
# What text must reach against the background and the surface, per theme (WCAG 2 contrast ratio).
TEXT_CONTRAST = {"cephtui": 4.5, "cephtui-light": 4.5, "cephtui-high-contrast": 7.0}
MIN_DELTA_E = 40.0  # CIE76 distance between OK, WARN and ERR: clearly different colours, not shades


# ------------------------------------------------------------------ colour science, written here independently
def rgb(hex_: str) -> tuple[int, int, int]:
    h = hex_.lstrip("#")
    return int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16)


def linear(c: int) -> float:
    v = c / 255
    return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4


def luminance(hex_: str) -> float:
    r, g, b = map(linear, rgb(hex_))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def lab(hex_: str) -> tuple[float, float, float]:
    r, g, b = map(linear, rgb(hex_))
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116
    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def delta_e(a: str, b: str) -> float:
    return sum((p - q) ** 2 for p, q in zip(lab(a), lab(b))) ** 0.5


def xterm256(hex_: str) -> str:
    """What a 256-colour terminal shows for `hex_`: Rich's own downgrade, as Textual's output uses it."""
    triplet = RichColor.parse(hex_).downgrade(ColorSystem.EIGHT_BIT).get_truecolor()
    r, g, b = triplet
    return f"#{r:02x}{g:02x}{b:02x}"


def shipped(name: str) -> dict[str, object]:
    data: dict[str, object] = json.loads((REPO / "themes" / f"{name}.json").read_text())
    return data


def colours(name: str) -> dict[str, str]:
    data = shipped(name)
    out = {k: str(data[k]).lower() for k in COLOUR_FIELDS}
    out["muted"] = str(dict(data["variables"])["cephtui-muted"]).lower()  # type: ignore[call-overload]
    return out


# ------------------------------------------------------------------ the shipped themes
def test_shipped_themes_load_as_textual_themes() -> None:
    assert DEFAULT_THEME == "cephtui"
    assert builtin_themes_dir() == REPO / "themes"  # the repo / editable install
    loaded, problems = load_all_themes(user_dir=Path("/nonexistent"))
    assert problems == []
    assert [t.name for t in loaded][:1] == [DEFAULT_THEME]  # the default first
    assert set(SHIPPED) <= {t.name for t in loaded}
    for name in SHIPPED:
        theme = read_theme(REPO / "themes" / f"{name}.json")
        assert isinstance(theme, Theme) and theme.name == name
        assert theme.dark == (name != "cephtui-light")
        for key in COLOUR_FIELDS:  # every role is set: nothing falls back to Textual's derived colours
            assert getattr(theme, key), (name, key)
        theme.to_color_system().generate()  # what Textual does when it applies the theme


def test_default_theme_is_exactly_256_colours() -> None:
    c = colours(DEFAULT_THEME)
    changed = {k: (v, xterm256(v)) for k, v in c.items() if xterm256(v) != v}
    assert changed == {}, f"not xterm-256 palette colours: {changed}"
    assert len(set(c.values())) == len(c), "two roles share a colour"
    # Textual passes the theme's colours through HSL before drawing: they must land on the same palette entry.
    generated = read_theme(REPO / "themes" / "cephtui.json").to_color_system().generate()
    drift = {k: generated[k] for k in COLOUR_FIELDS if xterm256(generated[k]) != c[k]}
    assert drift == {}


@pytest.mark.parametrize("name", SHIPPED)
def test_text_contrast(name: str) -> None:
    c = colours(name)
    need = TEXT_CONTRAST[name]
    for under in ("background", "surface"):
        for role in ("foreground", "success", "warning", "error", "muted", "primary", "accent"):
            ratio = contrast(c[role], c[under])
            assert ratio >= need, f"{name}: {role} {c[role]} on {under} {c[under]} is {ratio:.2f}:1 < {need}"
            # and still on a 256-colour terminal, where both are rounded to the palette
            ratio = contrast(xterm256(c[role]), xterm256(c[under]))
            assert ratio >= need, f"{name} at 256 colours: {role} on {under} is {ratio:.2f}:1"
    # the status bar sits on the panel: its OK/WARN/ERR text must read there too
    for role in ("foreground", "success", "warning", "error", "muted"):
        assert contrast(c[role], c["panel"]) >= 4.5, (name, role)


@pytest.mark.parametrize("name", SHIPPED)
def test_ok_warn_err_are_clearly_distinct(name: str) -> None:
    c = colours(name)
    for a, b in itertools.combinations(("success", "warning", "error"), 2):
        assert delta_e(c[a], c[b]) >= MIN_DELTA_E, f"{name}: {a} {c[a]} and {b} {c[b]} look alike"
        assert xterm256(c[a]) != xterm256(c[b]), f"{name}: {a} and {b} merge at 256 colours"
        # and none of them is confused with plain text
        assert delta_e(c[a], c["foreground"]) >= MIN_DELTA_E / 2, (name, a)


@pytest.mark.parametrize("name", SHIPPED)
def test_palette_takes_the_themes_own_colours(name: str) -> None:
    theme = read_theme(REPO / "themes" / f"{name}.json")
    p = palette.Palette.from_theme(theme)
    c = colours(name)
    assert (p.ok, p.warn, p.err, p.info, p.accent, p.muted) == (c["success"], c["warning"], c["error"],
                                                                c["primary"], c["accent"], c["muted"])
    for role in ("ok", "warn", "err", "info", "muted"):  # badge text on the role's colour
        assert contrast(p.text_on(role), p.color(role)) >= TEXT_CONTRAST[name], (name, role)


def test_palette_styles_follow_the_current_theme() -> None:
    light = read_theme(REPO / "themes" / "cephtui-light.json")
    dark = read_theme(REPO / "themes" / "cephtui.json")
    before = palette.generation()
    try:
        palette.set_theme(light)
        assert palette.generation() == before + 1
        assert palette.style("bold err") == "bold #af0000"
        assert palette.style("italic muted") == "italic #585858"
        assert palette.style("on warn") == "on #875f00"
        assert palette.style("") == "" and palette.style("bold") == "bold"
        assert palette.badge("ok") == "bold #ffffff on #005f00" == palette.style("badge ok")
        assert palette.markup("warn", "⚠ x") == "[#875f00]⚠ x[/]"
        palette.set_theme(dark)
        assert palette.style("bold err") == "bold #ff5f5f"  # the cache follows the theme
        assert palette.badge("ok") == "bold #121212 on #87d787"
        with pytest.raises(KeyError):
            palette.color("red")
        # a theme without cephtui-muted: the foreground blended toward the background, between the two
        plain = Theme(name="plain", primary="#336699", foreground="#e0e0e0", background="#101010",
                      success="#00aa00", warning="#aaaa00", error="#aa0000")
        p = palette.Palette.from_theme(plain)
        assert 1.5 < contrast(p.muted, "#101010") < contrast("#e0e0e0", "#101010")
    finally:
        palette.set_theme(dark)


def test_no_colour_names_left_in_the_ui_code() -> None:
    """Styles come from the palette: a literal "bold red" would ignore the theme (and vanish on some)."""
    colour = r"(?:red|yellow|green|cyan|magenta|blue|white|black|gr[ae]y\d*|bright_\w+|#[0-9a-fA-F]{6})"
    word = rf"(?:bold|b|italic|i|dim|reverse|underline|not|on|{colour})"
    style_literal = re.compile(rf"""["'](?={word}(?:\s+{word})*["'])(?:\w+\s+)*?(?:{colour}|dim)\b[^"']*["']""")
    markup = re.compile(rf"\[(?:(?:bold|b|i|italic)\s+)?{colour}\]")
    offenders = []
    for path in sorted((REPO / "cephtui" / "ui").rglob("*.py")):
        if path.name in ("palette.py", "themes.py"):
            continue
        for n, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("#", 1)[0] if not re.search(r"[\"'].*#.*[\"']", line) else line
            if style_literal.search(code) or markup.search(code):
                offenders.append(f"{path.relative_to(REPO)}:{n}: {line.strip()}")
    assert offenders == []


def test_the_offender_scan_catches_literals() -> None:
    """The scan above must be able to fail."""
    colour = r"(?:red|yellow|green|cyan|magenta|blue|white|black|gr[ae]y\d*|bright_\w+|#[0-9a-fA-F]{6})"
    word = rf"(?:bold|b|italic|i|dim|reverse|underline|not|on|{colour})"
    style_literal = re.compile(rf"""["'](?={word}(?:\s+{word})*["'])(?:\w+\s+)*?(?:{colour}|dim)\b[^"']*["']""")
    for bad in ('Text("x", style="bold red")', 't.append(x, style="dim")', '("x", "bold white on red")',
                'style = "yellow" if a else ""'):
        assert style_literal.search(bad), bad
    for fine in ('Text("x", style="bold")', 'Text("red alert")', 'palette.style("bold err")'):
        assert not style_literal.search(fine), fine


# ------------------------------------------------------------------ the user's themes
GOOD_JSON = {"name": "mine", "primary": "#0088cc", "success": "#00aa55", "warning": "#ccaa00", "error": "#cc2200",
             "dark": True}


def write(directory: Path, name: str, text: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text(text)
    return path


def test_bad_user_themes_are_skipped_with_a_message_naming_file_and_problem(tmp_path: Path) -> None:
    d = tmp_path / "themes"
    write(d, "good.json", json.dumps(GOOD_JSON))
    write(d, "good2.toml", 'name = "mine-toml"\nprimary = "#224466"\nsuccess = "green"\nwarning = "#aa8800"\n'
                           'error = "#aa0000"\ndark = false\n[variables]\ncephtui-muted = "#777777"\n')
    write(d, "syntax.json", '{\n  "name": "x",\n  "primary": "#fff"\n  "error": "#f00"\n}\n')
    write(d, "syntax.toml", 'name = "y"\nprimary = \n')
    write(d, "unknown.json", json.dumps({**GOOD_JSON, "name": "u", "primry": "#123456"}))
    write(d, "colour.toml", 'name = "c"\nprimary = "#12345"\n')
    write(d, "muted.json", json.dumps({**GOOD_JSON, "name": "m", "variables": {"cephtui-muted": "grey-ish"}}))
    write(d, "noname.json", json.dumps({"primary": "#123456"}))
    write(d, "list.json", "[1, 2]")
    write(d, "dark.json", json.dumps({**GOOD_JSON, "name": "d", "dark": "yes"}))
    write(d, "notes.txt", "not a theme: ignored")
    (d / "binary.json").write_bytes(b"\xff\xfe\x00{")

    loaded, problems = load_all_themes(user_dir=d)
    names = {t.name for t in loaded}
    assert {"mine", "mine-toml"} <= names and set(SHIPPED) <= names
    assert not names & {"x", "y", "u", "c", "m", "d"}
    by_file = {}
    for p in problems:
        m = re.match(r"theme file (\S+): (.*); skipped$", p)
        assert m, f"unexpected message: {p}"
        by_file[Path(m[1]).name] = m[2]
    assert set(by_file) == {"syntax.json", "syntax.toml", "unknown.json", "colour.toml", "muted.json",
                            "noname.json", "list.json", "dark.json", "binary.json"}
    assert by_file["syntax.json"].startswith("line 4, column 3: invalid JSON: Expecting ','")
    assert by_file["syntax.toml"].startswith("line 2, column ") and "invalid TOML" in by_file["syntax.toml"]
    assert "'primry'" in by_file["unknown.json"] and "primary" in by_file["unknown.json"]
    assert "'primary' = '#12345' is not a colour" in by_file["colour.toml"]
    assert "variables.cephtui-muted" in by_file["muted.json"]
    assert by_file["noname.json"] == "missing 'name'"
    assert "found list" in by_file["list.json"]
    assert "'dark' must be true or false" in by_file["dark.json"]
    assert "not UTF-8" in by_file["binary.json"]
    mine_toml = next(t for t in loaded if t.name == "mine-toml")
    assert mine_toml.dark is False and mine_toml.variables == {"cephtui-muted": "#777777"}


def test_a_user_theme_replaces_the_builtin_of_the_same_name(tmp_path: Path) -> None:
    write(tmp_path, "mine.toml", 'name = "cephtui"\nprimary = "#aa00aa"\nsuccess = "#00aa00"\nwarning = "#aaaa00"\n'
                                 'error = "#aa0000"\n')
    write(tmp_path, "nord.json", json.dumps({**GOOD_JSON, "name": "nord"}))  # Textual's own name
    loaded, problems = load_all_themes(user_dir=tmp_path)
    assert problems == []
    ours = [t for t in loaded if t.name == "cephtui"]
    assert len(ours) == 1 and ours[0].primary == "#aa00aa"
    assert [t.primary for t in loaded if t.name == "nord"] == ["#0088cc"]
    names = theme_names(user_dir=tmp_path)
    assert names.count("cephtui") == 1 and names.count("nord") == 1
    assert set(SHIPPED) <= set(names) and set(BUILTIN_THEMES) <= set(names)


def test_two_user_files_with_one_name_and_a_theme_without_status_colours(tmp_path: Path) -> None:
    write(tmp_path, "a.json", json.dumps(GOOD_JSON))
    write(tmp_path, "b.json", json.dumps({**GOOD_JSON, "primary": "#111111"}))
    write(tmp_path, "c.json", json.dumps({"name": "bare", "primary": "#336699"}))
    loaded, problems = load_all_themes(user_dir=tmp_path)
    assert [t.primary for t in loaded if t.name == "mine"] == ["#111111"]
    assert any("b.json" in p and "also in a.json" in p for p in problems)
    assert any("c.json" in p and "'success', 'warning', 'error'" in p and "loaded anyway" in p for p in problems)
    assert "bare" in {t.name for t in loaded}


def test_directories(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert user_themes_dir() == tmp_path / "xdg" / "cephtui" / "themes"
    monkeypatch.setenv("XDG_CONFIG_HOME", "relative/dir")  # ignored, as the XDG spec says
    assert user_themes_dir() == Path.home() / ".config" / "cephtui" / "themes"
    monkeypatch.delenv("XDG_CONFIG_HOME")
    assert user_themes_dir() == Path.home() / ".config" / "cephtui" / "themes"
    # An installed wheel ships the files inside the package (cephtui/themes/*.json): found there first.
    package = tmp_path / "site" / "cephtui"
    write(package / "themes", "cephtui.json", (REPO / "themes" / "cephtui.json").read_text())
    monkeypatch.setattr(cephtui, "__file__", str(package / "__init__.py"))
    assert themes.builtin_themes_dir() == package / "themes"
    assert [t.name for t in load_all_themes(user_dir=tmp_path / "none")[0]] == ["cephtui"]
    # No themes/ inside the package: the repository's, next to the package (editable install).
    monkeypatch.setattr(cephtui, "__file__", str(REPO / "cephtui" / "__init__.py"))
    assert themes.builtin_themes_dir() == REPO / "themes"


def test_an_unreadable_user_directory_is_a_problem_not_a_crash(tmp_path: Path) -> None:
    not_a_dir = write(tmp_path, "themes", "a file where the directory should be")
    loaded, problems = load_all_themes(user_dir=not_a_dir)
    assert set(SHIPPED) <= {t.name for t in loaded}
    assert len(problems) == 1 and str(not_a_dir) in problems[0]
