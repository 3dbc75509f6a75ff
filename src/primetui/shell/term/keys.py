"""What a terminal sends for keys, pastes and mouse events (xterm conventions).

Key names follow Textual's spelling (``"ctrl+left"``, ``"pageup"``, ``"f5"``, ``"shift+tab"``) but
nothing here imports Textual: the mapping is plain data, testable on its own.
"""

from __future__ import annotations

_CSI_LETTER = {"up": "A", "down": "B", "right": "C", "left": "D", "home": "H", "end": "F"}
_CSI_TILDE = {
    "insert": 2,
    "delete": 3,
    "pageup": 5,
    "pagedown": 6,
    "f5": 15,
    "f6": 17,
    "f7": 18,
    "f8": 19,
    "f9": 20,
    "f10": 21,
    "f11": 23,
    "f12": 24,
    "f13": 25,
    "f14": 26,
    "f15": 28,
    "f16": 29,
    "f17": 31,
    "f18": 32,
    "f19": 33,
    "f20": 34,
}
_SS3 = {"f1": "P", "f2": "Q", "f3": "R", "f4": "S"}
_SIMPLE = {"enter": b"\r", "tab": b"\t", "backspace": b"\x7f", "escape": b"\x1b", "space": b" "}
_CTRL_SYMBOL = {
    "space": 0,
    "@": 0,
    "at": 0,
    "left_square_bracket": 27,
    "[": 27,
    "backslash": 28,
    "\\": 28,
    "right_square_bracket": 29,
    "]": 29,
    "circumflex_accent": 30,
    "^": 30,
    "underscore": 31,
    "_": 31,
    "question_mark": 127,
    "?": 127,
}
_MODS = ("shift", "alt", "meta", "ctrl")


def _split(key: str) -> tuple[set[str], str]:
    parts = key.split("+")
    mods = set()
    while len(parts) > 1 and parts[0] in _MODS:
        mods.add(parts.pop(0))
    if "meta" in mods:
        mods.discard("meta")
        mods.add("alt")
    return mods, "+".join(parts)


def encode_key(
    key: str, character: str | None = None, *, app_cursor: bool = False, sent: bytes | None = None
) -> bytes | None:
    """Bytes for a key press, or None when the key has no terminal encoding.

    ``sent`` is what the user's terminal sent when that was Alt+key (ESC then the key): xterm
    forwards exactly that, whatever name the key was given on the way (``.``, ``¡``, ctrl+left).
    """
    if sent is not None and len(sent) >= 2 and sent[:1] == b"\x1b":
        return sent
    mods, base = _split(key)
    mod_param = 1 + ("shift" in mods) + 2 * ("alt" in mods) + 4 * ("ctrl" in mods)
    if base in _CSI_LETTER:
        letter = _CSI_LETTER[base]
        if mod_param > 1:
            return f"\x1b[1;{mod_param}{letter}".encode()
        return (f"\x1bO{letter}" if app_cursor else f"\x1b[{letter}").encode()
    if base in _CSI_TILDE:
        code = _CSI_TILDE[base]
        return (f"\x1b[{code};{mod_param}~" if mod_param > 1 else f"\x1b[{code}~").encode()
    if base in _SS3:
        return (f"\x1b[1;{mod_param}{_SS3[base]}" if mod_param > 1 else f"\x1bO{_SS3[base]}").encode()
    if base == "tab" and mods == {"shift"}:
        return b"\x1b[Z"
    prefix = b"\x1b" if "alt" in mods else b""
    if "ctrl" in mods:
        if len(base) == 1 and base.isalpha():
            return prefix + bytes([ord(base.lower()) & 0x1F])
        if base in _CTRL_SYMBOL:
            return prefix + bytes([_CTRL_SYMBOL[base]])
        if base in _SIMPLE:
            return prefix + (b"\x08" if base == "backspace" else _SIMPLE[base])
        if character and len(character) == 1 and ord(character) < 32:
            return prefix + character.encode()
        return None
    if base in _SIMPLE:
        return prefix + _SIMPLE[base]
    if character:
        return prefix + character.encode("utf-8", "replace")
    if len(base) == 1:
        return prefix + base.encode()
    return None


def encode_paste(text: str, *, bracketed: bool) -> bytes:
    """A paste as the program should receive it: newlines as CR, wrapped in 200~/201~ if asked.

    The end marker is removed from the pasted text so a paste can never end bracketed mode early
    and have the rest run as typed commands.
    """
    text = text.replace("\r\n", "\r").replace("\n", "\r")
    if bracketed:
        text = text.replace("\x1b[201~", "")
        return b"\x1b[200~" + text.encode() + b"\x1b[201~"
    return text.encode()


WHEEL_UP, WHEEL_DOWN = 64, 65


def encode_mouse(
    kind: str,
    button: int,
    x: int,
    y: int,
    *,
    mode: int,
    encoding: str,
    shift: bool = False,
    alt: bool = False,
    ctrl: bool = False,
) -> bytes | None:
    """Bytes for a mouse event at 0-based cell (x, y), or None if the program did not ask for it.

    ``kind`` is press, release, drag, move or wheel (``button`` WHEEL_UP / WHEEL_DOWN for wheel);
    ``button`` is 0 left, 1 middle, 2 right. ``mode`` and ``encoding`` are the terminal's
    ``mouse_mode`` (9, 1000, 1002, 1003) and ``mouse_encoding`` ("", "sgr", "utf8", "urxvt").
    """
    if not mode:
        return None
    if mode == 9 and kind != "press":
        return None
    if kind == "drag" and mode not in (1002, 1003):
        return None
    if kind == "move" and mode != 1003:
        return None
    code = button
    if kind == "release" and encoding != "sgr":
        code = 3
    if kind in ("drag", "move"):
        code = (3 if kind == "move" else button) + 32
    if mode != 9:
        code += 4 * shift + 8 * alt + 16 * ctrl
    cx, cy = x + 1, y + 1
    if encoding == "sgr":
        return f"\x1b[<{code};{cx};{cy}{'m' if kind == 'release' else 'M'}".encode()
    if encoding == "urxvt":
        return f"\x1b[{code + 32};{cx};{cy}M".encode()
    if encoding == "utf8":
        return b"\x1b[M" + (chr(code + 32) + chr(min(cx, 2015) + 32) + chr(min(cy, 2015) + 32)).encode()
    if cx > 223 or cy > 223:
        return None  # the classic encoding cannot express it
    return b"\x1b[M" + bytes([code + 32, cx + 32, cy + 32])


def encode_focus(focused: bool) -> bytes:
    return b"\x1b[I" if focused else b"\x1b[O"
