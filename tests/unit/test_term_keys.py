"""What the pane sends for keys, pastes and mouse events (xterm conventions)."""

from __future__ import annotations

from primetui.shell.term.keys import WHEEL_UP, encode_key, encode_mouse, encode_paste


def test_plain_control_and_alt_keys() -> None:
    assert encode_key("a", "a") == b"a"
    assert encode_key("enter") == b"\r"
    assert encode_key("backspace") == b"\x7f"
    assert encode_key("ctrl+c", None) == b"\x03"
    assert encode_key("ctrl+right_square_bracket") == b"\x1d"
    assert encode_key("alt+b", "b") == b"\x1bb"
    assert encode_key("shift+tab") == b"\x1b[Z"
    assert encode_key("é", "é") == "é".encode()


def test_cursor_keys_follow_application_mode_and_modifiers() -> None:
    assert encode_key("up") == b"\x1b[A"
    assert encode_key("up", app_cursor=True) == b"\x1bOA"
    assert encode_key("ctrl+left") == b"\x1b[1;5D"
    assert encode_key("shift+end") == b"\x1b[1;2F"


def test_function_and_editing_keys() -> None:
    assert encode_key("f1") == b"\x1bOP"
    assert encode_key("f5") == b"\x1b[15~"
    assert encode_key("ctrl+f5") == b"\x1b[15;5~"
    assert encode_key("pageup") == b"\x1b[5~"
    assert encode_key("delete") == b"\x1b[3~"


def test_paste_bracketed_and_sanitised() -> None:
    assert encode_paste("a\nb", bracketed=False) == b"a\rb"
    assert encode_paste("x\x1b[201~rm -rf /\n", bracketed=True) == b"\x1b[200~xrm -rf /\r\x1b[201~"


def test_mouse_reports_only_when_asked_and_in_the_asked_encoding() -> None:
    assert encode_mouse("press", 0, 4, 2, mode=0, encoding="") is None
    assert encode_mouse("press", 0, 4, 2, mode=1000, encoding="sgr") == b"\x1b[<0;5;3M"
    assert encode_mouse("release", 0, 4, 2, mode=1000, encoding="sgr") == b"\x1b[<0;5;3m"
    assert encode_mouse("release", 0, 4, 2, mode=1000, encoding="") == b"\x1b[M#%#"
    assert encode_mouse("drag", 0, 1, 1, mode=1000, encoding="sgr") is None
    assert encode_mouse("drag", 0, 1, 1, mode=1002, encoding="sgr") == b"\x1b[<32;2;2M"
    assert encode_mouse("wheel", WHEEL_UP, 0, 0, mode=1000, encoding="sgr", ctrl=True) == b"\x1b[<80;1;1M"
    assert encode_mouse("press", 0, 300, 1, mode=1000, encoding="") is None  # beyond the classic range
