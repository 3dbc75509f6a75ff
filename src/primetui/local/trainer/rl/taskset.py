"""The local tasksets: ``reverse-text`` over a bundled corpus of plain English sentences.

The hosted taskset reads ``PrimeIntellect/Reverse-Text-RL`` from the Hugging Face hub; runs here
never touch the network, so the prompts come from sentences shipped inside this package
(``data/sentences_train.txt`` for training, ``data/sentences_eval.txt`` held out for evals), read
with importlib.resources. Each task is verifiers' ``ReverseTextData(idx, prompt, system_prompt,
answer=prompt[::-1])``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import resources

from primetui.local.trainer.rl.reward import SYSTEM, answer_for

LOCAL_TASKSETS = ("reverse-text",)


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
    return (f"Taskset '{taskset_id}' of source '{source}' is not available on the local platform "
            f"(available: reverse-text, primeintellect/reverse-text); change its env.taskset.id.")


@cache
def _sentences(split: str) -> tuple[str, ...]:
    text = resources.files("primetui.local.trainer.rl").joinpath("data", f"sentences_{split}.txt").read_text("utf-8")
    return tuple(line.strip() for line in text.splitlines() if line.strip())


def load(taskset_id: str, split: str = "train") -> list[Task]:
    """The tasks of one split (``train`` or ``eval``) of a local taskset."""
    if not is_local(taskset_id):
        raise KeyError(taskset_id)
    return [Task(i, s, SYSTEM, answer_for(s)) for i, s in enumerate(_sentences(split))]
