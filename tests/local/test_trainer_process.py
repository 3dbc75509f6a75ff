"""The trainer run by its file contract: real processes where signals and exit codes matter, in-process otherwise."""

from __future__ import annotations

import json
import re
import signal

import pytest

from primetui.local.trainer import testing as tt
from primetui.local.trainer.ckpt import dir_size
from primetui.local.trainer.model import ModelShape

# A small stand-in and small batches keep each run around a second; the walkthrough figures live
# in docs/local-training.md (measured with the default stand-in and the full walkthrough config).
STANDIN = {"context": 8, "embed": 16, "hidden": 64}
SMALL = {"data": {"seq_len": 512, "batch_size": 4}}
STEP_LINE = re.compile(
    r"^\d{2}:\d{2}:\d{2} SUCCESS Step (?P<step>\d+) \|\s+(?P<t>\d+(?:\.\d+)?(?:ms|s)|\d+[mhd] \d+[smh]) \| "
    r"Loss (?P<loss>\S+) \| Grad\. Norm (?P<gn>\S+) \| LR (?P<lr>\S+) \| Throughput (?P<tp>\d+) tokens/s \| "
    r"MFU (?P<mfu>\S+)% \| Peak Mem\. (?P<peak>[\d.]+)/(?P<total>[\d.]+) GiB \((?P<pct>[\d.]+)%\)$"
)
VAL = {
    "interval": 5,
    "eval_on_start": True,
    "data": {"name": "/volume/datasets/reverse-text", "seq_len": 512, "batch_size": 4},
}
FOREVER = {"max_steps": 100000, "data": {"type": "fake", "seq_len": 128, "batch_size": 2}, "optim": {"lr": 1e-3}}
PREFIX = re.compile(r"^\d{2}:\d{2}:\d{2} (?:  DEBUG|   INFO|SUCCESS|WARNING|  ERROR) \S")


@pytest.fixture(scope="module")
def volume(tmp_path_factory):
    vol = tmp_path_factory.mktemp("vol")
    root = tt.write_reverse_text(vol, rows=200)
    # A second split, as `hf download` lays it out, for the multi-split run.
    train = root / "data" / "train-00000-of-00001.parquet"
    (root / "data" / "test-00000-of-00001.parquet").write_bytes(train.read_bytes())
    return vol


@pytest.fixture(scope="module")
def runs(tmp_path_factory, volume):
    """The runs that need a real process (the entry point, exit codes, signals) start at once in
    the background; the others run in this process (``Trainer.run``), which skips the interpreter
    start-up that dominates a short run's wall time on a shared machine."""
    root = tmp_path_factory.mktemp("runs")
    (root / "empty-volume").mkdir()
    specs = {
        "walk": (tt.walkthrough_config(optim={"lr": 3e-3}, **SMALL, val=VAL), volume, True),
        "pause": (FOREVER, None, True),
        "term": (FOREVER, None, True),
        "first": (
            tt.walkthrough_config(max_steps=6, ckpt={"interval": 2, "keep_last": 2}, optim={"lr": 3e-3}, **SMALL),
            volume,
            False,
        ),
        "missing": (tt.walkthrough_config(), root / "empty-volume", False),
        "fake": (
            {
                "max_steps": 8,
                "data": {"type": "fake", "seq_len": 256, "batch_size": 4, "micro_batch_size": 2},
                "optim": {"lr": 1e-2},
                "scheduler": {"type": "cosine", "warmup_steps": 2},
            },
            None,
            False,
        ),
        "splits": (
            tt.walkthrough_config(
                max_steps=2, ckpt=None, data={"seq_len": 256, "batch_size": 2, "splits": ["train", "test"]}
            ),
            volume,
            False,
        ),
        "badresume": (
            {"max_steps": 4, "data": {"type": "fake", "seq_len": 64, "batch_size": 2}, "resume": {"step": 3}},
            None,
            False,
        ),
    }
    launched = {}
    for name, (cfg, vol, separate) in specs.items():
        run_dir = root / name
        output = tt.write_run_dir(run_dir, cfg, volume_dir=vol, run_id=name, standin=STANDIN)
        launched[name] = (run_dir, output, tt.start(run_dir) if separate else None)
    yield launched
    for _, _, proc in launched.values():
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait()


def _wait(proc, timeout=120):
    return proc.wait(timeout=timeout)


def test_walkthrough_config_completes_with_prime_rl_logs_metrics_and_checkpoint(runs):
    run_dir, output, proc = runs["walk"]
    assert _wait(proc) == 0
    assert tt.status(run_dir)["state"] == "completed" and tt.status(run_dir)["step"] == 10

    lines = (run_dir / "logs" / "trainer.log").read_text().splitlines()
    assert all(PREFIX.match(line) for line in lines), [line for line in lines if not PREFIX.match(line)]
    assert "\x1b" not in "".join(lines)
    assert (
        "WARNING Local platform: training a stand-in model instead of PrimeIntellect/Qwen3-0.6B-Reverse-Text-SFT"
        in lines[0]
    )
    assert f"{ModelShape.from_standin(STANDIN).num_params:,} parameters" in lines[0]
    text = "\n".join(lines)
    for needle in (
        "INFO Setting up constant scheduler with 10 steps (type='constant')",
        "INFO Starting training loop (max_steps=10)",
        "INFO Saving checkpoint at step 10",
        "SUCCESS SFT trainer finished!",
    ):
        assert needle in text
    steps = [m.groupdict() for line in lines if (m := STEP_LINE.match(line))]
    assert [int(s["step"]) for s in steps] == list(range(1, 11))
    assert steps[0]["tp"] == "0" and steps[0]["mfu"] == "0.0" and int(steps[-1]["tp"]) > 0
    assert steps[0]["lr"] == "3.00e-03"

    loss = tt.series(run_dir, "loss/mean")
    assert sorted(loss) == list(range(1, 11)) and all(v == v for v in loss.values())
    val = tt.series(run_dir, "val/loss")  # [val] with eval_on_start
    assert sorted(val) == [0, 5, 10] and val[10] < val[0]
    assert re.search(r"SUCCESS Validation \| Step 5 \| Loss \d+\.\d{4}$", text, re.M)
    assert loss[10] < loss[1] - 0.5  # it really learns
    rows = tt.metric_rows(run_dir)
    keys = set().union(*rows)
    for key in (
        "loss/mean",
        "loss/perplexity",
        "loss/nan_count",
        "optim/lr",
        "optim/grad_norm",
        "perf/throughput",
        "perf/throughput_per_gpu",
        "perf/peak_memory",
        "perf/mfu",
        "time/step",
        "time/forward_backward",
        "time/save_ckpt",
        "progress/epoch",
        "progress/num_samples",
        "progress/num_tokens",
    ):
        assert key in keys, key
    assert tt.series(run_dir, "progress/num_tokens")[10] == 10 * 8 * 512 // 2  # batch_size 4 x seq_len 512

    step10 = output / "checkpoints" / "step_10"
    [record] = [json.loads(x) for x in (run_dir / "checkpoints.jsonl").read_text().splitlines()]
    assert record["step"] == 10 and record["path"] == str(step10)
    assert record["size_bytes"] == dir_size(step10)
    assert record["size_bytes"] >= 12 * ModelShape.from_standin(STANDIN).num_params
    comps = json.loads((run_dir / "components.json").read_text())
    assert comps == [
        {"component": "trainer", "pod_name": "walk-trainer-0", "status": "completed", "pid": comps[0]["pid"]}
    ]


def test_sigusr1_pauses_at_a_step_boundary_with_a_checkpoint(runs):
    run_dir, output, proc = runs["pause"]
    try:
        assert tt.wait_for(lambda: tt.status(run_dir).get("step", 0) >= 2)
        proc.send_signal(signal.SIGUSR1)
        assert proc.wait(timeout=30) == 0
    finally:
        proc.kill()
    st = tt.status(run_dir)
    assert st["state"] == "paused" and st["step"] >= 2
    assert (output / "checkpoints" / f"step_{st['step']}" / "trainer" / "model.npz").exists()
    assert tt.series(run_dir, "loss/mean").keys() == set(range(1, st["step"] + 1))


def test_sigterm_stops_promptly(runs):
    run_dir, _, proc = runs["term"]
    try:
        assert tt.wait_for(lambda: tt.status(run_dir).get("step", 0) >= 1)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=15) == 0
    finally:
        proc.kill()
    assert tt.status(run_dir)["state"] == "stopped"
    assert "Stop requested" in (run_dir / "logs" / "trainer.log").read_text()


def test_missing_dataset_fails_at_startup_naming_the_path(runs):
    run_dir, _, _ = runs["missing"]
    assert tt.run_inline(run_dir) == 1
    st = tt.status(run_dir)
    assert st["state"] == "failed" and "/volume/datasets/reverse-text does not exist" in st["error"]
    assert f"  ERROR {st['error']}" in (run_dir / "logs" / "trainer.log").read_text()


def test_fake_data_runs_without_a_volume_and_learns(runs):
    run_dir, output, _ = runs["fake"]
    assert tt.run_inline(run_dir) == 0
    assert output == run_dir / "output" and not (output / "checkpoints").exists()  # no [ckpt], nothing saved
    loss = tt.series(run_dir, "loss/mean")
    assert loss[8] < loss[1] * 0.7
    lrs = tt.series(run_dir, "optim/lr")
    assert lrs[1] == 0.0 and lrs[3] == pytest.approx(1e-2)


def test_two_splits_are_interleaved_and_reported_per_split(runs):
    run_dir, _, _ = runs["splits"]
    assert tt.run_inline(run_dir) == 0
    log = (run_dir / "logs" / "trainer.log").read_text()
    assert "Reading split 'test' from /volume/datasets/reverse-text/data/test-00000-of-00001.parquet" in log
    assert "Loaded 200 examples from split 'train'" in log and "Loaded 200 examples from split 'test'" in log
    [row] = [r for r in tt.metric_rows(run_dir) if r["step"] == 2 and "progress/train/ratio_samples" in r]
    assert row["progress/train/ratio_samples"] + row["progress/test/ratio_samples"] == pytest.approx(1.0)
    assert 0 < row["progress/test/ratio_tokens"] < 1


def test_resume_step_without_that_checkpoint_fails_pointing_at_resume_dir(runs):
    run_dir, _, _ = runs["badresume"]
    assert tt.run_inline(run_dir) == 1
    error = tt.status(run_dir)["error"]
    assert error.startswith("resume.step = 3 looks in this run's own checkpoints, which has no step_3")
    assert '[resume] dir = "/volume/runs/<runId>/checkpoints/step_3"' in error


def test_keep_last_prunes_and_resume_continues_the_same_loss_trajectory(tmp_path, volume, runs):
    first, out, _ = runs["first"]
    assert tt.run_inline(first) == 0
    cfg = json.loads((first / "config.json").read_text())["config"]
    records = [json.loads(x) for x in (first / "checkpoints.jsonl").read_text().splitlines()]
    assert [(r["step"], r.get("deleted", False)) for r in records] == [(2, False), (4, False), (6, False), (2, True)]
    assert sorted(p.name for p in (out / "checkpoints").iterdir()) == ["step_4", "step_6"]

    resumed_cfg = {**cfg, "resume": {"dir": "/volume/runs/first/checkpoints/step_4"}}
    second = tmp_path / "second"
    tt.write_run_dir(second, resumed_cfg, volume_dir=volume, run_id="second", standin=STANDIN)
    assert tt.run_inline(second) == 0
    log = (second / "logs" / "trainer.log").read_text()
    assert "Resuming training from checkpoint step 4" in log and "Starting from step 5" in log
    a, b = tt.series(first, "loss/mean"), tt.series(second, "loss/mean")
    assert sorted(b) == [5, 6]
    assert b[5] == pytest.approx(a[5], rel=1e-9) and b[6] == pytest.approx(a[6], rel=1e-9)


def test_a_full_disk_while_checkpointing_fails_with_what_to_do(tmp_path, monkeypatch):
    import errno

    from primetui.local.trainer import ckpt

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(ckpt, "save", full)
    tt.write_run_dir(
        tmp_path,
        {"max_steps": 2, "ckpt": {}, "data": {"type": "fake", "seq_len": 32, "batch_size": 2}},
        volume_dir=None,
        standin=STANDIN,
    )
    assert tt.run_inline(tmp_path) == 1
    assert tt.status(tmp_path)["error"].startswith("No space left on the volume while saving the checkpoint of step 2;")
