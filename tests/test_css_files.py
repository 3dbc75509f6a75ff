"""Styles live in files: the app's and the screens' layout in ``primetui/ui/styles/*.tcss`` (named by
``CSS_PATH``), ``DEFAULT_CSS`` only on reusable widgets (docs/architecture.md, "Where styles live")."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from importlib.resources import files
from pathlib import Path

import pytest
from textual.app import App
from textual.css.stylesheet import Stylesheet
from textual.screen import Screen

import primetui.ui
from primetui.ui.styles import tcss

STYLES = Path(primetui.ui.__file__).parent / "styles"
SHIPPED = sorted(p.name for p in STYLES.glob("*.tcss"))


def _classes() -> list[type]:
    """Every App and Screen class defined in primetui.ui."""
    found = []
    for info in pkgutil.walk_packages(primetui.ui.__path__, "primetui.ui."):
        if info.name.rsplit(".", 1)[-1] == "__main__":
            continue
        module = importlib.import_module(info.name)
        found += [
            obj
            for obj in vars(module).values()
            if inspect.isclass(obj) and obj.__module__ == module.__name__ and issubclass(obj, (App, Screen))
        ]
    return found


def _css_paths(cls: type) -> list[Path]:
    paths = cls.__dict__.get("CSS_PATH")
    if paths is None:
        return []
    return [Path(p) for p in (paths if isinstance(paths, list) else [paths])]


def _users() -> dict[str, set[str]]:
    """File name → names of the classes whose CSS_PATH names it."""
    users: dict[str, set[str]] = {}
    for cls in _classes():
        for path in _css_paths(cls):
            users.setdefault(path.name, set()).add(cls.__name__)
    return users


def test_there_are_stylesheets():
    assert "app.tcss" in SHIPPED and len(SHIPPED) > 10, SHIPPED


@pytest.mark.parametrize("name", SHIPPED)
def test_each_file_parses(name):
    sheet = Stylesheet(variables=App().get_css_variables())
    sheet.read(STYLES / name)
    sheet.parse()
    assert sheet.rules, f"{name} has no rules"


def test_each_file_is_named_by_a_css_path_and_each_css_path_is_shipped():
    users = _users()
    assert sorted(users) == SHIPPED, (
        f"not named by any CSS_PATH: {sorted(set(SHIPPED) - set(users))}; named but not shipped: "
        f"{sorted(set(users) - set(SHIPPED))}"
    )
    for cls in _classes():
        for path in _css_paths(cls):
            assert path.is_absolute() and path.parent == STYLES.resolve(), (
                f"{cls.__name__}.CSS_PATH is not from tcss(): {path}"
            )


@pytest.mark.parametrize("name", [n for n in SHIPPED if n not in ("app.tcss", "compact.tcss")])
def test_a_screens_rules_start_with_its_name(name):
    """A file's rules apply to the whole app once loaded: each rule starts with the name of a screen that
    uses the file, which keeps it to that screen (as Textual scoped the screen's DEFAULT_CSS)."""
    owners = _users()[name]
    sheet = Stylesheet(variables=App().get_css_variables())
    sheet.read(STYLES / name)
    sheet.parse()
    loose = [
        rule.css.splitlines()[0]
        for rule in sheet.rules
        for selector_set in rule.selector_set
        if selector_set.selectors[0].name not in owners
    ]
    assert not loose, f"rules in {name} not scoped to {sorted(owners)}: {loose}"


def test_no_app_or_screen_keeps_inline_css():
    inline = sorted(
        f"{cls.__module__}.{cls.__name__}.{var}"
        for cls in _classes()
        for var in ("DEFAULT_CSS", "CSS")
        if cls.__dict__.get(var)
    )
    assert not inline, f"App/Screen CSS belongs in primetui/ui/styles/*.tcss (CSS_PATH): {inline}"


def test_the_files_are_package_resources():
    package = files("primetui.ui.styles")
    assert sorted(r.name for r in package.iterdir() if r.name.endswith(".tcss")) == SHIPPED
    for name in SHIPPED:
        assert package.joinpath(name).read_text(encoding="utf-8") == tcss(name).read_text(encoding="utf-8")
    with pytest.raises(FileNotFoundError):
        tcss("no-such.tcss")
