"""Screen rows: :class:`Line` (one str and one attribute per cell, a soft-wrap flag) and
:class:`LazyLine` (one-style text whose cells are built on first use), and how a renderer reads
either, or a plain ``str`` row of the scrollback."""

from __future__ import annotations

from types import MemberDescriptorType

from primetui.shell.term.attrs import DEFAULT, Attr
from primetui.shell.term.charwidth import char_width


class Line:
    """One row of cells."""

    __slots__ = ("chars", "attrs", "wrapped")

    def __init__(self, cols: int, fill: Attr = DEFAULT) -> None:
        self.chars: list[str] = [" "] * cols
        self.attrs: list[Attr] = [fill] * cols
        self.wrapped = False  # True when the text continues on the next row (soft wrap)

    @classmethod
    def from_text(cls, text: str, cols: int, style: Attr, fill: Attr) -> "Line":
        line = cls.__new__(cls)
        n = len(text)
        line.chars = list(text)
        line.chars.extend(" " * (cols - n))
        line.attrs = [style] * n + [fill] * (cols - n) if style is not fill else [style] * cols
        line.wrapped = False
        return line

    def text(self) -> str:
        """The row's text with trailing blanks removed."""
        return "".join(self.chars).rstrip()

    def resize(self, cols: int) -> None:
        have = len(self.chars)
        if cols < have:
            del self.chars[cols:]
            del self.attrs[cols:]
            if cols and self.chars[cols - 1] and char_width(self.chars[cols - 1][0]) == 2:
                self.chars[cols - 1] = " "  # a wide char cut in half
        elif cols > have:
            self.chars.extend(" " * (cols - have))
            self.attrs.extend([DEFAULT] * (cols - have))


# the slot descriptors, used by LazyLine to fill them on first use
_CHARS: MemberDescriptorType = Line.__dict__["chars"]
_ATTRS: MemberDescriptorType = Line.__dict__["attrs"]


class LazyLine(Line):
    """A row of one-style text whose cells are built only when something reads them.

    The bulk path makes a screenful of these per chunk; most scroll away unseen, so building
    two lists of ``cols`` cells for each would be most of the cost of a flood.
    """

    __slots__ = ("_text", "_style", "_fill", "_cols", "_runs", "_raw")

    def __init__(
        self,
        text: str,
        cols: int,
        style: Attr,
        fill: Attr,
        runs: list[tuple[str, Attr]] | None = None,
        raw: str | None = None,
    ) -> None:
        self._text: str | None = text
        self._style, self._fill, self._cols = style, fill, cols
        self._runs = runs  # several styles: (text, attr) runs whose texts join to ``text``
        self._raw = raw  # or the row as received (text and SGR), starting in ``style``; runs on demand
        self.wrapped = False

    def _resolve_runs(self) -> None:
        if self._raw is not None:
            from primetui.shell.term.attrs import SGR_SPLIT, runs_of

            self._runs = runs_of(self._raw, self._style, SGR_SPLIT.split)
            self._raw = None

    def pending_runs(self) -> list[tuple[str, Attr]] | None:
        """The row as runs without building cells, or None once it has cells."""
        text = self._text
        if text is None:
            return None
        self._resolve_runs()
        runs = list(self._runs) if self._runs is not None else ([(text, self._style)] if text else [])
        pad = self._cols - len(text)
        if pad > 0:
            runs.append((" " * pad, self._fill))
        return runs

    def _materialize(self) -> None:
        text, self._text = self._text, None
        assert text is not None
        n, cols = len(text), self._cols
        chars = list(text)
        chars.extend(" " * (cols - n))
        _CHARS.__set__(self, chars)
        style, fill = self._style, self._fill
        self._resolve_runs()
        if self._runs is not None:
            attrs: list[Attr] = []
            for run_text, a in self._runs:
                attrs.extend([a] * len(run_text))
            attrs.extend([fill] * (cols - n))
            self._runs = None
            _ATTRS.__set__(self, attrs)
            return
        _ATTRS.__set__(self, [style] * n + [fill] * (cols - n) if style is not fill else [style] * cols)

    @property  # type: ignore[override]
    def chars(self) -> list[str]:
        if self._text is not None:
            self._materialize()
        return _CHARS.__get__(self)

    @chars.setter
    def chars(self, value: list[str]) -> None:
        if self._text is not None:
            self._materialize()
        _CHARS.__set__(self, value)

    @property  # type: ignore[override]
    def attrs(self) -> list[Attr]:
        if self._text is not None:
            self._materialize()
        return _ATTRS.__get__(self)

    @attrs.setter
    def attrs(self, value: list[Attr]) -> None:
        if self._text is not None:
            self._materialize()
        _ATTRS.__set__(self, value)

    def text(self) -> str:
        return self._text.rstrip() if self._text is not None else super().text()

    def resize(self, cols: int) -> None:
        if self._text is not None and (self._runs is None and self._raw is None or len(self._text) <= cols):
            self._text = self._text[:cols]
            self._cols = cols
        else:
            super().resize(cols)


def entry_runs(entry: Line | str) -> list[tuple[str, Attr]]:
    """A row as runs of same-attribute text (what a renderer turns into styled segments)."""
    if isinstance(entry, str):
        return [(entry, DEFAULT)]
    if isinstance(entry, LazyLine):
        runs = entry.pending_runs()
        if runs is not None:
            return runs
    chars, attrs = entry.chars, entry.attrs
    n = len(attrs)
    if not n:
        return []
    first = attrs[0]
    if attrs.count(first) == n:
        return [("".join(chars), first)]
    runs = []
    start = 0
    cur = first
    for i in range(1, n):
        a = attrs[i]
        if a is not cur:
            runs.append(("".join(chars[start:i]), cur))
            start, cur = i, a
    runs.append(("".join(chars[start:]), cur))
    return runs


def is_blank_row(line: Line) -> bool:
    """Nothing on it: no text, no background, not continued on the next row."""
    return not line.wrapped and not line.text() and all(a[1] == -1 for a in line.attrs)


def entry_text(entry: Line | str) -> str:
    """Text of a screen row or scrollback entry, trailing blanks removed."""
    return entry.rstrip() if isinstance(entry, str) else entry.text()
