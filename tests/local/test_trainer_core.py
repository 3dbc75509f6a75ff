"""The stand-in trainer's core, in process: gradients, masking, schedules, optimizers, data."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from primetui.local.trainer import ckpt
from primetui.local.trainer.config import DataConfig, OptimConfig, SchedulerConfig, parse_config
from primetui.local.trainer.data import (
    DatasetError,
    Sample,
    FakeStream,
    SampleStream,
    load_sources,
    pack_row,
    tokenize_rows,
)
from primetui.local.trainer.model import ModelShape, contexts, forward_backward, init_params, loss_sum
from primetui.local.trainer.optim import Optimizer, clip_grad_norm
from primetui.local.trainer.scheduler import Scheduler
from primetui.local.trainer.tokenizer import IM_END, PAD, decode, render, row_to_messages


def test_backward_matches_finite_differences():
    shape = ModelShape(context=3, embed=4, hidden=5)
    params = init_params(shape, seed=1, dtype=np.float64)
    rng = np.random.default_rng(2)
    ctx = rng.integers(0, shape.vocab, (7, shape.context))
    targets = rng.integers(0, shape.vocab, 7)
    grads = {k: np.zeros_like(v) for k, v in params.items()}
    forward_backward(params, ctx, targets, grads)
    eps = 1e-6
    for name, p in params.items():
        # Every weight that gets gradient in embed is one of the used rows: probe those and random others.
        flat_idx = rng.choice(p.size, size=min(12, p.size), replace=False)
        if name == "embed":
            flat_idx = np.concatenate([flat_idx, [int(ctx[0, 0]) * shape.embed + 1]])
        for i in flat_idx:
            idx = np.unravel_index(int(i), p.shape)
            old = p[idx]
            p[idx] = old + eps
            up = loss_sum(params, ctx, targets)
            p[idx] = old - eps
            down = loss_sum(params, ctx, targets)
            p[idx] = old
            numeric = (up - down) / (2 * eps)
            assert grads[name][idx] == pytest.approx(numeric, rel=1e-5, abs=1e-8), (name, idx)


def test_loss_mask_trains_only_assistant_content_and_stop_token():
    cfg = DataConfig()
    ids, mask = render(row_to_messages({"prompt": "abc", "completion": "cba"}), cfg.loss_mask)
    assert decode(ids[mask]) == "cba"
    assert ids[mask].tolist()[-1] == IM_END
    assert mask.sum() == len("cba") + 1

    conv = {
        "messages": [
            {"role": "system", "content": "S"},
            {"role": "user", "content": "U1"},
            {"role": "assistant", "content": "A1"},
            {"role": "user", "content": "U2"},
            {"role": "assistant", "content": "A2"},
        ]
    }
    ids, mask = render(row_to_messages(conv), cfg.loss_mask)
    assert decode(ids[mask]) == "A1A2"  # every assistant turn, no scaffolding
    cfg.loss_mask.user = True
    ids, mask = render(row_to_messages(conv), cfg.loss_mask)
    assert decode(ids[mask]) == "U1A1U2A2"  # body-only supervision for users


def test_rows_without_sft_columns_are_refused():
    with pytest.raises(ValueError, match="'messages' column or both 'prompt' and 'completion'"):
        row_to_messages({"text": "hello"})


def test_packing_keeps_documents_apart_and_masks_padding():
    cfg = DataConfig(seq_len=64, shuffle=False)
    rows = [{"prompt": "p" * 10, "completion": "c" * 10}] * 5
    stream = SampleStream([tokenize_rows(rows, cfg, 64, lambda m: None)], cfg)
    row = pack_row(stream, 64)
    doc_len = len(render(row_to_messages(rows[0]), cfg.loss_mask)[0])
    assert row.num_samples == 64 // doc_len
    assert not row.mask[row.num_samples * doc_len :].any()  # padding carries no loss
    assert (row.ids[row.num_samples * doc_len :] == PAD).all()
    # The second document's first context window holds no token of the first document.
    pos = np.array([doc_len + 1])
    ctx = contexts(row.ids, row.doc_start, pos, 4)
    assert ctx[0, :3].tolist() == [PAD, PAD, PAD]
    # The overflowing sample starts the next row.
    assert pack_row(stream, 64).doc_start[0] == 0 and stream.pos == 2 * row.num_samples


def test_overlong_sample_is_truncated_and_sample_without_trainable_tokens_skipped():
    cfg = DataConfig(seq_len=32)
    warnings: list[str] = []
    samples = tokenize_rows(
        [{"prompt": "x" * 40, "completion": "y"}, {"prompt": "a", "completion": "bb"}], cfg, 32, warnings.append
    )
    assert len(samples) == 1 and warnings == [
        "Skipping example 0 because no trainable tokens were found within the context window (32). This is to "
        "prevent NaN loss."
    ]
    long = tokenize_rows([{"prompt": "a", "completion": "z" * 40}], cfg, 32, warnings.append)
    row = pack_row(SampleStream([long], cfg), 32)
    assert row.num_samples == 1 and row.mask.sum() == 32 - 20 and len(row.ids) == 32


@pytest.mark.parametrize("kind", ["constant", "linear", "cosine"])
def test_scheduler_curves(kind):
    cfg = SchedulerConfig(type=kind, warmup_steps=4, decay_steps=4, min_lr=1e-4)
    s = Scheduler(cfg, 1e-3, max_steps=20)
    lrs = [s.lr_at(step) for step in range(1, 21)]
    if kind == "constant":
        assert lrs == [1e-3] * 20
        return
    assert lrs[0] == 0.0 and lrs[4] == pytest.approx(1e-3)  # ramps from 0 to the peak at step warmup+1
    assert all(a < b for a, b in zip(lrs[:4], lrs[1:5]))
    tail = lrs[4:]
    assert all(a >= b for a, b in zip(tail, tail[1:]))
    if kind == "linear":
        assert lrs[4:16] == [pytest.approx(1e-3)] * 12  # constant until the last decay_steps
        assert lrs[-1] == pytest.approx(1e-4 + (1e-3 - 1e-4) * 0.25)
    else:
        assert lrs[-1] < 1.1e-4 + (1e-3 - 1e-4) * 0.01


def test_grad_clipping_reports_the_norm_before_clipping():
    grads = {"a": np.array([3.0, 4.0])}
    assert clip_grad_norm(grads, 1.0) == pytest.approx(5.0)
    assert np.linalg.norm(grads["a"]) == pytest.approx(1.0, rel=1e-5)
    grads = {"a": np.array([3.0, 4.0])}
    assert clip_grad_norm(grads, None) == pytest.approx(5.0) and grads["a"].tolist() == [3.0, 4.0]


@pytest.mark.parametrize("kind", ["adamw", "sgd", "sign_sgd"])
def test_optimizers_reduce_a_quadratic(kind):
    p = {"w": np.array([2.0, -3.0])}
    opt = Optimizer(OptimConfig(type=kind, lr=0.05, weight_decay=0.0), p)
    for _ in range(100):
        opt.step(p, {"w": 2 * p["w"]}, 0.05)
    assert np.abs(p["w"]).max() < 0.2


def test_checkpoint_is_twelve_bytes_per_parameter_with_adamw(tmp_path):
    shape = ModelShape()
    params = init_params(shape)
    for kind, per_param in (("adamw", 12), ("sgd", 8), ("sign_sgd", 4)):
        opt = Optimizer(OptimConfig(type=kind), params)
        state = ckpt.TrainState(params, opt.state_arrays(), 0, {}, {"step": 1}, {"epoch": 0, "pos": 0})
        path, size = ckpt.save(tmp_path / kind, 1, state)
        assert path.name == "step_1" and (path / "trainer" / "model.npz").exists()
        assert per_param * shape.num_params <= size <= per_param * shape.num_params * 1.01 + 8192


def test_checkpoint_roundtrip_and_keep_last(tmp_path):
    params = init_params(ModelShape(context=2, embed=4, hidden=8))
    opt = Optimizer(OptimConfig(), params)
    for step in (2, 4, 6):
        ckpt.save(
            tmp_path,
            step,
            ckpt.TrainState(params, opt.state_arrays(), step, {}, {"step": step}, {"epoch": 0, "pos": step}),
        )
    assert ckpt.prune(tmp_path, keep_last=2, keep_interval=None) == [2]
    assert ckpt.list_steps(tmp_path) == [4, 6]
    state = ckpt.load(tmp_path / "step_6")
    assert state.progress["step"] == 6 and state.dataloader["pos"] == 6
    assert np.array_equal(state.params["w1"], params["w1"])
    with pytest.raises(ckpt.CheckpointError, match="No checkpoint found"):
        ckpt.load(tmp_path / "step_9")


def test_fake_data_fixed_and_variable():
    inc = FakeStream(DataConfig(type="fake", seq_len=32, length="fixed", input_ids="increasing"))
    s, _ = inc.next()
    assert len(s.ids) == 32 and (np.diff(s.ids) % 256 == 1).all() and s.mask[1:].all()
    var = FakeStream(DataConfig(type="fake", seq_len=32, length="variable", input_ids="random"))
    lengths = {len(var.next()[0].ids) for _ in range(20)}
    assert len(lengths) > 3 and max(lengths) <= 32
    again = FakeStream(DataConfig(type="fake", seq_len=32, length="variable", input_ids="random"))
    assert np.array_equal(again.next()[0].ids, FakeStream(again.cfg).next()[0].ids)  # seeded


def _write_jsonl(path, rows):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_loads_jsonl_parquet_messages_and_splits(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    vol = tmp_path / "vol"
    _write_jsonl(vol / "datasets" / "pc" / "train.jsonl", [{"prompt": "hi", "completion": "ih"}] * 3)
    (vol / "datasets" / "msg" / "data").mkdir(parents=True)
    messages = [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}]
    pq.write_table(
        pa.Table.from_pylist([{"messages": messages}] * 4),
        vol / "datasets" / "msg" / "data" / "train-00000-of-00001.parquet",
    )
    pq.write_table(
        pa.Table.from_pylist([{"messages": messages}] * 2),
        vol / "datasets" / "msg" / "data" / "test-00000-of-00001.parquet",
    )

    [(label, rows)] = load_sources(DataConfig(name="datasets/pc"), vol)
    assert label == "train" and len(rows) == 3
    [(_, rows)] = load_sources(DataConfig(name="/volume/datasets/msg"), vol)  # absolute mount path
    assert len(rows) == 4 and rows[0]["messages"][1]["content"] == "a"
    [(label, rows)] = load_sources(DataConfig(name="datasets/msg", splits=["test"]), vol)
    assert label == "test" and len(rows) == 2
    both = load_sources(DataConfig(name="datasets/msg", splits=["train", "test"]), vol)
    assert [len(r) for _, r in both] == [4, 2]
    samples = tokenize_rows(rows, DataConfig(), 128, lambda m: None)
    assert decode(samples[0].ids[samples[0].mask]) == "a"
    [(_, rows)] = load_sources(DataConfig(name="datasets/pc/train.jsonl"), vol)  # a file
    assert len(rows) == 3


def test_missing_empty_and_escaping_datasets_fail_with_the_path(tmp_path):
    vol = tmp_path / "vol"
    (vol / "datasets" / "empty").mkdir(parents=True)
    with pytest.raises(DatasetError, match=r"/volume/datasets/nope does not exist \(/volume/datasets/ holds: empty\);"):
        load_sources(DataConfig(name="datasets/nope"), vol)
    with pytest.raises(DatasetError, match=r"holds: empty; did you mean /volume/datasets/empty\?\)"):
        load_sources(DataConfig(name="datasets/emtpy"), vol)
    with pytest.raises(DatasetError, match=r"/volume/datasets/empty is empty"):
        load_sources(DataConfig(name="/volume/datasets/empty"), vol)
    with pytest.raises(
        DatasetError,
        match=r"do not download from the Hugging Face hub; .*--local-dir /volume/datasets/Reverse-Text-SFT\) and set "
        r"data.name = \"datasets/Reverse-Text-SFT\"",
    ):
        load_sources(DataConfig(name="PrimeIntellect/Reverse-Text-SFT"), vol)
    with pytest.raises(DatasetError, match="outside the volume"):
        load_sources(DataConfig(name="../../etc"), vol)
    with pytest.raises(DatasetError, match="needs a volume"):
        load_sources(DataConfig(name="datasets/x"), None)


def test_config_defaults_and_none_convention():
    cfg = parse_config({"optim": {"lr": 1e-3, "max_norm": "None"}, "ckpt": {}, "data": {"type": "fake"}})
    assert cfg.optim.max_norm is None and cfg.optim.type == "adamw" and cfg.optim.lr == 1e-3
    assert cfg.ckpt is not None and cfg.ckpt.interval is None
    assert cfg.resume is None and cfg.eval is None and cfg.max_steps is None
    assert cfg.data.batch_size == 128 and cfg.data.seq_len == 128 and cfg.data.type == "fake"
    ev = parse_config(
        {
            "eval": {
                "interval": 5,
                "num_examples": 8,
                "source": [
                    {"name": "rt", "env": {"taskset": {"id": "primeintellect/reverse-text"}}},
                    {"env": {"taskset": {"id": "x/other"}}, "interval": 3},
                ],
            }
        }
    ).eval
    assert [(s.name, s.interval, s.num_examples) for s in ev.sources] == [("rt", 5, 8), ("other", 3, 8)]
    assert math.isclose(parse_config({"scheduler": {"type": "cosine", "min_lr": 1e-5}}).scheduler.min_lr, 1e-5)


def test_sources_interleave_round_robin_and_first_exhausted_stops_early():
    a = [Sample(np.array([1, 2]), np.array([False, True]))] * 3
    b = [Sample(np.array([3, 4]), np.array([False, True]))] * 1
    cfg = DataConfig(shuffle=False)
    stream = SampleStream([a, b], cfg)
    # all_exhausted: b is oversampled until a has been seen whole, then the next epoch starts
    assert [stream.next()[1] for _ in range(6)] == [0, 1, 0, 1, 0, 0] and stream.epoch == 1
    first = SampleStream([a, b], DataConfig(shuffle=False, stopping_strategy="first_exhausted"))
    assert len(first._epoch_order(0)) == 2
    row = pack_row(SampleStream([a, b], cfg), 8)
    assert row.parts == [(0, 2), (1, 2), (0, 2), (1, 2)]


def test_a_broken_jsonl_line_names_the_file_and_line(tmp_path):
    vol = tmp_path / "vol"
    path = vol / "datasets" / "bad" / "train.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text('{"prompt": "a", "completion": "b"}\n{"prompt": "a", \n')
    with pytest.raises(DatasetError, match=r"train.jsonl line 2 is not valid JSON"):
        load_sources(DataConfig(name="datasets/bad"), vol)
    path.write_text('{"text": "no sft columns"}\n')
    [(_, rows)] = load_sources(DataConfig(name="datasets/bad"), vol)
    with pytest.raises(DatasetError, match="either a 'messages' column or both 'prompt' and 'completion'"):
        tokenize_rows(rows, DataConfig(), 64, lambda m: None)


def test_generation_is_greedy_or_seeded_sampling_and_stops_at_the_stop_token():
    from primetui.local.trainer.model import generate

    shape = ModelShape(context=4, embed=8, hidden=16)
    params = init_params(shape, seed=3)
    prompts = [np.array([1, 2, 3]), np.array([4])]
    greedy = generate(params, prompts, context=4, max_new_tokens=6, stop_token=IM_END)
    assert [len(g) for g in greedy] == [6, 6]
    assert all(
        np.array_equal(a, b)
        for a, b in zip(greedy, generate(params, prompts, context=4, max_new_tokens=6, stop_token=IM_END))
    )
    s1 = generate(params, prompts, context=4, max_new_tokens=20, stop_token=IM_END, temperature=1.0, seed=5)
    s2 = generate(params, prompts, context=4, max_new_tokens=20, stop_token=IM_END, temperature=1.0, seed=5)
    assert all(np.array_equal(a, b) for a, b in zip(s1, s2))
    # A model whose output bias always favours the stop token ends every answer at once.
    params["b2"][IM_END] = 1e3
    assert [len(g) for g in generate(params, prompts, context=4, max_new_tokens=6, stop_token=IM_END)] == [0, 0]
