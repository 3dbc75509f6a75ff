"""Alt+key in the shell pane (issue 18 item 20): what the user's terminal sends as ESC + key goes to
the program as ESC + key, as in plain xterm or tmux, while the dashboard keeps Textual's key names.

Each row: the bytes a terminal sends, through the app's input parser and the pane, to the bytes
the program reads."""

from __future__ import annotations

import asyncio

import pytest
from textual.app import App, ComposeResult

from primetui.ui.terminal.altkeys import AltKeepingParser, install
from primetui.ui.terminal.view import TerminalView
from tests.waiting import input_applied, quiet

ROWS = [
    # (what the terminal sends, what the program must read)
    ("\x1b.", b"\x1b."),  # M-. : bash yank-last-arg (was a plain '.')
    ("\x1b1", b"\x1b1"),  # M-1 : digit argument (was '¡')
    ("\x1b2", b"\x1b2"),
    ("\x1b-", b"\x1b-"),
    ("\x1b/", b"\x1b/"),  # M-/ : complete filename
    ("\x1b,", b"\x1b,"),
    ("\x1b_", b"\x1b_"),  # M-_ : yank-last-arg
    ("\x1b\r", b"\x1b\r"),  # M-Enter
    ("\x1bb", b"\x1bb"),  # M-b : backward-word (was ctrl+left)
    ("\x1bf", b"\x1bf"),  # M-f : forward-word (was ctrl+right)
    ("\x1b\x7f", b"\x1b\x7f"),  # M-backspace : backward-kill-word (was ctrl+w)
    ("\x1bd", b"\x1bd"),
    ("\x1bB", b"\x1bB"),
    ("\x1b<", b"\x1b<"),
    # Keys without Alt are unchanged.
    (".", b"."),
    ("1", b"1"),
    ("\r", b"\r"),
    ("\x1b[1;5D", b"\x1b[1;5D"),  # a real ctrl+left
    ("\x1b[A", b"\x1b[A"),
    ("\x1b", b"\x1b"),  # escape alone
]


class Recorder:
    """A transport that records what the program would read."""

    def __init__(self) -> None:
        self.sent = bytearray()
        self._never = asyncio.Event()

    async def start(self, cols: int, rows: int) -> None:
        return None

    async def read(self) -> bytes:
        await self._never.wait()
        return b""

    def write(self, data: bytes) -> None:
        self.sent += data

    def resize(self, cols: int, rows: int) -> None:
        return None

    async def close(self) -> None:
        self._never.set()


class PaneApp(App):
    def __init__(self, transport: Recorder) -> None:
        super().__init__()
        self.transport = transport

    def compose(self) -> ComposeResult:
        yield TerminalView(self.transport, id="term")


def _parse(data: str) -> list:
    parser = AltKeepingParser()
    events = list(parser.feed(data))
    events += list(parser.feed(""))  # end of input: a lone ESC is flushed as escape
    return [e for e in events if e.__class__.__name__ == "Key"]


async def test_alt_keys_reach_the_program_as_esc_plus_key() -> None:
    rec = Recorder()
    app = PaneApp(rec)
    async with app.run_test(size=(60, 10)) as pilot:
        view = app.query_one(TerminalView)
        view.focus()
        await quiet(pilot)
        got = {}
        for data, _want in ROWS:
            rec.sent.clear()
            keys = _parse(data)
            assert keys, data
            for key in keys:
                app.post_message(key)  # as the driver posts what it parsed
            await input_applied(pilot)
            got[data] = bytes(rec.sent)
        assert got == {data: want for data, want in ROWS}


@pytest.mark.parametrize(
    "data,name", [("\x1bb", "ctrl+left"), ("\x1b.", "full_stop"), ("\x1b1", "inverted_exclamation_mark")]
)
def test_the_dashboard_keeps_textual_key_names(data: str, name: str) -> None:
    [key] = _parse(data)
    assert key.key == name  # inputs and bindings elsewhere behave as before


def test_install_makes_the_linux_driver_use_the_parser() -> None:
    from textual.drivers import linux_driver

    install()
    assert linux_driver.XTermParser is AltKeepingParser


def test_an_alt_letter_is_not_lost_to_the_next_escape_sequence() -> None:
    """Issue 43 finding 3: ``ESC r`` followed, before ESCDELAY, by another ESC (a second Alt key, a mouse
    report, the terminal's answer to the output gate's ``CSI 6n``) was reissued by Textual as ``^`` and
    ``r``, so the find bar's alt+r / alt+c typed ``^r`` / ``^c`` into its field."""
    parser = AltKeepingParser()
    events = list(parser.feed("\x1br\x1bc\x1b[2;5R\x1b[<35;10;5M\x1ba"))  # no end of input: nothing is flushed
    keys = [e.key for e in events if e.__class__.__name__ == "Key"]
    assert keys == ["alt+r", "alt+c", "alt+a"]
    assert [e.__class__.__name__ for e in events] == ["Key", "Key", "CursorPosition", "MouseMove", "Key"]
