"""Which files of a dataset folder make up a split: the Hugging Face Hub's naming conventions,
as ``hf download`` lays a dataset out and the trainer loads it.

Pure functions over volume-relative file names, shared by the trainer (files on disk) and the
pre-flight (keys listed from volume storage), so the two cannot disagree on what a split is.
"""

from __future__ import annotations

DATA_SUFFIXES = (".parquet", ".jsonl", ".json", ".ndjson")
SPLIT_NAMES = ("train", "test", "validation", "valid", "val", "dev")


def data_files(names: list[str]) -> list[str]:
    """The loadable files among ``names`` (relative to the dataset folder), hidden ones left out, sorted."""
    return sorted(n for n in names if n.endswith(DATA_SUFFIXES) and not any(p.startswith(".") for p in n.split("/")))


def split_files(names: list[str], split: str) -> list[str]:
    """The files of ``split`` among ``names`` (data files relative to the dataset or subset folder)."""

    def named(name: str) -> bool:
        parts = name.split("/")
        stem = parts[-1].split(".")[0]
        return (
            stem == split
            or stem.startswith(f"{split}-")
            or stem.startswith(f"{split}_")
            or (len(parts) > 1 and parts[-2] == split)
        )

    chosen = [n for n in names if named(n)]
    if chosen:
        return chosen
    has_split_names = any(
        any(n.split("/")[-1].startswith(k) or k in n.split("/")[:-1] for k in SPLIT_NAMES) for n in names
    )
    # The Hub treats files without split names as the train split.
    return list(names) if split == "train" and not has_split_names else []


def split_pairs(subsets: list[str] | None, splits: list[str] | None) -> list[tuple[str | None, str]]:
    """The (subset, split) pairs a [data] table asks for (``splits`` defaults to ["train"])."""
    chosen = splits or ["train"]
    if subsets and splits:
        return list(zip(subsets, splits))
    if subsets:
        return [(s, "train") for s in subsets]
    return [(None, s) for s in chosen]
