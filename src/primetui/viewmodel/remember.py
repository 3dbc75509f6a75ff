"""What the dashboard keeps between sessions: the watched runs and the theme, in the preferences file.

Only when the app was given a preferences path (the real entry point does; tests pass one of their
own or none). Each write is a change merged into the file as it is now (``update_prefs``: a run
watched or unwatched, a theme picked), never this dashboard's whole list, so a second dashboard on
the same machine keeps its own watches and cannot bring back a run the first one stopped watching.
A failed write is one warning toast; the session goes on with what it has.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Iterable
from pathlib import Path
from typing import Any


def initial_watched(prefs: Any) -> set[str]:
    ids = getattr(prefs, "watched", None) or []
    return {str(i) for i in ids if str(i).strip()}


def remember(app: Any, *, watch: Iterable[str] = (), unwatch: Iterable[str] = ()) -> str | None:
    """Merge this dashboard's change (runs just watched or unwatched, a theme the user picked) into
    its preferences file, and adopt the watched runs the file then holds; returns a problem or None."""
    path: Path | None = getattr(app, "prefs_file", None)
    if path is None:
        return None
    from primetui.config.prefs import Prefs, PrefsError, update_prefs

    prefs = app.prefs if isinstance(app.prefs, Prefs) else Prefs()
    watch, unwatch = list(watch), list(unwatch)
    values: dict[str, Any] = {}
    # Only a theme the user picked is kept: a detected one would pin this terminal's guess for good.
    if getattr(app, "theme_chosen", False) and str(app.theme or "") != prefs.theme:
        values["theme"] = str(app.theme or "")
    if not values and not watch and not unwatch:
        return None
    try:
        merged = update_prefs(path, values=values, watch=watch, unwatch=unwatch)
    except (PrefsError, OSError) as exc:
        return f"Could not keep your watches and theme for next time ({exc}); they last for this session."
    app.prefs = prefs.model_copy(update={"watched": list(merged.watched), "theme": values.get("theme", prefs.theme)})
    adopt_watched(app, set(merged.watched))
    return None


def adopt_watched(app: Any, ids: set[str]) -> bool:
    """Make ``ids`` the app's watched runs (the same set object); True when that changed them."""
    current: set[str] = app.state.watched
    if current == ids:
        return False
    current.clear()
    current.update(ids)
    return True


def watched_on_disk(app: Any, exact: bool = False) -> set[str] | None:
    """The watched runs in the preferences file when it changed since the last look (another
    dashboard watched or unwatched a run); None when it did not, or there is no file to share.

    The look is a ``stat`` (the file is read only when it changed), cheap enough for every poll;
    ``exact`` reads it anyway (before an announcement: two writes in one clock tick look alike)."""
    path: Path | None = getattr(app, "prefs_file", None)
    if path is None:
        return None
    try:
        st = os.stat(path)
    except OSError:
        return None
    signature = (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino)
    if signature == getattr(app, "_watched_signature", None) and not exact:
        return None
    app._watched_signature = signature
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    ids = data.get("watched")
    return {str(i) for i in ids if str(i).strip()} if isinstance(ids, list) else set()
