"""RL run files -> what R11-R13 serve: sample files paged where they lie, distributions stored and binned on read.

The run dirs here are written in the file protocol's shape (RL-FILES: ``samples/step_N.jsonl`` with
decoded JSON columns, ``distributions.jsonl`` with raw values); the real RL run is checked over HTTP
in test_rl_routes.py.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from primetui.local.ingest import RunIngestor
from primetui.local.rl_bins import chart, histogram, stats
from primetui.local.rl_samples import SampleFiles, decode_columns, sample_files
from primetui.local.routes_rl import samples_body
from primetui.local.store import Store


def sample_row(step: int, i: int, text: str = "ok", strings: bool = False) -> dict:
    completion = [{"role": "user", "content": "abc"}, {"role": "assistant", "content": text}]
    task = {"idx": i // 4, "prompt": "abc", "system_prompt": "Reverse", "answer": "cba"}
    info = {"native_wrapper": {"traces": [{"rewards": {"lcs": {"score": 0.5, "weight": 1.0}}}]}}
    row = {
        "run_id": "r",
        "step": step,
        "tag": "",
        "problem_id": i // 4,
        "sample_id": i,
        "prompt": "",
        "completion": completion,
        "trajectory": [{"messages": completion}],
        "answer": "",
        "env_name": "reverse-text",
        "task": task,
        "info": info,
        "reward": 0.5,
        "advantage": 0.0,
        "metrics": {},
        "timing": {},
        "num_input_tokens": 3,
        "num_output_tokens": len(text),
        "created_at": "2026-12-06T08:00:00Z",
    }
    if strings:  # as prime-rl uploads them: the JSON columns as strings
        for key in ("completion", "trajectory", "task", "info", "metrics", "timing"):
            row[key] = json.dumps(row[key])
    return row


def write_step(run_dir: Path, step: int, rows: list[dict]) -> Path:
    """Written whole under a temporary name, then renamed, as the protocol says."""
    folder = run_dir / "samples"
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / f".step_{step:06d}.jsonl.tmp"
    tmp.write_text("".join(json.dumps(r) + "\n" for r in rows))
    final = folder / f"step_{step:06d}.jsonl"
    os.replace(tmp, final)
    return final


PAGES = SampleFiles(kept=2)


def page(run_dir: Path, step: int, page_no: int, limit: int) -> dict:
    texts, total = PAGES.page(sample_files(run_dir).get(step), (page_no - 1) * limit, limit)
    return json.loads(samples_body("r", texts, total, page_no, limit))


@pytest.fixture
def run(tmp_path: Path) -> tuple[Store, RunIngestor, Path]:
    store = Store(tmp_path / "s.sqlite3")
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    return store, RunIngestor(store, "r", run_dir), run_dir


def test_a_sample_step_is_paged_in_file_order_and_a_file_not_renamed_yet_is_not_there(run) -> None:
    _, _, run_dir = run
    write_step(run_dir, 10, [sample_row(10, i) for i in range(10)])
    (run_dir / "samples" / ".step_000020.jsonl.tmp").write_text(json.dumps(sample_row(20, 0)) + "\n")  # not renamed yet
    assert sorted(sample_files(run_dir)) == [10]
    first, last = page(run_dir, 10, 1, 4), page(run_dir, 10, 3, 4)
    assert [s["sample_id"] for s in first["samples"]] == [0, 1, 2, 3]
    assert {k: first[k] for k in ("run_id", "total", "page", "limit", "total_pages")} == {
        "run_id": "r",
        "total": 10,
        "page": 1,
        "limit": 4,
        "total_pages": 3,
    }
    assert [s["sample_id"] for s in last["samples"]] == [8, 9]
    assert page(run_dir, 10, 4, 4)["samples"] == [] and page(run_dir, 11, 1, 4)["total"] == 0
    assert first["samples"][0]["completion"][1] == {"role": "assistant", "content": "ok"}


def test_json_string_columns_are_served_decoded_and_plain_text_stays_text(run) -> None:
    _, _, run_dir = run
    legacy = sample_row(10, 1, strings=True)
    legacy["completion"] = "not json at all"  # a plain-text completion of an older image
    write_step(run_dir, 10, [sample_row(10, 0, strings=True), legacy, {"not": "a list"}])
    with (run_dir / "samples" / "step_000010.jsonl").open("a") as fh:
        fh.write("{broken\n\n")
    rows = page(run_dir, 10, 1, 100)["samples"]
    assert len(rows) == 3  # the broken line is skipped, the odd object kept as it is
    assert rows[0]["task"]["answer"] == "cba" and rows[0]["info"]["native_wrapper"]["traces"][0]["rewards"]["lcs"]
    assert rows[0]["completion"][0]["role"] == "user"
    assert rows[1]["completion"] == "not json at all"
    row = {"answer": "[1, 2]", "completion": "[1, 2]"}
    assert decode_columns(row) and row == {"answer": "[1, 2]", "completion": [1, 2]}  # answer is text


def test_a_restarted_run_serves_each_step_from_the_newest_attempt_that_wrote_it(run) -> None:
    _, _, run_dir = run
    write_step(run_dir, 10, [sample_row(10, i) for i in range(6)])
    write_step(run_dir, 20, [sample_row(20, i) for i in range(6)])
    assert len(page(run_dir, 10, 1, 100)["samples"]) == 6  # its index is cached now
    (run_dir / "attempt_0").mkdir()
    os.replace(run_dir / "samples", run_dir / "attempt_0" / "samples")  # as supervisor.archive_attempt does
    write_step(run_dir, 20, [sample_row(20, i, text="again") for i in range(3)])  # resumed from step 10
    assert sorted(sample_files(run_dir)) == [10, 20]
    assert len(page(run_dir, 10, 1, 100)["samples"]) == 6
    rows = page(run_dir, 20, 1, 100)["samples"]
    assert [r["completion"][1]["content"] for r in rows] == ["again"] * 3


def test_a_big_step_pages_without_loading_the_rest(run) -> None:
    """1,024 rollouts with 4 KB completions: each page reads its rows only (the key pages them)."""
    _, _, run_dir = run
    text = "x" * 4096
    path = write_step(run_dir, 10, [sample_row(10, i, text=text) for i in range(1024)])
    write_step(run_dir, 20, [sample_row(20, i) for i in range(8)])
    reads: list[int] = []

    class Counting(SampleFiles):
        def read(self, path: Path, start: int, end: int) -> bytes:
            reads.append(end - start)
            return super().read(path, start, end)

    pages = Counting()
    files = sample_files(run_dir)
    assert pages.page(files[10], 0, 100)[1] == 1024  # the first page indexes the file (in 1 MiB chunks)
    reads.clear()
    texts, total = pages.page(files[10], 1000, 100)
    got = json.loads(samples_body("r", texts, total, 11, 100))
    assert got["total"] == 1024 and got["total_pages"] == 11
    assert [s["sample_id"] for s in got["samples"]] == list(range(1000, 1024))
    assert sum(reads) < path.stat().st_size * 25 / 1000  # the last 24 rows, not the step


def test_distributions_keep_raw_values_per_step_and_drop_non_finite(run) -> None:
    store, ingestor, run_dir = run
    lines = [json.dumps({"step": s, "rewards": [0.1 * s, 0.5], "advantages": [0.2, -0.2]}) for s in (1, 2)]
    lines.append('{"step": 3, "rewards": [NaN, 0.25, Infinity, true], "advantages": []}')
    (run_dir / "distributions.jsonl").write_text("\n".join(lines) + "\n" + '{"step": 4, "rew')  # half a line
    ingestor.ingest()
    assert store.distribution_steps("r") == [1, 2, 3]
    assert store.get_distribution("r", None) == (3, {"rewards": [0.25], "advantages": []})
    assert store.get_distribution("r", 1)[1]["rewards"] == [0.1, 0.5]
    with (run_dir / "distributions.jsonl").open("a") as fh:
        fh.write('ards": [1.0], "advantages": [0.0]}\n')
    ingestor.ingest()
    assert store.distribution_steps("r") == [1, 2, 3, 4]


def test_deleting_a_run_forgets_its_distributions(run) -> None:
    store, ingestor, run_dir = run
    (run_dir / "distributions.jsonl").write_text(json.dumps({"step": 1, "rewards": [1.0]}) + "\n")
    ingestor.ingest()
    store.delete_run("r")
    assert store.distribution_steps("r") == []


def test_rewards_bin_over_zero_to_one_in_ten_bins() -> None:
    bins = histogram("rewards", [0.0, 0.05, 0.1, 0.55, 0.999, 1.0])
    assert [b["count"] for b in bins] == [2, 1, 0, 0, 0, 1, 0, 0, 0, 2]
    assert bins[0] == {"binStart": 0.0, "binEnd": 0.1, "count": 2, "range": "0.000-0.100", "type": "rewards"}
    assert bins[-1]["binEnd"] == 1.0 and sum(b["count"] for b in bins) == 6


def test_a_reward_on_a_bin_edge_counts_in_the_bin_it_starts() -> None:
    """0.6 / 0.1 is 5.999999999999999 in floats: 0.6 (a common lcs ratio, 3/5) was counted in 0.5-0.6."""
    counts = [b["count"] for b in histogram("rewards", [0.3, 0.6, 0.7, 0.59])]
    assert counts == [0, 0, 0, 1, 0, 1, 1, 1, 0, 0]


def test_advantages_bin_symmetrically_around_zero() -> None:
    bins = histogram("advantages", [-0.31, 0.0, 0.0, 0.12, 0.3])
    assert bins[0]["binStart"] == -0.35 and bins[-1]["binEnd"] == 0.35  # |max| 0.31 -> 0.35
    assert [b["binStart"] for b in bins].count(0.0) == 1  # 0 is an edge
    assert sum(b["count"] for b in bins) == 5 and bins[5]["count"] == 2  # the zeros: [0, 0.07)
    flat = histogram("advantages", [0.0] * 4)  # every group solved alike: no spread
    assert (flat[0]["binStart"], flat[-1]["binEnd"]) == (-0.05, 0.05)


def test_chart_stats_and_the_untyped_request_lists_every_type() -> None:
    raw = {"rewards": [0.2, 0.4, 0.9], "advantages": [-0.1, 0.1, 0.0]}
    typed = chart(raw, "advantages")
    assert {b["type"] for b in typed["histogramData"]} == {"advantages"} and len(typed["histogramData"]) == 10
    assert typed["stats"]["totalResults"] == 3 and typed["stats"]["minReward"] == -0.1
    every = chart(raw, None)
    assert [b["type"] for b in every["histogramData"]] == ["rewards"] * 10 + ["advantages"] * 10
    assert every["stats"] == {
        "avgReward": pytest.approx(0.5),
        "medianReward": 0.4,
        "minReward": 0.2,
        "maxReward": 0.9,
        "totalResults": 3,
    }
    assert chart({}, None) == {"histogramData": [], "stats": stats([])}
