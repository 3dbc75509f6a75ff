"""The terminal pane with a real program on a real pty: what the user types and sees."""

from __future__ import annotations

import shutil
import signal
import sys
from pathlib import Path

import pytest
from textual.app import App, ComposeResult

from primetui.shell.term.transport import PtyTransport
from primetui.ui.terminal.view import TerminalView
from tests.waiting import input_applied, quiet, until

BASH = shutil.which("bash")
pytestmark = pytest.mark.skipif(BASH is None, reason="bash is needed for the pty tests")


def shell() -> PtyTransport:
    return PtyTransport(
        [BASH, "--norc", "--noprofile", "-i"], env={"PS1": "$ ", "HISTFILE": "/dev/null", "LANG": "C.UTF-8"}
    )


class TermApp(App):
    def __init__(self, transport) -> None:
        super().__init__()
        self.transport = transport
        self.ended: list[str] = []

    def compose(self) -> ComposeResult:
        yield TerminalView(self.transport, id="term")

    def on_terminal_view_ended(self, event: TerminalView.Ended) -> None:
        self.ended.append(event.reason)


def screen_text(app: App) -> str:
    return "\n".join(app.query_one(TerminalView).term.history_text())


async def test_typed_command_output_appears_in_the_pane() -> None:
    app = TermApp(shell())
    async with app.run_test(size=(80, 20)) as pilot:
        view = app.query_one(TerminalView)
        await until(pilot, lambda: "$" in screen_text(app), '"$" in screen_text(app)')
        await pilot.press(*"echo hello-$((6*7))", "enter")
        await until(pilot, lambda: "hello-42" in screen_text(app), '"hello-42" in screen_text(app)')
        await pilot.press(*"stty size", "enter")
        await until(pilot, lambda: "20 80" in screen_text(app), '"20 80" in screen_text(app)')
        assert view.term.text_lines()[view.term.y].startswith("$")
        await pilot.press("ctrl+d")
        await until(pilot, lambda: bool(app.ended), "bool(app.ended)")
        assert "exited with status 0" in app.ended[0]


async def test_resize_reaches_the_program() -> None:
    app = TermApp(shell())
    async with app.run_test(size=(80, 20)) as pilot:
        await until(pilot, lambda: "$" in screen_text(app), '"$" in screen_text(app)')
        await pilot.resize_terminal(100, 30)
        await quiet(pilot)
        await pilot.press(*"stty size", "enter")
        await until(pilot, lambda: "30 100" in screen_text(app), '"30 100" in screen_text(app)')


def foreground_is(pid: int | None, name: str) -> bool:
    """The terminal of process ``pid`` has in its foreground the process group of a process called ``name``."""
    try:
        tpgid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[5])
        return Path(f"/proc/{tpgid}/comm").read_text().strip() == name
    except (OSError, ValueError, IndexError):
        return False


async def test_ctrl_c_and_app_keys_go_to_the_program() -> None:
    app = TermApp(shell())
    async with app.run_test(size=(80, 20)) as pilot:
        await until(pilot, lambda: "$" in screen_text(app), '"$" in screen_text(app)')
        await pilot.press(*"sleep 30", "enter")
        # the interrupt must reach sleep, not bash before it forked (a ^C lost there let sleep run 30 s)
        await until(pilot, lambda: foreground_is(app.transport.pid, "sleep"), "sleep in the terminal's foreground")
        await pilot.press("ctrl+c")
        await pilot.press(*"echo after-interrupt-$?", "enter")
        await until(
            pilot,
            lambda: "after-interrupt-130\n" in screen_text(app) + "\n",
            "the status of the interrupted sleep (130: SIGINT)",
        )
        # ctrl+p is the app's palette key elsewhere; in the pane it is bash's previous-history
        await pilot.press("ctrl+p", "enter")
        await until(
            pilot,
            lambda: screen_text(app).count("after-interrupt") >= 4,
            'screen_text(app).count("after-interrupt") >= 4',
        )


async def test_the_program_gets_sigint_whatever_the_dashboard_ignores() -> None:
    """A dashboard started with `&` from a script ignores SIGINT (as a CI job did); the pane's program must not,
    or ^C cannot stop it: it gets every signal at its default action, as from a terminal emulator."""
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        transport = PtyTransport(["sleep", "60"])
        await transport.start(80, 24)
    finally:
        signal.signal(signal.SIGINT, before)
    try:
        status = Path(f"/proc/{transport.pid}/status").read_text().splitlines()
        ignored = int(next(line for line in status if line.startswith("SigIgn:")).split()[1], 16)
        assert not ignored & (1 << (signal.SIGINT - 1)), f"the program ignores SIGINT (SigIgn {ignored:#x})"
    finally:
        await transport.close()


async def test_paste_is_bracketed_when_the_program_asks() -> None:
    app = TermApp(
        PtyTransport(
            [
                sys.executable,
                "-c",
                "import "
                "sys,tty;tty.setraw(0);sys.stdout.write('\\x1b[?2004hready\\r\\n');sys.stdout.flush();print(repr(sys.stdin.buffer.read1(100)))",
            ]
        )
    )
    async with app.run_test(size=(80, 10)) as pilot:
        await until(pilot, lambda: "ready" in screen_text(app), '"ready" in screen_text(app)')
        app.query_one(TerminalView).post_message(__import__("textual").events.Paste("ls\nrm"))
        await until(
            pilot, lambda: r"\x1b[200~ls\rrm\x1b[201~" in screen_text(app), "the program echoing the bracketed paste"
        )


async def test_scrollback_scrolls_and_search_finds() -> None:
    app = TermApp(
        PtyTransport(
            [sys.executable, "-c", "print('\\n'.join(f'line {i}' for i in range(300))); import time; time.sleep(30)"]
        )
    )
    async with app.run_test(size=(60, 10)) as pilot:
        view = app.query_one(TerminalView)
        await until(pilot, lambda: "line 299" in screen_text(app), '"line 299" in screen_text(app)')
        view.focus()
        await pilot.press("shift+pageup")
        await input_applied(pilot)
        assert view.scrolled_back
        assert view.search("line 42")
        await quiet(pilot)
        assert view.match_text == "line 42"
        await pilot.press("escape")
        await input_applied(pilot)
        assert not view.scrolled_back


@pytest.mark.skipif(shutil.which("vim") is None, reason="vim is not installed")
async def test_vim_runs_in_the_alternate_screen_and_gives_the_shell_back(tmp_path) -> None:
    transport = PtyTransport(
        [BASH, "--norc", "--noprofile", "-i"], env={"PS1": "$ ", "HISTFILE": "/dev/null"}, cwd=str(tmp_path)
    )
    app = TermApp(transport)
    async with app.run_test(size=(80, 20)) as pilot:
        view = app.query_one(TerminalView)
        await until(pilot, lambda: "$" in screen_text(app), '"$" in screen_text(app)')
        await pilot.press(*"vim -u NONE -N -n -i NONE notes.txt", "enter")
        await until(
            pilot,
            lambda: view.term.alt_screen and view.term.text_lines()[1].startswith("~"),
            'view.term.alt_screen and view.term.text_lines()[1].startswith("~")',
        )
        await pilot.press("i", *"hello from vim", "escape", *":wq", "enter")
        await until(
            pilot,
            lambda: not view.term.alt_screen and (tmp_path / "notes.txt").exists(),
            'not view.term.alt_screen and (tmp_path / "notes.txt").exists()',
        )
        assert (tmp_path / "notes.txt").read_text() == "hello from vim\n"
        assert any("vim -u NONE" in line for line in view.term.text_lines())  # the shell's screen is back
        assert not any(line.startswith("~") for line in view.term.text_lines())


async def test_mouse_reaches_a_program_that_asked_for_it() -> None:
    program = (
        "import sys,tty,os;tty.setraw(0);sys.stdout.write('\\x1b[?1000h\\x1b[?1006hmouse-on\\r\\n');sys.stdout.flush();"
        "print(repr(os.read(0, 100)), end='\\r\\n');sys.stdout.flush();import time;time.sleep(5)"
    )
    app = TermApp(PtyTransport([sys.executable, "-c", program]))
    async with app.run_test(size=(80, 10)) as pilot:
        view = app.query_one(TerminalView)
        await until(
            pilot,
            lambda: "mouse-on" in screen_text(app) and view.term.mouse_mode == 1000,
            '"mouse-on" in screen_text(app) and view.term.mouse_mode == 1000',
        )
        await pilot.click(TerminalView, offset=(10, 3))
        await until(pilot, lambda: "\\x1b[<0;11;4M" in screen_text(app), '"\\\\x1b[<0;11;4M" in screen_text(app)')


async def test_a_program_copying_with_osc52_reaches_the_clipboard() -> None:
    import base64

    payload = base64.b64encode(b"copied in the shell").decode()
    program = (
        f"import sys,time;sys.stdout.write('\\x1b]52;c;{payload}\\x07copied\\r\\n');sys.stdout.flush();time.sleep(5)"
    )
    app = TermApp(PtyTransport([sys.executable, "-c", program]))
    async with app.run_test(size=(80, 10)) as pilot:
        await until(pilot, lambda: "copied" in screen_text(app), '"copied" in screen_text(app)')
        await until(pilot, lambda: app.clipboard == "copied in the shell", 'app.clipboard == "copied in the shell"')


async def test_dragging_selects_text_and_copies_it() -> None:
    from textual import events

    program = (
        "import sys,time;sys.stdout.write('first line\\r\\nsecond line here\\r\\n');sys.stdout.flush();time.sleep(5)"
    )
    app = TermApp(PtyTransport([sys.executable, "-c", program]))
    async with app.run_test(size=(80, 10)) as pilot:
        view = app.query_one(TerminalView)
        await until(pilot, lambda: "second line here" in screen_text(app), '"second line here" in screen_text(app)')

        def mouse(cls, x: int, y: int, button: int = 1):
            return cls(view, x, y, 0, 0, button, False, False, False, screen_x=x, screen_y=y)

        view.post_message(mouse(events.MouseDown, 6, 0))
        view.post_message(mouse(events.MouseMove, 5, 1))
        view.post_message(mouse(events.MouseUp, 5, 1))
        await until(pilot, lambda: app.clipboard == "line\nsecond", 'app.clipboard == "line\\nsecond"')


async def test_the_end_of_a_flood_is_drawn_without_further_input() -> None:
    program = (
        "import sys, time; sys.stdout.write(''.join(f'{i}\\n' for i in range(1, 200001)));"
        "sys.stdout.write('tail-line'); sys.stdout.flush(); time.sleep(60)"
    )
    app = TermApp(PtyTransport([sys.executable, "-c", program]))
    async with app.run_test(size=(80, 20)) as pilot:
        view = app.query_one(TerminalView)

        def drawn() -> bool:
            return (
                view.term.text_lines()[view.term.y] == "tail-line"
                and view._frame_handle is None
                and view.bytes_drawn == view.bytes_in
            )

        await until(pilot, drawn, "the last frame covers every byte read")
        assert view.render_line(view.term.y).text.startswith("tail-line")
        assert view.term.text_lines()[view.term.y - 1] == "200000"


async def test_output_that_stops_brings_the_flood_rate_frame_forward() -> None:
    from primetui.ui.terminal import view as view_module

    app = TermApp(PtyTransport([sys.executable, "-c", "import time; time.sleep(60)"]))
    async with app.run_test(size=(80, 20)) as pilot:
        view = app.query_one(TerminalView)
        await until(pilot, lambda: view.running, "view.running")
        frames = view.frames
        view.bytes_in += 10 * view_module.FLOOD_BYTES  # as if a flood had just been read
        view._last_frame = now = view_module.time.monotonic()
        view.schedule_frame()
        flood_due = view.frame_due
        # the delay, not the instant: a relative tolerance on a clock hours in grows past the gap
        assert flood_due - now == pytest.approx(1 / view_module.FLOOD_FPS, abs=1e-6)
        view.schedule_frame(prompt=True)  # a short read: the output drained
        assert view.frame_due < flood_due
        assert view.frame_due <= max(view_module.time.monotonic() + view_module.PROMPT_DELAY, now + 1 / view_module.FPS)
        await until(pilot, lambda: view.frames > frames, "view.frames > frames")


async def test_a_key_typed_in_a_flood_has_each_read_drawn_at_once() -> None:
    """The echo of a key typed while output pours goes to the screen with the read that brings it,
    not at the flood's 20 frames a second (nor at our 60 on top of Textual's own)."""
    from primetui.ui.terminal import view as view_module

    app = TermApp(PtyTransport([sys.executable, "-c", "import time; time.sleep(60)"]))
    async with app.run_test(size=(80, 20)) as pilot:
        view = app.query_one(TerminalView)
        await until(pilot, lambda: view.running, "view.running")
        view.focus()
        await pilot.press("x")  # sent to the program: its echo is due
        await until(pilot, lambda: view._frame_handle is None, "no frame pending")
        view.bytes_in += 10 * view_module.FLOOD_BYTES  # a flood read after the key
        view._last_frame = now = view_module.time.monotonic()
        frames = view.frames
        view.schedule_frame()
        assert view.frames == frames + 1 and view._frame_handle is None  # drawn with this read
        view._last_frame = now
        view._typed_at -= 1.0  # the key is long past: the next flood read gets the flood's rate again
        view.bytes_in += 10 * view_module.FLOOD_BYTES
        if view._frame_handle is not None:
            view._frame_handle.stop()
            view._frame_handle = None
        view.schedule_frame()
        assert view.frame_due - now == pytest.approx(1 / view_module.FLOOD_FPS, abs=1e-6)
