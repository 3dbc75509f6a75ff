"""What the log view's mixins (drawing, queries, selection) read of ``LogView``, declared for the type checker.

``LogRender``, ``LogSearch`` and ``LogSelection`` are halves of one widget: the state they share is
``LogView``'s own, set in its ``__init__``. At run time ``LogViewBase`` is ``object``; to the checker
it is that ``ScrollView`` with the attributes and methods the mixins use of each other.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import re

    import numpy as np
    from rich.style import Style
    from textual.scroll_view import ScrollView
    from textual.strip import Strip

    from primetui.monitor_core.filters import LogQuery

    class LogViewBase(ScrollView):
        Changed: Any
        Prompt: Any
        StepPicked: Any

        source: Any
        source_names: list[str] | None
        rows: np.ndarray | None
        filter_query: LogQuery | None
        min_level: int
        search_query: LogQuery | None
        _search_text_re: re.Pattern[str] | None
        search_hits: np.ndarray
        search_pos: int
        paused: bool
        pointer: int | None
        mark: int | None
        new_lines: int
        wrap: bool
        _stick: bool
        _seen_end: int
        _seen_first: int
        _frame_key: tuple[Any, ...] | None
        _frame: list[Strip]
        _line_cache: dict[int, tuple[object, Strip]]
        _styles: dict[str, Style]
        error_message: str | None
        empty_message: str
        _current_hit: int

        @property
        def row_count(self) -> int: ...
        @property
        def at_bottom(self) -> bool: ...
        def global_index(self, row: int) -> int: ...
        def row_of(self, g: int) -> int: ...
        def scroll_to_row(self, row: int) -> None: ...
        def _flush_size(self) -> None: ...
        def _update_virtual_size(self) -> None: ...
        def _catch_up(self) -> None: ...
        def _goto_global(self, g: int) -> None: ...
        def _visible_hits(self) -> np.ndarray: ...

else:
    LogViewBase = object
