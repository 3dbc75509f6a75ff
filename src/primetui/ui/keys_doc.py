"""docs/keys.md, generated from every binding with an id (the app, each screen, each panel).

The top of the ui layer: it imports the app and the screens to list their bindings, so nothing
below may import it. ``uv run python -m primetui.ui.keys_doc > docs/keys.md``.
"""

from __future__ import annotations

from textual.binding import Binding

from primetui.ui.keys import binding_table


def all_owners() -> list[tuple[str, type]]:
    from primetui.ui.app import PrimeApp
    from primetui.ui.screens.compare import CompareScreen
    from primetui.ui.screens.compare_legend import CompareLegend
    from primetui.ui.screens.models import ModelsScreen
    from primetui.ui.screens.run import RunScreen
    from primetui.ui.screens.runs import RunsScreen
    from primetui.ui.screens.volumes import VolumesScreen
    from primetui.ui.widgets import ConfirmScreen, FormScreen

    owners: list[tuple[str, type]] = [
        ("Everywhere", PrimeApp),
        ("Runs", RunsScreen),
        ("Run", RunScreen),
        ("Compare", CompareScreen),
        ("Compare: the legend (L)", CompareLegend),
        ("Volumes", VolumesScreen),
        ("Models", ModelsScreen),
        ("Confirm dialog", ConfirmScreen),
        ("Forms", FormScreen),
    ]
    return owners + panel_owners()


def panel_owners() -> list[tuple[str, type]]:
    """Bindings with ids of the editor, monitor and terminal packages (mounted by the dashboard)."""
    import importlib
    import inspect
    import pkgutil

    out: list[tuple[str, type]] = []
    for package, area in (
        ("primetui.ui.editor", "Editor"),
        ("primetui.ui.monitor", "Run monitor"),
        ("primetui.ui.terminal", "Volume shell"),
    ):
        try:
            pkg = importlib.import_module(package)
        except Exception:  # noqa: BLE001 - a package that is not there has no keys to list
            continue
        # Subpackages too (the log view is one): a class is listed from the module that defines it.
        for info in sorted(pkgutil.walk_packages(pkg.__path__, prefix=f"{package}."), key=lambda m: m.name):
            try:
                module = importlib.import_module(info.name)
            except Exception:  # noqa: BLE001
                continue
            for _, cls in inspect.getmembers(module, inspect.isclass):
                if cls.__module__ != module.__name__:
                    continue
                if any(isinstance(b, Binding) and b.id for b in cls.__dict__.get("BINDINGS", [])):
                    out.append((f"{area}: {cls.__name__}", cls))
    return out


def keys_markdown() -> str:
    lines = [
        "# Keys",
        "",
        "Generated from the bindings in the code (`uv run python -m primetui.ui.keys_doc > docs/keys.md`).",
        "Every key can be changed in the `[keymap]` table of your preferences file, by binding id:",
        "",
        "```toml",
        "[keymap]",
        '"runs.filter" = "f"',
        '"run.stop" = "ctrl+x"',
        "```",
        "",
        "The palette (ctrl+p) and mouse clicks reach the same actions.",
    ]
    area = None
    for info in binding_table(all_owners()):
        if info.area != area:
            area = info.area
            lines += ["", f"## {area}", "", "| Key | Action | Binding id |", "|---|---|---|"]
        lines.append(f"| `{info.keys}` | {info.description} | `{info.id}` |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":  # pragma: no cover
    print(keys_markdown(), end="")
