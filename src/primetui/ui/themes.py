"""Theme files: TOML files whose keys are Textual ``Theme`` fields.

Shipped themes live inside the package (``primetui/ui/theme_files/``: dark, light, ANSI-16) and are
found through :mod:`importlib.resources`, so an installed wheel has them; users add
their own as ``*.toml`` in ``<config dir>/themes/``. A broken file is skipped with a one-sentence
warning instead of stopping the app.
"""

from __future__ import annotations

import tomllib
from importlib import resources
from dataclasses import fields
from pathlib import Path

from textual.theme import Theme

DEFAULT_THEME = "primetui-dark"
_THEME_FIELDS = {f.name for f in fields(Theme)}


def shipped_theme_dir() -> Path:
    """The shipped themes, inside the package (the same in a checkout and in an installed wheel)."""
    return Path(str(resources.files("primetui.ui") / "theme_files"))


def load_theme_file(path: Path) -> Theme:
    """Parse one theme file; raises ValueError with a user-facing sentence when it is broken."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ValueError(f"Theme file {path} could not be read ({exc}); fix it or delete it.") from exc
    unknown = set(data) - _THEME_FIELDS
    if unknown:
        raise ValueError(f"Theme file {path} has unknown keys {sorted(unknown)}; use Textual Theme fields only.")
    if "name" not in data or "primary" not in data:
        raise ValueError(f"Theme file {path} needs at least `name` and `primary`; add them.")
    try:
        return Theme(**data)
    except TypeError as exc:  # pragma: no cover - guarded by the key check above
        raise ValueError(f"Theme file {path} is not a valid theme ({exc}).") from exc


def load_themes(*dirs: Path | None) -> tuple[list[Theme], list[str]]:
    """All themes from the given directories (later ones win), plus warnings for broken files."""
    themes: dict[str, Theme] = {}
    warnings: list[str] = []
    for directory in dirs:
        if directory is None or not directory.is_dir():
            continue
        for path in sorted(directory.glob("*.toml")):
            try:
                theme = load_theme_file(path)
            except ValueError as exc:
                warnings.append(str(exc))
                continue
            themes[theme.name] = theme
    return list(themes.values()), warnings
