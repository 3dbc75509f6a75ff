"""Keys in one burst through the real terminal (issue 43 findings 2 and 3).

Each burst is written to the pane in one write (a tmux buffer pasted raw, no bracketed-paste
markers), as a fast typist over SSH, a paste of keys or a macro delivers it: the app reads it in
one go. Before the carried fix of Textual #6605 the typed character of a burst ran before the bound
keys in front of it (``End BSpace 4`` gave ``4max_steps = 1``; ``ctrl+g 4 enter`` typed ``4⏎`` into
the file), and the find bar's alt+r / alt+c typed ``^r`` / ``^c`` into its field (``tmux send-keys
M-r``: ESC r, as a terminal sends Alt+r).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.test_editor_paste_tmux import alive, start_editor

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]

TEXT = "max_steps = 10\n[optim]\nlr = 1e-5\nweight_decay = 0.01\n"


@pytest.fixture
def editor(tmp_path: Path):
    yield from start_editor(tmp_path, TEXT)


def write(tmux, tmp_path: Path, data: bytes) -> None:
    """One write of ``data`` to the app's terminal."""
    chunk = tmp_path / "burst.bin"
    chunk.write_bytes(data)
    tmux.run("load-buffer", "-b", "burst", str(chunk))
    tmux.run("paste-buffer", "-d", "-r", "-b", "burst", "-t", tmux.target)


def test_bursts_of_keys_apply_in_the_order_typed(editor, tmp_path):
    tmux, path = editor
    tmux.wait("weight_decay", limit=90)
    tmux.wait(" error(s)")  # the first check is in: the editor is set up
    # ctrl+g 4 enter in one write. (Sent at the very first frame it still raced once in a full run; the
    # Pilot test test_go_to_line_typed_ahead_while_nothing_has_focus holds the screen-level hand-on.)
    write(tmux, tmp_path, b"\x074\r")
    tmux.wait("Ln 4, Col 1")
    # ctrl+g 1 enter End Backspace 4, all in one write with the text area focused: the keys behind the
    # enter that closes the dialog go on to the file (before keyorder.AnswersEnterNow they were lost).
    write(tmux, tmp_path, b"\x071\r\x1b[F\x7f4")
    tmux.wait("max_steps = 14")
    tmux.wait("Ln 1, Col 15")
    screen = tmux.screen()
    assert "4max_steps" not in screen and "Go to line" not in screen and "weight_decay = 0.01" in screen
    # ctrl+r (replace; ctrl+h is backspace in tmux), l, r in one burst: the bar opens, then takes both letters.
    write(tmux, tmp_path, b"\x12lr")
    screen = tmux.wait("1 of 1")  # "lr" found in "lr = 1e-5": the field holds what was typed, in order
    assert _find_field(screen) == ["Find", "lr"]
    # alt+r and alt+c as a terminal sends them (ESC r, ESC c), in one send-keys: before the fix in
    # ui/terminal/altkeys.py Textual reissued ESC r as "^r" when the next ESC came before ESCDELAY.
    tmux.keys("M-r", "M-c")
    screen = tmux.wait("regex on (alt+r) · case on (alt+c)")
    assert _find_field(screen) == ["Find", "lr"]
    tmux.keys("M-r")  # alone too (the terminal's answer to the app's cursor question may follow it)
    screen = tmux.wait("regex off (alt+r) · case on (alt+c)")
    assert _find_field(screen) == ["Find", "lr"]
    assert alive(tmux)


def _find_field(screen: str) -> list[str]:
    return next(line for line in screen.splitlines() if line.strip().startswith("Find")).split()
