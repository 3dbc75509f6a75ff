"""Where primetui's preferences file is, without the preferences model (pydantic).

:mod:`primetui.config.prefs` re-exports these; the dashboard's start uses them directly to see whether
there is a file to read at all before it pays for the model.
"""

from __future__ import annotations

import os
from pathlib import Path


def config_dir(env: dict[str, str] | None = None) -> Path:
    """primetui's config directory: PRIMETUI_CONFIG_DIR, else the platform's user config dir."""
    env = dict(os.environ) if env is None else env
    if env.get("PRIMETUI_CONFIG_DIR"):
        return Path(env["PRIMETUI_CONFIG_DIR"]).expanduser()
    import platformdirs

    return Path(platformdirs.user_config_dir("primetui"))


def prefs_path(env: dict[str, str] | None = None) -> Path:
    """The preferences file."""
    return config_dir(env) / "config.toml"
