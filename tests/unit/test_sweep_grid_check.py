"""A sweep's grid as a whole (issue 41, finding 6): space, GPUs and cost together; names already taken."""

from __future__ import annotations

import tomllib

import pytest

from primetui.sft.preflight import _space_check
from primetui.sft.sizing import parse_size
from primetui.sft.sweep import SweepError, expand, name_clashes, new_prefix, parse_sets, unique_names
from primetui.sft.sweep_check import Price, grid_check
from primetui.sft.templates import WALKTHROUGH

# The walkthrough's 0.6B model keeping 6 checkpoints: 6 × 7.2 GB = 43.2 GB a run, the figure.
SIX_KEPT = WALKTHROUGH.replace("max_steps = 10", "max_steps = 60").replace("keep_last = 1", "keep_last = 6")
VOLUME_50GI = parse_size("50Gi")  # 53.7 GB, the volume


def _grid(values: str, text: str = SIX_KEPT) -> tuple[list[str], list[dict]]:
    variants = expand(text, parse_sets([f"optim.lr={values}"]), "lr")
    return [v.name for v in variants], [tomllib.loads(v.text) for v in variants]


def test_three_runs_that_fit_alone_do_not_fit_together():
    names, configs = _grid("1e-5,3e-5,1e-4")
    for config in configs:  # each run alone passes the pre-flight's Space line
        assert _space_check(config, VOLUME_50GI).state == "ok"
    grid = grid_check(configs, names, VOLUME_50GI)
    assert grid.blocked and grid.state == "fail"
    assert grid.line() == (
        "3 runs · 3 GPUs · cost: no on-demand GPU price listed · checkpoints 3 × 43.2 GB = 129.6 GB "
        "> volume 53.7 GB — expand the volume, lower keep_last or split the sweep"
    )
    assert grid.to_json()["checkpoint_bytes"] == 3 * 43_200_000_000


def test_a_grid_that_fits_is_ok_and_priced_per_hour_from_the_on_demand_types():
    names, configs = _grid("1e-5,3e-5")
    grid = grid_check(configs, names, VOLUME_50GI * 2, [Price("H100_80GB", 2.49)])
    assert not grid.blocked
    assert grid.line() == (
        "2 runs · 2 GPUs · cost: $4.98/h on on-demand H100_80GB · checkpoints 2 × 43.2 GB = 86.4 GB "
        "of 107.4 GB (plus your dataset)"
    )
    two = grid_check(configs, names, None, [Price("A", 1.0), Price("B", 3.5)])
    assert "cost: $2.00–7.00/h on on-demand GPUs (2 types)" in two.line() and two.state == "skip"


def test_gpus_add_up_and_runs_of_unknown_size_are_said():
    text = SIX_KEPT.replace("num_train_gpus = 1", "num_train_gpus = 4").replace(
        "gpus_per_node = 1", "gpus_per_node = 4"
    )
    names, configs = _grid("1e-5,3e-5", text)
    configs[1]["model"]["name"] = "/volume/models/mine"  # no parameter count in the name
    grid = grid_check(configs, names, VOLUME_50GI)
    assert grid.gpus == 8 and grid.unknown == 1
    assert (
        "checkpoints 1 × 43.2 GB = 43.2 GB of 53.7 GB (plus your dataset); 1 run(s) of unknown size not counted"
        in grid.line()
    )
    assert grid.state == "skip"


def test_names_the_platform_has_are_found_and_a_new_prefix_is_offered():
    names, configs = _grid("1e-5,3e-5")
    existing = {"lr-lr=1e-5", "lr-2-lr=3e-5", "other"}
    assert name_clashes(names, existing) == (["lr-lr=1e-5"], [])
    assert new_prefix("lr", names, existing) == "lr-3"  # lr-2 has one of these names too
    assert new_prefix("lr-3", names, existing) == "lr-4"  # a generation counts on
    assert new_prefix("sft-2026", ["sft-2026-x"], set()) == "sft-2026-2"  # a year is not a generation
    grid = grid_check(configs, names, None, existing=existing)
    assert grid.clash_sentence("lr", "--name lr-3 (or --suffix)") == (
        "1 of the 2 run names is already on the platform (lr-lr=1e-5), so the runs list would mix this sweep with the "
        "earlier one under 'lr'; --name lr-3 (or --suffix) makes every name new."
    )
    assert grid_check(configs, names, None, existing={"other"}).clash_sentence("lr", "F6") is None


def test_a_name_the_grid_gives_twice_is_said_and_made_new():
    variants = expand(WALKTHROUGH, parse_sets(['optim.lr="1e-4",1e-4']), "p")  # a string and a float read alike
    names = [v.name for v in variants]
    assert names == ["p-lr=1e-4", "p-lr=1e-4"]
    assert name_clashes(names, set()) == ([], ["p-lr=1e-4"])
    assert "the grid gives p-lr=1e-4 to more than one run" in grid_check([{}, {}], names, None).clash_sentence(
        "p", None
    )
    assert [v.name for v in unique_names(variants)] == ["p-lr=1e-4", "p-lr=1e-4-2"]
    named = unique_names(expand('name = "p"\n' + WALKTHROUGH, parse_sets(['optim.lr="1e-4",1e-4']), "p"))
    assert tomllib.loads(named[1].text)["name"] == "p-lr=1e-4-2"


def test_the_same_value_spelt_twice_is_refused():
    with pytest.raises(SweepError, match="a value is given twice"):
        parse_sets(["optim.lr=1e-4,0.0001"])
    assert parse_sets(["max_steps=1,1.0"])[0].values == (1, 1.0)  # an int and a float are two TOML values
