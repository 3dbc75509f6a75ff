"""The sweep grid: dotted keys, TOML values, names, the limit, and sentences for bad --set."""

from __future__ import annotations

import tomllib

import pytest

from primetui.sft.sweep import MAX_RUNS, SweepError, expand, parse_set, parse_sets
from primetui.sft.templates import WALKTHROUGH


def test_values_are_toml_and_commas_inside_brackets_or_quotes_do_not_split():
    axis = parse_set('data.tags=[1, 2],"a,b",true,1e-4')
    assert axis.values == ([1, 2], "a,b", True, 1e-4)
    assert axis.typed == ("[1, 2]", '"a,b"', "true", "1e-4")


def test_four_learning_rates_make_four_named_configs():
    variants = expand(WALKTHROUGH, parse_sets(["optim.lr=1e-5,3e-5,1e-4,1e-1"]), "lr")
    assert [v.name for v in variants] == ["lr-lr=1e-5", "lr-lr=3e-5", "lr-lr=1e-4", "lr-lr=1e-1"]
    assert [tomllib.loads(v.text)["optim"]["lr"] for v in variants] == [1e-5, 3e-5, 1e-4, 1e-1]
    first = tomllib.loads(variants[0].text)
    assert first["model"] == tomllib.loads(WALKTHROUGH)["model"]  # the rest is untouched


def test_a_grid_is_the_product_with_new_tables_made_and_like_keys_told_apart():
    variants = expand(
        WALKTHROUGH,
        parse_sets(["optim.lr=1e-5,1e-4", "scheduler.warmup_steps=0,5", 'data.name="x","y"', 'model.name="m"']),
        "g",
    )
    assert len(variants) == 8
    assert variants[0].name == "g-lr=1e-5-warmup_steps=0-data.name=x-model.name=m"
    assert tomllib.loads(variants[-1].text)["scheduler"]["warmup_steps"] == 5


def test_the_file_name_inside_config_becomes_each_runs_name():
    variants = expand('name = "base"\n' + WALKTHROUGH, parse_sets(["max_steps=5,10"]), "base")
    assert [tomllib.loads(v.text)["name"] for v in variants] == ["base-max_steps=5", "base-max_steps=10"]


@pytest.mark.parametrize(
    "spec, sentence",
    [
        ("optim.lr", "write it as KEY=VALUE[,VALUE…]"),
        ("optim..lr=1", "is not a dotted TOML key"),
        ("model.name=Qwen/Qwen3", "is not a TOML value; quote a string"),
        ("optim.lr=1e-4,1e-4", "a value is given twice"),
    ],
)
def test_a_bad_set_is_one_sentence(spec, sentence):
    with pytest.raises(SweepError, match=sentence.replace("[", r"\[").replace("]", r"\]").replace(".", r"\.")):
        parse_sets([spec])


def test_a_grid_over_the_limit_is_refused_with_its_size():
    values = ",".join(str(i) for i in range(1, MAX_RUNS + 2))
    with pytest.raises(SweepError, match=f"the grid has {MAX_RUNS + 1} runs, more than the {MAX_RUNS}"):
        expand(WALKTHROUGH, parse_sets([f"max_steps={values}"]), "big")


def test_a_key_below_a_plain_value_is_refused():
    with pytest.raises(SweepError, match="max_steps is a value in the file, not a table"):
        expand(WALKTHROUGH, parse_sets(["max_steps.x=1,2"]), "p")
