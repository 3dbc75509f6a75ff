"""Every colour in the dashboard comes from the theme: no literal colour in ui/ (docs/themes.md).

A literal colour (``"bold red"``, ``Style(color="green")``, ``[red]…[/]`` markup, ``color: white``
or ``#ff0000`` in CSS, ``Color(255, 0, 0)``) draws the same in every theme: unreadable on the light
theme, off the ANSI theme's palette. Widgets take theme variables instead (``tone_style``, or a
component class styled with ``$error`` in a .tcss file).

The scan reads every string in ui/'s Python (docstrings aside) and its .tcss files. What counts as
a colour is what rich and Textual themselves parse as one: rich's named colours (``red``,
``bright_red``, ``grey50``…), Textual's CSS names (``tomato``), ``ansi_*``, ``#rrggbb``, ``rgb(…)``.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from rich.color import Color as RichColor, ColorParseError
from textual.color import Color as TextualColor

UI = Path(__file__).resolve().parents[1] / "src" / "primetui" / "ui"
# rich's style attributes (rich.style.Style.STYLE_ATTRIBUTES and their short forms) and its keywords
STYLE_WORDS = {
    "bold",
    "b",
    "dim",
    "d",
    "italic",
    "i",
    "underline",
    "u",
    "blink",
    "blink2",
    "reverse",
    "r",
    "conceal",
    "c",
    "strike",
    "s",
    "underline2",
    "uu",
    "frame",
    "encircle",
    "overline",
    "o",
    "not",
    "on",
    "none",
}
NOT_A_HUE = {"default", "none", "transparent", "auto"}  # the terminal's own colours: no theme can disagree
CSS_COLOUR = re.compile(
    r"(?<![\w-])((?:[a-z]+-)*(?:color|background|tint|border(?:-[a-z]+)*|outline(?:-[a-z]+)*))\s*:"
    r"\s*([^;}\n]+)"
)
HEX = re.compile(r"(?<![\w-])#[0-9a-fA-F]{6}(?:[0-9a-fA-F]{2})?\b|\brgba?\(|\bhsla?\(")


def is_colour(word: str) -> bool:
    if word.lower() in NOT_A_HUE or word.startswith("$"):
        return False
    for parse in (RichColor.parse, TextualColor.parse):
        try:
            parse(word)
        except (ColorParseError, Exception):  # noqa: BLE001 - textual raises its own ColorParseError
            continue
        return True
    return False


def style_colours(text: str) -> list[str]:
    """The literal colours of ``text`` when the whole of it reads as a rich style (``"bold red on white"``)."""
    words = text.split()
    if not words or not all(w.lower() in STYLE_WORDS or is_colour(w) for w in words):
        return []
    return [w for w in words if w.lower() not in STYLE_WORDS and is_colour(w)]


def literal_colours(text: str) -> list[str]:
    """Every literal colour in one string: as a style, in markup tags, in CSS declarations, as hex or rgb()."""
    found = style_colours(text)
    for tag in re.findall(r"\[/?([^\[\]\n]+)\]", text):
        found += style_colours(tag)
    for _prop, value in CSS_COLOUR.findall(text):
        found += [w for w in value.split() if is_colour(w)]
    found += [m.group(0) for m in HEX.finditer(text)]
    return list(dict.fromkeys(found))


def _docstrings(tree: ast.AST) -> set[int]:
    nodes = [tree, *(n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)))]
    return {
        id(n.body[0].value)
        for n in nodes
        if n.body and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)
    }


def python_colours(source: str) -> list[tuple[int, str]]:
    """(line, colour) of each literal colour in a module's strings and ``Color(…)`` calls with constant channels."""
    tree = ast.parse(source)
    skip = _docstrings(tree)
    hits: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            hits += [(node.lineno, c) for c in literal_colours(node.value)]
        elif isinstance(node, ast.Call) and node.args and all(isinstance(a, ast.Constant) for a in node.args):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name in ("Color", "from_rgb", "from_triplet", "from_hsl", "ColorTriplet"):
                hits.append((node.lineno, ast.unparse(node)))
    return hits


def scan() -> list[str]:
    found = []
    for path in sorted(UI.rglob("*.py")):
        hits = python_colours(path.read_text(encoding="utf-8"))
        found += [f"{path.relative_to(UI)}:{line}: {c!r}" for line, c in hits]
    for path in sorted(UI.rglob("*.tcss")):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.lstrip().startswith("/*"):
                found += [f"{path.relative_to(UI)}:{n}: {c!r}" for c in literal_colours(line)]
    return found


def test_no_literal_colour_in_ui():
    found = scan()
    assert not found, (
        "literal colours in ui/ (use the theme: tone_style, or a component class with $error etc.):\n"
        + "\n".join(found)
    )


def test_the_scan_sees_each_way_of_writing_a_colour():
    """Each form the scan must catch, and the theme's ways it must let pass."""
    caught = {
        'text.append(marks, style="bold red")': ["red"],
        'body.append(line, style="green" if plus else "red")': ["green", "red"],
        'Text("!", style="bold bright_red on grey50")': ["bright_red", "grey50"],
        'Style(color="#ff0000")': ["#ff0000"],
        'Style(bgcolor="rgb(10,20,30)")': ["rgb(10,20,30)", "rgb("],
        'self.notify("[b yellow]careful[/]")': ["yellow"],
        'DEFAULT_CSS = "X > .y { color: tomato; border: tall ansi_blue; }"': ["tomato", "ansi_blue"],
        'self.styles.background = "magenta"': ["magenta"],
        "Color(255, 0, 0)": ["Color(255, 0, 0)"],
    }
    for source, colours in caught.items():
        assert [c for _, c in python_colours(source)] == colours, source
    passed = [
        'text.append(x, style=tone_style(self, "error"))',
        'Text(x, style="bold reverse")',
        'Text(x, style="dim strike")',
        'DEFAULT_CSS = "X > .y { color: $error; background: $warning 12%; border: tall $accent; }"',
        'self.query_one("#run-checkpoints")',
        'Text("[F4 fix]")',
        'Static("Reload the file or overwrite it")',
        'Style(color="default")',
        'def f():\n    """Drawn in red, as the theme says."""',
    ]
    for source in passed:
        assert python_colours(source) == [], source
