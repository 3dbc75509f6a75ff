"""The runs list on a narrow terminal with a sweep's long names (issue 41, finding 11): the names were kept
at 26 cells and Loss was left out, while an ETA of "-" on every row kept its place; at 30 columns the names
went altogether. Now the names give way (ending in …) so Loss stays, an all-"-" ETA gives its room to the
next column, and a 30-column list still shows the names' beginnings. The cells are the ones
the screen draws for a sweep's running runs (``RunsScreen.fit_columns``, what ``render_rows`` calls)."""

from __future__ import annotations

import pytest
from rich.text import Text

from primetui.ui.screens.runs import RunsScreen
from primetui.viewmodel import run_columns

LABELS = {c.key: c.label for c in run_columns.SCREEN}
DEFAULT = [c.key for c in run_columns.SCREEN if c.default and c.key != "kind"]


def sweep_cells(eta: str) -> dict[str, dict[str, Text]]:
    cells = {}
    for i, lr in enumerate(("1e-05", "3e-05", "0.0001", "0.0003")):
        cells[f"r{i}"] = {
            "status": Text("● RUNNING ◉"),
            "name": Text(f"lrbs-optim.lr={lr}-data.batch_size=16"),
            "steps": Text("█████▏   18/20"),
            "loss": Text("▁▂▃▅▇█▇█ 89.69e+18 @18"),
            "elapsed": Text("4m 12s"),
            "eta": Text(eta),
            "model": Text("PrimeIntellect/Qwen3-0.6B-Reverse-Text-SFT"),
            "started": Text("12:01"),
            "gpus": Text("1× CPU"),
            "volume": Text("research"),
        }
    return cells


@pytest.mark.parametrize("room", [70, 78])  # 80 columns less the scrollbar, and a little less
def test_long_names_give_way_to_the_loss_column(room):
    cells = sweep_cells("1m 40s")
    columns, _hidden = RunsScreen.fit_columns(DEFAULT, LABELS, cells, room)
    assert columns[:4] == ["status", "name", "steps", "loss"], columns
    names = [str(c["name"]) for c in cells.values()]
    assert all(n.endswith("…") and len(n) >= 12 for n in names), names
    need = sum(max(len(LABELS[k]) + 2, *(c[k].cell_len for c in cells.values())) + 2 for k in columns)
    assert need <= room


def test_an_eta_of_dashes_gives_its_room_to_the_next_column():
    columns, _ = RunsScreen.fit_columns(DEFAULT, LABELS, sweep_cells("-"), 120)
    assert "eta" not in columns and "started" in columns, columns
    with_eta, _ = RunsScreen.fit_columns(DEFAULT, LABELS, sweep_cells("1m 40s"), 120)
    assert "eta" in with_eta


def test_names_stay_on_a_30_column_terminal():
    """At 30 columns the Run column was left out whole: now it shows the names' beginnings."""
    cells = sweep_cells("1m 40s")
    columns, _ = RunsScreen.fit_columns(DEFAULT, LABELS, cells, 28)
    assert columns == ["status", "name"], columns
    names = [str(c["name"]) for c in cells.values()]
    assert all(n.startswith("lrbs") and n.endswith("…") for n in names), names
