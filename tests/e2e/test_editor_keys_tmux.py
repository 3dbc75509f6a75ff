"""Keys in one burst through the real terminal (issue 43 findings 2 and 3).

Each burst is written to the pane in one write (a tmux buffer pasted raw, no bracketed-paste
markers), as a fast typist over SSH, a paste of keys or a macro delivers it: the app reads it in
one go. Before the carried fix of Textual #6605 the typed character of a burst ran before the bound
keys in front of it (``End BSpace 4`` gave ``4max_steps = 1``; ``ctrl+g 4 enter`` typed ``4⏎`` into
the file), and the find bar's alt+r / alt+c typed ``r`` / ``c`` into its field.
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
    tmux.wait(" error(s)")  # the first check is in: the editor is up
    write(tmux, tmp_path, b"\x1b[F\x7f4")  # End, Backspace, 4
    tmux.wait("max_steps = 14")
    write(tmux, tmp_path, b"\x074\r")  # ctrl+g, 4, Enter: go to line 4
    tmux.wait("Ln 4, Col 1")
    screen = tmux.screen()
    assert "4max_steps" not in screen and "Go to line" not in screen
    # ctrl+r (replace; ctrl+h is backspace in tmux), l, r, alt+r; then alt+c in a write of its own (Textual's
    # parser reads ESC r ESC c in one read as ^ r alt+c: a parser slip, not the key order)
    write(tmux, tmp_path, b"\x12lr\x1br")
    tmux.wait("regex on (alt+r)")
    write(tmux, tmp_path, b"\x1bc")
    screen = tmux.wait("regex on (alt+r) · case on (alt+c)")
    find_row = next(line for line in screen.splitlines() if line.strip().startswith("Find"))
    assert find_row.split() == ["Find", "lr"]  # the toggles typed nothing into the field
    assert alive(tmux)
