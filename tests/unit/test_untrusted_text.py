"""The one neutraliser for outside text: every control visible, nothing executable, markup literal."""

from __future__ import annotations

import pytest
from rich.segment import Segment
from rich.text import Text

from primetui.monitor_core.escapes import clean, clean_block, is_safe, neutralise, strip_sgr
from primetui.ui.safe import ControlFilter, plain


@pytest.mark.parametrize(
    "raw,shown",
    [
        ("\x1b]0;pwned\x07 \x1b[2J", "␛]0;pwned␇ ␛[2J"),
        ("\x1b]52;c;aGk=\x07", "␛]52;c;aGk=␇"),
        ("\x1b]8;;http://x/\x1b\\l", "␛]8;;http://x/␛\\l"),
        ("\x9b31m", "�31m"),
        ("\x1bPq\x1b\\\x1b_a\x1b\\", "␛Pq␛\\␛_a␛\\"),
        ("a\u202eb\u2066c\u2069", "a�b�c�"),
        ("\x7f\x1b[31mred", "␡␛[31mred"),
        ("two\nlines", "two␊lines"),
        ("[bold red]markup[/]", "[bold red]markup[/]"),
    ],
)
def test_clean_shows_every_control_as_a_symbol(raw: str, shown: str) -> None:
    assert clean(raw) == shown
    assert is_safe(clean(raw))


def test_clean_keeps_plain_text_and_reads_any_value() -> None:
    assert clean("Qwen/Qwen3-0.6B é ✓") == "Qwen/Qwen3-0.6B é ✓"
    assert clean(None) == "" and clean(42) == "42"
    assert clean_block("a\x07\nb") == "a␇\nb"


def test_plain_is_literal_text_never_markup() -> None:
    text = plain("[bold red]markup[/]\x1b]0;x\x07")
    assert isinstance(text, Text) and text.plain == "[bold red]markup[/]␛]0;x␇" and not text.spans


def test_control_filter_drops_what_a_forgotten_path_left_in_a_segment() -> None:
    segments = [Segment("ok "), Segment("\x1b]0;pwned\x07\u202e")]
    out = ControlFilter().apply(segments, None)
    assert "".join(s.text for s in out) == "ok ]0;pwned"
    clean_segments = [Segment("fine")]
    assert ControlFilter().apply(clean_segments, None) is clean_segments


def test_colour_goes_without_a_trace_and_a_tab_keeps_its_stops() -> None:
    """Exact outputs, so a neutraliser that leaves a mark where a colour was, or moves tab stops, fails
    (mutation testing, docs/testing.md)."""
    assert strip_sgr("\x1b[1;31mred\x1b[0m plain") == "red plain"
    assert strip_sgr("no escape") == "no escape"
    assert neutralise("\x1b[2m20:35\x1b[0m INFO") == "20:35 INFO"
    assert neutralise("a\tb") == "a" + " " * 7 + "b"
    assert clean("a\tb") == "a b"  # a name's tab is one space


@pytest.mark.parametrize("text", ["\x1b[31m", "a\tb", "\x07", "\u2028"], ids=["esc", "tab", "bel", "line-sep"])
def test_is_safe_says_no_to_any_control_and_to_a_tab(text: str) -> None:
    assert not is_safe(text)


def test_every_character_the_neutraliser_replaces_is_replaced_on_each_log_path_and_dropped_by_the_filter() -> None:
    """A log batch takes a fast path when it holds nothing to neutralise; that path read a copy of the list
    that had fallen behind it (a soft hyphen or a zero-width space went to the screen as it was). Every code
    point of the one list, alone, beside plain lines and beside a line of colour codes, comes out as
    :func:`neutralise` gives it, and the last-line filter drops each one."""
    from primetui.monitor_core.escapes import REPLACED
    from primetui.monitor_core.lines import LineParser
    from primetui.monitor_core.store import LogStore

    missed: list[str] = []
    # \n separates the lines of a batch; \r returns the carriage, as a progress bar's line is drawn (tested apart)
    for code in sorted(REPLACED - {0x0A, 0x0D}):
        ch = chr(code)
        for batch in ([f"a{ch}b"], ["plain", f"INFO {ch}", "more"], ["\x1b[31mred\x1b[0m", f"{ch}"]):
            store = LogStore(chunk_lines=8)
            store.append(LineParser().parse_batch(batch))
            shown = [store.text(g) for g in range(store.first, store.end)]
            if shown != [neutralise(line) for line in batch] or not all(is_safe(t) for t in shown):
                missed.append(f"U+{code:04X} in {batch!r}: {shown!r}")
        if "".join(s.text for s in ControlFilter().apply([Segment(f"a{ch}b")], None)) != "ab":
            missed.append(f"U+{code:04X} kept by the filter")
    assert not missed, missed[:10]
