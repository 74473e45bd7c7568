"""Themes as data files: cephtui's own (themes/*.json) and the user's ($XDG_CONFIG_HOME/cephtui/themes/).

A theme file holds Textual's Theme fields (name, primary, secondary, accent, warning, error, success,
foreground, background, surface, panel, dark, variables ...) as a JSON object or a TOML table. Two
variables of cephtui's own may be set in `variables`: "cephtui-muted" (secondary text; default: the
foreground blended 40% toward the background) and "cephtui-info" (commands, names; default: primary).

A user theme whose name is a built-in's (cephtui's or Textual's) replaces that theme. A user file that
cannot be used (bad JSON or TOML, an unknown field, a colour that does not parse, no name) is skipped and
described in the returned problems, which name the file and, for a syntax error, the line.
"""
from __future__ import annotations

import dataclasses
import json
import logging
import re
import sys
from pathlib import Path
from typing import Any

from textual.color import Color, ColorParseError
from textual.theme import BUILTIN_THEMES, Theme

import cephtui
from cephtui.paths import config_dir, config_path

if sys.version_info >= (3, 11):
    import tomllib
else:  # the same parser, before it joined the standard library
    import tomli as tomllib

log = logging.getLogger("cephtui")

DEFAULT_THEME = "cephtui"
THEME_FIELDS = tuple(f.name for f in dataclasses.fields(Theme))
COLOR_FIELDS = ("primary", "secondary", "warning", "error", "success", "accent", "foreground", "background",
                "surface", "panel", "boost")
OWN_VARIABLES = ("cephtui-muted", "cephtui-info")  # colours cephtui itself reads from `variables`
SUFFIXES = (".json", ".toml")


class ThemeFileError(ValueError):
    """Why a theme file cannot be used (without the file name: the caller adds it)."""


def builtin_themes_dir() -> Path:
    """cephtui/themes/ inside an installed package, else the repository's themes/ (editable install)."""
    package = Path(cephtui.__file__).resolve().parent
    shipped = package / "themes"
    if shipped.is_dir() and any(shipped.glob("*.json")):
        return shipped
    return package.parent / "themes"


def user_config_dir() -> Path:
    """$XDG_CONFIG_HOME/cephtui, ~/.config/cephtui when it is unset: where the config file lives."""
    return config_dir()


def user_themes_dir() -> Path:
    return user_config_dir() / "themes"


def user_config_file() -> Path:
    """The config file where `theme = "..."` keeps a choice: $CEPHTUI_CONFIG, else user_config_dir()/config.toml."""
    return config_path()[0]


def display_path(path: Path) -> str:
    """`path` with the home directory shown as ~."""
    try:
        return "~/" + str(path.relative_to(Path.home()))
    except ValueError:
        return str(path)


_TOML_WHERE = re.compile(r"\s*\(at line (\d+), column (\d+)\)\s*$")


def _parse(path: Path, text: str) -> object:
    if path.suffix == ".toml":
        try:
            return tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            message = str(e)
            where = _TOML_WHERE.search(message)
            if where:  # Python puts the place last, in brackets: lead with it, as for JSON
                message = f"line {where[1]}, column {where[2]}: invalid TOML: {message[:where.start()]}"
            else:
                message = f"invalid TOML: {message}"
            raise ThemeFileError(message) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise ThemeFileError(f"line {e.lineno}, column {e.colno}: invalid JSON: {e.msg}") from None


def theme_from_data(data: object) -> Theme:
    """A Theme from a file's parsed contents, every field checked; ThemeFileError says what is wrong."""
    if not isinstance(data, dict):
        raise ThemeFileError(f"expected an object/table of theme fields, found {type(data).__name__}")
    unknown = sorted(str(k) for k in data if k not in THEME_FIELDS)
    if unknown:
        raise ThemeFileError(f"unknown field{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))} "
                             f"(a theme has: {', '.join(THEME_FIELDS)})")
    name = data.get("name")
    if name is None:
        raise ThemeFileError("missing 'name'")
    if not isinstance(name, str) or not name.strip():
        raise ThemeFileError(f"'name' must be a non-empty string, not {name!r}")
    if "primary" not in data:
        raise ThemeFileError("missing 'primary' (the one colour every theme needs)")
    for key in COLOR_FIELDS:
        if key in data:
            _check_color(key, data[key])
    for key in ("dark", "ansi"):
        if key in data and not isinstance(data[key], bool):
            raise ThemeFileError(f"'{key}' must be true or false, not {data[key]!r}")
    for key in ("luminosity_spread", "text_alpha"):
        if key in data and (isinstance(data[key], bool) or not isinstance(data[key], (int, float))):
            raise ThemeFileError(f"'{key}' must be a number, not {data[key]!r}")
    variables = data.get("variables", {})
    if not isinstance(variables, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                                  for k, v in variables.items()):
        raise ThemeFileError("'variables' must map names to strings")
    for key in OWN_VARIABLES:
        if key in variables:
            _check_color(f"variables.{key}", variables[key])
    theme = Theme(**data)
    try:
        theme.to_color_system().generate()  # what Textual does with it when the theme is applied
    except (ValueError, TypeError, KeyError) as e:
        raise ThemeFileError(f"Textual cannot use it: {e}") from None
    return theme


def _check_color(key: str, value: Any) -> None:
    if not isinstance(value, str):
        raise ThemeFileError(f"'{key}' must be a colour string such as \"#5fafd7\", not {value!r}")
    try:
        Color.parse(value)
    except ColorParseError as e:
        raise ThemeFileError(f"'{key}' = {value!r} is not a colour ({e})") from None


def read_theme(path: Path) -> Theme:
    """One theme file (.json or .toml); ThemeFileError says why it cannot be used."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise ThemeFileError(f"not UTF-8 text ({e.reason} at byte {e.start})") from None
    except OSError as e:
        raise ThemeFileError(f"cannot read it: {e.strerror or e}") from None
    return theme_from_data(_parse(path, text))


def _theme_files(directory: Path, suffixes: tuple[str, ...]) -> list[Path]:
    return sorted(p for p in directory.iterdir() if p.suffix in suffixes and not p.name.startswith("."))


def load_dir(directory: Path, suffixes: tuple[str, ...] = SUFFIXES) -> tuple[list[Theme], list[str]]:
    """Every theme file in `directory` (missing: none), and a message per file that was skipped."""
    themes: list[Theme] = []
    problems: list[str] = []
    try:
        files = _theme_files(directory, suffixes)
    except FileNotFoundError:
        return themes, problems
    except OSError as e:
        return themes, [f"theme directory {directory}: cannot list it: {e.strerror or e}"]
    seen: dict[str, Path] = {}
    for path in files:
        try:
            theme = read_theme(path)
        except ThemeFileError as e:
            problems.append(f"theme file {path}: {e}; skipped")
            continue
        alike = [k for k in ("success", "warning", "error") if not getattr(theme, k)]
        if alike:
            problems.append(f"theme file {path}: no {', '.join(map(repr, alike))}: Textual uses the primary colour "
                            f"instead, so OK/WARN/ERR may look alike; loaded anyway")
        if theme.name in seen:
            problems.append(f"theme file {path}: theme {theme.name!r} is also in {seen[theme.name].name}; "
                            f"using this one")
            themes = [t for t in themes if t.name != theme.name]
        seen[theme.name] = path
        themes.append(theme)
    return themes, problems


def load_all_themes(user_dir: Path | None = None) -> tuple[list[Theme], list[str]]:
    """cephtui's themes, then the user's (`user_dir`, default user_themes_dir()); and what was skipped.

    A user theme with the name of a built-in one overrides it: the user's version is returned in its place.
    Problems are also logged.
    """
    builtin, problems = load_dir(builtin_themes_dir(), (".json",))
    builtin.sort(key=lambda t: (t.name != DEFAULT_THEME, t.name))  # the default first
    user, user_problems = load_dir(user_themes_dir() if user_dir is None else user_dir)
    problems += user_problems
    by_name = {t.name: t for t in builtin}
    for theme in user:
        if theme.name in by_name or theme.name in BUILTIN_THEMES:
            log.info("user theme %r replaces the built-in one", theme.name)
        by_name[theme.name] = theme
    for problem in problems:
        log.warning("%s", problem)
    return list(by_name.values()), problems


def theme_names(user_dir: Path | None = None) -> list[str]:
    """Every name `theme = "..."` may take: cephtui's themes, the user's, then Textual's own."""
    themes, _ = load_all_themes(user_dir)
    names = [t.name for t in themes]
    return names + [n for n in BUILTIN_THEMES if n not in names]
