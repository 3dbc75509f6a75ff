"""Datasets on the volume (JSONL, JSON, Parquet; HF ``hf download`` layouts), fake data, packing.

Packing follows prime-rl's ``CatDataset``: samples are concatenated into rows of
``seq_len * micro_batch_size`` tokens; a sample that would overflow starts the next row, a single
over-long sample is truncated at the row end, rows are padded and the padding carries no loss.
One row is one micro-batch; a step takes ``batch_size / micro_batch_size`` of them.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from primetui.local.trainer.config import DataConfig
from primetui.sft import dataset_layout as layout
from primetui.local.trainer.tokenizer import PAD, DataFormatError, render, row_to_messages

DATA_SUFFIXES = layout.DATA_SUFFIXES


class DatasetError(RuntimeError):
    """The dataset cannot be used; the message names the path and what to do."""


@dataclass
class Sample:
    ids: np.ndarray
    mask: np.ndarray


def volume_path(name: str, volume_dir: Path | None) -> tuple[Path, str]:
    """Resolve ``datasets/x`` or ``/volume/datasets/x`` inside the volume; returns (real, shown)."""
    if volume_dir is None:
        raise DatasetError(
            f"data.name '{name}' needs a volume, but this run has none; dispatch with --volume <name> "
            'or use data.type = "fake".'
        )
    rel = name[len("/volume") :] if name == "/volume" or name.startswith("/volume/") else name
    rel = rel.lstrip("/")
    root = volume_dir.resolve()
    real = (root / rel).resolve()
    if real != root and root not in real.parents:
        raise DatasetError(f"data.name '{name}' points outside the volume; use a path under /volume.")
    return real, "/volume/" + rel if rel else "/volume"


def _files_under(path: Path) -> list[Path]:
    names = [str(p.relative_to(path).as_posix()) for p in path.rglob("*") if p.is_file()]
    return [path / n for n in layout.data_files(names)]


def split_files(root: Path, subset: str | None, split: str) -> list[Path]:
    """The data files of one (subset, split), following the HF hub file-naming conventions."""
    base = root / subset if subset else root
    if base.is_file():
        return [base] if split == "train" else []
    if not base.is_dir():
        return []
    names = [str(p.relative_to(base).as_posix()) for p in _files_under(base)]
    return [base / n for n in layout.split_files(names, split)]


def read_rows(path: Path) -> list[dict[str, Any]]:
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq
        from pyarrow import ArrowException

        try:
            # One file, read as a file: ``read_table`` would load pyarrow's dataset layer for it (a tenth of
            # a CPU second of imports in each run's start).
            with path.open("rb") as fh:
                return pq.ParquetFile(fh).read().to_pylist()
        except ArrowException as exc:
            raise DatasetError(
                f"{path.name} is not a readable parquet file ({exc}); fix or replace it on the volume."
            ) from exc
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json" and text.lstrip().startswith("["):
        return list(json.loads(text))
    rows = []
    for n, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise DatasetError(
                    f"{path.name} line {n} is not valid JSON ({exc.msg}); fix or remove that line."
                ) from exc
    return rows


def _neighbours(real: Path, shown: str) -> str:
    """What the missing path's folder does hold, with a did-you-mean when a name is close."""
    parent = real.parent
    if not parent.is_dir():
        return ""
    names = sorted(p.name for p in parent.iterdir() if not p.name.startswith("."))
    if not names:
        return f" ({shown.rsplit('/', 1)[0]}/ is empty)"
    folder = shown.rsplit("/", 1)[0]
    listed = ", ".join(names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "")
    close = difflib.get_close_matches(real.name, names, n=1, cutoff=0.6)
    guess = f"; did you mean {folder}/{close[0]}?" if close else ""
    return f" ({folder}/ holds: {listed}{guess})"


def load_sources(
    cfg: DataConfig, volume_dir: Path | None, on_files: Callable[[str, list[str]], None] | None = None
) -> list[tuple[str, list[dict[str, Any]]]]:
    """Every (subset, split) the config asks for, as named row lists; fails clearly when missing.

    ``on_files(label, paths)`` hears which files (as /volume/... paths) make up each split.
    """
    real, shown = volume_path(cfg.name, volume_dir)
    if not real.exists():
        if not cfg.name.startswith(("/", "datasets/")) and cfg.name.count("/") == 1:
            short = cfg.name.split("/")[1]
            raise DatasetError(
                f"Dataset not found on the volume: {shown} does not exist, and runs do not download from the "
                f"Hugging Face hub; download it onto the volume (hf download {cfg.name} --repo-type dataset "
                f'--local-dir /volume/datasets/{short}) and set data.name = "datasets/{short}".'
            )
        raise DatasetError(
            f"Dataset not found on the volume: {shown} does not exist{_neighbours(real, shown)}; put the dataset "
            "there (hf download or prime volumes put) or fix data.name."
        )
    if real.is_dir() and not _files_under(real):
        raise DatasetError(
            f"Dataset directory {shown} is empty (no .parquet, .jsonl or .json files); download the "
            "dataset into it or fix data.name."
        )
    pairs = layout.split_pairs(cfg.subsets, cfg.splits)
    out = []
    for subset, split in pairs:
        files = split_files(real, subset, split)
        label = f"{subset}/{split}" if subset else split
        if not files:
            raise DatasetError(
                f"Dataset {shown} has no files for split '{label}'; check data.splits/data.subsets "
                "against the files on the volume."
            )
        if on_files is not None:
            root = volume_dir.resolve() if volume_dir else real
            on_files(label, ["/volume/" + str(f.resolve().relative_to(root)) for f in files])
        rows: list[dict[str, Any]] = []
        for f in files:
            rows.extend(read_rows(f))
        if not rows:
            raise DatasetError(f"Dataset {shown} split '{label}' has no rows; check the files on the volume.")
        out.append((label, rows))
    return out


def tokenize_rows(
    rows: list[dict[str, Any]], cfg: DataConfig, row_len: int, warn: Callable[[str], None]
) -> list[Sample]:
    samples = []
    for i, row in enumerate(rows):
        try:
            ids, mask = render(row_to_messages(row), cfg.loss_mask)
        except DataFormatError as exc:
            raise DatasetError(str(exc)) from exc
        if not mask[:row_len].any():
            warn(
                f"Skipping example {i} because no trainable tokens were found within the context "
                f"window ({row_len}). This is to prevent NaN loss."
            )
            continue
        samples.append(Sample(ids, mask))
    return samples


class SampleStream:
    """An endless, resumable stream of samples: epochs of a (shuffled, interleaved) order."""

    def __init__(self, sources: list[list[Sample]], cfg: DataConfig) -> None:
        self.sources = sources
        self.cfg = cfg
        self.epoch = 0
        self.pos = 0
        self._order = self._epoch_order(0)

    def _epoch_order(self, epoch: int) -> list[tuple[int, int]]:
        rng = np.random.default_rng(self.cfg.seed + epoch)
        perms = [(rng.permutation(len(s)) if self.cfg.shuffle else np.arange(len(s))) for s in self.sources]
        if len(perms) == 1:
            return [(0, int(i)) for i in perms[0]]
        cursors = [0] * len(perms)
        seen = [False] * len(perms)
        order: list[tuple[int, int]] = []
        probs = self.cfg.probabilities
        turn = 0
        while True:
            if probs:
                p = np.asarray(probs, float)
                src = int(rng.choice(len(perms), p=p / p.sum()))
            else:
                src = turn % len(perms)
                turn += 1
            order.append((src, int(perms[src][cursors[src] % len(perms[src])])))
            cursors[src] += 1
            if cursors[src] >= len(perms[src]):
                seen[src] = True
            if (self.cfg.stopping_strategy == "first_exhausted" and any(seen)) or all(seen):
                return order

    def next(self) -> tuple[Sample, int]:
        if self.pos >= len(self._order):
            self.epoch += 1
            self.pos = 0
            self._order = self._epoch_order(self.epoch)
        src, idx = self._order[self.pos]
        self.pos += 1
        return self.sources[src][idx], src

    def peek(self) -> Sample:
        sample, _ = self.next()
        self.pos -= 1
        return sample

    def state(self) -> dict[str, int]:
        return {"epoch": self.epoch, "pos": self.pos}

    def load_state(self, state: dict[str, int]) -> None:
        self.epoch = int(state["epoch"])
        self._order = self._epoch_order(self.epoch)
        self.pos = int(state["pos"])


class FakeStream:
    """prime-rl's fake data: fixed/variable length, increasing/random ids, all tokens trained."""

    def __init__(self, cfg: DataConfig) -> None:
        self.cfg = cfg
        self.index = 0
        self.epoch = 0

    def next(self) -> tuple[Sample, int]:
        rng = np.random.default_rng([self.cfg.seed, self.index])
        self.index += 1
        n = self.cfg.seq_len if self.cfg.length == "fixed" else int(rng.integers(2, self.cfg.seq_len + 1))
        if self.cfg.input_ids == "increasing":
            ids = (int(rng.integers(0, 256)) + np.arange(n)) % 256
        else:
            ids = rng.integers(0, 256, n)
        mask = np.ones(n, dtype=bool)
        mask[0] = False  # the first token has nothing to be predicted from
        return Sample(ids.astype(np.int32), mask), 0

    def peek(self) -> Sample:
        sample, _ = self.next()
        self.index -= 1
        return sample

    def state(self) -> dict[str, int]:
        return {"index": self.index}

    def load_state(self, state: dict[str, int]) -> None:
        self.index = int(state["index"])


@dataclass
class Row:
    ids: np.ndarray
    mask: np.ndarray
    doc_start: np.ndarray
    num_samples: int
    # (source index, tokens) per packed sample, for the per-split progress ratios
    parts: list[tuple[int, int]]


def pack_row(stream: SampleStream | FakeStream, row_len: int) -> Row:
    """Fill one packed row; the sample that would overflow stays in the stream for the next row."""
    ids = np.full(row_len, PAD, dtype=np.int32)
    mask = np.zeros(row_len, dtype=bool)
    doc_start = np.zeros(row_len, dtype=np.int64)
    used = 0
    count = 0
    parts: list[tuple[int, int]] = []
    while used < row_len:
        sample = stream.peek()
        n = len(sample.ids)
        if used and used + n > row_len:
            break
        _, src = stream.next()
        n = min(n, row_len - used)
        parts.append((src, n))
        ids[used : used + n] = sample.ids[:n]
        mask[used : used + n] = sample.mask[:n]
        doc_start[used : used + n] = used
        used += n
        count += 1
    doc_start[used:] = used
    return Row(ids, mask, doc_start, count, parts)
