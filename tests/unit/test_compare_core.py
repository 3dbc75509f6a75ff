"""Config diff (only differing keys, defaults marked) and run summaries (final/best loss, best eval)."""

from __future__ import annotations

from primetui.monitor_core.compare import summarize
from primetui.sft.diff import DEFAULT, SET, UNSET, config_diff, flatten


def test_flatten_gives_dotted_leaf_keys():
    assert flatten({"optim": {"lr": 1e-3, "betas": [0.9, 0.95]}, "max_steps": 5, "wandb": {}}) == {
        "optim.lr": 1e-3,
        "optim.betas": [0.9, 0.95],
        "max_steps": 5,
        "wandb": {},
    }


def test_diff_lists_only_keys_that_differ_and_marks_inherited_defaults():
    a = {"max_steps": 10, "optim": {"lr": 2e-5}, "data": {"seq_len": 2048}}
    b = {
        "max_steps": 30,
        "optim": {"lr": 3e-3, "weight_decay": 0.01},
        "data": {"seq_len": 2048},
        "model": {"name": "x"},
    }
    diff = config_diff([a, b])
    assert list(diff) == ["max_steps", "model.name", "optim.lr"]  # seq_len equal; weight_decay 0.01 is the default
    assert [(v.value, v.source) for v in diff["model.name"]] == [("Qwen/Qwen3-0.6B", DEFAULT), ("x", SET)]
    assert diff["model.name"][0].text() == "Qwen/Qwen3-0.6B (default)"
    assert diff["max_steps"][1].text() == "30"


def test_keys_the_schema_does_not_know_are_unset_where_missing():
    diff = config_diff([{"custom": {"thing": 1}}, {}])
    assert [(v.value, v.source) for v in diff["custom.thing"]] == [(1, SET), (None, UNSET)]
    assert diff["custom.thing"][1].text() == "-"


def test_int_and_float_of_the_same_value_are_equal():
    assert config_diff([{"optim": {"lr": 1}}, {"optim": {"lr": 1.0}}]) == {}


def test_summary_final_best_loss_and_best_eval():
    rows = [
        {"step": 1, "loss/mean": 3.0},
        {"step": 2, "loss/mean": 2.0},
        {"step": 3, "loss/mean": float("nan")},
        {"step": 4, "loss/mean": 2.5, "eval/reverse/reward/mean": 0.4},
        {"step": 6, "loss/mean": 2.4, "eval/reverse/reward/mean": 0.7},
        {"step": 8, "eval/reverse/reward/mean": 0.6},
    ]
    s = summarize(rows)
    assert (s.steps, s.final_loss, s.best_loss, s.best_loss_step) == (8, 2.4, 2.0, 2)
    assert (s.eval_key, s.best_eval, s.best_eval_step) == ("eval/reverse/reward/mean", 0.7, 6)
    assert summarize([]).to_json()["final_loss"] is None
