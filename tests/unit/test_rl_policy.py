"""The local RL run's pieces without a run: the reward, the taskset ids, the mode rule, the policy and its gradient."""

from __future__ import annotations

import re

import numpy as np
import pytest

from primetui.local.trainer.rl import is_rl_config
from primetui.local.trainer.rl.loss import policy_gradient
from primetui.local.trainer.rl.policy import DELTAS, HALLUCINATE, Dists, init_params, sample
from primetui.local.trainer.rl.reward import SYSTEM, answer_for, lcs
from primetui.local.trainer.rl.taskset import is_local, load, module_name

PROMPT = "The community in Bruck was merged into it"  # the user prompt on the reverse-text RLFT model card
ANSWER = "ti otni degrem saw kcurB ni ytinummoc ehT"


def test_reward_is_the_sequence_matcher_ratio_inside_the_tags():
    assert answer_for(PROMPT) == ANSWER
    assert lcs(f"<reversed_text>\n{ANSWER}\n</reversed_text>", ANSWER) == 1.0
    # A near miss (a stray period, two letters swapped): 2*40/(42+41), the model card's 0.963855421686747.
    assert (
        lcs("<reversed_text>\n.ti otni degrem saw kcruB ni ytinummoc ehT\n</reversed_text>", ANSWER)
        == 0.963855421686747
    )
    assert lcs("<reversed_text> abc </reversed_text>", "abcd") == pytest.approx(6 / 7)  # the answer is stripped


def test_no_tag_or_a_cut_tag_scores_zero():
    assert lcs(ANSWER, ANSWER) == 0.0  # right text, no tags
    assert lcs(f"<reversed_text>\n{ANSWER}\n</reversed_tex", ANSWER) == 0.0  # cut before the closing tag
    assert lcs(f"<reversed_text>\n{ANSWER}", ANSWER) == 0.0
    assert lcs(None, ANSWER) == 0.0 and lcs("", ANSWER) == 0.0
    assert SYSTEM == "Reverse the text character-by-character. Put your answer in <reversed_text> tags."


def test_taskset_ids_are_stripped_as_verifiers_strips_them():
    assert module_name("primeintellect/reverse-text@0.1.4") == "reverse-text"
    assert all(is_local(t) for t in ("reverse-text", "primeintellect/reverse-text", "reverse-text@1.0"))
    assert not is_local("primeintellect/alphabet-sort")
    train, held_out = load("primeintellect/reverse-text"), load("reverse-text", "eval")
    assert len(train) >= 300 and len(held_out) >= 64
    assert not {t.prompt for t in train} & {t.prompt for t in held_out}
    assert all(35 <= len(t.prompt) <= 100 and t.answer == t.prompt[::-1] for t in train + held_out)
    assert train[0].prompt == PROMPT and train[5].idx == 5


def test_the_mode_rule_is_the_clis():
    assert not is_rl_config({"data": {}, "max_steps": 3})
    assert is_rl_config({"data": {}, "trainer": {}})
    assert is_rl_config({"orchestrator": {}})
    assert is_rl_config({"max_steps": 3})  # no [data]: RL, as `prime train` decides


def test_a_sampled_completion_is_real_text_and_truncation_cuts_the_tag():
    dists = Dists.of(init_params(), 1.0)
    rng = np.random.default_rng(0)
    rollouts = [sample(dists, PROMPT, 1.0, None, rng) for _ in range(64)]
    wrapped = [r for r in rollouts if r.wrapped]
    assert wrapped and len(wrapped) < 64
    for r in wrapped:
        body = r.text.removeprefix("<reversed_text>\n").removesuffix("\n</reversed_text>")
        assert len(body) - len(PROMPT) in DELTAS and set(body) <= set(PROMPT)
        assert len(r.actions) == len(body) and not r.truncated
    cut = [sample(dists, PROMPT, 1.0, 40, rng) for _ in range(16)]
    assert all(len(r.text) <= 40 for r in cut)
    assert all(r.truncated and lcs(r.text, ANSWER) == 0.0 for r in cut if r.wrapped)
    greedy = sample(dists, PROMPT, 0.0, None, rng)  # temperature 0 takes the likeliest action everywhere
    assert greedy.wrapped and (greedy.actions == HALLUCINATE).all() and len(greedy.actions) == len(PROMPT) - 3


def _surrogate_loss(params, behaviour, rollouts, advantages, temperature):
    return policy_gradient(Dists.of(params, temperature), behaviour, rollouts, advantages, temperature).loss


def test_the_policy_gradient_matches_finite_differences():
    rng = np.random.default_rng(3)
    behaviour = init_params()
    params = {k: v + rng.normal(0, 0.3, v.shape) for k, v in behaviour.items()}
    t = 0.8
    beh = Dists.of(behaviour, t)
    rollouts = [sample(beh, PROMPT, t, 60, rng) for _ in range(12)]
    advantages = rng.normal(0, 0.2, 12)
    res = policy_gradient(Dists.of(params, t), beh, rollouts, advantages, t)
    assert res.tokens == sum(r.num_action_tokens for r in rollouts) and res.entropy > 0 and res.mismatch_kl > 0
    eps = 1e-6
    for name, value in params.items():
        for idx in np.ndindex(value.shape):
            up = {k: v.copy() for k, v in params.items()}
            down = {k: v.copy() for k, v in params.items()}
            up[name][idx] += eps
            down[name][idx] -= eps
            numeric = (
                _surrogate_loss(up, beh, rollouts, advantages, t) - _surrogate_loss(down, beh, rollouts, advantages, t)
            ) / (2 * eps)
            assert res.grads[name][idx] == pytest.approx(numeric, abs=1e-7), (name, idx)


def test_the_stand_in_description_counts_the_policys_logits():
    from primetui.local.trainer.rl import STANDIN
    from primetui.local.trainer.rl.policy import NUM_PARAMS

    assert f"({NUM_PARAMS} logits)" in STANDIN and sum(v.size for v in init_params().values()) == NUM_PARAMS


def test_sources_are_drawn_by_ratio_and_each_cycles_through_its_tasks_in_source_order():
    """prime-rl's TrainSource draws a group's env by ratio; its StandardSampler cycles the taskset in
    source order (no shuffle), so a task recurs exactly len(tasks) draws later."""
    from primetui.local.trainer.rl.config import Source
    from primetui.local.trainer.rl.rollouts import TaskSampler

    a, b = Source("a", "reverse-text", 0, ratio=3.0), Source("b", "reverse-text", 1, ratio=1.0)
    tasks = load("reverse-text")
    sampler = TaskSampler([a, b], {"a": tasks, "b": tasks})
    picks = [sampler.pick_source().name for _ in range(2000)]
    assert 0.72 < picks.count("a") / len(picks) < 0.78
    first = [sampler.next_task(a).idx for _ in range(len(tasks) + 3)]
    assert first == list(range(len(tasks))) + [0, 1, 2]
    state = sampler.state()
    assert state["envs"] == {"a": {"cursor": len(tasks) + 3}, "b": {"cursor": 0}}
    again = TaskSampler([a, b], {"a": tasks, "b": tasks})
    again.load_state(state)
    assert again.next_task(a).idx == 3 and again.pick_source().name == sampler.pick_source().name


def test_a_dataset_split_slice_picks_the_rows_as_load_dataset_does():
    from primetui.local.trainer.rl.taskset import BadSplit, split_slice

    full = load("reverse-text")
    assert [t.prompt for t in load("reverse-text", "train", "train[:40]")] == [t.prompt for t in full[:40]]
    cut = load("reverse-text", "train", "train[10:-5]")
    assert cut[0].prompt == full[10].prompt and cut[0].idx == 0 and len(cut) == len(full) - 15
    assert split_slice("train[:10%]", 323) == slice(None, 32)
    for bad, says in (
        ("test", "Unknown split 'test'"),
        ("train[:x]", "not a split name"),
        ("train[5:5]", "selects no rows"),
    ):
        with pytest.raises(BadSplit, match=re.escape(says)):
            load("reverse-text", "train", bad)


def test_the_difficulty_pool_sampler_draws_with_replacement_by_pool_weight():
    """prime-rl's DifficultyPoolSampler: a task whose latest group mean falls in a pool of weight 0 is
    never drawn again; unseen tasks weigh 1."""
    from primetui.local.trainer.rl.config import Curriculum, Source
    from primetui.local.trainer.rl.rollouts import Episode, TaskSampler

    tasks = load("reverse-text", "train", "train[:4]")
    src = Source(
        "a", "reverse-text", 0, curriculum=Curriculum(sampler="difficulty_pool", pools={"solved": (1.0, 0.0)}, seed=7)
    )
    sampler = TaskSampler([src], {"a": tasks})
    draws = [sampler.next_task(src).idx for _ in range(40)]
    assert set(draws) == {0, 1, 2, 3} and len(draws) > len(set(draws))  # with replacement
    sampler.observe([Episode("a", tasks[2], "g", None, 0.9, {}, 0)])  # type: ignore[arg-type]
    assert 2 not in {sampler.next_task(src).idx for _ in range(200)}
    state = sampler.state()
    again = TaskSampler([src], {"a": tasks})
    again.load_state(state)
    assert [again.next_task(src).idx for _ in range(20)] == [sampler.next_task(src).idx for _ in range(20)]


def test_a_group_of_equal_rewards_has_no_advantage_at_all():
    """Ten rewards of 0.1 added one by one make 0.9999999999999999: reward minus that mean is not 0, and the
    orchestrator's line counted such a group (no signal) as trainable. (Python 3.12's ``sum`` compensates
    and makes 1.0; 3.11's does not, and numpy adds pairwise: the rule must not rest on either.)"""
    from primetui.local.trainer.rl.rollouts import group_advantages

    total = 0.0
    for _ in range(10):
        total += 0.1
    assert total / 10 != 0.1
    assert group_advantages([0.1] * 10) == [0.0] * 10
    assert group_advantages([1.0, 0.0]) == [0.5, -0.5]


def test_greedy_sampling_writes_one_text_per_prompt_whatever_the_seed():
    """Temperature 0 is greedy decoding: a group of one prompt is one text (no signal), as with an LLM.
    The "random prompt character" was still drawn at random, so greedy groups had a reward spread."""
    params = init_params()
    params["pointer"][:, HALLUCINATE] += 5.0  # the most likely action: a random prompt character
    dists = Dists.of(params, 0.0)
    texts = {sample(dists, PROMPT, 0.0, None, np.random.default_rng(seed)).text for seed in range(8)}
    assert len(texts) == 1
    assert len({sample(Dists.of(params, 1.0), PROMPT, 1.0, None, np.random.default_rng(s)).text for s in range(8)}) > 1
