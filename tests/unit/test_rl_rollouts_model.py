"""The RL sample and histogram rows (research §2.1, §2.3) through the wire boundary and the view model."""

from __future__ import annotations

import json
import math

from primetui.api.rl import distribution_of, sample_rows
from primetui.viewmodel import distributions as dv
from primetui.viewmodel import rollouts as rv

SYSTEM = "Reverse the text character-by-character. Put your answer in <reversed_text> tags."


def row(
    problem: int,
    sample: int,
    text: str,
    reward: float,
    advantage: float,
    *,
    prompt: str = "The community in Bruck",
    step: int = 10,
    encode: bool = False,
    truncated: bool = False,
) -> dict:
    answer = prompt[::-1]
    completion = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": prompt},
        {"role": "assistant", "content": text},
    ]
    task = {"idx": problem, "prompt": prompt, "system_prompt": SYSTEM, "answer": answer}
    info = {
        "native_trace_index": 0,
        "native_wrapper": {
            "env": {"id": "reverse-text"},
            "ok": True,
            "traces": [
                {
                    "rewards": {"lcs": {"score": reward, "weight": 1.0}},
                    "metrics": {},
                    "stop_condition": "single_turn",
                    "is_truncated": truncated,
                }
            ],
        },
    }
    out = {
        "run_id": "r1",
        "step": step,
        "tag": "",
        "problem_id": problem,
        "sample_id": sample,
        "prompt": "",
        "completion": completion,
        "trajectory": [
            {"messages": completion, "num_input_tokens": 41, "num_output_tokens": len(text), "advantage": advantage}
        ],
        "answer": "",
        "env_name": "reverse-text",
        "task": task,
        "info": info,
        "reward": reward,
        "advantage": advantage,
        "metrics": {},
        "timing": {"setup": {"start": 1.0, "end": 2.0}},
        "num_input_tokens": 41,
        "num_output_tokens": len(text),
        "created_at": "2026-08-21T22:41:07Z",
    }
    if encode:  # the Parquet upload's JSON text columns, undecoded
        for key in ("completion", "trajectory", "task", "info", "metrics", "timing"):
            out[key] = json.dumps(out[key])
    return out


def step_rows(encode: bool = False) -> list[dict]:
    rows = []
    for i, reward in enumerate((0.9, 0.5, 0.1, 0.5)):
        rows.append(
            row(
                42,
                i,
                f"<reversed_text>\nkcurB ni ytinummoc{'x' * i}\n</reversed_text>",
                reward,
                reward - 0.5,
                encode=encode,
            )
        )
    for i in range(4):  # a group with no signal: every completion the same reward
        rows.append(row(7, 4 + i, "<reversed_text>olleh</reversed_text>", 1.0, 0.0, prompt="hello", encode=encode))
    return rows


def test_decoded_and_string_encoded_columns_read_the_same() -> None:
    decoded, notes_a = sample_rows(step_rows())
    encoded, notes_b = sample_rows(step_rows(encode=True))
    assert notes_a == notes_b == []
    assert [s.model_dump() for s in decoded] == [s.model_dump() for s in encoded]
    assert encoded[0].task["answer"] == "kcurB ni ytinummoc ehT"
    assert rv.rubric_scores(encoded[0]) == {"lcs": 0.9}


def test_groups_by_problem_with_mean_spread_and_no_signal() -> None:
    samples, _ = sample_rows(step_rows(encode=True))
    step = rv.StepSamples(10)
    step.add(samples[:3], total=8)
    assert len(step.groups()) == 1 and not step.complete
    step.add(samples[3:], total=8, done=True)
    groups = {g.problem_id: g for g in step.groups()}
    first, silent = groups[42], groups[7]
    assert first.prompt == "The community in Bruck" and first.answer == "kcurB ni ytinummoc ehT"
    assert math.isclose(first.mean or 0, 0.5) and math.isclose(first.spread or 0, 0.8)
    assert math.isclose(first.advantage or 0, (0.4 + 0.0 + 0.4 + 0.0) / 4)
    assert not first.no_signal and silent.no_signal
    assert step.summary()["no_signal_groups"] == 1
    assert [g.problem_id for g in step.sorted_groups("spread")] == [42, 7]
    assert [g.problem_id for g in step.sorted_groups("reward")] == [7, 42]


def test_top_bottom_search_and_sorts() -> None:
    samples, _ = sample_rows(step_rows())
    step = rv.StepSamples(10)
    step.add(samples, done=True)
    assert [c.reward for c in step.top(2)] == [1.0, 1.0]
    assert [c.reward for c in step.top(1, bottom=True)] == [0.1]
    assert [c.sample_id for c in step.search("YTINUMMOCxx")] == [2, 3]
    assert step.search("") == []
    by_len = rv.sort_by(step.group(42).completions, rv.completion_key("length"))
    assert [c.sample_id for c in by_len] == [3, 2, 1, 0]


def test_completion_fields() -> None:
    samples, _ = sample_rows([row(1, 0, "<reversed_text>abc", 0.0, -0.2, truncated=True)])
    c = rv.completion_of(samples[0])
    assert c.text == "<reversed_text>abc" and c.truncated and c.tokens_out == len(c.text) and c.advantage == -0.2


def test_legacy_metrics_dict_and_text_columns() -> None:
    legacy = {
        "step": 4,
        "problem_id": 3,
        "sample_id": 0,
        "prompt": "abc",
        "completion": "cba",
        "answer": "cba",
        "reward": 1,
        "metrics": json.dumps({"lcs_reward_func": 1.0}),
        "info": "not json",
    }
    samples, notes = sample_rows([legacy])
    c = rv.completion_of(samples[0])
    assert notes == [] and c.text == "cba" and c.rubric == {"lcs_reward_func": 1.0}
    assert rv.prompt_text(samples[0]) == "abc" and rv.answer_text(samples[0]) == "cba"
    assert samples[0].info == "not json"


def test_hostile_rows_are_dropped_or_cleaned_with_notes() -> None:
    raw = [
        "nope",
        {"step": "ten"},
        {"step": -1},
        {
            "step": 3,
            "problem_id": True,
            "reward": "1.0",
            "advantage": 2**70,
            "completion": "[" * 100 + "]" * 100,
            "env_name": "\x1b]52;c;ZXZpbA==\x07evil",
        },
    ]
    samples, notes = sample_rows(raw)
    assert len(samples) == 1
    s = samples[0]
    assert s.problem_id is None and s.reward is None and s.advantage is None and s.completion is None
    assert any("not an object" in n for n in notes) and any("step is not a number" in n for n in notes)
    assert any("reward is not a number" in n for n in notes) and any("nested too deep" in n for n in notes)
    from primetui.monitor_core.escapes import clean

    assert "\x1b" not in clean(s.env_name) and "\x07" not in clean(s.env_name)


def test_char_diff_marks_missing_and_extra() -> None:
    runs = rv.char_diff("abXd", "abcd")
    assert runs == [("equal", "ab"), ("missing", "c"), ("extra", "X"), ("equal", "d")]
    assert "".join(t for op, t in runs if op != "extra") == "abcd"
    assert "".join(t for op, t in runs if op != "missing") == "abXd"
    assert rv.parsed_answer("<reversed_text>\n cba \n</reversed_text>") == "cba"


def test_sample_json_is_exact() -> None:
    samples, _ = sample_rows([row(1, 0, "x\x1b[31m", 0.5, 0.0, encode=True)])
    data = json.loads(rv.sample_json(samples[0]))
    assert data["completion"][-1]["content"] == "x\x1b[31m" and data["task"]["answer"] == "kcurB ni ytinummoc ehT"


def test_neighbour_step() -> None:
    assert rv.neighbour_step([10, 20, 30], None, 0) == 30
    assert rv.neighbour_step([10, 20, 30], 20, -1) == 10
    assert rv.neighbour_step([10, 20, 30], 30, 1) == 30
    assert rv.neighbour_step([10, 20, 30], 25, 0) == 20
    assert rv.neighbour_step([], 5, 1) is None


# ---- histograms ------------------------------------------------------------------------------------


def cli_fixture(step: int, counts: list[int], low: float = 0.0, high: float = 1.0, stats: bool = False) -> dict:
    width = (high - low) / len(counts)
    bins = [
        {
            "binStart": low + i * width,
            "binEnd": low + (i + 1) * width,
            "count": c,
            "range": f"{low + i * width:.3f}-{low + (i + 1) * width:.3f}",
        }
        for i, c in enumerate(counts)
    ]
    data: dict = {"chartData": {"histogramData": bins}, "step": step}
    if stats:
        data["chartData"]["stats"] = {
            "avgReward": 0.7,
            "medianReward": 0.75,
            "minReward": 0.1,
            "maxReward": 1.0,
            "totalResults": sum(counts),
        }
    return data


def test_distribution_spellings() -> None:
    a = distribution_of(cli_fixture(160, [1, 0, 3, 0, 1]), "rewards")
    flat = distribution_of(
        {"bins": [{"range": "0.000-0.200", "count": 1}, {"label": "-0.5--0.25", "value": 2}], "step": 3}, "advantages"
    )
    assert a.step == 160 and [b.count for b in a.bins] == [1, 0, 3, 0, 1]
    assert [(b.start, b.end, b.count) for b in flat.bins] == [(-0.5, -0.25, 2.0), (0.0, 0.2, 1.0)]
    bad = distribution_of(
        {"bins": [{"range": "x", "count": 1}, {"binStart": 0, "binEnd": 1, "count": -3}, "s"]}, "rewards", 5
    )
    assert bad.bins == [] and bad.step == 5 and "3 histogram bins ignored" in bad.notes[0]


def test_stats_from_platform_or_bins() -> None:
    with_stats = dv.hist_stats(distribution_of(cli_fixture(1, [1, 1], stats=True), "rewards"))
    assert with_stats.mean == 0.7 and not with_stats.estimated
    est = dv.hist_stats(distribution_of(cli_fixture(1, [0, 2, 2, 0]), "rewards"))
    assert est.estimated and math.isclose(est.mean or 0, 0.5) and math.isclose(est.median or 0, 0.5)
    assert est.min == 0.25 and est.max == 0.75 and est.count == 4


def test_bar_rows_and_overlay() -> None:
    a = distribution_of(cli_fixture(1, [4, 0, 2]), "rewards")
    b = distribution_of(cli_fixture(2, [0, 1, 4]), "rewards")
    rows = dv.bar_rows(a, 8)
    assert [r.count for r in rows] == [4, 0, 2] and rows[0].bar == "█" * 8 and rows[1].bar == ""
    both = dv.bar_rows(a, 8, b)
    assert [r.other_count for r in both] == [0, 1, 4]
    assert [r.bar for r in both] == ["▀" * 8, "▄▄", "████▄▄▄▄"]


def test_heat_strip_follows_the_mass_and_caps_columns() -> None:
    dists = {s: distribution_of(cli_fixture(s, [10 - s, s]), "rewards") for s in range(0, 11)}
    strip = dv.heat_strip(dists, cols=6)
    assert len(strip.steps) == 6 and strip.steps[0] == 0 and strip.steps[-1] == 10
    low, high = strip.cells
    assert low[0] == 1.0 and high[-1] == 1.0 and high[0] == 0.0
    lines = strip.lines()
    assert lines[0][-1] == "█" and lines[1][0] == "█" and lines[0][0] == " "


def test_rebin_onto_other_edges() -> None:
    a = distribution_of(cli_fixture(1, [2, 2], low=0.0, high=1.0), "rewards")
    assert dv.rebin(a, [0.0, 0.25, 0.5, 1.0]) == [1.0, 1.0, 2.0]


def test_the_headless_text_shows_hostile_completions_as_symbols_and_json_keeps_them() -> None:
    from primetui.commands.rl_views import format_rollouts
    from primetui.monitor_core.escapes import clean_block, is_safe

    samples, _ = sample_rows(
        [
            row(
                1,
                0,
                "\x1b]0;owned\x07<reversed_text>x\x1b[2J</reversed_text>",
                0.2,
                0.0,
                prompt="title \x1b]52;c;ZXZpbA==\x07",
            )
        ]
    )
    step = rv.StepSamples(10)
    step.add(samples, done=True)
    data = {
        "run_id": "r1",
        "step": 10,
        "steps_with_samples": [10],
        "summary": step.summary(),
        "groups": [g.to_json() for g in step.groups()],
    }
    text = clean_block(format_rollouts(data))
    assert is_safe(text.replace("\n", "")) and "␛]0;owned␇" in text and "␛]52;c;ZXZpbA==␇" in text
    assert json.loads(json.dumps(data))["groups"][0]["samples"][0]["completion"].startswith("\x1b]0;owned\x07")
