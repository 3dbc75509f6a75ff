"""The run monitor's log view (``LogView``), in parts: the widget (``widget``), how it draws
(``render``), its filter, search and error jumps (``search``), and its pointer, range, copy and
save (``selection``). What needs no drawing is in ``primetui.viewmodel.logview``."""

from __future__ import annotations

from primetui.ui.monitor.logview.widget import LogView
from primetui.viewmodel.logview import LEVEL_CYCLE, ViewState, parse_query

__all__ = ["LEVEL_CYCLE", "LogView", "ViewState", "parse_query"]
