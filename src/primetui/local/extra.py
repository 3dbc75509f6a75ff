"""Whether this install carries the local platform (the extra ``primetui[local]``), and how to add it.

Imports only the standard library: the base install asks it before anything of the platform loads.
"""

from __future__ import annotations

import importlib.util
import shlex
import sys
from pathlib import Path

# Distribution -> import name of what only the local platform needs (pyproject: optional-dependencies.local).
LOCAL_DISTRIBUTIONS = {
    "fastapi": "fastapi",
    "uvicorn": "uvicorn",
    "pyarrow": "pyarrow",
    "huggingface-hub": "huggingface_hub",
    "boto3": "boto3",
}


def missing() -> list[str]:
    """The distributions of the extra that this Python cannot import (empty when the extra is installed)."""
    absent = []
    for distribution, module in LOCAL_DISTRIBUTIONS.items():
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            absent.append(distribution)
    return absent


def install_command() -> str:
    """The one command that adds the extra to the environment this primetui runs from."""
    from primetui import __version__

    requirement = shlex.quote(f"primetui[local]=={__version__}")
    if (Path(sys.prefix) / "uv-receipt.toml").exists():  # an environment made by `uv tool install`
        return f"uv tool install {requirement}"
    python = shlex.quote(sys.executable)
    if importlib.util.find_spec("pip") is not None:
        return f"{python} -m pip install {requirement}"
    return f"uv pip install --python {python} {requirement}"  # uv venvs come without pip


def missing_sentence() -> str | None:
    """One sentence naming what is missing and the command that adds it, or None when nothing is."""
    absent = missing()
    if not absent:
        return None
    return (
        f"the local platform needs {', '.join(absent)}, which this install leaves out; "
        f"add them with: {install_command()}"
    )
