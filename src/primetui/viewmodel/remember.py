"""What the dashboard keeps between sessions: the watched runs and the theme, in the preferences file.

Only when the app was given a preferences path (the real entry point does; tests pass one of their
own or none). A failed write is one warning toast; the session goes on with what it has.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


def initial_watched(prefs: Any) -> set[str]:
    ids = getattr(prefs, "watched", None) or []
    return {str(i) for i in ids if str(i).strip()}


def remember(app: Any) -> str | None:
    """Write the app's theme and watched runs into its preferences file; returns a problem or None."""
    path: Path | None = getattr(app, "prefs_file", None)
    if path is None:
        return None
    from primetui.config.prefs import Prefs, PrefsError, save_prefs

    prefs = app.prefs if isinstance(app.prefs, Prefs) else Prefs()
    watched = sorted(app.state.watched)
    # Only a theme the user picked is kept: a detected one would pin this terminal's guess for good.
    theme = str(app.theme or "") if getattr(app, "theme_chosen", False) else prefs.theme
    if prefs.watched == watched and prefs.theme == theme:
        return None
    updated = prefs.model_copy(update={"watched": watched, "theme": theme})
    try:
        save_prefs(updated, path)
    except (PrefsError, OSError) as exc:
        return f"Could not keep your watches and theme for next time ({exc}); they last for this session."
    app.prefs = updated
    return None
