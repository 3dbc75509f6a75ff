"""The local tasksets: ``reverse-text`` over a bundled corpus of plain English sentences.

The hosted taskset reads ``PrimeIntellect/Reverse-Text-RL`` from the Hugging Face hub; runs here
never touch the network, so the prompts come from sentences shipped inside this package
(``data/sentences_train.txt`` for training, ``data/sentences_eval.txt`` held out for evals), read
with importlib.resources. Each task is verifiers' ``ReverseTextData(idx, prompt, system_prompt,
answer=prompt[::-1])``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib import resources

from primetui.local.trainer.rl.reward import SYSTEM, answer_for

LOCAL_TASKSETS = ("reverse-text",)
DEFAULT_SPLIT = "train"
"""verifiers' ``ReverseTextConfig.dataset_split``; the bundled corpus stands in for this one split."""
_SPLIT = re.compile(r"^\s*(?P<name>[\w.-]+)\s*(?:\[\s*(?P<lo>-?\d+%?)?\s*:\s*(?P<hi>-?\d+%?)?\s*\])?\s*$")


@dataclass(frozen=True)
class Task:
    idx: int
    prompt: str
    system_prompt: str
    answer: str

    def as_dict(self) -> dict[str, object]:
        return {"idx": self.idx, "prompt": self.prompt, "system_prompt": self.system_prompt, "answer": self.answer}


def module_name(taskset_id: str) -> str:
    """The taskset a hub id names, as verifiers strips it: ``owner/`` prefix and ``@version`` removed."""
    return taskset_id.rsplit("/", 1)[-1].split("@", 1)[0].strip()


def is_local(taskset_id: str) -> bool:
    return module_name(taskset_id) in LOCAL_TASKSETS


def unknown_taskset_message(taskset_id: str, source: str) -> str:
    return (
        f"Taskset '{taskset_id}' of source '{source}' is not available on the local platform "
        f"(available: reverse-text, primeintellect/reverse-text); change its env.taskset.id."
    )


@cache
def _sentences(split: str) -> tuple[str, ...]:
    text = resources.files("primetui.local.trainer.rl").joinpath("data", f"sentences_{split}.txt").read_text("utf-8")
    return tuple(line.strip() for line in text.splitlines() if line.strip())


class BadSplit(ValueError):
    """A ``dataset_split`` the local corpus cannot serve; the message is one sentence for the run's log."""


def _bound(text: str | None, size: int) -> int | None:
    if text is None:
        return None
    if text.endswith("%"):
        return round(int(text[:-1]) * size / 100)
    return int(text)


def split_slice(dataset_split: str, size: int) -> slice:
    """The rows a Hugging Face split string picks (``train``, ``train[:40]``, ``train[10:-5]``,
    ``train[:10%]``), as ``datasets.load_dataset(split=...)`` reads it, over a split of ``size`` rows."""
    found = _SPLIT.match(dataset_split)
    if found is None:
        raise BadSplit(
            f"dataset_split {dataset_split!r} is not a split name with an optional slice "
            f"(e.g. 'train' or 'train[:40]')."
        )
    if found["name"] != DEFAULT_SPLIT:
        raise BadSplit(
            f"Unknown split {found['name']!r}: the local reverse-text corpus has one split, "
            f"{DEFAULT_SPLIT!r} (slices such as 'train[:40]' work)."
        )
    return slice(_bound(found["lo"], size), _bound(found["hi"], size))


def load(taskset_id: str, split: str = "train", dataset_split: str = DEFAULT_SPLIT) -> list[Task]:
    """The tasks of one part (``train`` or ``eval``) of a local taskset, cut to ``dataset_split``'s slice.

    As verifiers' ``ReverseTextTaskset.load``, ``idx`` counts the rows of the slice from 0."""
    if not is_local(taskset_id):
        raise KeyError(taskset_id)
    rows = _sentences(split)
    rows = rows[split_slice(dataset_split, len(rows))]
    if not rows:
        raise BadSplit(
            f"dataset_split {dataset_split!r} selects no rows of the local reverse-text corpus "
            f"({len(_sentences(split))} rows)."
        )
    return [Task(i, s, SYSTEM, answer_for(s)) for i, s in enumerate(rows)]
