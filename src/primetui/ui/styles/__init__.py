"""The dashboard's layout as Textual CSS files, shipped in the wheel next to this module.

Each screen (and the app) names its file with ``CSS_PATH = tcss("run.tcss")``; reusable widgets keep
their own ``DEFAULT_CSS``. The files are found through ``importlib.resources``, so they are read from
the installed package wherever it lives (see docs/architecture.md, "Where styles live").
"""

from __future__ import annotations

import atexit
from contextlib import ExitStack
from importlib.resources import as_file, files
from pathlib import Path

_extracted = ExitStack()
atexit.register(_extracted.close)


def tcss(name: str) -> Path:
    """The path of the shipped stylesheet ``name`` (``"run.tcss"``), absolute, as ``CSS_PATH`` wants it."""
    resource = files(__name__).joinpath(name)
    if not resource.is_file():
        raise FileNotFoundError(f"no stylesheet {name!r} in {__name__}")
    if isinstance(resource, Path):
        return resource.resolve()
    # A package inside a zip: Textual reads CSS with open(), so give it a real file for the process's life.
    return _extracted.enter_context(as_file(resource))
